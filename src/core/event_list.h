/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_EVENT_LIST_H
#define PMUK_CORE_EVENT_LIST_H

#include <pmukit/events.h>

struct pmu_event_list {
	struct pmu_event *ev;
	size_t n, cap;
	size_t ngroups;
};

/* Appends a copy of ev; PMU_ENOMEM on failure. */
int pmuk_event_list_add(struct pmu_event_list *l, const struct pmu_event *ev);

#endif
