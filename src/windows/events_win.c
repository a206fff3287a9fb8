/* SPDX-License-Identifier: MIT */
/* Event naming on Windows: the portable parser (core/event_parse.c) and the generic
 * table, resolved against what Windows offers. Generic events and the curated profile
 * source names (InstructionRetired, TotalCycles, ...; core/event_table.c) keep the
 * portable numbering; profile sources the HAL lists beyond those become raw events
 * whose config is the source id. Windows has no inline raw encodings (a raw event is
 * a system-global ProfileSource registration) and no tracepoints (ETW providers). */
#include "windows/win.h"
#include "core/error.h"
#include "core/os_int.h"
#include "core/event_list.h"
#include "core/event_parse.h"
#include "core/event_table.h"
#include "core/suggest.h"

#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SOURCES 64

struct wctx {
	const char *spec;
	struct pmuk_win_source src[MAX_SOURCES];
	int nsrc;        /* < 0: the list could not be read */
};

static void load_sources(struct wctx *c)
{
	c->nsrc = pmuk_etw_sources(c->src, MAX_SOURCES);
	pmuk_clear_detail();
}

static const struct pmuk_win_source *source_find(const struct wctx *c, const char *name)
{
	for (int i = 0; i < c->nsrc; i++)
		if (!strcasecmp(c->src[i].name, name))
			return &c->src[i];
	return NULL;
}

static void suggest(const struct wctx *c, const char *word, char *buf, size_t n)
{
	struct pmuk_suggest s;

	pmuk_suggest_init(&s, word);
	pmuk_event_suggest_generic(&s);
	for (int i = 0; i < c->nsrc; i++)
		pmuk_suggest_add(&s, c->src[i].name);
	pmuk_suggest_format(&s, buf, n);
}

static int resolve_name(struct wctx *c, const struct pmuk_ev_term *t, struct pmu_event *ev)
{
	const struct pmuk_event_def *d;
	const struct pmuk_win_source *s;
	unsigned long long config;
	char hint[512];

	if (t->pmu[0])
		return pmuk_fail(PMU_ENOTSUP, "'%s/.../' at position %d: Windows takes no raw "
				 "event encodings per acquisition; a raw event must first be "
				 "registered system-wide as a profile source (WPRP "
				 "MicroArchitecturalConfig or the WMI\\ProfileSource registry key)",
				 t->pmu, t->pos);
	/* Names as typed, as perf prints them; identity is in generic, type and config. */
	if ((d = pmuk_event_find(t->text))) {
		snprintf(ev->name, sizeof(ev->name), "%s", t->text);
		snprintf(ev->pmu, sizeof(ev->pmu), "%s",
			 d->kind == PMU_EVENT_HARDWARE ? "cpu" : "software");
		ev->kind = d->kind;
		ev->type = d->kind == PMU_EVENT_HARDWARE ? PMUK_TYPE_HARDWARE : PMUK_TYPE_SOFTWARE;
		ev->config = d->config;
		ev->generic = d->generic;
		return 0;
	}
	if (!pmuk_cache_parse(t->text, (uint64_t *)&config)) {
		snprintf(ev->name, sizeof(ev->name), "%s", t->text);
		snprintf(ev->pmu, sizeof(ev->pmu), "cpu");
		ev->kind = PMU_EVENT_HW_CACHE;
		ev->type = PMUK_TYPE_HW_CACHE;
		ev->config = config;
		ev->generic = PMU_GENERIC_HW_CACHE;
		return 0;
	}
	if ((s = source_find(c, t->text))) {
		snprintf(ev->name, sizeof(ev->name), "%s", t->text);
		snprintf(ev->pmu, sizeof(ev->pmu), "hal");
		ev->kind = PMU_EVENT_RAW;
		ev->type = PMUK_TYPE_RAW;
		ev->config = s->id;
		ev->generic = -1;
		return 0;
	}
	if (pmuk_event_raw(t->text, &config))
		return pmuk_fail(PMU_ENOTSUP, "raw event '%s' at position %d: Windows takes no raw "
				 "encodings per acquisition; register it system-wide as a profile "
				 "source first", t->text, t->pos);
	if (strchr(t->text, ':'))
		return pmuk_fail(PMU_ENOTSUP, "'%s' at position %d looks like a Linux tracepoint; "
				 "Windows has ETW providers instead", t->text, t->pos);
	suggest(c, t->text, hint, sizeof(hint));
	return pmuk_fail(PMU_ENOENT, "unknown event '%s' at position %d%s%s", t->text, t->pos,
			 hint, hint[0] ? "" : " (see 'pmukit list')");
}

