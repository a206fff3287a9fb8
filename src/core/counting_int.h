/* SPDX-License-Identifier: MIT */
/* What the OS-neutral counting code (counting.c, regions.c) asks of each OS's counting backend
 * (src/linux/counters*.c, src/windows/counting_win.c); one definition per OS. */
#ifndef PMUK_CORE_COUNTING_INT_H
#define PMUK_CORE_COUNTING_INT_H

#include <stddef.h>
#include <stdint.h>

#include <pmukit/counting.h>

/* pmu_counters_open() on an array of events (the list's contents): the front's
 * argument checks and opts load, then the backend's pmuk_counters_os_open(). */
int pmuk_counters_open_events(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			      const struct pmu_counters_opts *opts, struct pmu_counters **out);

/* What the front (src/core/counting.c) reads of a handle: the first members of every
 * backend's struct pmu_counters, declared with this macro (each backend asserts the
 * layout). The front keeps the accessors and the argument checks; the backend fills
 * these at open. */
#define PMUK_COUNTERS_HEAD \
	struct pmu_event *ev;  /* [nev]: the events, in the caller's order */ \
	size_t nev; \
	int cpu_target;        /* unit[] are CPUs, else threads */ \
	int *unit;             /* [nunits]: tid (0 = self) or cpu of each unit */ \
	size_t nunits; \
	const char *no_threads; /* why no thread of a task target is counted alone, or NULL */

struct pmuk_counters_head {
	PMUK_COUNTERS_HEAD
};

#define PMUK_COUNTERS_HEAD_CHECK(T) \
	_Static_assert(offsetof(T, no_threads) == offsetof(struct pmuk_counters_head, \
							   no_threads), "PMUK_COUNTERS_HEAD first")

/* Backend. os_open: o is loaded (every field valid), the arguments checked, *out NULL.
 * os_read: index SIZE_MAX reads the sum of every unit, else unit index (checked);
 * out holds nev readings. The rest: the public functions' work on a non-NULL handle. */
int pmuk_counters_os_open(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			  const struct pmu_counters_opts *o, struct pmu_counters **out);
int pmuk_counters_os_read(struct pmu_counters *c, size_t index, struct pmu_reading *out);
int pmuk_counters_os_enable(struct pmu_counters *c);
int pmuk_counters_os_disable(struct pmu_counters *c);
int pmuk_counters_os_reset(struct pmu_counters *c);
const char *pmuk_counters_os_unsupported(const struct pmu_counters *c, size_t i);
int pmuk_counters_os_left_with_group(const struct pmu_counters *c, size_t i);
void pmuk_counters_os_close(struct pmu_counters *c);

/* Fails with PMU_EBUDGET when a group can never fit on its PMU's counters. */
int pmuk_counters_check_budget(const struct pmu_event *ev, size_t n);

/* The events pmu_regions_init(NULL) counts on the calling thread of this host. */
const char *pmuk_counters_self_default(void);

#endif
