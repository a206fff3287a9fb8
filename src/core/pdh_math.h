/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_PDH_MATH_H
#define PMUK_CORE_PDH_MATH_H

/* PDH counter-type math, portable: the Windows backend reads
 * "\Processor Information(*)\<counter>" raw (PdhGetRawCounterArrayW), takes the
 * counter type from PdhGetCounterInfoW at run time and hands both here.
 *
 *   pmuk_pdh_cook()      two raw samples -> the value PDH would format
 *                        (percent, per second, ratio, gauge)
 *   pmuk_pdh_track_*()   one counter instance followed over time -> what an
 *                        agent exports: cumulative seconds (timers), cumulative
 *                        counts (counters, 32-bit wrap accumulated), the
 *                        accumulated 32-bit base of PERF_AVERAGE_BULK, gauges;
 *                        backward moves clamped (windows_exporter#1383)
 *   pmuk_pdh_instance_*() "node,index" / "group,index" / "_Total" / "N,_Total"
 *                        instance names -> flat CPU ids through the topology
 *
 * Every function returns 0 or a negative PMU_E* with pmu_error_detail() set.
 * Formulas and worked examples: shared/docs/pdh-math.md section 1.2. */

#include <pmukit/topology.h>
#include <stdint.h>

/* Counter types (winperf.h). Bits 8-9 give the size: 0 = 32 bits, 1 = 64 bits. */
#define PMUK_PERF_100NSEC_TIMER         0x20510500u
#define PMUK_PERF_100NSEC_TIMER_INV     0x21510500u
#define PMUK_PERF_PRECISION_100NS_TIMER 0x20570500u
#define PMUK_PERF_COUNTER_COUNTER       0x10410400u /* 32-bit, wraps */
#define PMUK_PERF_COUNTER_BULK_COUNT    0x10410500u
#define PMUK_PERF_COUNTER_RAWCOUNT      0x00010000u /* 32-bit gauge */
#define PMUK_PERF_COUNTER_LARGE_RAWCOUNT 0x00010100u /* 64-bit gauge */
#define PMUK_PERF_AVERAGE_BULK          0x40020500u /* base: PERF_AVERAGE_BASE, 32-bit */

#define PMUK_PDH_100NS_FREQ 10000000ull /* ticks per second of a 100 ns time stamp */

/* One raw sample of one counter instance (PDH_RAW_COUNTER). */
struct pmuk_pdh_raw {
	uint64_t value;  /* N: FirstValue */
	uint64_t base;   /* B: SecondValue: the base (AVERAGE_BULK) or the provider's own
			  * time stamp (PRECISION_100NS_TIMER); unused by other types */
	uint64_t time;   /* when it was taken, in ticks of the freq argument: T in 100 ns
			  * (freq 10^7) for the 100NSEC timers, PerfTime D with PerfFreq F
			  * for COUNTER / BULK_COUNT */
};

enum pmuk_pdh_unit {
	PMUK_PDH_PERCENT,  /* timers: percent of the interval (0..100, per CPU) */
	PMUK_PDH_PER_SEC,  /* COUNTER, BULK_COUNT: events per second */
	PMUK_PDH_RATIO,    /* AVERAGE_BULK: dN/dB (already a percentage for the
			    * % Processor Utility / Performance counters; can exceed 100) */
	PMUK_PDH_GAUGE,    /* RAWCOUNT: the last value as is */
};

struct pmuk_pdh_value {
	double value;
	enum pmuk_pdh_unit unit;
	int clamped;       /* 1 when a raw value moved backwards and counted as no change */
};

/* 1 when type is one this file knows. */
int pmuk_pdh_type_known(uint32_t type);
/* "PERF_100NSEC_TIMER", ... or "unknown". */
const char *pmuk_pdh_type_name(uint32_t type);

/* Cooks prev -> cur of a counter of type `type` (freq: ticks per second of .time).
 * PMU_ENOTSUP for an unknown type, PMU_EINVAL when the interval is empty (same time
 * stamp, or same base for AVERAGE_BULK / PRECISION timer). Gauges need only cur
 * (prev may be NULL). A value that moved backwards counts as unchanged (clamped=1);
 * PERF_COUNTER_COUNTER and the AVERAGE_BULK base wrap modulo 2^32 instead. */
int pmuk_pdh_cook(uint32_t type, const struct pmuk_pdh_raw *prev,
		  const struct pmuk_pdh_raw *cur, uint64_t freq, struct pmuk_pdh_value *out);

/* One counter instance followed over time, for agents. */
struct pmuk_pdh_track {
	uint32_t type;
	uint64_t freq;
	int nsamples;
	struct pmuk_pdh_raw last;  /* the high-water raw sample deltas are taken from */
	uint64_t total;      /* accumulated raw deltas of N since the first sample */
	uint64_t base_total; /* accumulated deltas of B (AVERAGE_BULK: modulo 2^32) */
	uint64_t clamps;     /* backward moves seen */
	struct pmuk_pdh_value value; /* cooked value of the last interval (valid when nsamples > 1) */
};

