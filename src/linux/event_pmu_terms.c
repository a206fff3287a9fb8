/* SPDX-License-Identifier: MIT */
/* pmu/term=value,.../ events, encoded with the PMU's sysfs format/ files, and the
 * event aliases of its events/ directory (msr/tsc/, cpu/mem-loads/, energy-pkg). */
#include "linux/event_resolve.h"
#include "linux/pmu_sysfs.h"
#include "core/error.h"
#include "core/event_table.h"
#include "core/suggest.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct enc {
	struct pmuk_rctx *c;
	const struct pmuk_ev_term *t;
	const struct pmu_device *dev;
	struct pmuk_format *fmt;
	int nfmt;
	uint64_t cfg[PMUK_CONFIG_WORDS];
	char name[64];    /* name= term */
};

static const struct pmuk_format *find_format(const struct enc *e, const char *key)
{
	for (int i = 0; i < e->nfmt; i++)
		if (!strcmp(e->fmt[i].name, key))
			return &e->fmt[i];
	return NULL;
}

/* The value of a "key=?" alias term (perf's parameterised aliases): the user gives it
 * in the same event, cpu/mem-loads,ldlat=50/; the key is a format term of the PMU. */
static const struct pmuk_ev_kv *find_param(const struct enc *e, const char *key)
{
	for (int i = 0; i < e->t->nkv; i++)
		if (e->t->kv[i].has_val && !strcmp(e->t->kv[i].key, key))
			return &e->t->kv[i];
	return NULL;
}

static int unknown_term(struct enc *e, const struct pmuk_ev_kv *kv)
{
	char list[256] = "", hint[512];
	struct pmuk_suggest s;
	char (*names)[64] = NULL;
	size_t off = 0;
	int nn = 0;

	pmuk_suggest_init(&s, kv->key);
	for (int i = 0; i < e->nfmt && off < sizeof(list); i++) {
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					e->fmt[i].name);
		pmuk_suggest_add(&s, e->fmt[i].name);
	}
	if (!pmuk_pmu_alias_names(e->dev->name, &names, &nn))
		for (int i = 0; i < nn; i++)
			pmuk_suggest_add(&s, names[i]);
	free(names);
	pmuk_suggest_format(&s, hint, sizeof(hint));
	return pmuk_fail(PMU_ENOENT, "unknown term '%s' at position %d for PMU '%s'%s (its format "
			 "terms: %s; its event aliases are in %s/%s/events)", kv->key, kv->pos,
			 e->dev->name, hint, list[0] ? list : "none", pmuk_pmu_devices_dir(),
			 e->dev->name);
}

static int apply_kv(struct enc *e, const struct pmuk_ev_kv *kv, int depth);

/* The whole-word terms perf knows: config, config1, config2, config3 -> 0..3; -1 else. */
static int config_word(const char *key)
{
	if (strncmp(key, "config", 6))
		return -1;
	if (!key[6])
		return 0;
	return key[6] >= '1' && key[6] <= '3' && !key[7] ? key[6] - '0' : -1;
}

