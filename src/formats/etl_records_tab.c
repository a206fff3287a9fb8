/* SPDX-License-Identifier: MIT */
/* First pass of the .etl record adapter: stack-key definitions, PDB
 * identities, profile sources and PMC names, all needed before the records
 * that use them (a key is often defined only when it is evicted, after its
 * use; PerfView-merged files put ImageID data anywhere). */
#include "core/error.h"
#include "core/grow.h"
#include "formats/etl_int.h"
#include "formats/etl_records_int.h"

#include <stdlib.h>

int pmuk_er_interval(const struct pmu_etl_event *ev, uint32_t *source, uint32_t *interval,
		     char *name, size_t size)
{
	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_PERFINFO) || ev->opcode < 72 ||
	    ev->opcode > 74 || ev->payload_size < 12)
		return -1;
	*source = le32(ev->payload);
	*interval = le32(ev->payload + 4);
	name[0] = '\0';
	if (ev->payload_size > 12)
		pmuk_utf16_to_utf8(ev->payload + 12, ev->payload_size - 12, name, size);
	return 0;
}

static struct er_source *source_slot(struct er_tables *t, uint32_t source)
{
	for (size_t i = 0; i < t->n_src; i++)
		if (t->src[i].source == source)
			return &t->src[i];
	return NULL;
}

/* A sample event for this source (samples come in first-seen order). */
static void source_seen(struct er_tables *t, uint32_t source, const char *name)
{
	struct er_source *s = source_slot(t, source);

	if (!s && t->n_src < ER_MAX_SOURCES) {
		s = &t->src[t->n_src++];
		s->source = source;
		if (source == 0)
			snprintf(s->name, sizeof(s->name), "Timer");
		else
			snprintf(s->name, sizeof(s->name), "pmc-source-%u", source);
	}
	if (s && name && *name)
		snprintf(s->name, sizeof(s->name), "%s", name);
}

static int add_def(struct er_tables *t, const struct pmu_etl_stack_key_ev *k, uint64_t raw)
{
	if (pmuk_grow((void **)&t->defs, &t->cap_defs, t->n_defs + 1, sizeof(*t->defs)) ||
	    pmuk_grow((void **)&t->pool, &t->cap_pool, t->n_pool + k->n_frames, sizeof(*t->pool)))
		return pmuk_fail(PMU_ENOMEM, "no memory for %zu stack-key definitions", t->n_defs + 1);
	t->defs[t->n_defs++] = (struct er_keydef){ k->key, raw, t->n_pool, k->n_frames, 0,
						   k->opcode == 34 };
	if (k->n_frames)
		memcpy(t->pool + t->n_pool, k->frames, k->n_frames * sizeof(*t->pool));
	t->n_pool += k->n_frames;
	return 0;
}

static int add_rsds(struct er_tables *t, const struct pmu_etl_imageid_ev *id, uint64_t raw)
{
	struct er_rsds *e;

	if (pmuk_grow((void **)&t->rsds, &t->cap_rsds, t->n_rsds + 1, sizeof(*t->rsds)))
		return pmuk_fail(PMU_ENOMEM, "no memory for %zu PDB identities", t->n_rsds + 1);
	e = &t->rsds[t->n_rsds];
	e->pid = id->pid;
	e->base = id->image_base;
	e->raw = raw;
	pmuk_guid_store(e->id, &id->pdb_guid);	/* back to the stored byte order */
	for (int i = 0; i < 4; i++)
		e->id[16 + i] = (uint8_t)(id->pdb_age >> (8 * i));
	if (!(e->pdb = strdup(id->file_name)))
		return pmuk_fail(PMU_ENOMEM, "no memory for a PDB name");
	t->n_rsds++;
	return 0;
}

static int cmp_rsds(const void *a, const void *b)
{
	const struct er_rsds *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->raw < y->raw ? -1 : x->raw > y->raw;
}

/* Whether distinct key id is *key: its chain's head definition says. */
static int key_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct er_tables *t = ctx;

	return t->defs[t->key_head[id] - 1].key == *(const uint64_t *)key;
}

/* Chains every key's definitions in time order. */
static int index_keys(struct er_tables *t)
{
	for (size_t i = t->n_defs; i-- > 0;) {
		uint64_t key = t->defs[i].key, h = pmuk_hash_u64(key);
		uint32_t k = pmuk_index_find(&t->key_ix, h, key_eq, &key, t);
		if (k == PMUK_INDEX_NONE) {
			if (pmuk_grow((void **)&t->key_head, &t->key_cap, t->key_ix.n + 1,
				      sizeof(*t->key_head)) ||
			    (k = pmuk_index_add(&t->key_ix, h)) == PMUK_INDEX_NONE)
				return pmuk_fail(PMU_ENOMEM, "no memory for the stack-key index");
		}
		t->defs[i].next = t->key_head[k];
		t->key_head[k] = (uint32_t)i + 1;
	}
	return 0;
}

