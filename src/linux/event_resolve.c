/* SPDX-License-Identifier: MIT */
/* Event list -> perf_event encodings on this host.
 * Names as typed, as perf prints them ("cs", "cpu-cycles:u"; identity is in generic,
 * type and config); on hybrid hosts each per-core-PMU copy is named "cpu_core/cycles/"
 * (modifiers after the slash: "cpu_core/cycles/u"), with pmu = "cpu_core". */
#include "linux/event_resolve.h"
#include "linux/pmu_sysfs.h"
#include "core/error.h"
#include "core/os_int.h"
#include "core/event_list.h"
#include "core/event_table.h"
#include "core/suggest.h"

#include <ctype.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pmuk_event_classify(struct pmu_event *ev)
{
	const struct pmuk_event_def *d;

	ev->generic = -1;
	switch (ev->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
		ev->kind = ev->type == PERF_TYPE_HARDWARE ? PMU_EVENT_HARDWARE : PMU_EVENT_SOFTWARE;
		for (size_t i = 0; i < pmuk_event_ndefs; i++) {
			d = &pmuk_event_defs[i];
			if (d->kind == ev->kind && d->config == (ev->config & 0xffffffffULL))
				ev->generic = d->generic;
		}
		break;
	case PERF_TYPE_HW_CACHE:
		ev->kind = PMU_EVENT_HW_CACHE;
		ev->generic = PMU_GENERIC_HW_CACHE;
		break;
	case PERF_TYPE_TRACEPOINT:
		ev->kind = PMU_EVENT_TRACEPOINT;
		break;
	default:
		ev->kind = PMU_EVENT_RAW;
	}
}

const struct pmu_device *pmuk_rctx_pmu_by_type(const struct pmuk_rctx *c, uint32_t type)
{
	for (int i = 0; i < c->npmus; i++)
		if (c->pmus[i].type == type)
			return &c->pmus[i];
	return NULL;
}

/* A generic hardware or cache event (or raw code) on every core PMU. */
static void per_core(struct pmuk_rctx *c, const char *name, uint32_t type, uint64_t config,
		     struct pmuk_cands *out)
{
	struct pmuk_cand *k;

	if (c->ncores <= 1) {
		k = &out->v[out->n++];
		memset(k, 0, sizeof(*k));
		snprintf(k->ev.name, sizeof(k->ev.name), "%s", name);
		snprintf(k->ev.pmu, sizeof(k->ev.pmu), "%s", c->ncores ? c->cores[0]->name : "cpu");
		k->ev.type = type;
		k->ev.config = config;
		k->hw = 1;
		return;
	}
	for (int i = 0; i < c->ncores && out->n < (int)(sizeof(out->v) / sizeof(out->v[0])); i++) {
		k = &out->v[out->n++];
		memset(k, 0, sizeof(*k));
		snprintf(k->ev.name, sizeof(k->ev.name), "%s/%s/", c->cores[i]->name, name);
		snprintf(k->ev.pmu, sizeof(k->ev.pmu), "%s", c->cores[i]->name);
		if (type == PERF_TYPE_RAW) {
			k->ev.type = c->cores[i]->type;
			k->ev.config = config;
		} else {
			/* perf's extended type: the PMU's type in the upper half of config. */
			k->ev.type = type;
			k->ev.config = config | (uint64_t)c->cores[i]->type << 32;
		}
		k->hw = 1;
		k->flex = 1;
	}
}

static void suggest_names(struct pmuk_rctx *c, const char *word, char *buf, size_t n)
{
	struct pmuk_suggest s;

	pmuk_suggest_init(&s, word);
	pmuk_event_suggest_generic(&s);
	for (int i = 0; i < c->npmus; i++) {
		char (*names)[64];
		int nn;

		if (pmuk_pmu_alias_names(c->pmus[i].name, &names, &nn))
			continue;
		for (int j = 0; j < nn; j++)
			pmuk_suggest_add(&s, names[j]);
		free(names);
	}
	pmuk_suggest_format(&s, buf, n);
}

/* A generic (hardware or software), cache or raw event name: 1 when t is one,
 * its candidates in out. */