/* An alias body such as "event=0x3c,umask=0x00" applied through the formats. */
static int apply_alias(struct enc *e, const struct pmuk_ev_kv *kv, const char *body)
{
	char buf[512], *save = NULL, *tok;
	int ret;

	snprintf(buf, sizeof(buf), "%s", body);
	for (tok = strtok_r(buf, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
		struct pmuk_ev_kv sub = { .pos = kv->pos };
		const struct pmuk_ev_kv *param;
		char *eq = strchr(tok, '='), *end;

		while (*tok == ' ')
			tok++;
		if (eq)
			*eq = '\0';
		for (end = tok + strlen(tok); end > tok && end[-1] == ' '; )
			*--end = '\0';
		if (!*tok)
			continue;
		snprintf(sub.key, sizeof(sub.key), "%s", tok);
		if (eq) {
			char *v = eq + 1;

			while (*v == ' ')
				v++;
			for (end = v + strlen(v); end > v && end[-1] == ' '; )
				*--end = '\0';
			snprintf(sub.val, sizeof(sub.val), "%s", v);
			sub.has_val = 1;
		}
		if (sub.has_val && !strcmp(sub.val, "?")) {
			if (!(param = find_param(e, sub.key)))
				return pmuk_fail(PMU_EINVAL, "event '%s' of PMU '%s' at position %d needs "
						 "a value for its parameter '%s' (%s/events/%s = '%s'): "
						 "write %s/%s,%s=N/", kv->key, e->dev->name, kv->pos,
						 sub.key, e->dev->name, kv->key, body, e->dev->name,
						 kv->key, sub.key);
			snprintf(sub.val, sizeof(sub.val), "%s", param->val);
			sub.pos = param->pos;
		}
		if ((ret = apply_kv(e, &sub, 1))) {
			char why[512]; /* pmuk_fail cannot format its own detail into itself */

			snprintf(why, sizeof(why), "%s", pmu_error_detail());
			return pmuk_fail(ret, "%s (from %s/events/%s = '%s')", why, e->dev->name,
					 kv->key, body);
		}
	}
	return 0;
}

static int apply_kv(struct enc *e, const struct pmuk_ev_kv *kv, int depth)
{
	const struct pmuk_format *f;
	unsigned long long v = 1;
	char body[512];
	int w;

	if (!strcmp(kv->key, "name") && kv->has_val) {
		snprintf(e->name, sizeof(e->name), "%s", kv->val);
		return 0;
	}
	if (kv->has_val && pmuk_ev_number(kv->val, &v))
		return pmuk_fail(PMU_EPARSE, "term '%s' at position %d needs a number, not '%s'",
				 kv->key, kv->pos, kv->val);
	/* A bare name is one of the PMU's events first, as perf reads it. */
	if (!kv->has_val && !depth && !pmuk_pmu_alias(e->dev->name, kv->key, body, sizeof(body)))
		return apply_alias(e, kv, body);
	f = find_format(e, kv->key);
	if (!f && kv->has_val && (w = config_word(kv->key)) >= 0) {
		if (w == 3)
			return pmuk_fail(PMU_ENOTSUP, "term '%s' at position %d sets config3 "
					 "(perf_event_attr.config3, Linux 6.3+), which pmukit's event "
					 "encoding does not carry", kv->key, kv->pos);
		e->cfg[w] = v;
		return 0;
	}
	if (f) {
		int bits = __builtin_popcountll(f->mask);

		if (!kv->has_val && bits > 1)
			return pmuk_fail(PMU_EPARSE, "term '%s' at position %d needs a value: format "
					 "'%s' of PMU '%s' has %d bits (only a 1-bit term such as "
					 "'edge' may stand alone)", kv->key, kv->pos, f->name,
					 e->dev->name, bits);
		if (f->word == 3)
			return pmuk_fail(PMU_ENOTSUP, "term '%s' at position %d fills config3 of PMU "
					 "'%s' (format '%s'), which pmukit's event encoding does not "
					 "carry (perf_event_attr.config3, Linux 6.3+)", kv->key, kv->pos,
					 e->dev->name, f->name);
		if (pmuk_format_apply(f, v, e->cfg))
			return pmuk_fail(PMU_EINVAL, "value 0x%llx of term '%s' at position %d does not "
					 "fit the %d bits of format '%s' of PMU '%s'", v, kv->key,
					 kv->pos, bits, f->name, e->dev->name);
		return 0;
	}
	return unknown_term(e, kv);
}

static struct pmu_device *find_pmu(struct pmuk_rctx *c, const char *name)
{
	for (int i = 0; i < c->npmus; i++)
		if (!strcmp(c->pmus[i].name, name))
			return &c->pmus[i];
	return NULL;
}

static int unknown_pmu(struct pmuk_rctx *c, const struct pmuk_ev_term *t)
{
	char list[512] = "", hint[512];
	struct pmuk_suggest s;
	size_t off = 0;

	pmuk_suggest_init(&s, t->pmu);
	for (int i = 0; i < c->npmus && off < sizeof(list); i++) {
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					c->pmus[i].name);
		pmuk_suggest_add(&s, c->pmus[i].name);
	}
	pmuk_suggest_format(&s, hint, sizeof(hint));
	return pmuk_fail(PMU_ENOENT, "unknown PMU '%s' at position %d%s (PMUs here: %s)%s%s", t->pmu,
			 t->pos, hint, list[0] ? list : "none", c->ncores ? "" : "; ",
			 c->ncores ? "" : PMUK_NO_PMU_REASON);
}

