/* SPDX-License-Identifier: MIT */
/* The live sampler's backend on Windows (core/sampler_int.h): Windows has no live
 * perf-style sampling ring a process can map and drain. Its sampling is ETW
 * recording (pmukit/recording.h): record with pmu_recording_*, then read the .etl
 * (pmukit/etl.h). The front still checks the arguments and options, so a caller's
 * mistake reads the same on both OSes; opening then says why. */
#include "core/sampler_int.h"
#include "core/error.h"

int pmuk_sampler_os_open(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			 const struct pmu_sampler_opts *o, struct pmu_sampler **out)
{
	(void)ev;
	(void)n;
	(void)t;
	(void)o;
	(void)out;
	return pmuk_fail(PMU_ENOTSUP, "live sampling (pmu_sampler_*) needs the perf_event "
			 "ring buffer of Linux; on Windows sampling is ETW recording: "
			 "pmu_recording_start/stop (pmukit/recording.h), then read the .etl "
			 "(pmukit/etl.h)");
}

/* No sampler is ever opened, so the front never passes one to these. */
static int never_opened(void)
{
	return pmuk_fail(PMU_EINVAL, "no sampler: none can be opened on Windows");
}

int pmuk_sampler_os_enable(struct pmu_sampler *s)
{
	(void)s;
	return never_opened();
}

int pmuk_sampler_os_disable(struct pmu_sampler *s)
{
	(void)s;
	return never_opened();
}

int pmuk_sampler_os_poll(struct pmu_sampler *s, int timeout_ms)
{
	(void)s;
	(void)timeout_ms;
	return never_opened();
}

int pmuk_sampler_os_read(struct pmu_sampler *s, pmu_record_fn cb, void *ctx)
{
	(void)s;
	(void)cb;
	(void)ctx;
	return never_opened();
}

void pmuk_sampler_os_close(struct pmu_sampler *s)
{
	(void)s;
}
