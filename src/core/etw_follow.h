/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_ETW_FOLLOW_H
#define PMUK_CORE_ETW_FOLLOW_H

/* Which context switches of an ETW PMC-on-CSwitch session belong to the counted
 * target (issue 13 item 6): a thread, a process, or a command's process tree
 * followed through Process Start/DCStart ParentId (core/pidtree.h), as perf's
 * inherit follows fork. Kept apart from the consumer so that a recorded event
 * sequence decides the same here as on Windows.
 *
 * A thread's membership is decided when the thread becomes known (Thread Start or
 * rundown, or the caller's lookup) and kept until its id is started again: the
 * last thread of a process switches out after its Thread/End and Process/End
 * events, and that last slice is still the process's. */

#include <stdint.h>

struct pmu_etl_event;
struct pmuk_etw_follow;

enum pmuk_follow_kind {
	PMUK_FOLLOW_THREAD,   /* id: a thread id */
	PMUK_FOLLOW_PROCESS,  /* id: a process id, its threads only */
	PMUK_FOLLOW_TREE,     /* id: a process id, and every process it starts */
};

int pmuk_etw_follow_new(enum pmuk_follow_kind kind, uint32_t id, struct pmuk_etw_follow **out);
void pmuk_etw_follow_free(struct pmuk_etw_follow *f);
/* Process and Thread start, end and rundown events update the target; any other
 * event is ignored. 0, PMU_ENOMEM, or the decoder's error for a damaged payload. */
int pmuk_etw_follow_event(struct pmuk_etw_follow *f, const struct pmu_etl_event *ev);
/* A thread whose process the caller looked up (a thread older than the session
 * whose rundown has not arrived). 0 or PMU_ENOMEM. */
int pmuk_etw_follow_thread(struct pmuk_etw_follow *f, uint32_t tid, uint32_t pid);
/* For a CSwitch's OldThreadId: 1 the slice is the target's, 0 not, -1 the thread is
 * unknown (look its process up and call pmuk_etw_follow_thread). Thread 0 (idle)
 * is never the target's. */
int pmuk_etw_follow_switch(const struct pmuk_etw_follow *f, uint32_t old_tid);
/* Processes that have been the target's (the root included); 1 unless TREE. */
uint64_t pmuk_etw_follow_processes(const struct pmuk_etw_follow *f);

#endif
