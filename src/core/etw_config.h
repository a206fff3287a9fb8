/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_ETW_CONFIG_H
#define PMUK_CORE_ETW_CONFIG_H

/* The configuration blocks pmukit hands to TraceSetInformation(session, class, data,
 * len), built byte by byte (little-endian) from the documented layouts, and the
 * parser of what TraceQueryInformation(TraceProfileSourceListInfo) returns.
 * Portable: the Windows side only passes block.data / block.len / block.info_class.
 *
 *   struct pmuk_etw_block b;
 *   pmuk_etw_profile_interval(&b, 0, 10000);          5  TRACE_PROFILE_INTERVAL
 *   pmuk_etw_source_ids(&b, PMUK_TRACE_PROFILE_SOURCE_CONFIG_INFO, ids, n);   6 / 9
 *   pmuk_etw_event_ids(&b, PMUK_TRACE_PMC_EVENT_LIST_INFO, evs, n);   8 / 21 / 3
 *   pmuk_etw_lbr_config(&b, PMUK_LBR_FILTER_KERNEL);  20 ULONG
 *   TraceSetInformation(h, b.info_class, b.data, (ULONG)b.len);
 *
 * Functions return 0 or a negative PMU_E* with pmu_error_detail() set. */

#include <pmukit/guid.h>
#include <stddef.h>
#include <stdint.h>

/* TRACE_QUERY_INFO_CLASS (evntrace.h). mingw-w64 stops at 19. */
enum pmuk_trace_info_class {
	PMUK_TRACE_STACK_TRACING_INFO = 3,
	PMUK_TRACE_SYSTEM_TRACE_ENABLE_FLAGS_INFO = 4,
	PMUK_TRACE_SAMPLED_PROFILE_INTERVAL_INFO = 5,
	PMUK_TRACE_PROFILE_SOURCE_CONFIG_INFO = 6,
	PMUK_TRACE_PROFILE_SOURCE_LIST_INFO = 7,
	PMUK_TRACE_PMC_EVENT_LIST_INFO = 8,
	PMUK_TRACE_PMC_COUNTER_LIST_INFO = 9,
	PMUK_TRACE_PROVIDER_BINARY_TRACKING = 18,
	PMUK_TRACE_MAX_LOGGERS_QUERY = 19,
	PMUK_TRACE_LBR_CONFIGURATION_INFO = 20,
	PMUK_TRACE_LBR_EVENT_LIST_INFO = 21,
	PMUK_TRACE_MAX_PMC_COUNTER_QUERY = 22,
	PMUK_TRACE_STREAM_COUNT = 23,
	PMUK_TRACE_STACK_CACHING_INFO = 24,
	PMUK_TRACE_PMC_COUNTER_OWNERS = 25,
	PMUK_TRACE_UNIFIED_STACK_CACHING_INFO = 26,
	PMUK_TRACE_PMC_SESSION_INFORMATION = 27,
	PMUK_TRACE_CONTEXT_REGISTER_INFO = 28,
};

/* TRACE_LBR_CONFIGURATION flags (EVNTRACE_LBR_*): each FILTER bit drops that kind. */
#define PMUK_LBR_FILTER_KERNEL        0x001u
#define PMUK_LBR_FILTER_USER          0x002u
#define PMUK_LBR_FILTER_JCC           0x004u
#define PMUK_LBR_FILTER_NEAR_REL_CALL 0x008u
#define PMUK_LBR_FILTER_NEAR_IND_CALL 0x010u
#define PMUK_LBR_FILTER_NEAR_RET      0x020u
#define PMUK_LBR_FILTER_NEAR_IND_JMP  0x040u
#define PMUK_LBR_FILTER_NEAR_REL_JMP  0x080u
#define PMUK_LBR_FILTER_FAR_BRANCH    0x100u
#define PMUK_LBR_CALLSTACK_ENABLE     0x200u

/* KPROFILE_SOURCE ProfileTime: the timer source of SampledProfile. */
#define PMUK_PROFILE_TIME 0u

/* CLASSIC_EVENT_ID: which kernel event (provider GUID + event type/opcode). */
struct pmuk_etw_event_id {
	struct pmu_guid guid;
	uint8_t type;
};

/* Kernel event classes and types pmukit configures. */
extern const struct pmu_guid pmuk_etw_process_guid;  /* 3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c */
extern const struct pmu_guid pmuk_etw_thread_guid;   /* 3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c */
extern const struct pmu_guid pmuk_etw_perfinfo_guid; /* ce1dbfb4-137e-4da6-87b0-3f59aa102cbc */
#define PMUK_ETW_TYPE_CSWITCH 36          /* Thread: CSwitch */
#define PMUK_ETW_TYPE_SAMPLED_PROFILE 46  /* PerfInfo: SampledProfile (timer) */
#define PMUK_ETW_TYPE_PMC_INTERRUPT 47    /* PerfInfo: PMC overflow sample (PERF_PMC_PROFILE) */
#define PMUK_ETW_TYPE_READY_THREAD 50     /* Thread: ReadyThread (EVENT_TRACE_FLAG_DISPATCHER) */

/* Kernel hook ids (PERFINFO_LOG_TYPE_*), what TraceLbrEventListInfo takes. */
#define PMUK_ETW_HOOK_SAMPLED_PROFILE 0x0F2Eu
#define PMUK_ETW_HOOK_PMC_INTERRUPT 0x0F2Fu

/* Classic EnableFlags (evntrace.h EVENT_TRACE_FLAG_*) and their PERFINFO_GROUPMASK
 * twins in Masks[1] (PERF_PROFILE 0x20000002, PERF_CONTEXT_SWITCH 0x20000004,
 * PERF_PMC_PROFILE 0x20000400: the top 3 bits are the mask index). */
