/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_DW_PREFETCH_H
#define PMUK_LINUX_DW_PREFETCH_H

/* Recording mode reads each image's DWARF on a second thread as soon as its first
 * mapping is seen: libdw inflates every zlib-compressed debug section when it opens
 * a debug file (libc6-dbg's: ~10 MB, tens of milliseconds), work that then overlaps
 * the reading of the recording instead of stalling its first sample in that image.
 * Safe because each image has a Dwfl of its own (libdw is not thread-safe per
 * Dwfl): a job's Dwfl is touched by the worker only between being queued and
 * pmuk_dw_prefetch_wait() returning; the caller touches it only afterwards. */

#include <elfutils/libdwfl.h>
#include <pthread.h>

/* NONE: the caller's (never queued, taken back, dropped or read) */
enum { PMUK_PF_NONE, PMUK_PF_QUEUED, PMUK_PF_RUNNING };

struct pmuk_dw_job {
	Dwfl_Module *dm;
	int state;              /* PMUK_PF_*, under the worker's lock */
	struct pmuk_dw_job *next;
};

struct pmuk_dw_prefetch {
	pthread_mutex_t lock;
	pthread_cond_t cond;    /* a job queued, a job done, or quit */
	pthread_t thread;
	int started, failed, quit;
	struct pmuk_dw_job *head, *tail;
};

/* elf_version(EV_CURRENT) once per process for pmukit's own libelf readers. Each
 * call writes libelf's "initialized" flag, which elf_begin reads: libdwfl's
 * dwfl_begin makes the same call (elfutils 0.188), so a Dwfl begun while the
 * worker reads still writes it (helgrind reports it; the flag only ever goes
 * from false to true, set before any thread starts). */
void pmuk_dw_elf_init(void);

void pmuk_dw_prefetch_init(struct pmuk_dw_prefetch *pf);
/* Queues dm's DWARF and symbol table to be read (the worker starts with the first
 * job); without a thread the job is left to the caller (state PMUK_PF_NONE). */
void pmuk_dw_prefetch_add(struct pmuk_dw_prefetch *pf, struct pmuk_dw_job *job,
			  Dwfl_Module *dm);
/* From now on the caller owns job's Dwfl: a queued job is taken back (the caller
 * reads the DWARF when it needs it), a running one waited for. */
void pmuk_dw_prefetch_wait(struct pmuk_dw_prefetch *pf, struct pmuk_dw_job *job);
/* No job started from now on: the queued ones are left to the caller (state
 * PMUK_PF_NONE), the one running finishes (wait for it as before). Closing a
 * symbolizer calls it first, so that it does not read what nobody will ask. */
void pmuk_dw_prefetch_quit(struct pmuk_dw_prefetch *pf);
/* Stops the worker; every job must have been waited for. */
void pmuk_dw_prefetch_stop(struct pmuk_dw_prefetch *pf);

#endif
