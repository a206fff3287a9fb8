/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_TOPOLOGY_LINUX_H
#define PMUK_LINUX_TOPOLOGY_LINUX_H

#include <stddef.h>
#include <stdint.h>

#include "core/topology_build.h"

/* The Linux topology backends. Both start from pmuk_topo_linux_cpus() and end with
 * pmuk_topo_linux_kinds(), so the CPU set, PMUs and core kinds come from the same
 * sysfs files (through the sysroot) whichever fills the structure. */

/* Plain sysfs: cpuN/topology, cpuN/cache, node/nodeN. Works under any sysroot. */
int pmuk_topology_load_sysfs(struct pmu_topology **out);
#ifdef PMUKIT_HAVE_HWLOC
/* hwloc (the live host only: hwloc reads the real /sys, not pmukit's sysroot). */
int pmuk_topology_load_hwloc(struct pmu_topology **out);
#endif

/* Declares the present CPUs (cpu/present, else cpu/possible) and which are online. */
int pmuk_topo_linux_cpus(struct pmu_topology *t);
/* Sets each CPU's core PMU (a PMU listing it in its cpus file, else "cpu") and, on
 * hybrid CPUs, its core type and efficiency class (cpu_core/cpu_atom, cpu_capacity). */
int pmuk_topo_linux_kinds(struct pmu_topology *t);

/* The CPUs of NUMA node `node` as the kernel lists them (node/nodeN/cpulist: none for
 * a memory-only node); every declared CPU when the kernel has no NUMA (no nodeN
 * directory), one node then holding everything. *ids is malloc'd. */
int pmuk_topo_linux_node_cpus(struct pmu_topology *t, int node, int **ids, size_t *n);

/* Reads a CPU list file ("0-3,8") named by a format relative to the sysroot;
 * *ids is malloc'd. PMU_ENOENT when the file is absent. */
int pmuk_topo_read_list(int **ids, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
