/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TRACE_H
#define PMUKIT_TRACE_H

/* The record source: one way to read any recording, whatever wrote it.
 *
 *   format            written by
 *   perf.data (file)  pmukit record, perf record (also -z: zstd-compressed records)
 *   perf.data (pipe)  perf record -o - (headers arrive as records)
 *   .etl              Windows ETW sessions (pmukit record on Windows, xperf, WPR)
 *
 * pmu_trace_open() sniffs the format and reads what later records need first
 * (events, metadata); pmu_trace_read() delivers every record as a pmu_record
 * (pmukit/sampling.h) in time order, so a consumer such as pmu_report never
 * looks at where a record came from:
 *
 *	struct pmu_trace *t;
 *	if (!pmu_trace_open("perf.data", NULL, &t)) {
 *		pmu_trace_read(t, my_record_fn, my_ctx);
 *		pmu_trace_close(t);
 *	}
 *
 * A corrupt or truncated file: what was read before the damage is delivered,
 * then PMU_EFORMAT with pmu_error_detail() naming the byte offset and what was
 * expected there; pmu_trace_stats() says how much was skipped. */

#include <stddef.h>
#include <stdint.h>

#include <pmukit/opts.h>
#include <pmukit/sampling.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pmu_trace_format {
	PMU_TRACE_PERF_FILE,   /* perf.data, PERFILE2 with sections */
	PMU_TRACE_PERF_PIPE,   /* perf.data as a stream: perf record -o - */
	PMU_TRACE_ETL,         /* Windows Event Trace Log */
};

/* "perf.data", "perf.data (pipe)", ".etl" ("unknown" out of range). */
const char *pmu_trace_format_name(enum pmu_trace_format f);

/* Problems met and worked around (a record skipped, a header feature that does
 * not parse): one sentence each. Hard errors are return values instead. */
typedef void (*pmu_trace_warn_fn)(const char *msg, void *ctx);

struct pmu_trace_opts {
	size_t sz;                 /* sizeof(struct pmu_trace_opts) */
	pmu_trace_warn_fn warn;    /* NULL: problems are only counted */
	void *warn_ctx;
	/* How long (recording time) records are held to put them in time order
	 * when the file does not say (perf.data before its first FINISHED_ROUND;
	 * .etl stacks that arrive after their sample). 0: the format's default
	 * (perf.data: held until the first FINISHED_ROUND, as perf does, and at
	 * most 64 MiB of records held). */
	uint64_t reorder_window_ns;
};
#define pmu_trace_opts__last_field reorder_window_ns /* see pmukit/opts.h */

/* An event of the recording (perf.data: one attr). The library's, by pointer:
 * grows by appending (pmukit/opts.h). */
struct pmu_trace_event {
	const char *name;          /* "cycles", "sched:sched_switch", "cpu-clock:u" */
	uint32_t type;             /* PERF_TYPE_* (perf.data), 0 elsewhere */
	uint64_t config, config1, config2;
	uint64_t sample_type;      /* PERF_SAMPLE_* bits (perf.data) */
	uint64_t read_format;
	uint64_t period;           /* sample period, or frequency when freq */
	int freq;
	uint64_t branch_sample_type;
	uint64_t regs_user;        /* sample_regs_user mask */
	uint32_t stack_user;       /* sample_stack_user bytes */
	int clockid;               /* use_clockid ? clockid : -1 */
	int exclude_user, exclude_kernel, exclude_hv;
	int precise_ip;
	const void *attr;          /* perf.data: the perf_event_attr as stored */
	uint32_t attr_size;
	const uint64_t *ids;       /* the ids records of this event carry */
	size_t nr_ids;
};

/* What the recording says of itself; the library's, by pointer: grows by
 * appending. Strings are "" when the file does not say, numbers 0. */
struct pmu_trace_info {
	enum pmu_trace_format format;
	const char *hostname;
	const char *os_release;    /* uname -r (Windows: the build) */
	const char *arch;          /* uname -m */
	const char *cpu_desc;      /* "Intel(R) Xeon(R) ..." */
	const char *cpuid;         /* perf's vendor,family,model,stepping */
	const char *cmdline;       /* the recording command, words joined by spaces */
	const char *version;       /* the writer's version ("6.1.0", "pmukit 0.1.0") */
	uint32_t nr_cpus_online, nr_cpus_avail;
	uint64_t total_mem_kb;
	int clockid;               /* the clock of sample times, -1 unknown */
	uint64_t time_zero;        /* time of the first record (for relative times) */
	uint64_t first_sample_time, last_sample_time; /* HEADER_SAMPLE_TIME, else 0 */
	uint64_t data_size;        /* bytes of records */
	int compressed;            /* records are zstd-compressed (perf record -z) */
	/* The tracepoint format files (perf.data HEADER_TRACING_DATA), for
	 * decoding tracepoint payloads elsewhere; NULL, 0 when absent. */
	const void *tracing_data;
	size_t tracing_data_size;
};

