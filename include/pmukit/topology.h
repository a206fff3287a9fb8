/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TOPOLOGY_H
#define PMUKIT_TOPOLOGY_H

/* Concern 6: CPU topology. machine -> packages -> dies -> cores -> logical CPUs,
 * caches and NUMA nodes, filled by hwloc or sysfs on Linux and by
 * GetLogicalProcessorInformationEx on Windows. CPU ids are the OS logical ids.
 *
 * Ids in these structs are OS ids (Linux: physical_package_id, die_id, core_id,
 * node number); -1 means unknown (e.g. an offline CPU the OS says nothing about).
 * A core id is unique only within its package, so cores are also numbered by
 * their index in pmu_topology_core(). Every pointer returned lives as long as
 * the topology. */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pmukit/json.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pmu_core_type {
	PMU_CORE_UNIFORM,     /* not a hybrid CPU: every core is of one kind */
	PMU_CORE_PERFORMANCE, /* hybrid: a big / P-core (highest efficiency class) */
	PMU_CORE_EFFICIENCY,  /* hybrid: a little / E-core */
};

enum pmu_cache_type {
	PMU_CACHE_UNIFIED,
	PMU_CACHE_DATA,
	PMU_CACHE_INSTRUCTION,
};

/* The library's, by pointer, as every pmu_topo_* item: grows by appending
 * (pmukit/opts.h). */
struct pmu_topo_package {
	int id;                /* OS package id */
	size_t ndies, ncores, ncpus;
};

struct pmu_topo_die {
	int id;                /* OS die id, unique within its package (0 when the OS has none) */
	int package;           /* OS package id */
	size_t ncores, ncpus;
};

struct pmu_topo_core {
	int id;                /* OS core id, unique within its package */
	int package;           /* OS package id */
	int die;               /* OS die id */
	enum pmu_core_type type;
	int efficiency;        /* efficiency class: 0 = most power-efficient; equal on uniform CPUs */
	const char *pmu;       /* core PMU serving it ("cpu", "cpu_core", "armv8_pmuv3_0"), "" if none */
	const int *cpus;       /* its logical CPUs, ascending */
	size_t ncpus;
};

struct pmu_topo_cpu {
	int id;                /* OS logical CPU id */
	int online;
	int package, die, core; /* OS ids; -1 when unknown */
	int core_index;        /* index for pmu_topology_core(); -1 when unknown */
	int node;              /* NUMA node id; -1 when unknown */
	int smt;               /* position among its core's CPUs (0 = first thread); -1 unknown */
	enum pmu_core_type type;
	int efficiency;
	const char *pmu;       /* as in pmu_topo_core */
};

struct pmu_topo_cache {
	int level;             /* 1, 2, 3, ... */
	enum pmu_cache_type type;
	uint64_t size;         /* bytes */
	unsigned line_size;    /* bytes; 0 when unknown */
	int ways;              /* associativity; 0 unknown, -1 fully associative */
	const int *cpus;       /* the CPUs sharing this instance, ascending */
	size_t ncpus;
};

struct pmu_topo_node {
	int id;                /* OS node id */
	uint64_t memory;       /* bytes of local memory (0 when unknown) */
	const int *cpus;       /* ascending */
	size_t ncpus;
};

struct pmu_topology;

/* Discovers the topology of this host (Linux: hwloc, or sysfs under a sysroot). */
int pmu_topology_load(struct pmu_topology **out);
void pmu_topology_free(struct pmu_topology *t);

/* Arrays, each sorted by id (caches: by level, type, then first CPU). */
size_t pmu_topology_package_count(const struct pmu_topology *t);
const struct pmu_topo_package *pmu_topology_package(const struct pmu_topology *t, size_t i);
size_t pmu_topology_die_count(const struct pmu_topology *t);
const struct pmu_topo_die *pmu_topology_die(const struct pmu_topology *t, size_t i);
size_t pmu_topology_core_count(const struct pmu_topology *t);
const struct pmu_topo_core *pmu_topology_core(const struct pmu_topology *t, size_t i);
/* Every present CPU, online or not. */
size_t pmu_topology_cpu_count(const struct pmu_topology *t);
const struct pmu_topo_cpu *pmu_topology_cpu(const struct pmu_topology *t, size_t i);
size_t pmu_topology_cache_count(const struct pmu_topology *t);
const struct pmu_topo_cache *pmu_topology_cache(const struct pmu_topology *t, size_t i);
size_t pmu_topology_node_count(const struct pmu_topology *t);
const struct pmu_topo_node *pmu_topology_node(const struct pmu_topology *t, size_t i);
/* Distance between NUMA nodes i and j (array indices, not ids), as the OS reports
 * it (10 = local); 0 when unknown. */