static int finish(const struct wctx *c, const struct pmuk_ev_term *t, struct pmu_event *ev)
{
	struct pmuk_ev_mods m, g;
	char ms[16];
	size_t len = strlen(ev->name);

	if (pmuk_ev_mods_parse(t->mods, &m))
		memset(&m, 0, sizeof(m));
	if (!pmuk_ev_mods_parse(t->gmods, &g))
		pmuk_ev_mods_merge(&m, &g);
	if (m.p)
		return pmuk_fail(PMU_ENOTSUP, "precise modifier on '%s' at position %d: Windows "
				 "offers no public precise (PEBS) sampling", ev->name, t->pos);
	if (m.u || m.k || m.h) {
		ev->exclude_user = !m.u;
		ev->exclude_kernel = !m.k;
		ev->exclude_hv = !m.h;
	}
	pmuk_ev_mods_text(t, &m, ms);
	if (ms[0] && len + 1 + strlen(ms) < sizeof(ev->name))
		snprintf(ev->name + len, sizeof(ev->name) - len, ":%s", ms);
	else if (ms[0])
		return pmuk_fail(PMU_EPARSE, "event name at position %d is too long with its "
				 "modifiers in '%.200s'", t->pos, c->spec);
	return 0;
}

int pmuk_os_event_parse(const char *spec, struct pmu_event_list **out)
{
	struct wctx *c;
	struct pmu_event_list *l = NULL;
	struct pmuk_ev_ast a;
	int ret, last_group = -1;

	c = calloc(1, sizeof(*c));
	if (!c)
		return pmuk_fail(PMU_ENOMEM, "out of memory resolving the event list");
	c->spec = spec;
	ret = pmuk_ev_parse(spec, &a);
	if (!ret) {
		load_sources(c);
		if (!(l = calloc(1, sizeof(*l))))
			ret = pmuk_fail(PMU_ENOMEM, "out of memory resolving the event list");
	}
	for (int i = 0; !ret && i < a.nterms; i++) {
		struct pmu_event ev;

		memset(&ev, 0, sizeof(ev));
		ret = resolve_name(c, &a.terms[i], &ev);
		if (!ret)
			ret = finish(c, &a.terms[i], &ev);
		if (ret)
			break;
		ev.group = a.terms[i].group;
		ev.group_leader = a.terms[i].leader;
		if (ev.group != last_group)
			l->ngroups++;
		last_group = ev.group;
		ret = pmuk_event_list_add(l, &ev);
	}
	pmuk_ev_ast_free(&a);
	free(c);
	if (ret) {
		pmu_event_list_free(l);
		return ret;
	}
	*out = l;
	return 0;
}

/* One "PMU": the processor's counters behind the HAL profile sources. None under
 * Wine, which has no counter surface at all. */
static int core_device(struct pmu_device *d)
{
	struct pmuk_etw_facts f;

	if (pmuk_wine_version())
		return 0;
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "cpu");
	d->is_core = 1;
	d->type = PMUK_TYPE_HARDWARE;
	pmuk_etw_probe(&f);
	d->gp_counters = f.max_pmc;
	d->fixed_counters = -1;
	return 1;
}

int pmuk_os_device_lookup(const char *name, struct pmu_device *out)
{
	struct pmu_device d;

	if (!strcmp(name, "software")) {
		memset(out, 0, sizeof(*out));
		snprintf(out->name, sizeof(out->name), "software");
		out->type = PMUK_TYPE_SOFTWARE;
		out->gp_counters = out->fixed_counters = -1;
		return 0;
	}
	if (!strcmp(name, "cpu") && core_device(&d)) {
		*out = d;
		return 0;
	}
	return pmuk_fail(PMU_ENOENT, "no PMU named '%s' on this host (Windows: 'cpu', 'software')",
			 name);
}

int pmuk_os_device_core_list(struct pmu_device *out, int max)
{
	struct pmu_device d;
	int n = core_device(&d);

	if (n && max > 0)
		out[0] = d;
	return n;
}
