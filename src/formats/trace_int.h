/* SPDX-License-Identifier: MIT */
/* The record source's inside: src/core/trace.c is the front (sniffing, argument
 * checks, accessors); each format is a backend in src/formats/ behind ops. */
#ifndef PMUK_FORMATS_TRACE_INT_H
#define PMUK_FORMATS_TRACE_INT_H

#include "core/attr.h"

#include <pmukit/trace.h>
#include <stdio.h>

struct pmuk_trace_ops {
	/* Delivers every record in time order, counting into t->st. */
	int (*read)(struct pmu_trace *t, pmu_record_fn cb, void *ctx);
	/* Frees the backend's state and everything it pointed t's fields at. */
	void (*close)(struct pmu_trace *t);
};

/* A backend's open fills ops, be, info (format aside), events, pmc and build
 * ids; every string and array stays the backend's until its close. */
struct pmu_trace {
	const struct pmuk_trace_ops *ops;
	void *be;
	struct pmu_trace_opts o;
	struct pmu_trace_info info;
	const struct pmu_trace_event *events;
	size_t nr_events;
	const char *const *pmc_names;
	size_t nr_pmc;
	const struct pmu_trace_build_id *build_ids;
	size_t nr_build_ids;
	struct pmu_trace_stats st;
	int read_called;
	void *tp;                  /* tracepoint decoding (trace_tp.c), lazily */
};

/* Backends. f is the open file, positioned at 0 (the backend owns it from now;
 * stdin for "-"); on failure the backend leaves t for the front to free. */
int pmuk_trace_open_etl(struct pmu_trace *t, const char *path);
int pmuk_trace_open_perf(struct pmu_trace *t, const char *path, FILE *f, int pipe_mode);

/* One problem worked around, through opts.warn (printf-style). */
void pmuk_trace_warn(struct pmu_trace *t, const char *fmt, ...) PMUK_PRINTF(2, 3);

/* Counts rec into t->st (records, samples, lost, throttles); backends call it
 * for every record they deliver. */
void pmuk_trace_count(struct pmu_trace *t, const struct pmu_record *rec);

/* trace_tp.c: frees t->tp. */
void pmuk_trace_tp_free(struct pmu_trace *t);

#endif