int pmu_topology_node_distance(const struct pmu_topology *t, size_t i, size_t j);

/* Cheap lookups. */
const struct pmu_topo_cpu *pmu_topology_cpu_by_id(const struct pmu_topology *t, int cpu);
/* The online CPU ids, ascending; *n gets their count. */
const int *pmu_topology_online_cpus(const struct pmu_topology *t, size_t *n);
int pmu_topology_cpu_package(const struct pmu_topology *t, int cpu); /* -1 unknown */
int pmu_topology_cpu_core(const struct pmu_topology *t, int cpu);    /* core index, -1 unknown */
int pmu_topology_cpu_node(const struct pmu_topology *t, int cpu);    /* -1 unknown */
/* 1 when cores are of more than one type (P/E, big.LITTLE). */
int pmu_topology_is_hybrid(const struct pmu_topology *t);
/* Which discovery filled it: "hwloc", "sysfs", ... */
const char *pmu_topology_source(const struct pmu_topology *t);

/* Which NUMA node backs each page of the calling process (Linux: move_pages in query
 * mode; Windows: QueryWorkingSetEx). nodes[i] gets the node id of the page holding
 * addrs[i], or -1 when that page is not resident (never touched, swapped out). */
int pmu_memory_nodes(const void *const *addrs, size_t n, int *nodes);

/* Where a page of a process lives, or why no node can be given for it. */
enum pmu_page_state {
	PMU_PAGE_ON_NODE,       /* in memory on node */
	PMU_PAGE_NOT_PRESENT,   /* mapped but not in memory: never touched, or swapped out */
	PMU_PAGE_NOT_MAPPED,    /* nothing mapped there (Linux: or only the shared zero page) */
	PMU_PAGE_NO_PERMISSION, /* the caller may not inspect that process */
	PMU_PAGE_PROCESS_GONE,  /* no such process (it exited) */
	PMU_PAGE_UNKNOWN,       /* the OS answered with something else */
};

struct pmu_page_node {
	int node;                  /* the node id with PMU_PAGE_ON_NODE, else -1 */
	enum pmu_page_state state;
};

/* Which node holds the page of each address of process pid (0: the caller). Every
 * address gets an answer, with the reason where there is no node; a process that is
 * gone or not ours to inspect is an answer too (all its pages), not an error.
 * Linux: move_pages in query mode (another user's process needs CAP_SYS_NICE);
 * Windows: QueryWorkingSetEx + VirtualQueryEx. Any n: batched internally.
 * Errors: PMU_ENOTSUP when the OS has no such query (kernel without NUMA). */
int pmu_memory_query(int pid, const uint64_t *addrs, size_t n, struct pmu_page_node *out);
/* "on node", "not present", "not mapped", "no permission", "process gone", "unknown". */
const char *pmu_page_state_name(enum pmu_page_state state);

/* "0-3,8" style list of ids into buf (truncated lists end in "..."). */
int pmu_cpulist_format(const int *ids, size_t n, char *buf, size_t size);
const char *pmu_core_type_name(enum pmu_core_type type);   /* "uniform", "performance", ... */
const char *pmu_cache_type_name(enum pmu_cache_type type); /* "unified", "data", "instruction" */

/* One JSON object with the arrays packages, dies, cores, cpus, caches and
 * numa_nodes; their members carry the names of the struct fields above
 * (node -> numa_node, memory -> memory_bytes, type -> core_type / type). */
int pmu_topology_write_json(const struct pmu_topology *t, FILE *f, unsigned flags); /* pmukit/json.h */
/* One screen of aligned text for people. */
int pmu_topology_write_text(const struct pmu_topology *t, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
