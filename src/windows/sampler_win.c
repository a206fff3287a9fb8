/* SPDX-License-Identifier: MIT */
/* pmu_sampler_* on Windows: Windows has no live perf-style sampling ring a process
 * can map and drain. Its sampling is ETW recording (pmukit/recording.h): record with
 * pmu_recording_*, then read the .etl (pmukit/etl.h). Every entry point exists, so a
 * pmukit.dll user links, and says so; the handle can never be opened. */
#include "core/error.h"

#include <pmukit/sampling.h>

#define NO_RING "live sampling (pmu_sampler_*) needs the perf_event ring buffer of " \
	"Linux; on Windows sampling is ETW recording: pmu_recording_start/stop " \
	"(pmukit/recording.h), then read the .etl (pmukit/etl.h)"

int pmu_sampler_open(const struct pmu_event_list *events, const struct pmu_target *target,
		     const struct pmu_sampler_opts *opts, struct pmu_sampler **out)
{
	(void)events;
	(void)target;
	(void)opts;
	if (out)
		*out = NULL;
	return pmuk_fail(PMU_ENOTSUP, NO_RING);
}

/* No sampler is ever opened: these only ever see NULL or a caller's stray pointer. */
static int no_sampler(const char *fn)
{
	return pmuk_fail(PMU_EINVAL, "%s: no sampler (%s)", fn, NO_RING);
}

int pmu_sampler_enable(struct pmu_sampler *s)
{
	(void)s;
	return no_sampler("pmu_sampler_enable");
}

int pmu_sampler_disable(struct pmu_sampler *s)
{
	(void)s;
	return no_sampler("pmu_sampler_disable");
}

int pmu_sampler_poll(struct pmu_sampler *s, int timeout_ms)
{
	(void)s;
	(void)timeout_ms;
	return no_sampler("pmu_sampler_poll");
}

int pmu_sampler_read(struct pmu_sampler *s, pmu_record_fn cb, void *ctx)
{
	(void)s;
	(void)cb;
	(void)ctx;
	return no_sampler("pmu_sampler_read");
}

int pmu_sampler_stats(const struct pmu_sampler *s, struct pmu_sampler_stats *out, size_t size)
{
	(void)s;
	(void)out;
	(void)size;
	return no_sampler("pmu_sampler_stats");
}

size_t pmu_sampler_event_count(const struct pmu_sampler *s)
{
	(void)s;
	return 0;
}

const struct pmu_event *pmu_sampler_event(const struct pmu_sampler *s, size_t i)
{
	(void)s;
	(void)i;
	return NULL;
}

void pmu_sampler_close(struct pmu_sampler *s)
{
	(void)s;
}