int pmuk_er_collect(struct er_tables *t, struct pmu_etl *r)
{
	struct pmu_etl_event ev;
	union {
		struct pmu_etl_stack_key_ev k;
		struct pmu_etl_imageid_ev id;
		struct pmu_etl_pmc_counters_ev pc;
		struct pmu_etl_pmc_sample_ev ps;
	} *u = malloc(sizeof(*u));
	char name[64];
	uint32_t src, interval;
	int rc, err = 0;

	if (!u)
		return pmuk_fail(PMU_ENOMEM, "no memory to read the trace");
	while (!err && (rc = pmu_etl_next(r, &ev)) > 0) {
		int sw = pmuk_etl_is_group(&ev, PMU_ETL_GROUP_STACKWALK);
		int pi = pmuk_etl_is_group(&ev, PMU_ETL_GROUP_PERFINFO);
		if (sw && ev.opcode >= 34 && ev.opcode <= 36) {
			if (!pmu_etl_decode_stack_key(&ev, &u->k))
				err = add_def(t, &u->k, ev.raw_time);
		} else if (pi && ev.opcode == 46) {
			source_seen(t, 0, NULL);
		} else if (pi && ev.opcode == 47) {
			if (!pmu_etl_decode_pmc_profile(&ev, &u->ps))
				source_seen(t, u->ps.source, NULL);
		} else if (pi && ev.opcode == 48) {
			if (!t->n_pmc && !pmu_etl_decode_pmc_counters(&ev, &u->pc)) {
				t->n_pmc = u->pc.count < PMU_ETL_MAX_COUNTERS ? u->pc.count :
					   PMU_ETL_MAX_COUNTERS;
				memcpy(t->pmc, u->pc.names, sizeof(t->pmc));
			}
		} else if (pi && !pmuk_er_interval(&ev, &src, &interval, name, sizeof(name))) {
			if (*name)
				source_seen(t, src, name);
			size_t i = 0;
			while (i < t->n_ivl && t->ivl[i].source != src)
				i++;
			if (i == t->n_ivl && i < ER_MAX_SOURCES && ev.opcode != 74) {
				t->ivl[i].source = src;
				t->ivl[i].interval = interval;
				t->n_ivl++;
			}
		} else if (ev.kind == PMU_ETL_EVENT) {
			err = pmuk_er_clr_collect(&t->clr, &ev);
		} else if (ev.kind == PMU_ETL_FULL && ev.provider.d1 == 0x9b79ee91u) {
			err = pmuk_er_volume_collect(t, &ev);
		} else if (!pmu_etl_decode_imageid_rsds(&ev, &u->id) && u->id.opcode == 36) {
			err = add_rsds(t, &u->id, ev.raw_time);
		}
	}
	free(u);
	if (err)
		return err;
	if (rc < 0)
		return rc;
	pmuk_er_clr_finish(&t->clr);
	if (t->n_rsds)
		qsort(t->rsds, t->n_rsds, sizeof(*t->rsds), cmp_rsds);
	for (size_t i = 0; i < t->n_src; i++) {
		t->src_names[i] = t->src[i].name;
		for (size_t k = 0; k < t->n_ivl; k++)
			if (t->ivl[k].source == t->src[i].source)
				t->src[i].first_interval = t->ivl[k].interval;
	}
	for (size_t i = 0; i < t->n_pmc; i++)
		t->pmc_names[i] = t->pmc[i];
	return index_keys(t);
}

void pmuk_er_tables_free(struct er_tables *t)
{
	for (size_t i = 0; i < t->n_rsds; i++)
		free(t->rsds[i].pdb);
	free(t->rsds);
	free(t->defs);
	free(t->pool);
	free(t->key_head);
	pmuk_index_free(&t->key_ix);
	pmuk_er_clr_free(&t->clr);
	pmuk_er_volumes_free(t);
	memset(t, 0, sizeof(*t));
}

/* The definition a reference at raw names: the first KeyDelete/KeyRundown of
 * the key at or after raw (the key's entry was evicted or listed then), else
 * the last KeyCreate before it. */
const uint64_t *pmuk_er_key(const struct er_tables *t, uint64_t key, uint64_t raw, uint32_t *n)
{
	const struct er_keydef *best = NULL, *create = NULL;

	uint32_t k = pmuk_index_find(&t->key_ix, pmuk_hash_u64(key), key_eq, &key, t);

	if (k == PMUK_INDEX_NONE)
		return NULL;
	for (uint32_t i = t->key_head[k]; i; i = t->defs[i - 1].next) {
		const struct er_keydef *d = &t->defs[i - 1];
		if (d->key != key)
			continue;
		if (d->create) {
			if (d->raw <= raw)
				create = d;
		} else if (d->raw >= raw) {
			best = d;
			break;
		}
	}
	if (!best)
		best = create;
	if (!best)
		return NULL;
	*n = best->n;
	return t->pool + best->first;
}

const struct er_rsds *pmuk_er_rsds(const struct er_tables *t, uint32_t pid, uint64_t base,
				   uint64_t raw)
{
	size_t lo = 0, hi = t->n_rsds;
	const struct er_rsds *best = NULL;

	while (lo < hi) {	/* first entry of (pid, base) */
		size_t mid = (lo + hi) / 2;
		const struct er_rsds *e = &t->rsds[mid];
		if (e->pid < pid || (e->pid == pid && e->base < base))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n_rsds && t->rsds[lo].pid == pid && t->rsds[lo].base == base; lo++) {
		const struct er_rsds *e = &t->rsds[lo];
		uint64_t d = e->raw > raw ? e->raw - raw : raw - e->raw;
		if (!best || d < (best->raw > raw ? best->raw - raw : raw - best->raw))
			best = e;
	}
	return best;
}

int pmuk_er_source(const struct er_tables *t, uint32_t source)
{
	for (size_t i = 0; i < t->n_src; i++)
		if (t->src[i].source == source)
			return (int)i;
	return -1;
}