static int builtin_name(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cands *out)
{
	const struct pmuk_event_def *d;
	struct pmuk_cand *k;
	uint64_t config;

	if ((d = pmuk_event_find(t->text))) {
		if (d->kind == PMU_EVENT_HARDWARE) {
			per_core(c, t->text, PERF_TYPE_HARDWARE, d->config, out);
			return 1;
		}
		k = &out->v[out->n++];
		memset(k, 0, sizeof(*k));
		strcpy(k->ev.name, t->text);
		strcpy(k->ev.pmu, "software");
		k->ev.type = PERF_TYPE_SOFTWARE;
		k->ev.config = d->config;
		return 1;
	}
	if (!pmuk_cache_parse(t->text, &config)) {
		per_core(c, t->text, PERF_TYPE_HW_CACHE, config, out);
		return 1;
	}
	if (pmuk_event_raw(t->text, &config)) {
		per_core(c, t->text, PERF_TYPE_RAW, config, out);
		return 1;
	}
	return 0;
}

/* No source knows the name: the error says why, as near as it can guess
 * (looks_tp: what pmuk_resolve_tracepoint made of a sys:name). */
static int unknown_name(struct pmuk_rctx *c, const struct pmuk_ev_term *t, int looks_tp)
{
	char hint[512];
	const char *pfm;

	if (looks_tp == 2 || looks_tp == 4) /* sys:name and tracefs is not mounted/readable */
		return pmuk_fail(PMU_ENOENT, "unknown event '%s' at position %d: if it is a "
				 "tracepoint, %s", t->text, t->pos,
				 pmuk_tracefs_hint(looks_tp == 4 ? PMU_EPERM : PMU_ENOENT));
	if (looks_tp == 1) /* the subsystem exists, the event does not */
		return pmuk_fail(PMU_ENOENT, "unknown tracepoint '%s' at position %d: no such event "
				 "in its subsystem (see 'pmukit list %.*s:')", t->text, t->pos,
				 (int)(strchr(t->text, ':') - t->text), t->text);
	suggest_names(c, t->text, hint, sizeof(hint));
	pfm = pmuk_pfm_why();  /* libpfm4 built in but not loaded: say why */
	return pmuk_fail(PMU_ENOENT, "unknown event '%s' at position %d%s%s%s%s", t->text, t->pos,
			 hint, hint[0] ? "" : " (see 'pmukit list')",
			 pfm ? "; CPU-specific (libpfm4) names are unavailable: " : "", pfm ? pfm : "");
}

/* A name that is not pmu/.../: generic, cache, raw, tracepoint, libpfm4 or sysfs alias. */
static int resolve_name(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cands *out)
{
	struct pmuk_cand *k;
	char head[PMUK_EV_TEXT_MAX], pfm_err[512];
	uint64_t config;
	int looks_tp = 0, ret, pfm_ret;

	if (builtin_name(c, t, out))
		return 0;
	/* "cycles:x": a known event followed by something that is not a modifier. */
	snprintf(head, sizeof(head), "%s", t->text);
	if (strchr(head, ':')) {
		char *colon = strchr(head, ':');

		*colon = '\0';
		if (pmuk_event_find(head) || !pmuk_cache_parse(head, &config) || pmuk_event_raw(head, &config))
			return pmuk_fail(PMU_EPARSE, "bad modifier ':%s' at position %d in '%.200s'; "
					 "modifiers are u (user), k (kernel), h (hypervisor), p, pp, "
					 "ppp (precise)", colon + 1, t->pos + (int)(colon + 1 - head),
					 c->spec);
		k = &out->v[0];
		memset(k, 0, sizeof(*k));
		ret = pmuk_resolve_tracepoint(t->text, &k->ev, &looks_tp);
		if (!ret) {
			out->n = 1;
			return 0;
		}
		if (ret != PMU_ENOENT)
			return ret;
	}
	k = &out->v[0];
	memset(k, 0, sizeof(*k));
	ret = pmuk_resolve_pfm(c, t, k);
	if (!ret) {
		out->n = 1;
		return 0;
	}
	/* libpfm4 knows the event but not as written: say so, unless a sysfs alias
	 * has the name (its detail is kept across the alias lookup). */
	if (ret != PMU_ENOENT)
		snprintf(pfm_err, sizeof(pfm_err), "%s", pmu_error_detail());
	pfm_ret = ret;
	ret = pmuk_resolve_sysfs_alias(c, t, out);
	if (ret != PMU_ENOENT)
		return ret;
	if (pfm_ret != PMU_ENOENT)
		return pmuk_fail(pfm_ret, "%s", pfm_err);
	return unknown_name(c, t, looks_tp);
}

