/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_SAMPLER_H
#define PMUK_LINUX_SAMPLER_H

#include <stddef.h>

#include <pmukit/sampling.h>

/* pmu_sampler_open() on an array of events (the list's contents). */
int pmuk_sampler_open_events(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			     const struct pmu_sampler_opts *opts, struct pmu_sampler **out);

#endif