/* cpu/cycles/, cpu_core/L1-dcache-load-misses/: a generic event on a named core PMU. */
static int generic_on_core(struct pmuk_rctx *c, const struct pmuk_ev_term *t,
			   const struct pmu_device *dev, struct pmuk_cand *k)
{
	const struct pmuk_event_def *d;
	uint64_t config;

	char body[512];

	/* The PMU's own events/ alias wins over the generic meaning of a name. */
	if (!dev->is_core || t->nkv != 1 || t->kv[0].has_val ||
	    !pmuk_pmu_alias(dev->name, t->kv[0].key, body, sizeof(body)))
		return -1;
	if ((d = pmuk_event_find(t->kv[0].key)) && d->kind == PMU_EVENT_HARDWARE) {
		k->ev.type = PERF_TYPE_HARDWARE;
		config = d->config;
	} else if (!pmuk_cache_parse(t->kv[0].key, &config)) {
		k->ev.type = PERF_TYPE_HW_CACHE;
	} else {
		return -1;
	}
	k->ev.config = c->ncores > 1 ? config | (uint64_t)dev->type << 32 : config;
	return 0;
}

int pmuk_resolve_pmu_terms(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cands *out)
{
	struct pmuk_cand *k = &out->v[out->n];
	struct enc e = { .c = c, .t = t };
	size_t off;
	int ret = 0;

	if (!(e.dev = find_pmu(c, t->pmu)))
		return unknown_pmu(c, t);
	if (out->n >= PMUK_CANDS_MAX)
		return pmuk_fail(PMU_EINVAL, "'%s' at position %d names an event of more than %d "
				 "PMUs; pmukit expands a name to at most %d of them: name the PMU "
				 "(%s/%s/)", t->kv[0].key, t->pos, PMUK_CANDS_MAX, PMUK_CANDS_MAX,
				 t->pmu, t->kv[0].key);
	memset(k, 0, sizeof(*k));
	if (generic_on_core(c, t, e.dev, k)) {
		if ((ret = pmuk_pmu_formats(e.dev->name, &e.fmt, &e.nfmt)))
			return ret;
		for (int i = 0; i < t->nkv && !ret; i++)
			ret = apply_kv(&e, &t->kv[i], 0);
		free(e.fmt);
		if (ret)
			return ret;
		k->ev.type = e.dev->type;
		k->ev.config = e.cfg[0];
		k->ev.config1 = e.cfg[1];
		k->ev.config2 = e.cfg[2];
	}
	snprintf(k->ev.pmu, sizeof(k->ev.pmu), "%s", e.dev->name);
	if (e.name[0]) {
		snprintf(k->ev.name, sizeof(k->ev.name), "%s", e.name);
	} else {
		off = (size_t)snprintf(k->ev.name, sizeof(k->ev.name), "%s/", t->pmu);
		for (int i = 0; i < t->nkv && off < sizeof(k->ev.name); i++)
			off += (size_t)snprintf(k->ev.name + off, sizeof(k->ev.name) - off, "%s%s%s%s",
						i ? "," : "", t->kv[i].key, t->kv[i].has_val ? "=" : "",
						t->kv[i].val);
		if (off + 1 >= sizeof(k->ev.name))
			return pmuk_fail(PMU_EPARSE, "event at position %d is too long (its name must fit "
					 "%zu bytes)", t->pos, sizeof(k->ev.name) - 2);
		strcat(k->ev.name, "/");
	}
	k->hw = !pmuk_pmu_is_software(e.dev->name, k->ev.type);
	out->n++;
	return 0;
}

int pmuk_resolve_sysfs_alias(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cands *out)
{
	struct pmuk_ev_term sub;
	char body[512];
	int ret;

	if (strlen(t->text) >= sizeof(sub.kv[0].key))
		return PMU_ENOENT;
	for (int i = 0; i < c->npmus; i++) {
		if (pmuk_pmu_alias(c->pmus[i].name, t->text, body, sizeof(body)))
			continue;
		memset(&sub, 0, sizeof(sub));
		snprintf(sub.pmu, sizeof(sub.pmu), "%s", c->pmus[i].name);
		strcpy(sub.kv[0].key, t->text);
		sub.kv[0].pos = t->pos;
		sub.nkv = 1;
		sub.pos = t->pos;
		if ((ret = pmuk_resolve_pmu_terms(c, &sub, out)))
			return ret;
		/* The same alias on several core PMUs of a hybrid host: one copy per PMU. */
		if (c->pmus[i].is_core && c->ncores > 1)
			out->v[out->n - 1].flex = 1;
	}
	return out->n ? 0 : PMU_ENOENT;
}
