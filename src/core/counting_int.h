/* SPDX-License-Identifier: MIT */
/* What the OS-neutral counting code (regions.c) asks of each OS's counting backend
 * (src/linux/counters*.c, src/windows/counting_win.c); one definition per OS. */
#ifndef PMUK_CORE_COUNTING_INT_H
#define PMUK_CORE_COUNTING_INT_H

#include <stddef.h>

#include <pmukit/counting.h>

/* pmu_counters_open() on an array of events (the list's contents). */
int pmuk_counters_open_events(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			      const struct pmu_counters_opts *o, struct pmu_counters **out);

/* Fails with PMU_EBUDGET when a group can never fit on its PMU's counters. */
int pmuk_counters_check_budget(const struct pmu_event *ev, size_t n);

/* The events pmu_regions_init(NULL) counts on the calling thread of this host. */
const char *pmuk_counters_self_default(void);

#endif
