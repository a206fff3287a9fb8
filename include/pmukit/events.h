/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_EVENTS_H
#define PMUKIT_EVENTS_H

/* Concern 7: event naming and encoding. A textual event list ("cycles,{a,b}:u",
 * "INST_RETIRED:ANY_P", "cpu/event=0x3c/", "sched:sched_switch", "InstructionRetired")
 * becomes concrete encodings the counting and sampling surfaces open. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pmu_event_kind {
	PMU_EVENT_HARDWARE,   /* generic hardware event (cycles, instructions, ...) */
	PMU_EVENT_SOFTWARE,   /* OS software event (task-clock, page-faults, ...) */
	PMU_EVENT_HW_CACHE,   /* generic cache event (L1-dcache-load-misses, ...) */
	PMU_EVENT_RAW,        /* CPU-specific encoding: rNNNN, libpfm4 name, pmu/terms/ */
	PMU_EVENT_TRACEPOINT, /* subsystem:name */
};

/* One concrete, openable event. The numeric fields use the Linux perf_event ABI
 * numbering (type/config), which is also the portable model's numbering. */
/* name: the event as the user typed it, as perf and `pmukit stat` print it: "cs" stays
 * "cs", "cpu-cycles:u" stays "cpu-cycles:u", "faults:ku" stays "faults:ku" (modifiers as
 * written; when a group adds modifiers the merged set follows, in u, k, h, p order:
 * "{cycles:k}:up" -> "cycles:ukp"). Which event it is lies in kind, generic, type and
 * config, not in the name. On hybrid hosts a generic event becomes one event per core
 * PMU named "cpu_core/cycles/" (modifiers after the slash: "cpu_core/cycles/u"); a
 * name= term in pmu/.../ replaces the name. */
struct pmu_event {
	char name[128];        /* as typed, modifiers included, as printed */
	char pmu[32];          /* the PMU that serves it: "cpu", "cpu_core", "software", ... */
	enum pmu_event_kind kind;
	uint32_t type;         /* perf_event_attr.type */
	uint64_t config;       /* perf_event_attr.config (hybrid: extended PMU type in bits 32-63) */
	uint64_t config1;
	uint64_t config2;
	uint8_t precise_ip;    /* 0-3 from :p, :pp, :ppp */
	uint8_t exclude_user;  /* :k or :h without :u */
	uint8_t exclude_kernel;
	uint8_t exclude_hv;
	int group;             /* 0-based index of the group this event belongs to */
	int group_leader;      /* 1 for the first event of its group */
	int generic;           /* enum pmu_generic_event id, or -1 for CPU-specific events */
};

/* Generic events shared by every OS; the Windows curated profile sources map onto these. */
enum pmu_generic_event {
	PMU_GENERIC_CYCLES,
	PMU_GENERIC_INSTRUCTIONS,
	PMU_GENERIC_CACHE_REFERENCES,
	PMU_GENERIC_CACHE_MISSES,
	PMU_GENERIC_BRANCHES,
	PMU_GENERIC_BRANCH_MISSES,
	PMU_GENERIC_BUS_CYCLES,
	PMU_GENERIC_STALLED_FRONTEND,
	PMU_GENERIC_STALLED_BACKEND,
	PMU_GENERIC_REF_CYCLES,
	PMU_GENERIC_CPU_CLOCK,
	PMU_GENERIC_TASK_CLOCK,
	PMU_GENERIC_PAGE_FAULTS,
	PMU_GENERIC_CONTEXT_SWITCHES,
	PMU_GENERIC_CPU_MIGRATIONS,
	PMU_GENERIC_MINOR_FAULTS,
	PMU_GENERIC_MAJOR_FAULTS,
	PMU_GENERIC_ALIGNMENT_FAULTS,
	PMU_GENERIC_EMULATION_FAULTS,
	PMU_GENERIC_HW_CACHE,  /* any L1-dcache-..., LLC-..., dTLB-... event */
	PMU_GENERIC_COUNT
};

struct pmu_event_list;

/* Parses an event list and resolves every event to its encoding on this host.
 * Errors (PMU_EPARSE, PMU_ENOENT) name the token, its 0-based position and the closest
 * known names in pmu_error_detail(). */
int pmu_event_parse(const char *spec, struct pmu_event_list **out);
size_t pmu_event_list_count(const struct pmu_event_list *list);
const struct pmu_event *pmu_event_list_get(const struct pmu_event_list *list, size_t i);
size_t pmu_event_list_groups(const struct pmu_event_list *list);
void pmu_event_list_free(struct pmu_event_list *list);

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
/* A PMU as the OS lists it (Linux: /sys/bus/event_source/devices/NAME). */
struct pmu_device {
	char name[32];
	uint32_t type;         /* perf_event_attr.type for this PMU */
	int is_core;           /* a CPU core PMU (cpu, cpu_core, cpu_atom, armv8_*) */
	int gp_counters;       /* general-purpose counters, -1 when unknown */
	int fixed_counters;    /* fixed-function counters, -1 when unknown */
	char cpus[256];        /* CPU list it serves ("0-15"), empty when all */
};

/* Looks a PMU up by name (PMU_ENOENT when absent). */
int pmu_device_lookup(const char *name, struct pmu_device *out);
/* The core PMUs of this host: more than one on hybrid CPUs. Returns the count
 * (possibly 0: no hardware PMU) and fills up to max entries. */
int pmu_device_core_list(struct pmu_device *out, int max);

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
/* The events this host knows, for listing ("pmukit list"). */
struct pmu_event_info {
	char name[128];        /* spelling pmu_event_parse accepts */
	char pmu[32];          /* PMU that serves it ("" when none applies) */
	char desc[160];
	enum pmu_event_kind kind;
	int usable;            /* 1 when it can be counted here */
	char reason[160];      /* why not, when usable is 0 */
};

/* Lists generic hardware/software/cache events, the Windows profile-source aliases,
 * sysfs PMU event aliases (msr/tsc/), libpfm4 events of the PMUs present and
 * tracepoints, filtered by pattern (NULL: all): a case-insensitive glob, or a
 * substring when it has no glob characters. *out is freed with pmu_event_catalog_free. */
int pmu_event_catalog(const char *pattern, struct pmu_event_info **out, size_t *n);
void pmu_event_catalog_free(struct pmu_event_info *info);

#ifdef __cplusplus
}
#endif
#endif
