/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_SAMPLER_H
#define PMUK_LINUX_SAMPLER_H

/* pmuk_sampler_open_events() and the backend interface live in core/sampler_int.h.
 * Below: what the perf.data recorder (recording_linux.c) needs beyond the public
 * sampler: attrs of its own, the kernel's record bytes as they are in the rings
 * (perf.data stores them verbatim), the attrs and ids as opened, the lost counts. */
#include "core/sampler_int.h"
#include "linux/perf_event.h"
#include "linux/ring.h"

/* Called for each event's attr (after the sampler's own settings, before the
 * open) on every unit; first: the event owns the unit's ring (side band there). */
typedef void (*pmuk_attr_tune_fn)(struct perf_event_attr *a, size_t event, int first,
				  void *ctx);

struct pmuk_sampler_raw {
	pmuk_attr_tune_fn tune;
	void *ctx;
	int lower_precise;     /* a :p level the PMU refuses is lowered until it opens */
	/* Not 0: these tasks on every online CPU (a unit each), one ring per CPU that
	 * every task's events of that CPU write to: with attr.inherit, what they create
	 * is followed too (the kernel maps no inherited event of cpu -1). */
	const int *tids;
	size_t ntids;
};

/* pmuk_sampler_os_open with raw (may be NULL); o must have its defaults filled. */
int pmuk_sampler_open_raw(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			  const struct pmu_sampler_opts *o, const struct pmuk_sampler_raw *raw,
			  struct pmu_sampler **out);
/* Every ring's records as the kernel wrote them (pmuk_ring_drain_spans on each:
 * peek at each record, then its bytes to span). Returns 0, the callbacks' nonzero
 * value, or PMU_EFORMAT after a corrupt ring (the others drained). */
int pmuk_sampler_drain(struct pmu_sampler *s, pmuk_ring_peek_fn peek, pmuk_ring_span_fn span,
		       void *ctx);
/* Event e's attr as opened (precise_ip as lowered); ids: its kernel ids, one per
 * open unit, up to max; the count. */
const struct perf_event_attr *pmuk_sampler_attr(const struct pmu_sampler *s, size_t e);
size_t pmuk_sampler_ids(const struct pmu_sampler *s, size_t e, uint64_t *ids, size_t max);
size_t pmuk_sampler_units(const struct pmu_sampler *s);
/* Samples event e lost at full rings, summed over its units (PERF_FORMAT_LOST;
 * 0 before Linux 6.0). */
uint64_t pmuk_sampler_lost_samples(const struct pmu_sampler *s, size_t e);

#endif