/* Applies the term's (and its group's) modifiers and completes the name. Privilege
 * levels unite (perf: ":u" excludes kernel and hypervisor, ":uk" only the hypervisor),
 * with those a libpfm4 name restricted itself to; precise levels add. */
static int finish(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cand *k)
{
	struct pmu_event *ev = &k->ev;
	struct pmuk_ev_mods m, g;
	char ms[16], name[sizeof(ev->name)];
	size_t len = strlen(ev->name);
	int n, plm;

	if (pmuk_ev_mods_parse(t->mods, &m))
		memset(&m, 0, sizeof(m));
	if (!pmuk_ev_mods_parse(t->gmods, &g))
		pmuk_ev_mods_merge(&m, &g);
	plm = (m.u ? PMUK_PLM_USER : 0) | (m.k ? PMUK_PLM_KERNEL : 0) | (m.h ? PMUK_PLM_HV : 0) |
	      k->plm;
	if (plm) {
		ev->exclude_user = !(plm & PMUK_PLM_USER);
		ev->exclude_kernel = !(plm & PMUK_PLM_KERNEL);
		ev->exclude_hv = !(plm & PMUK_PLM_HV);
	}
	if (m.p + k->precise > 3) /* libpfm4's precise=N plus the p modifiers */
		return pmuk_fail(PMU_EPARSE, "precise level of '%s' at position %d adds up to %d "
				 "(precise=%d in the name and %d p modifiers); at most 3 in '%.200s'",
				 t->text, t->pos, m.p + k->precise, k->precise, m.p, c->spec);
	ev->precise_ip = (uint8_t)(m.p + k->precise);
	pmuk_event_classify(ev);
	pmuk_ev_mods_text(t, &m, ms);
	if (!ms[0])
		return 0;
	n = snprintf(name, sizeof(name), "%s%s%s", ev->name,
		     len && ev->name[len - 1] == '/' ? "" : ":", ms);
	if (n < 0 || (size_t)n >= sizeof(name))
		return pmuk_fail(PMU_EPARSE, "event name at position %d is too long with its "
				 "modifiers (at most %zu bytes) in '%.200s'", t->pos, sizeof(name) - 1,
				 c->spec);
	strcpy(ev->name, name);
	return 0;
}

static int resolve_term(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cands *out)
{
	int ret;

	out->n = 0;
	ret = t->pmu[0] ? pmuk_resolve_pmu_terms(c, t, out) : resolve_name(c, t, out);
	for (int i = 0; !ret && i < out->n; i++)
		ret = finish(c, t, &out->v[i]);
	return ret;
}

#define MAX_EVENTS 1024

static int add_event(struct pmu_event_list *l, const struct pmu_event *ev, size_t group, int leader)
{
	struct pmu_event e = *ev;

	e.group = (int)group;
	e.group_leader = leader;
	return pmuk_event_list_add(l, &e);
}

static int mix_error(struct pmuk_rctx *c, const struct pmuk_ev_term *t, const char *a, const char *b)
{
	return pmuk_fail(PMU_EINVAL, "the group with '%s' at position %d in '%.200s' mixes events of "
			 "different hardware PMUs ('%s' and '%s'); only software events may join a "
			 "hardware group: split it into separate groups", t->text[0] ? t->text : t->pmu,
			 t->pos, c->spec, a, b);
}

/* One {...} group: every hardware member must live on one PMU. Generic events on a
 * hybrid host follow that PMU, or, when only generic events are grouped, the group is
 * repeated once per core PMU (software members go with each copy). */