/* Grows by appending; filled by the caller's size (pmukit/opts.h). */
struct pmu_trace_stats {
	uint64_t records;          /* delivered, every kind */
	uint64_t samples;
	uint64_t lost;             /* sum of LOST counts (records dropped at a full ring) */
	uint64_t lost_samples;     /* sum of LOST_SAMPLES counts */
	uint64_t throttles;
	uint64_t skipped;          /* records of kinds outside the model (not delivered) */
	uint64_t bytes_skipped;    /* input bytes skipped as corrupt or truncated */
	uint64_t out_of_order;     /* records that arrived after the reorder window had
				      passed them: delivered late, out of time order */
};

struct pmu_trace;

/* Opens a recording: PMU_ENOENT (no such file), PMU_EFORMAT (not a recording
 * pmukit reads, or its header is corrupt: the detail says which and where),
 * PMU_EIO, PMU_ENOMEM. "-" reads perf.data (pipe mode) from standard input. */
int pmu_trace_open(const char *path, const struct pmu_trace_opts *opts, struct pmu_trace **out);

/* Delivers every record in time order (records without a time keep their
 * place). Returns 0, cb's nonzero value, or a negative PMU_E* code: PMU_EFORMAT
 * once corrupt input stops the read (records before it were delivered). Can be
 * called once. */
int pmu_trace_read(struct pmu_trace *t, pmu_record_fn cb, void *ctx);

const struct pmu_trace_info *pmu_trace_info(const struct pmu_trace *t);
/* pmu_record.event indexes these. */
size_t pmu_trace_event_count(const struct pmu_trace *t);
const struct pmu_trace_event *pmu_trace_event(const struct pmu_trace *t, size_t i);
/* Names of the counters SWITCH records carry readings of (pmu_switch.pmc). */
size_t pmu_trace_pmc_count(const struct pmu_trace *t);
const char *pmu_trace_pmc_name(const struct pmu_trace *t, size_t i);

/* Build-ids the recording lists apart from its MMAP records (perf.data
 * HEADER_BUILD_ID): the reader already puts them on the MMAP records it
 * delivers; these are for tools that list them. */
struct pmu_trace_build_id {
	const char *path;
	int32_t pid;               /* -1: the host (perf writes -1 for every module of
				      the host, kernel or not); a guest's pid otherwise */
	uint8_t build_id[20];
	uint8_t build_id_size;
};
size_t pmu_trace_build_id_count(const struct pmu_trace *t);
const struct pmu_trace_build_id *pmu_trace_build_id(const struct pmu_trace *t, size_t i);

/* Fills out, size bytes of it: pass sizeof(*out) (see pmukit/opts.h). */
int pmu_trace_stats(const struct pmu_trace *t, struct pmu_trace_stats *out, size_t size);
void pmu_trace_close(struct pmu_trace *t);

/* Tracepoint payloads (samples with PMU_HAS_RAW of a tracepoint event), decoded
 * by name with the format files the recording carries (else this machine's
 * tracefs). One field per call of fn. */
enum pmu_tp_field_kind { PMU_TP_INT, PMU_TP_UINT, PMU_TP_STRING, PMU_TP_BYTES };
struct pmu_tp_field {
	const char *name;
	enum pmu_tp_field_kind kind;
	int64_t i;                 /* PMU_TP_INT */
	uint64_t u;                /* PMU_TP_UINT */
	const char *str;           /* PMU_TP_STRING (NUL-terminated) */
	const void *bytes;         /* PMU_TP_BYTES: arrays, as stored */
	size_t size;
};
typedef int (*pmu_tp_field_fn)(const struct pmu_tp_field *f, void *ctx);
/* PMU_ENOENT when rec is no tracepoint sample or its format is unknown. */
int pmu_trace_tp_fields(struct pmu_trace *t, const struct pmu_record *rec, pmu_tp_field_fn fn,
			void *ctx);
/* The payload as perf script prints it ("prev_comm=bash prev_pid=12 ..."),
 * NUL-terminated into buf; PMU_ERANGE when size is too small. */
int pmu_trace_tp_format(struct pmu_trace *t, const struct pmu_record *rec, char *buf,
			size_t size);

#ifdef __cplusplus
}
#endif
#endif
