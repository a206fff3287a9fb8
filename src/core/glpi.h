/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_GLPI_H
#define PMUK_CORE_GLPI_H

/* A portable parser of what GetLogicalProcessorInformationEx(RelationAll, buf, &len)
 * writes: SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX records back to back, read with
 * little-endian byte loads from our own layout facts (mingw-w64 headers lack
 * GroupCount/GroupMasks[] for nodes and caches, EfficiencyClass and relations 5-7).
 *
 *   pmuk_glpi_parse(buf, len, &topo)  -> a finished topology (source "glpi"):
 *     every processor group (flat CPU id = group * 64 + bit), packages, dies,
 *     cores (efficiency class -> P/E core type on hybrid CPUs), caches with their
 *     sharing CPUs, NUMA nodes (multi-group nodes included).
 *
 * Ids: records of each kind are ordered by their first CPU; package = index of its
 * RelationProcessorPackage record, die = index of its RelationProcessorDie record
 * within the package (0 without such records), core = index of its
 * RelationProcessorCore record within the package, node = NodeNumber. Hybrid: the
 * highest EfficiencyClass is PMU_CORE_PERFORMANCE, lower ones PMU_CORE_EFFICIENCY;
 * one class everywhere is PMU_CORE_UNIFORM. RelationProcessorModule is validated,
 * not modelled; relationships newer than 7 are skipped.
 * Malformed input (a Size below the record header, a Size past the end, a GroupCount
 * or group array past its record, a group number >= PMUK_GLPI_MAX_GROUPS) ->
 * PMU_EFORMAT naming the byte offset of the record; never a crash. */

#include <pmukit/topology.h>
#include <stddef.h>

/* LOGICAL_PROCESSOR_RELATIONSHIP (winnt.h); 5-7 are missing from mingw-w64. */
enum pmuk_glpi_relation {
	PMUK_GLPI_PROCESSOR_CORE = 0,
	PMUK_GLPI_NUMA_NODE = 1,
	PMUK_GLPI_CACHE = 2,
	PMUK_GLPI_PROCESSOR_PACKAGE = 3,
	PMUK_GLPI_GROUP = 4,
	PMUK_GLPI_PROCESSOR_DIE = 5,
	PMUK_GLPI_NUMA_NODE_EX = 6,
	PMUK_GLPI_PROCESSOR_MODULE = 7,
	PMUK_GLPI_ALL = 0xffff,
};

/* Largest processor group number accepted (flat ids stay below 64 * this). */
#define PMUK_GLPI_MAX_GROUPS 1024

/* Parses buf[0..len) into a new, finished topology. */
int pmuk_glpi_parse(const void *buf, size_t len, struct pmu_topology **out);

/* The flat CPU id of the processor with system-wide index `index`, the number ETW
 * gives (GetEventProcessorIndex, KeGetCurrentProcessorIndex): indexes count the
 * active processors group by group in processor-number order, so with groups that
 * are not full (2 x 36 on a 72-CPU host) index 36 is CPU 64. -1 when out of range. */
int pmuk_glpi_index_cpu(const struct pmu_topology *t, unsigned index);

#endif
