/* SPDX-License-Identifier: MIT */
/* pmukit/command.h: the front (src/core/command.c: argument checks, the pid) and what
 * each OS's backend implements (src/linux/command.c with fork/exec, src/windows/
 * process_win.c with CreateProcess CREATE_SUSPENDED). */
#ifndef PMUK_CORE_COMMAND_INT_H
#define PMUK_CORE_COMMAND_INT_H

#include <stddef.h>

#include <pmukit/command.h>

/* The first members of every backend's struct pmu_command (layout asserted there). */
#define PMUK_COMMAND_HEAD \
	int pid;        /* set by os_prepare */ \
	int started;    /* set by os_start, also when the start failed */ \
	int reaped;

struct pmuk_command_head {
	PMUK_COMMAND_HEAD
};

#define PMUK_COMMAND_HEAD_CHECK(T) \
	_Static_assert(offsetof(T, reaped) == offsetof(struct pmuk_command_head, reaped), \
		       "PMUK_COMMAND_HEAD first")

/* Backend: called with checked arguments (argv[0] set, out non-NULL and NULL'ed; cmd
 * non-NULL and, for os_start, not started; wait_status may be NULL). */
int pmuk_command_os_prepare(char *const argv[], struct pmu_command **out);
int pmuk_command_os_start(struct pmu_command *cmd);
int pmuk_command_os_wait(struct pmu_command *cmd, int *wait_status);
/* 1 exited (reaped, *wait_status set if non-NULL), 0 timed out; timeout_ms >= -1. */
int pmuk_command_os_wait_timeout(struct pmu_command *cmd, int timeout_ms, int *wait_status);
void pmuk_command_os_free(struct pmu_command *cmd);

#endif
