/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_METRICS_H
#define PMUK_CORE_METRICS_H

#include <pmukit/events.h>
#include <stddef.h>

/* The derived metric shown beside a count (perf stat's "# ..." column). */
struct pmuk_metric {
	double value;
	const char *unit;  /* "insn per cycle", "GHz", "of all branches", "K/sec", ... */
	int percent;       /* value is a percentage */
};

/* Computes the metric for event i from the scaled counts of all n events of a run.
 * elapsed_ns is the wall time of the measurement. Returns 1 and fills m when the
 * inputs the metric needs are present, 0 when there is no metric for that event. */
int pmuk_metric_compute(const struct pmu_event *ev, const double *scaled, size_t n, size_t i,
			double elapsed_ns, struct pmuk_metric *m);

#endif