static int assemble(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cands *cs,
		    int n, struct pmu_event_list *l)
{
	const char *fixed = NULL, *targets[8];
	int ntargets = 0, ret;

	for (int i = 0; i < n; i++)
		for (int k = 0; k < cs[i].n; k++) {
			const struct pmuk_cand *d = &cs[i].v[k];

			if (!d->hw || d->flex)
				continue;
			if (fixed && strcmp(fixed, d->ev.pmu))
				return mix_error(c, &t[i], fixed, d->ev.pmu);
			fixed = d->ev.pmu;
		}
	if (fixed)
		targets[ntargets++] = fixed;
	for (int i = 0; !fixed && i < n && !ntargets; i++)
		for (int k = 0; k < cs[i].n && ntargets < 8; k++)
			if (cs[i].v[k].flex)
				targets[ntargets++] = cs[i].v[k].ev.pmu;
	if (!ntargets)
		targets[ntargets++] = NULL;
	for (int g = 0; g < ntargets; g++) {
		size_t gi = l->ngroups++;
		int leader = 1;

		for (int i = 0; i < n; i++) {
			int flex = 0, hit = 0;

			for (int k = 0; k < cs[i].n; k++) {
				const struct pmuk_cand *d = &cs[i].v[k];

				flex |= d->flex;
				if (d->flex && strcmp(d->ev.pmu, targets[g]))
					continue;
				hit = 1;
				if ((ret = add_event(l, &d->ev, gi, leader)))
					return ret;
				leader = 0;
			}
			if (flex && !hit)
				return mix_error(c, &t[i], targets[g], cs[i].v[0].ev.pmu);
		}
	}
	return 0;
}

static int resolve_all(struct pmuk_rctx *c, const struct pmuk_ev_ast *a, struct pmu_event_list *l)
{
	struct pmuk_cands *cs;
	int ret = 0;

	cs = calloc(a->nterms, sizeof(*cs));
	if (!cs)
		return pmuk_fail(PMU_ENOMEM, "out of memory resolving the event list");
	for (int i = 0; i < a->nterms && !ret; i++)
		ret = resolve_term(c, &a->terms[i], &cs[i]);
	for (int i = 0, j; i < a->nterms && !ret; i = j) {
		for (j = i + 1; j < a->nterms && a->terms[j].group == a->terms[i].group; j++)
			;
		if (a->terms[i].in_braces) {
			ret = assemble(c, &a->terms[i], &cs[i], j - i, l);
			continue;
		}
		for (int k = 0; k < cs[i].n && !ret; k++)
			ret = add_event(l, &cs[i].v[k].ev, l->ngroups++, 1);
	}
	free(cs);
	return ret;
}

int pmuk_os_event_parse(const char *spec, struct pmu_event_list **out)
{
	struct pmuk_rctx c = { .spec = spec };
	struct pmu_event_list *l = NULL;
	struct pmuk_ev_ast a;
	int ret;

	ret = pmuk_ev_parse(spec, &a);
	if (!ret)
		ret = pmuk_expand_tracepoint_globs(&a, MAX_EVENTS);
	if (!ret && a.nterms > MAX_EVENTS)
		ret = pmuk_fail(PMU_EPARSE, "too many events (%d; at most %d) in one event list",
				a.nterms, MAX_EVENTS);
	if (!ret)
		ret = pmuk_pmu_scan(&c.pmus, &c.npmus);
	for (int i = 0; !ret && i < c.npmus && c.ncores < 8; i++)
		if (c.pmus[i].is_core)
			c.cores[c.ncores++] = &c.pmus[i];
	if (!ret && !(l = calloc(1, sizeof(*l))))
		ret = pmuk_fail(PMU_ENOMEM, "out of memory resolving the event list");
	if (!ret)
		ret = resolve_all(&c, &a, l);
	pmuk_ev_ast_free(&a);
	free(c.pmus);
	if (ret) {
		pmu_event_list_free(l);
		return ret;
	}
	*out = l;
	return 0;
}
