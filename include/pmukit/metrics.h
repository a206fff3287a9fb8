/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_METRICS_H
#define PMUKIT_METRICS_H

/* Derived metrics: the ratio or rate perf stat shows beside a count ("# 1.50 insn
 * per cycle", "2.000 CPUs utilized", "3.2% of all branches", "12.3 K/sec"), from the
 * readings of one pmu_counters_read() (or any set of readings of the same events). */

#include <stddef.h>

#include <pmukit/counting.h>
#include <pmukit/events.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Frozen (pmukit/opts.h): one item per call, never changes size. */
struct pmu_metric {
	double value;      /* the ratio, rate or percentage */
	const char *unit;  /* static text: "insn per cycle", "GHz", "CPUs utilized",
			    * "of all branches", "K/sec", ... */
	int percent;       /* value is a percentage; unit says of what */
};

/* The metric of event i of events[0..n), from the scaled values of readings[0..n)
 * (one per event, in the same order). elapsed_ns is the wall time the readings
 * cover (the base of "CPUs utilized", and of rates when no task-clock or cpu-clock
 * was counted). Ratios pair events of the same PMU and privilege filter (a hybrid
 * CPU's cpu_core instructions are not divided by cpu_atom cycles).
 * Returns 1 with *out filled; 0 when event i has no metric here: none is defined for
 * it, an input it needs was not among the events, or a reading it needs was not
 * counted (PMU_READING_NOT_COUNTED, _UNSUPPORTED, _ERROR_STATE, or never enabled)
 * or is zero; PMU_EINVAL for NULL pointers or i >= n. Never allocates. */
int pmu_metric_compute(const struct pmu_event *events, const struct pmu_reading *readings,
		       size_t n, size_t i, double elapsed_ns, struct pmu_metric *out);

#ifdef __cplusplus
}
#endif
#endif
