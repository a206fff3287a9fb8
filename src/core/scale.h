/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_SCALE_H
#define PMUK_CORE_SCALE_H

#include <stdint.h>

#include <pmukit/counting.h>

/* value * enabled / running as a double, for a multiplexed reading (running > 0). */
double pmuk_scale_multiplexed(uint64_t value, uint64_t enabled, uint64_t running);

/* Fills r from a raw count and its enabled/running times: scaled, and the
 * MULTIPLEXED / NOT_COUNTED flags. Other flags already in r->flags are kept.
 * Inline: it runs once per event on every counter read. */
static inline void pmuk_reading_set(struct pmu_reading *r, uint64_t value, uint64_t enabled,
				    uint64_t running)
{
	r->value = value;
	r->time_enabled = enabled;
	r->time_running = running;
	r->flags &= ~(uint32_t)(PMU_READING_MULTIPLEXED | PMU_READING_NOT_COUNTED);
	if (running >= enabled) {
		r->scaled = (double)value;
	} else if (running == 0) {
		r->flags |= PMU_READING_NOT_COUNTED;
		r->scaled = 0.0;
	} else {
		r->flags |= PMU_READING_MULTIPLEXED;
		r->scaled = pmuk_scale_multiplexed(value, enabled, running);
	}
}

/* Adds one unit's (thread's, CPU's) reading into a sum over units: raw value and
 * times, and the flags that say a unit could not count. pmuk_reading_set() on the
 * sum's own fields then scales it. */
static inline void pmuk_reading_add(struct pmu_reading *sum, const struct pmu_reading *r)
{
	sum->value += r->value;
	sum->time_enabled += r->time_enabled;
	sum->time_running += r->time_running;
	sum->flags |= r->flags & (PMU_READING_ERROR_STATE | PMU_READING_UNSUPPORTED);
}

/* One event's readings over repeated runs (pmukit stat -r). */
struct pmuk_runs {
	uint64_t n;
	double mean, m2;                  /* of the scaled values (Welford) */
	uint64_t value, enabled, running; /* sums */
	uint32_t flags;                   /* PMU_READING_ERROR_STATE of any run */
};

void pmuk_runs_add(struct pmuk_runs *s, const struct pmu_reading *r);

/* The mean reading: raw value and times are the means of the runs', the scaled value
 * is the mean of their scaled values (so a multiplexed run weighs as much as the
 * others). *stderr_pct is the standard error of that mean in percent of it, as perf
 * stat -r shows it (0 for fewer than two runs). */
void pmuk_runs_mean(const struct pmuk_runs *s, struct pmu_reading *out, double *stderr_pct);

/* value * enabled / running without overflowing 64 bits (saturates at UINT64_MAX);
 * 0 when running is 0. */
uint64_t pmuk_scale_u64(uint64_t value, uint64_t enabled, uint64_t running);

#endif
