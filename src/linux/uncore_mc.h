/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_UNCORE_MC_H
#define PMUK_LINUX_UNCORE_MC_H

#include <stddef.h>

struct pmu_topology;

/* One memory controller PMU as seen from one CPU: Intel uncore_imc_N and AMD amd_umc_N
 * list one CPU per package in their cpumask, and the same PMU opened on that CPU
 * counts that package's controller. */
struct pmuk_mc {
	char pmu[64];          /* "uncore_imc_0", "amd_umc_3" */
	int cpu;               /* the CPU its counters are opened on */
	int package;           /* that CPU's package, -1 unknown */
	int node;              /* that CPU's NUMA node, -1 unknown */
	int package_nodes;     /* NUMA nodes of that package: > 1 with sub-NUMA clustering,
				* where sysfs does not say which node a controller serves */
	char read_ev[128], write_ev[128]; /* event specs for pmu_event_parse */
	double read_bytes, write_bytes;   /* bytes per count */
	const char *source;    /* where the encodings came from: "sysfs events", ... */
};

/* The memory-controller PMUs of this host (sysfs under the sysroot), one entry per
 * PMU and CPU of its cpumask, sorted by node then PMU. *out is malloc'd (free());
 * with none, 0, *n = 0 and why says why ("no memory-controller PMU: ..."). */
int pmuk_mc_discover(const struct pmu_topology *t, struct pmuk_mc **out, size_t *n,
		     char *why, size_t whysize);

#endif
