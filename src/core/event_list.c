/* SPDX-License-Identifier: MIT */
/* The resolved event list handed to the counting and sampling surfaces. */
#include "core/event_list.h"
#include "core/grow.h"
#include "core/error.h"

#include <stdlib.h>

int pmuk_event_list_add(struct pmu_event_list *l, const struct pmu_event *ev)
{
	if (pmuk_grow((void **)&l->ev, &l->cap, l->n + 1, sizeof(*l->ev)))
		return pmuk_fail(PMU_ENOMEM, "out of memory building the event list");
	l->ev[l->n++] = *ev;
	return 0;
}

size_t pmu_event_list_count(const struct pmu_event_list *list)
{
	return list ? list->n : 0;
}

const struct pmu_event *pmu_event_list_get(const struct pmu_event_list *list, size_t i)
{
	return list && i < list->n ? &list->ev[i] : NULL;
}

size_t pmu_event_list_groups(const struct pmu_event_list *list)
{
	return list ? list->ngroups : 0;
}

void pmu_event_list_free(struct pmu_event_list *list)
{
	if (!list)
		return;
	free(list->ev);
	free(list);
}