/* PMU_ENOTSUP (with the type in hex) for an unknown type. */
int pmuk_pdh_track_init(struct pmuk_pdh_track *t, uint32_t type, uint64_t freq);
/* Adds a sample. Backward moves: a timer that steps back by less than 3 s keeps its
 * high-water mark (jitter of 1/64 s, windows_exporter#1383); a larger step back, or
 * any step back of BULK_COUNT, restarts from the new value (a reset); neither
 * lowers total. Returns 0, or PMU_EINVAL when the interval was empty (the sample
 * is still taken, value not updated). */
int pmuk_pdh_track_add(struct pmuk_pdh_track *t, const struct pmuk_pdh_raw *raw);
/* The agent's cumulative value: seconds for the three timer types (the
 * PERF_100NSEC_TIMER_INV raw counts idle time, so this is idle seconds), events for
 * COUNTER / BULK_COUNT, accumulated N for AVERAGE_BULK (its base: base_total),
 * the last value for gauges. */
double pmuk_pdh_track_total(const struct pmuk_pdh_track *t);

/* PDH's buffer-sizing protocol (PdhGetCounterInfoW, PdhGetRawCounterArrayW): a call
 * with size 0 answers PDH_MORE_DATA and the size it needs; a call whose non-zero size
 * is too small answers PDH_MORE_DATA with a size not to be trusted, or on some releases
 * PDH_INVALID_ARGUMENT. Only the size-0 answer may size the buffer, and the need can
 * grow between calls (instances come and go). */
#define PMUK_PDH_MORE_DATA        0x800007D2u
#define PMUK_PDH_INVALID_ARGUMENT 0xC0000BBDu

/* One PDH call into buf of *size bytes (buf NULL when *size is 0); returns its status. */
typedef uint32_t (*pmuk_pdh_call_fn)(void *ctx, uint32_t *size, void *buf);
/* Calls fn into *buf (*cap bytes, grown with realloc; the caller frees it) until the
 * answer fits. 0, PMU_ENOMEM, or PMU_EIO naming `what` and the PDH status. */
int pmuk_pdh_sized_call(pmuk_pdh_call_fn fn, void *ctx, void **buf, uint32_t *cap,
			const char *what);

/* Instance names of "Processor Information". */
enum pmuk_pdh_inst_kind {
	PMUK_PDH_INST_CPU,       /* "A,B": one logical processor */
	PMUK_PDH_INST_SUBTOTAL,  /* "A,_Total": the aggregate of node (or group) A */
	PMUK_PDH_INST_TOTAL,     /* "_Total" */
};

struct pmuk_pdh_instance {
	enum pmuk_pdh_inst_kind kind;
	int first;   /* A: the NUMA node (Microsoft's help text) or processor group */
	int index;   /* B: processor index within A; -1 for totals */
};

/* How to read A in "A,B". */
enum pmuk_pdh_scheme {
	PMUK_PDH_BY_NODE,   /* A = NUMA node, B = index among the node's CPUs (ascending flat ids) */
	PMUK_PDH_BY_GROUP,  /* A = processor group, B = bit: flat id A*64 + B */
};

/* Parses an instance name (ASCII; the Windows side converts from UTF-16).
 * PMU_EPARSE when it is none of the three forms. */
int pmuk_pdh_instance_parse(const char *name, struct pmuk_pdh_instance *out);
/* Maps a PMUK_PDH_INST_CPU instance to its flat CPU id; PMU_ENOENT when the topology
 * has no such CPU, PMU_EINVAL for totals. BY_NODE on a topology without NUMA
 * nodes treats every CPU as node 0. */
int pmuk_pdh_instance_cpu(const struct pmu_topology *t, enum pmuk_pdh_scheme scheme,
			  const struct pmuk_pdh_instance *inst, int *cpu);

/* Decides how to read every "A,B" of one read of the counter set, names[0, n) (totals
 * may be among them): Microsoft's help text says node,index, seed 004 shows
 * group,processor on a 1-node host, and the two differ once nodes and groups do not
 * line up (a node spanning groups, several nodes in one group). The topology's
 * choice comes first: BY_GROUP with at most one NUMA node, else BY_NODE; when the
 * names do not fit it (a CPU missing or named twice, an A with no node or group)
 * but fit the other scheme, the other. PMU_ENOENT naming an instance when the
 * names fit neither. */
int pmuk_pdh_instance_scheme(const struct pmu_topology *t, const char *const *names,
			     size_t n, enum pmuk_pdh_scheme *out);

/* The current clock of a CPU in MHz from PDH: "Processor Frequency" is the nominal
 * clock, so current = nominal x % Processor Performance / 100 (pdh-math.md 1.2);
 * "Actual Frequency", when the host has it (actual_mhz > 0), is that product
 * already. perf_percent 0 (not known yet: it needs two samples) gives the nominal
 * clock; 0 when neither is known. */
double pmuk_pdh_current_mhz(double nominal_mhz, double perf_percent, double actual_mhz);

#endif
