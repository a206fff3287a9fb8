/* SPDX-License-Identifier: MIT */
/* The node report's tables: rows keyed by a string, each counting samples,
 * period, weight and local/remote/unknown (the CPU's node against the page's). */
#include "core/report_node_int.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

static int key_eq(const void *key, uint32_t id, const void *ctx)
{
	return !strcmp(((const struct nr_table *)ctx)->rows[id].key, key);
}

struct nr_row *pmuk_nr_row(struct nr_table *t, const char *key, int *created)
{
	uint64_t h = pmuk_hash_bytes(key, strlen(key), 0x6e6f6465);
	uint32_t id = pmuk_index_find(&t->ix, h, key_eq, key, t);
	struct nr_row *r;

	*created = 0;
	if (id != PMUK_INDEX_NONE)
		return &t->rows[id];
	if (pmuk_grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
		return NULL;
	r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	if (!(r->key = strdup(key)) || pmuk_index_add(&t->ix, h) == PMUK_INDEX_NONE) {
		free(r->key);
		return NULL;
	}
	t->n++;
	*created = 1;
	return r;
}

void pmuk_nr_count(struct nr_row *r, const struct nr_hit *h)
{
	r->samples++;
	r->period += h->period;
	r->weight += h->weight;
	if (h->page_node < 0 || h->cpu_node < 0)
		r->unknown += h->period;
	else if (h->page_node == h->cpu_node)
		r->local += h->period;
	else
		r->remote += h->period;
}

static int by_period(const void *a, const void *b)
{
	const struct nr_row *x = a, *y = b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->key, y->key);
}

void pmuk_nr_sort(struct nr_table *t)
{
	if (t->n)  /* qsort of a NULL array, even of none, is undefined */
		qsort(t->rows, t->n, sizeof(*t->rows), by_period);
	pmuk_index_free(&t->ix);  /* rows moved: the table is read-only from here */
}

void pmuk_nr_free(struct nr_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].key);
		free(t->rows[i].obj);
		free(t->rows[i].module);
		free(t->rows[i].sym);
		free(t->rows[i].comm);
	}
	free(t->rows);
	pmuk_index_free(&t->ix);
	memset(t, 0, sizeof(*t));
}