#define PMUK_ETW_FLAG_CSWITCH 0x00000010u
#define PMUK_ETW_FLAG_DISPATCHER 0x00000800u
#define PMUK_ETW_FLAG_PROFILE 0x01000000u
#define PMUK_ETW_PERF_PROFILE 0x20000002u
#define PMUK_ETW_PERF_CONTEXT_SWITCH 0x20000004u
#define PMUK_ETW_PERF_PMC_PROFILE 0x20000400u

#define PMUK_ETW_BLOCK_MAX 1024
#define PMUK_ETW_MAX_IDS 64      /* source ids per block */
#define PMUK_ETW_MAX_EVENTS 32   /* CLASSIC_EVENT_IDs per block */
#define PMUK_ETW_MAX_LBR_EVENTS 4 /* TRACE_LBR_MAXIMUM_EVENTS */

struct pmuk_etw_block {
	uint32_t info_class;   /* the TRACE_QUERY_INFO_CLASS to pass with it */
	size_t len;            /* bytes used in data */
	_Alignas(8) uint8_t data[PMUK_ETW_BLOCK_MAX];
};

/* TraceSampledProfileIntervalInfo (5): TRACE_PROFILE_INTERVAL {ULONG Source;
 * ULONG Interval}, 8 bytes. Interval: 100 ns units for ProfileTime, events otherwise. */
int pmuk_etw_profile_interval(struct pmuk_etw_block *b, uint32_t source, uint32_t interval);
/* TraceProfileSourceConfigInfo (6) or TracePmcCounterListInfo (9): ULONG[n]. */
int pmuk_etw_source_ids(struct pmuk_etw_block *b, uint32_t info_class, const uint32_t *ids,
			size_t n);
/* TracePmcEventListInfo (8), TraceStackTracingInfo (3): CLASSIC_EVENT_ID[n], 24 bytes
 * each {GUID EventGuid; UCHAR Type; UCHAR Reserved[7]}. */
int pmuk_etw_event_ids(struct pmuk_etw_block *b, uint32_t info_class,
		       const struct pmuk_etw_event_id *ev, size_t n);
/* TraceLbrEventListInfo (21): ULONG hook ids (PMUK_ETW_HOOK_*), at most 4. */
int pmuk_etw_lbr_events(struct pmuk_etw_block *b, const uint32_t *hooks, size_t n);

/* What a session enables, as a PERFINFO_GROUPMASK for TraceSystemTraceEnableFlagsInfo:
 * mask[0] the classic flags, plus PROFILE / CSWITCH (and DISPATCHER for ReadyThread)
 * with their Masks[1] twins set too, as PerfView does, so a kernel that reads either
 * spelling delivers the events; pmc adds PERF_PMC_PROFILE. */
struct pmuk_etw_groups {
	uint32_t classic;        /* EVENT_TRACE_FLAG_* always on (process, thread, image) */
	int profile, cswitch, ready_thread, pmc;
};
void pmuk_etw_group_mask(const struct pmuk_etw_groups *g, uint32_t mask[8]);

/* The CLASSIC_EVENT_IDs stacks are walked on: SampledProfile (timer), the PMC
 * interrupt (pmc), and for wait analysis CSwitch and ReadyThread. Count in *n. */
void pmuk_etw_stack_events(int timer, int pmc, int wait, struct pmuk_etw_event_id ev[4],
			   size_t *n);
/* TraceLbrConfigurationInfo (20): one ULONG of PMUK_LBR_* flags. */
int pmuk_etw_lbr_config(struct pmuk_etw_block *b, uint32_t flags);

/* How many PMCs a session may use: with sampling on, the ceiling minus the one the
 * timer needs (3 of 4); on events such as CSwitch, the ceiling (4). max_query is what
 * TraceMaxPmcCounterQuery answered, or <= 0 when unknown (then 4, seed 000). */
int pmuk_etw_pmc_budget(int sampling, int max_query);
/* PMU_EBUDGET with a sentence when n counters do not fit that budget. */
int pmuk_etw_pmc_check(size_t n, int sampling, int max_query);

/* One entry of TraceProfileSourceListInfo. */
struct pmuk_etw_source {
	uint32_t id;             /* profile source id (KPROFILE_SOURCE) */
	uint32_t min_interval, max_interval;
	char name[64];           /* Description, UTF-16 -> UTF-8 */
	int generic;             /* enum pmu_generic_event it stands for, -1 if none */
};

/* Parses PROFILE_SOURCE_INFO entries {ULONG NextEntryOffset; ULONG Source;
 * ULONG MinInterval; ULONG MaxInterval; ULONG64 Reserved; WCHAR Description[]}
 * chained by NextEntryOffset (0 ends). *out is malloc'ed (free()). PMU_EFORMAT on a
 * chain that leaves the buffer, loops backwards or lacks a terminating NUL. */
int pmuk_etw_source_list_parse(const void *buf, size_t len, struct pmuk_etw_source **out,
			       size_t *n);
/* Finds the source for a name: a profile-source name ("InstructionRetired", any case)
 * or a pmukit generic event ("instructions", "cycles", ...) mapped through the alias
 * table of event_table.c. NULL (with a detail listing the sources) when none fits. */
/* PMU_EINVAL, naming the source's range, when interval is outside [min, max] of the
 * profile source (unit: "x 100 ns" for the timer, "events" for a PMC). */
int pmuk_etw_interval_check(const struct pmuk_etw_source *s, uint32_t interval,
			    const char *unit);
const struct pmuk_etw_source *pmuk_etw_source_find(const struct pmuk_etw_source *v, size_t n,
						   const char *name);

#endif
