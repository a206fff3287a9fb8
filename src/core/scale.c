/* SPDX-License-Identifier: MIT */
/* Multiplexing arithmetic: a count observed for `running` ns out of `enabled` ns
 * is extrapolated to the whole enabled time, and the reading says so. */
#include "core/scale.h"

#include <math.h>

uint64_t pmuk_scale_u64(uint64_t value, uint64_t enabled, uint64_t running)
{
	uint64_t quot, rem;

	if (running == 0)
		return 0;
	if (enabled <= running)
		return value;
	/* value * enabled / running == quot * enabled + rem * enabled / running,
	 * each product checked (or widened) so nothing wraps. */
	quot = value / running;
	rem = value % running;
#if defined(__SIZEOF_INT128__)
	{
		unsigned __int128 r = (unsigned __int128)quot * enabled +
				      (unsigned __int128)rem * enabled / running;
		if (r > UINT64_MAX)
			return UINT64_MAX;
		return (uint64_t)r;
	}
#else
	{
		uint64_t hi;
		long double frac;

		if (quot != 0 && enabled > UINT64_MAX / quot)
			return UINT64_MAX;
		hi = quot * enabled;
		frac = (long double)rem * (long double)enabled / (long double)running;
		if (frac >= (long double)(UINT64_MAX - hi))
			return UINT64_MAX;
		return hi + (uint64_t)frac;
	}
#endif
}

double pmuk_scale_multiplexed(uint64_t value, uint64_t enabled, uint64_t running)
{
	/* In long double: exact for the ratio, no 64-bit overflow. */
	return (double)((long double)value * (long double)enabled / (long double)running);
}

double pmu_reading_running_percent(const struct pmu_reading *r)
{
	if (r == NULL || r->time_enabled == 0)
		return 0.0; /* never enabled: it counted for none of it */
	if (r->time_running >= r->time_enabled)
		return 100.0;
	return (double)((long double)r->time_running * 100.0L / (long double)r->time_enabled);
}

void pmuk_runs_add(struct pmuk_runs *s, const struct pmu_reading *r)
{
	double d = r->scaled - s->mean;

	s->n++;
	s->mean += d / (double)s->n;
	s->m2 += d * (r->scaled - s->mean);
	s->value += r->value;
	s->enabled += r->time_enabled;
	s->running += r->time_running;
	s->flags |= r->flags & PMU_READING_ERROR_STATE;
}

void pmuk_runs_mean(const struct pmuk_runs *s, struct pmu_reading *out, double *stderr_pct)
{
	uint64_t n = s->n ? s->n : 1;

	out->flags = s->flags;
	pmuk_reading_set(out, s->value / n, s->enabled / n, s->running / n);
	out->scaled = s->mean;
	*stderr_pct = 0;
	if (s->n > 1 && s->mean != 0)
		*stderr_pct = 100.0 * sqrt(s->m2 / (double)(s->n - 1) / (double)s->n) /
			      fabs(s->mean);
}
