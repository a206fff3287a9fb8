/* SPDX-License-Identifier: MIT */
/* The live sampler's front: argument checks, the opts defaults and checks, stats and
 * event accessors, once for every OS; the rings are the backend's
 * (core/sampler_int.h). */
#include "core/sampler_int.h"
#include "core/error.h"
#include "core/event_list.h"
#include "core/opts.h"

static const struct pmuk_sampler_head *head(const struct pmu_sampler *s)
{
	return (const struct pmuk_sampler_head *)(const void *)s;
}

static int check_opts(const struct pmu_sampler_opts *opts, struct pmu_sampler_opts *o)
{
	int err = PMUK_OPTS_LOAD(*o, opts, pmu_sampler_opts);

	if (err < 0)
		return err;
	if (!o->use_freq && o->period == 0) {
		o->use_freq = 1;
		o->freq = 1000;
	}
	if (o->use_freq && o->freq == 0)
		return pmuk_fail(PMU_EINVAL, "frequency sampling needs freq > 0 samples per second");
	if (o->pages == 0)
		o->pages = 64;
	if ((o->pages & (o->pages - 1)) || o->pages > (1u << 20))
		return pmuk_fail(PMU_EINVAL, "ring buffer pages must be a power of two up to 2^20 "
				 "(got %u)", o->pages);
	return 0;
}

int pmuk_sampler_open_events(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			     const struct pmu_sampler_opts *opts, struct pmu_sampler **out)
{
	struct pmu_sampler_opts o;
	int err;

	if (!ev || n == 0 || !t || !out)
		return pmuk_fail(PMU_EINVAL, "pmu_sampler_open needs events, a target and an out "
				 "pointer");
	*out = NULL;
	if ((err = check_opts(opts, &o)) < 0)
		return err;
	return pmuk_sampler_os_open(ev, n, t, &o, out);
}

int pmu_sampler_open(const struct pmu_event_list *events, const struct pmu_target *target,
		     const struct pmu_sampler_opts *opts, struct pmu_sampler **out)
{
	if (!events || events->n == 0)
		return pmuk_fail(PMU_EINVAL, "pmu_sampler_open needs a non-empty event list");
	return pmuk_sampler_open_events(events->ev, events->n, target, opts, out);
}

int pmu_sampler_enable(struct pmu_sampler *s)
{
	return s ? pmuk_sampler_os_enable(s) : pmuk_fail(PMU_EINVAL, "no sampler");
}

int pmu_sampler_disable(struct pmu_sampler *s)
{
	return s ? pmuk_sampler_os_disable(s) : pmuk_fail(PMU_EINVAL, "no sampler");
}

int pmu_sampler_poll(struct pmu_sampler *s, int timeout_ms)
{
	return s ? pmuk_sampler_os_poll(s, timeout_ms) : pmuk_fail(PMU_EINVAL, "no sampler");
}

int pmu_sampler_read(struct pmu_sampler *s, pmu_record_fn cb, void *ctx)
{
	if (!s || !cb)
		return pmuk_fail(PMU_EINVAL, "pmu_sampler_read needs a sampler and a callback");
	return pmuk_sampler_os_read(s, cb, ctx);
}

int pmu_sampler_stats(const struct pmu_sampler *s, struct pmu_sampler_stats *out, size_t size)
{
	if (!s)
		return pmuk_fail(PMU_EINVAL, "pmu_sampler_stats needs a sampler and an output");
	return PMUK_COPY_OUT(out, size, head(s)->st, pmu_sampler_stats);
}

size_t pmu_sampler_event_count(const struct pmu_sampler *s)
{
	return s ? head(s)->nev : 0;
}

const struct pmu_event *pmu_sampler_event(const struct pmu_sampler *s, size_t i)
{
	return s && i < head(s)->nev ? &head(s)->ev[i] : NULL;
}

void pmu_sampler_close(struct pmu_sampler *s)
{
	if (s)
		pmuk_sampler_os_close(s);
}
