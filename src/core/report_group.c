/* SPDX-License-Identifier: MIT */
/* Sample groups: the samples of one event, thread and CPU with one stack of
 * (symbol, source line) entries. perf report's views (sort key sets,
 * children, call graphs) are computed from them, so memory grows with the
 * distinct stacks, not with the samples. */
#include "core/error.h"
#include "core/grow.h"
#include "core/report_int.h"

#include <stdlib.h>
#include <string.h>

/* The leaf is part of the key: a function inlined at one call and called out
 * of line at another on the same line gives the same entries, but another
 * function holds the sampled code. */
struct group_key {
	int32_t event;
	uint32_t thread;
	int32_t cpu;
	const uint32_t *e;
	size_t n;
	uint32_t leaf;
};

static int group_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct group_key *k = key;
	const struct rp_group *g = &((const struct pmu_report *)ctx)->groups[id];

	return g->event == k->event && g->thread == k->thread && g->cpu == k->cpu && g->n == k->n &&
	       g->leaf == k->leaf && !memcmp(g->e, k->e, 2 * k->n * sizeof(*k->e));
}

/* Frames r->scratch[0..k) as (sym, line) pairs in r->escratch: their number,
 * SIZE_MAX without memory. */
static size_t entries(struct pmu_report *r, size_t k)
{
	size_t n = 0;

	for (size_t i = 0; i < k; i++)
		n += 1 + r->frames[r->scratch[i]].n_inl;
	if (pmuk_grow((void **)&r->escratch, &r->escratch_cap, 2 * n + 2, sizeof(*r->escratch)))
		return SIZE_MAX;
	uint32_t *o = r->escratch;
	for (size_t i = 0; i < k; i++) {
		const struct rp_frame *f = &r->frames[r->scratch[i]];
		if (f->n_inl)   /* r->inl is NULL until some frame has inlined calls */
			memcpy(o, &r->inl[2 * (size_t)f->inl], 2 * f->n_inl * sizeof(*o));
		o += 2 * f->n_inl;
		*o++ = f->sym;
		*o++ = f->line;
	}
	return n;
}

int pmuk_rp_group(struct pmu_report *r, const struct pmu_record *rec, const struct rp_thread *t,
		  size_t k, uint64_t period, int fresh)
{
	size_t n = entries(r, k);

	if (n == SIZE_MAX)
		return PMU_ENOMEM;
	struct group_key key = { rec->event < 0 ? -1 : rec->event, (uint32_t)(t - r->threads),
				 rec->has & PMU_HAS_CPU ? rec->cpu : -1, r->escratch, n,
				 k ? r->frames[r->scratch[0]].n_inl : 0 };
	uint64_t h = pmuk_hash_u64((uint64_t)(uint32_t)key.event << 32 | key.thread) ^
		     (uint32_t)key.cpu ^ (uint64_t)key.leaf << 40;
	h = pmuk_hash_words(key.e, 2 * n, h);
	uint32_t id = fresh ? RP_NONE : pmuk_index_find(&r->group_ix, h, group_eq, &key, r);
	if (id == RP_NONE) {
		uint32_t *copy = pmuk_rp_alloc(&r->mem, 2 * n * sizeof(*copy) + 1);
		if (!copy || pmuk_grow_raw((void **)&r->groups, &r->cap_groups, r->n_groups + 1,
					   sizeof(*r->groups)) ||
		    (id = pmuk_index_add(&r->group_ix, h)) == RP_NONE)
			return PMU_ENOMEM;   /* copy goes with the report */
		memcpy(copy, key.e, 2 * n * sizeof(*copy));
		r->groups[r->n_groups++] = (struct rp_group){ key.event, key.thread, key.cpu,
			(uint32_t)n, key.leaf, copy, 0, 0 };
	}
	r->groups[id].count++;
	r->groups[id].period += period;
	return 0;
}

void pmuk_rp_groups_free(struct pmu_report *r)
{
	free(r->groups);   /* their entries are in r->mem */
	pmuk_index_free(&r->group_ix);
}
