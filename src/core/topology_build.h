/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_TOPOLOGY_BUILD_H
#define PMUK_CORE_TOPOLOGY_BUILD_H

#include <pmukit/topology.h>
#include "core/cpulist.h"

/* The portable builder every OS backend fills: declare the CPUs, say where each
 * sits, add caches and NUMA nodes, then pmuk_topo_finish() derives packages,
 * dies, cores and SMT positions. Ids are OS ids. Each call returns 0 or PMU_E*. */

int pmuk_topo_new(struct pmu_topology **out, const char *source);
/* Declares a present CPU; calling it again updates online. */
int pmuk_topo_add_cpu(struct pmu_topology *t, int cpu, int online);
/* Where an (online) CPU sits; die 0 when the OS knows no dies. */
int pmuk_topo_set_cpu_location(struct pmu_topology *t, int cpu, int package, int die, int core);
int pmuk_topo_set_cpu_kind(struct pmu_topology *t, int cpu, enum pmu_core_type type,
			   int efficiency);
int pmuk_topo_set_cpu_pmu(struct pmu_topology *t, int cpu, const char *pmu);
/* One cache instance; an identical instance (level, type, CPUs) added again is ignored,
 * so a backend may add the cache of every CPU that sees it. */
int pmuk_topo_add_cache(struct pmu_topology *t, int level, enum pmu_cache_type type,
			uint64_t size, unsigned line_size, int ways, const int *cpus, size_t n);
/* A NUMA node and its CPUs (their node is set from this). */
int pmuk_topo_add_node(struct pmu_topology *t, int node, uint64_t memory, const int *cpus,
		       size_t n);
/* Distance from node `from` to node `to` (both added before). */
int pmuk_topo_set_distance(struct pmu_topology *t, int from, int to, int distance);
/* Sorts, derives packages/dies/cores, and fills the lookups. Call once, last. */
int pmuk_topo_finish(struct pmu_topology *t);

/* Read access for backends between calls (NULL when the CPU was not added). */
struct pmu_topo_cpu *pmuk_topo_cpu_mut(struct pmu_topology *t, int cpu);

#endif
