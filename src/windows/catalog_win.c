/* SPDX-License-Identifier: MIT */
/* "pmukit list" on Windows: generic, cache and software events, the curated profile
 * source names, and the profile sources this host's HAL lists; usable means countable
 * for a process (what `pmukit stat COMMAND` counts). */
#include "windows/win.h"
#include "core/error.h"
#include "core/event_table.h"

#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cat {
	const char *pattern;
	struct pmu_event_info *v;
	size_t n, cap;
	int oom;
};

/* Case-insensitive glob (*, ?, [set]) as fnmatch(FNM_CASEFOLD) does on Linux. */
static int glob(const char *p, const char *s)
{
	for (; *p; p++, s++) {
		if (*p == '*') {
			for (; *s; s++)
				if (glob(p + 1, s))
					return 1;
			return glob(p + 1, s);
		}
		if (!*s)
			return 0;
		if (*p == '[' && strchr(p + 1, ']')) {
			const char *q = p + 1;
			int hit = 0;

			for (; *q != ']'; q++)
				hit |= tolower((unsigned char)*q) == tolower((unsigned char)*s);
			if (!hit)
				return 0;
			p = q;
		} else if (*p != '?' && tolower((unsigned char)*p) != tolower((unsigned char)*s)) {
			return 0;
		}
	}
	return !*s;
}

static int matches(const char *pattern, const char *name)
{
	size_t n;

	if (!pattern || !*pattern)
		return 1;
	if (strpbrk(pattern, "*?["))
		return glob(pattern, name);
	n = strlen(pattern);
	for (const char *s = name; *s; s++)
		if (!strncasecmp(s, pattern, n))
			return 1;
	return 0;
}

static struct pmu_event_info *add(struct cat *c, const char *name, const char *pmu,
				  enum pmu_event_kind kind, int generic)
{
	struct pmu_event_info *e;
	char why[320];

	if (c->oom || !matches(c->pattern, name))
		return NULL;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 128;
		struct pmu_event_info *v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			c->oom = 1;
			return NULL;
		}
		c->v = v;
		c->cap = cap;
	}
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->pmu, sizeof(e->pmu), "%s", pmu);
	e->kind = kind;
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
		e = add(c, src[i].name, "hal", PMU_EVENT_RAW, -1);
		if (!e)
			continue;
		snprintf(e->desc, sizeof(e->desc), "HAL profile source %lu (interval %lu..%lu)",
			 (unsigned long)src[i].id, (unsigned long)src[i].min_interval,
			 (unsigned long)src[i].max_interval);
		e->usable = 0;
		snprintf(e->reason, sizeof(e->reason), "profile sources are sampled or counted "
			 "through an ETW kernel session, which pmukit's Windows counting does "
			 "not use");
	}
	pmuk_clear_detail();
}

int pmu_event_catalog(const char *pattern, struct pmu_event_info **out, size_t *n)
{
	struct cat c = { .pattern = pattern };
	struct pmu_event_info *e;
	char name[64];

	if (!out || !n)
		return pmuk_fail(PMU_EINVAL, "pmu_event_catalog needs somewhere to store the list");
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
	if (c.oom) {
		free(c.v);
		return pmuk_fail(PMU_ENOMEM, "out of memory listing events");
	}
	*out = c.v;
	*n = c.n;
	return 0;
}

void pmu_event_catalog_free(struct pmu_event_info *info)
{
	free(info);
}
