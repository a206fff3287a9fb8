/* SPDX-License-Identifier: MIT */
/* pmukit/sampling.h's live sampler: the front (src/core/sampler.c: argument checks,
 * the opts defaults and checks, stats and event accessors) and what each OS's backend
 * implements (src/linux/sampler.c with perf_event rings; src/windows/sampler_win.c
 * says why Windows has none). */
#ifndef PMUK_CORE_SAMPLER_INT_H
#define PMUK_CORE_SAMPLER_INT_H

#include <stddef.h>

#include <pmukit/sampling.h>

/* pmu_sampler_open() on an array of events (the list's contents). */
int pmuk_sampler_open_events(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			     const struct pmu_sampler_opts *opts, struct pmu_sampler **out);

/* The first members of every backend's struct pmu_sampler (layout asserted there). */
#define PMUK_SAMPLER_HEAD \
	struct pmu_event *ev;  /* [nev]: the events, in the caller's order */ \
	size_t nev; \
	struct pmu_sampler_stats st;

struct pmuk_sampler_head {
	PMUK_SAMPLER_HEAD
};

#define PMUK_SAMPLER_HEAD_CHECK(T) \
	_Static_assert(offsetof(T, st) == offsetof(struct pmuk_sampler_head, st), \
		       "PMUK_SAMPLER_HEAD first")

/* Backend, called with checked arguments. os_open: o has its defaults filled in
 * (a period or a frequency, pages a power of two), *out is NULL. */
int pmuk_sampler_os_open(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			 const struct pmu_sampler_opts *o, struct pmu_sampler **out);
int pmuk_sampler_os_enable(struct pmu_sampler *s);
int pmuk_sampler_os_disable(struct pmu_sampler *s);
int pmuk_sampler_os_poll(struct pmu_sampler *s, int timeout_ms);
int pmuk_sampler_os_read(struct pmu_sampler *s, pmu_record_fn cb, void *ctx);
void pmuk_sampler_os_close(struct pmu_sampler *s);

#endif
