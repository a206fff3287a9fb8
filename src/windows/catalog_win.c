/* SPDX-License-Identifier: MIT */
/* "pmukit list" on Windows: generic, cache and software events, the curated profile
 * source names, and the profile sources this host's HAL lists; usable means countable
 * for a process (what `pmukit stat COMMAND` counts). */
#include "windows/win.h"
#include "core/catalog.h"
#include "core/error.h"
#include "core/os_int.h"
#include "core/event_table.h"

#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cat {
	struct pmuk_catalog list;
};

static struct pmu_event_info *add(struct cat *c, const char *name, const char *pmu,
				  enum pmu_event_kind kind, int generic)
{
	struct pmu_event_info *e = pmuk_catalog_add(&c->list, name, pmu, kind);
	char why[320];

	if (!e)
		return NULL;
	e->usable = pmuk_win_count_source(generic, PMU_TARGET_PID, why, sizeof(why)) !=
		    PMUK_WSRC_NONE;
	if (!e->usable)
		snprintf(e->reason, sizeof(e->reason), "%s", why);
	return e;
}

static void add_sources(struct cat *c)
{
	struct pmuk_win_source src[64];
	int n = pmuk_etw_sources(src, 64);

	for (int i = 0; i < n; i++) {
		struct pmu_event_info *e;

		if (pmuk_event_find(src[i].name)) /* a curated name listed as an alias */
			continue;
		/* Counted like the hardware events: ETW PMC-on-CSwitch (counting_win.c
		 * sends "hal" raw events there), so the same answer. */
		e = add(c, src[i].name, "hal", PMU_EVENT_RAW, PMU_GENERIC_INSTRUCTIONS);
		if (!e)
			continue;
		snprintf(e->desc, sizeof(e->desc), "HAL profile source %lu (interval %lu..%lu)",
			 (unsigned long)src[i].id, (unsigned long)src[i].min_interval,
			 (unsigned long)src[i].max_interval);
	}
	pmuk_clear_detail();
}

int pmuk_os_event_catalog(const char *pattern, struct pmu_event_info **out, size_t *n)
{
	struct cat c = { .list.pattern = pattern };
	struct pmu_event_info *e;
	char name[64];

	for (size_t i = 0; i < pmuk_event_ndefs; i++) {
		const struct pmuk_event_def *d = &pmuk_event_defs[i];

		e = add(&c, d->name, d->kind == PMU_EVENT_HARDWARE ? "cpu" : "software", d->kind,
			d->generic);
		if (e)
			snprintf(e->desc, sizeof(e->desc), "%s", d->desc);
	}
	for (int k = 0; k < PMUK_CACHE_COUNT; k++)
		for (int o = 0; o < PMUK_CACHE_OPS; o++)
			for (int r = 0; r < 2 && pmuk_cache_valid(k, o); r++) {
				pmuk_cache_name(k, o, r, name, sizeof(name));
				e = add(&c, name, "cpu", PMU_EVENT_HW_CACHE, PMU_GENERIC_HW_CACHE);
				if (e)
					snprintf(e->desc, sizeof(e->desc), "%s %s %s",
						 pmuk_cache_desc(k), o == 0 ? "loads" : o == 1 ?
						 "stores" : "prefetches", r ? "that missed" :
						 "(accesses)");
			}
	for (size_t i = 0; i < pmuk_event_naliases; i++) {
		const struct pmuk_event_alias *a = &pmuk_event_aliases[i];
		const struct pmuk_event_def *d = pmuk_event_find(a->name);

		e = add(&c, a->alias, d->kind == PMU_EVENT_HARDWARE ? "cpu" : "software", d->kind,
			d->generic);
		if (e)
			snprintf(e->desc, sizeof(e->desc), "alias of %s%s%s%s", a->name,
				 a->windows ? " (Windows profile source name)" : "",
				 a->note ? "; " : "", a->note ? a->note : "");
	}
	add_sources(&c);
	if (c.list.oom) {
		free(c.list.v);
		return pmuk_fail(PMU_ENOMEM, "out of memory listing events");
	}
	*out = c.list.v;
	*n = c.list.n;
	return 0;
}
