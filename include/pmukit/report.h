/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_REPORT_H
#define PMUKIT_REPORT_H

/* Reports over a pmu_record stream, whatever surface produced it (a live
 * sampler, perf.data, .etl): samples per symbol, module, process, thread and
 * CPU; CPU time and counter values per thread from SWITCH records; collapsed
 * stacks; perf-script text. Memory grows with the distinct threads, modules,
 * addresses and stacks seen, never with the number of samples. */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pmukit/opts.h>
#include <pmukit/sampling.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pmu_report;
struct pmu_symbolizer; /* pmukit/symbols.h */
struct pmu_trace;      /* pmukit/trace.h */

/* The library's, by pointer: grows by appending (pmukit/opts.h). */
/* A module mapped where a sampled address fell. */
struct pmu_report_module {
	const char *path;
	uint64_t start, len, pgoff;
	const uint8_t *build_id;
	uint8_t build_id_size;
	uint8_t build_id_kind;  /* enum pmu_build_id_kind */
	const char *debug_path; /* NULL when unknown */
};

/* A symbolizer: the name of the function holding addr (mod is NULL when no
 * module maps addr), or NULL when unknown. Called once per distinct address;
 * the string is copied. */
typedef const char *(*pmu_report_resolve_fn)(const struct pmu_report_module *mod,
					     uint64_t addr, void *ctx);

struct pmu_report_opts {
	size_t sz;                        /* sizeof(struct pmu_report_opts) */
	pmu_report_resolve_fn resolve;    /* NULL: frames are module+offset */
	void *resolve_ctx;
	const char *const *event_names;   /* indexed by pmu_record.event */
	uint32_t nr_events;
	const char *const *pmc_names;     /* names of pmu_switch.pmc[] */
	uint32_t nr_pmc;
	FILE *script;                     /* each sample as perf-script text, as it arrives */
	uint64_t time_zero;               /* subtracted from times in perf-script text */
	/* Names frames: function, source file:line and inlined calls (which become
	 * frames of the stack). Every MMAP record is handed to it; each distinct
	 * address is resolved once; samples with user registers and stack
	 * (PMU_HAS_REGS_USER|PMU_HAS_STACK_USER) are unwound by it. Where it cannot
	 * (PMU_ENOTSUP, no module) resolve / module+offset name the frame; a module
	 * it finds stale or missing gives "module!+0xoff [stale]" / "[missing]",
	 * never another file's name. NULL: resolve / module+offset only. */
	struct pmu_symbolizer *symbolizer;
	/* Filters, as perf report's --comm, --pid, --tid: samples of other threads
	 * stay in the totals (percentages are of all samples) but in no row or
	 * stack. NULL/0: no filter. comms is comma-separated. */
	const char *comms;
	const int32_t *pids;
	uint32_t nr_pids;
	const int32_t *tids;
	uint32_t nr_tids;
	/* As perf report's --cpu and --time: samples outside are dropped before
	 * any total (summary.filtered counts them). Times are record times (ns);
	 * time_end 0: no end. */
	const int32_t *cpus;
	uint32_t nr_cpus;
	uint64_t time_start, time_end;
	/* The recording the records come from, when there is one: its lost,
	 * skipped-bytes and out-of-order counts join the text and JSON headers. */
	const struct pmu_trace *trace;
	/* Rows of pmu_report_write_json's "top" and "modules" lists (0: all). */
	size_t limit;
};
#define pmu_report_opts__last_field limit /* see pmukit/opts.h */

int pmu_report_new(const struct pmu_report_opts *opts, struct pmu_report **out);
void pmu_report_free(struct pmu_report *r);

/* Adds one record; a pmu_record_fn, so it can be handed to any reader.
 * Returns 0 or PMU_ENOMEM. */
int pmu_report_record(const struct pmu_record *rec, void *report);

/* Grows by appending; filled by the caller's size (pmukit/opts.h). */
struct pmu_report_summary {
	uint64_t records;
	uint64_t samples;
	uint64_t period;         /* sum of sample periods (samples without one count 1) */
	uint64_t lost;           /* records or samples dropped (sum of LOST counts) */
	uint64_t lost_buffers;
	uint64_t lost_bytes;
	uint64_t lost_uncounted; /* losses the source flagged without a count */
	uint64_t switches;
	uint64_t with_callchain; /* samples that carried a stack */
	uint64_t with_branches;  /* samples that carried a branch stack (LBR) */
	size_t threads, processes, modules, stacks;
	uint64_t lost_samples;   /* the part of lost that were samples (LOST_SAMPLES) */
	uint64_t filtered;       /* samples dropped by the cpus/time window filters */
	uint64_t hidden;         /* samples counted in totals, hidden by comms/pids/tids */
	uint64_t unwound;        /* samples whose user stack the symbolizer unwound */
};
/* Fills out, size bytes of it: pass sizeof(*out) (see pmukit/opts.h). */
int pmu_report_summary(const struct pmu_report *r, struct pmu_report_summary *out, size_t size);

