/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_TARGET_H
#define PMUK_LINUX_TARGET_H

#include <stddef.h>

#include <pmukit/counting.h>

/* What a struct pmu_target expands to right now: the threads (tid, 0 = the calling
 * thread) or the CPUs to open one perf_event per. */
struct pmuk_units {
	int *id;
	size_t n;
	int cpu;        /* ids are CPUs (PMU_TARGET_CPUS) */
};

int pmuk_target_units(const struct pmu_target *t, struct pmuk_units *out);
void pmuk_units_free(struct pmuk_units *u);

#endif