enum pmu_report_sort {
	PMU_REPORT_SYM,     /* by function (or module+offset) of the sampled address */
	PMU_REPORT_MODULE,
	PMU_REPORT_TID,
	PMU_REPORT_PID,
	PMU_REPORT_CPU,
};
/* "sym", "module", "tid", "pid", "cpu" into *out; PMU_EINVAL otherwise. */
int pmu_report_sort_parse(const char *s, enum pmu_report_sort *out);

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
struct pmu_report_row {
	const char *name;        /* sym: "module!function" or "module!+0xoff"; module: its
				    file name; tid/pid: thread/process name; cpu: "cpuN" */
	const char *module;      /* sym, module: path of the module ("" when unknown) */
	const char *build_id;    /* sym, module: printable identity ("" when none): a
				    PDB as its symbol-server key GUIDAge, else hex */
	int32_t pid, tid, cpu;   /* -1 where not applicable */
	const char *process;     /* tid, pid: process name */
	uint64_t samples, period;
	double percent;          /* of all samples */
	uint64_t cpu_time_ns;    /* tid, pid: from SWITCH records */
	uint64_t switches;       /* tid, pid: times switched in */
	const uint64_t *pmc;     /* tid, pid: counted per pmc_names (NULL when none) */
	uint32_t nr_pmc;
	int exited;              /* tid, pid: an EXIT was seen */
};

/* Rows sorted by samples (then CPU time), highest first; tid, pid and cpu rows
 * include those that only ran (no samples). Strings live as long as r. */
size_t pmu_report_count(struct pmu_report *r, enum pmu_report_sort by);
int pmu_report_row(struct pmu_report *r, enum pmu_report_sort by, size_t i,
		   struct pmu_report_row *out);

/* A perf-report-like table of the first limit rows (0: all). */
int pmu_report_write_text(struct pmu_report *r, FILE *f, enum pmu_report_sort by, size_t limit);
/* One JSON document (pmukit/json.h: flags is an OR of PMU_JSON_*): samples,
 * period, lost, events, top (by symbol) and modules (opts.limit rows each),
 * processes, threads (with CPU time and counters), cpus. */
int pmu_report_write_json(struct pmu_report *r, FILE *f, unsigned flags);
/* Folded stacks, "process;root;...;leaf count" per line, sorted. */
int pmu_report_write_collapsed(struct pmu_report *r, FILE *f);

/* perf report's view: rows keyed by a set of sort keys, one section per
 * event, Children/Self columns, call graphs under the rows. */
enum pmu_report_children {
	PMU_REPORT_CHILDREN_AUTO, /* children when samples carry stacks (perf's default) */
	PMU_REPORT_CHILDREN,      /* a row also counts samples whose stack holds it */
	PMU_REPORT_NO_CHILDREN,   /* self only: the sampled address */
};
enum pmu_report_graph {
	PMU_REPORT_GRAPH_AUTO,    /* when stacks: caller with children, else callee */
	PMU_REPORT_GRAPH_NONE,
	PMU_REPORT_GRAPH_CALLER,  /* from the root (or the row) toward the leaf */
	PMU_REPORT_GRAPH_CALLEE,  /* from the row toward the root */
};
struct pmu_report_view {
	size_t sz;                /* sizeof(struct pmu_report_view) */
	/* perf's sort keys, comma-separated: comm, dso (or module), sym (or
	 * symbol), tid, pid, cpu, srcline; they combine into one row key.
	 * NULL: "comm,dso,sym". */
	const char *sort;
	enum pmu_report_children children;
	enum pmu_report_graph graph;
	double percent_limit;     /* rows (and graph branches) under it are hidden;
				     graph branches under 0.5% are hidden anyway */
	size_t limit;             /* rows per event (0: all) */
	int json;                 /* one JSON document (with pmu_report_write_json's keys) */
	/* perf's -g threshold: graph branches under this percent are hidden
	 * (0: percent_limit when set, else 0.5; negative: none hidden). */
	double graph_limit;
};
#define pmu_report_view__last_field graph_limit /* see pmukit/opts.h */
/* PMU_EINVAL (the detail names it) on an unknown sort key. */
int pmu_report_write_view(struct pmu_report *r, FILE *f, const struct pmu_report_view *v);
/* The same checks alone (before reading a recording): 0 or PMU_EINVAL. */
int pmu_report_view_check(const struct pmu_report_view *v);

/* A self-contained interactive flame graph (SVG with its script: click to zoom,
 * search, tooltips; no network needed); title NULL: "pmukit". */
int pmu_report_write_svg(struct pmu_report *r, FILE *f, const char *title);
/* The profile as pprof reads it: gzip'd profile.proto (go tool pprof, continuous
 * profiling servers). */
int pmu_report_write_pprof(struct pmu_report *r, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
