/* SPDX-License-Identifier: MIT */
/* perf report's view: rows keyed by a set of sort keys, computed from the
 * sample groups of one event. Self counts a group once, in the row of its
 * sampled function; children counts it once in every row one of its stack
 * entries falls in (a recursion counts once). Call graphs are prefix trees
 * of the stacks through a row, built for the rows shown only. */
#include "core/error.h"
#include "core/grow.h"
#include "core/report_view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const key_names[RV_NKINDS] = { "comm", "dso", "sym", "tid", "pid", "cpu",
						   "srcline" };

const char *pmuk_rv_key_name(enum rv_key k)
{
	return key_names[k];
}

static int key_of(const char *s, size_t len, enum rv_key *out)
{
	static const struct { const char *name; enum rv_key k; } alias[] = {
		{ "module", RV_DSO }, { "symbol", RV_SYM }, { "command", RV_COMM } };

	for (int i = 0; i < RV_NKINDS; i++)
		if (strlen(key_names[i]) == len && !memcmp(s, key_names[i], len))
			return *out = (enum rv_key)i, 0;
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (strlen(alias[i].name) == len && !memcmp(s, alias[i].name, len))
			return *out = alias[i].k, 0;
	return -1;
}

int pmuk_rv_parse(struct rv_view *v, const char *sort)
{
	const char *p = sort && *sort ? sort : "comm,dso,sym";

	v->nk = 0;
	for (;;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (v->nk == RV_MAX_KEYS)
			return pmuk_fail(PMU_EINVAL, "--sort takes at most %d keys", RV_MAX_KEYS);
		if (key_of(p, len, &v->key[v->nk]))
			return pmuk_fail(PMU_EINVAL, "unknown sort key '%.*s': use comm, dso, sym, "
					 "tid, pid, cpu or srcline, comma-separated", (int)len, p);
		v->nk++;
		if (!e)
			return 0;
		p = e + 1;
	}
}

double pmuk_rv_pct(const struct rv_view *v, uint64_t period)
{
	return v->total_p ? 100.0 * (double)period / (double)v->total_p : 0.0;
}

/* ---- rows ---- */

/* The row key of entry i of group g; leaf entries name the sampled function
 * with the innermost source line. */
static void key_at(const struct rv_view *v, const struct rp_group *g, size_t i, uint32_t *k)
{
	const struct pmu_report *r = v->r;
	uint32_t sym = g->n ? g->e[2 * i] : RP_NONE;
	uint32_t line = g->n ? g->e[2 * (i == g->leaf ? 0 : i) + 1] : 0;

	memset(k, 0, RV_MAX_KEYS * sizeof(*k));
	for (size_t j = 0; j < v->nk; j++) {
		switch (v->key[j]) {
		case RV_COMM: k[j] = v->comm[g->thread]; break;
		case RV_DSO: k[j] = sym == RP_NONE ? RP_NONE : r->syms[sym].module; break;
		case RV_SYM: k[j] = sym; break;
		case RV_TID: k[j] = g->thread; break;
		case RV_PID: k[j] = (uint32_t)r->threads[g->thread].pid; break;
		case RV_CPU: k[j] = (uint32_t)g->cpu; break;
		default: k[j] = line; break;
		}
	}
}

static int row_eq(const void *key, uint32_t id, const void *ctx)
{
	return !memcmp(((const struct rv_view *)ctx)->rows[id].k, key,
		       RV_MAX_KEYS * sizeof(uint32_t));
}

/* The keys past v->nk are 0: they are left out. */
static uint64_t key_hash(const struct rv_view *v, const uint32_t *k)
{
	return pmuk_hash_words(k, v->nk, 8);
}

/* The row of keys k (hash h), made when missing; NULL without memory. */
static struct rv_row *row_of(struct rv_view *v, const uint32_t *k, uint64_t h)
{
	uint32_t id = pmuk_index_find(&v->ix, h, row_eq, k, v);

	if (id != RP_NONE)
		return &v->rows[id];
	if (pmuk_grow_raw((void **)&v->rows, &v->cap, v->n + 1, sizeof(*v->rows)) ||
	    (id = pmuk_index_add(&v->ix, h)) == RP_NONE)
		return NULL;
	struct rv_row *w = &v->rows[v->n++];
	memset(w, 0, sizeof(*w));
	memcpy(w->k, k, sizeof(w->k));
	w->roots = RP_NONE;
	return w;
}

/* The row key of every entry of g into v->keys, and v->first[i] set where
 * entry i is the innermost with its key (a recursion counts once): linear in
 * the depth, deep stacks being common. 0 or PMU_ENOMEM. */
static int group_keys(struct rv_view *v, const struct rp_group *g)
{
	size_t n = g->n, size = 16;

	while (size < 2 * n)
		size *= 2;
	if (pmuk_grow_raw((void **)&v->keys, &v->cap_keys, (n + 1) * RV_MAX_KEYS, sizeof(*v->keys)) ||
	    pmuk_grow_raw((void **)&v->khash, &v->cap_khash, n + 1, sizeof(*v->khash)) ||
	    pmuk_grow_raw((void **)&v->first, &v->cap_first, n + 1, 1) ||
	    pmuk_grow_raw((void **)&v->set, &v->cap_set, size, sizeof(*v->set)))
		return PMU_ENOMEM;
	memset(v->set, 0xff, size * sizeof(*v->set));
	for (size_t i = 0; i < n; i++) {
		uint32_t *k = &v->keys[i * RV_MAX_KEYS];
		key_at(v, g, i, k);
		v->khash[i] = key_hash(v, k);
		size_t at = (size_t)v->khash[i] & (size - 1);
		while (v->set[at] != RP_NONE &&
		       memcmp(&v->keys[v->set[at] * RV_MAX_KEYS], k, RV_MAX_KEYS * sizeof(*k)))
			at = (at + 1) & (size - 1);
		v->first[i] = v->set[at] == RP_NONE;
		if (v->first[i])
			v->set[at] = (uint32_t)i;
	}
	return 0;
}

/* Notes that the group counts in row at entry i (for its call graph). */
static int hit(struct rv_view *v, const struct rv_row *w, size_t i)
{
	if (pmuk_grow_raw((void **)&v->hits, &v->cap_hits, 2 * v->n_hits + 2, sizeof(*v->hits)))
		return PMU_ENOMEM;
	v->hits[2 * v->n_hits] = (uint32_t)(w - v->rows);
	v->hits[2 * v->n_hits++ + 1] = (uint32_t)i;
	return 0;
}

static int count_group(struct rv_view *v, const struct rp_group *g)
{
	uint32_t self[RV_MAX_KEYS];
	struct rv_row *w;

	key_at(v, g, g->leaf, self);
	if (!(w = row_of(v, self, key_hash(v, self))) || hit(v, w, g->leaf))
		return PMU_ENOMEM;
	w->self_n += g->count, w->self_p += g->period;
	if (!v->children)
		return 0;
	if (group_keys(v, g))
		return PMU_ENOMEM;
	for (size_t i = 0; i < g->n; i++) {
		if (!v->first[i])
			continue;
		if (!(w = row_of(v, &v->keys[i * RV_MAX_KEYS], v->khash[i])))
			return PMU_ENOMEM;
		w->ch_n += g->count, w->ch_p += g->period;
		if (hit(v, w, i))
			return PMU_ENOMEM;
	}
	return 0;
}

struct sort_key {
	uint64_t p, self;
	const uint32_t *k;
	uint32_t id;
};

static int cmp_rows(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->p != y->p)
		return x->p > y->p ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return memcmp(x->k, y->k, RV_MAX_KEYS * sizeof(*x->k));
}

/* The same order for up to 3 keys (the rest are 0 then) without reading the
 * rows: the keys' bytes in memory order as two numbers, the row id last. */
struct short_key {
	uint64_t p, self, k01, k2id;
};

static uint64_t mem_order(uint32_t x)
{
	unsigned char b[4];

	memcpy(b, &x, 4);
	return (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
}

static int before(const struct short_key *x, const struct short_key *y)
{
	if (x->p != y->p)
		return x->p > y->p;
	if (x->self != y->self)
		return x->self > y->self;
	return x->k01 != y->k01 ? x->k01 < y->k01 : x->k2id < y->k2id;
}

/* A merge sort with the comparison inline: a report has a row per distinct
 * sampled address (tens of thousands), and qsort's calls and byte copies
 * were most of the sort. Runs of 16 by insertion, then merges between a and
 * tmp; the result ends in a. */
static void sort_keys(struct short_key *a, struct short_key *tmp, size_t n)
{
	for (size_t lo = 0; lo < n; lo += 16) {
		size_t hi = lo + 16 < n ? lo + 16 : n;
		for (size_t i = lo + 1; i < hi; i++) {
			struct short_key k = a[i];
			size_t j = i;
			for (; j > lo && before(&k, &a[j - 1]); j--)
				a[j] = a[j - 1];
			a[j] = k;
		}
	}
	struct short_key *from = a, *to = tmp;
	for (size_t run = 16; run < n; run *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * run) {
			size_t mid = lo + run < n ? lo + run : n, hi = lo + 2 * run < n ? lo + 2 * run : n;
			size_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				to[o++] = before(&from[j], &from[i]) ? from[j++] : from[i++];
			while (i < mid)
				to[o++] = from[i++];
			while (j < hi)
				to[o++] = from[j++];
		}
		struct short_key *t = from;
		from = to, to = t;
	}
	if (from != a)
		memcpy(a, from, n * sizeof(*a));
}

/* Whether row w is shown, and its sorting period. */
static int listed(const struct rv_view *v, const struct rv_row *w, uint64_t *p)
{
	*p = v->children ? w->ch_p : w->self_p;
	return (w->self_n || w->ch_n) && pmuk_rv_pct(v, *p) >= v->limit_pct;
}

static size_t sort_short(struct rv_view *v, struct short_key *s)
{
	size_t n = 0;
	uint64_t p;

	for (size_t i = 0; i < v->n; i++) {
		const struct rv_row *w = &v->rows[i];
		if (listed(v, w, &p))
			s[n++] = (struct short_key){ p, w->self_p,
				mem_order(w->k[0]) << 32 | mem_order(w->k[1]),
				mem_order(w->k[2]) << 32 | (uint32_t)i };
	}
	sort_keys(s, s + n, n);
	for (size_t i = 0; i < n; i++)
		v->order[i] = (uint32_t)s[i].k2id;
	return n;
}

static size_t sort_long(struct rv_view *v, struct sort_key *s)
{
	size_t n = 0;
	uint64_t p;

	for (size_t i = 0; i < v->n; i++) {
		const struct rv_row *w = &v->rows[i];
		if (listed(v, w, &p))
			s[n++] = (struct sort_key){ p, w->self_p, w->k, (uint32_t)i };
	}
	if (n > 1)
		qsort(s, n, sizeof(*s), cmp_rows);
	for (size_t i = 0; i < n; i++)
		v->order[i] = s[i].id;
	return n;
}

/* Rows by Children (with children) else Self period, highest first, then
 * by their keys' bytes. */
int pmuk_rv_sort(struct rv_view *v)
{
	size_t size = v->nk <= 3 ? 2 * sizeof(struct short_key) : sizeof(struct sort_key);
	void *s = malloc((v->n + 1) * size);   /* short keys: and room to merge */
	size_t n;

	if (!s || !(v->order = malloc((v->n + 1) * sizeof(*v->order)))) {
		free(s);
		return PMU_ENOMEM;
	}
	n = v->nk <= 3 ? sort_short(v, s) : sort_long(v, s);
	free(s);
	v->shown = v->limit && v->limit < n ? v->limit : n;
	return 0;
}

/* ---- call graphs ---- */

static int node_eq(const void *key, uint32_t id, const void *ctx)
{
	const uint32_t *k = key;
	const struct rv_node *n = &((const struct rv_view *)ctx)->nodes[id];

	return n->parent == k[0] && n->sym == k[1];
}

/* Until link_nodes, a node's kids (a row's roots) is the child last found
 * under it: paths of one stack mostly follow the same branch, and the hint
 * saves the hash lookup. */
static uint32_t *hint_of(struct rv_view *v, uint32_t parent)
{
	return parent & RV_ROOT ? &v->rows[parent & ~RV_ROOT].roots : &v->nodes[parent].kids;
}

/* Whether parent has two children or more (then they are in node_ix). */
static int many_below(const struct rv_view *v, uint32_t parent)
{
	return parent & RV_ROOT ? v->root_many[parent & ~RV_ROOT] :
				  v->nodes[parent].next == RV_MANY;
}

/* Puts node id (sym under parent) in node_ix: 0 or PMU_ENOMEM. */
static int index_node(struct rv_view *v, uint32_t id)
{
	const struct rv_node *n = &v->nodes[id];

	return pmuk_index_put(&v->node_ix, pmuk_hash_u64((uint64_t)n->parent << 32 | n->sym), id);
}

/* The node of sym under parent, RP_NONE without memory. Most parents of a
 * call graph have one child, found as the hint: only the children of the
 * others are indexed (the hash table's misses were most of the build). */
static uint32_t node_of(struct rv_view *v, uint32_t parent, uint32_t sym)
{
	uint32_t hint = *hint_of(v, parent), id = RP_NONE;
	int many = hint != RP_NONE && many_below(v, parent);

	if (hint != RP_NONE && v->nodes[hint].sym == sym)
		return hint;	/* its parent is parent: it is the hint of no other */
	if (many) {
		uint32_t k[2] = { parent, sym };
		id = pmuk_index_find(&v->node_ix, pmuk_hash_u64((uint64_t)parent << 32 | sym),
				     node_eq, k, v);
	}
	if (id == RP_NONE) {
		/* no hint: parent has no child yet (a new branch goes on new below it);
		 * a hint not many: its only child is another, so both go in the index */
		if (pmuk_grow_raw((void **)&v->nodes, &v->cap_nodes, v->n_nodes + 1,
				  sizeof(*v->nodes)))
			return RP_NONE;
		id = (uint32_t)v->n_nodes++;
		v->nodes[id] = (struct rv_node){ sym, parent, RP_NONE, RP_NONE, 0, 0 };
		if (hint != RP_NONE && !many) {
			if (index_node(v, hint))
				return RP_NONE;
			if (parent & RV_ROOT)
				v->root_many[parent & ~RV_ROOT] = 1;
			else
				v->nodes[parent].next = RV_MANY;
		}
		if (hint != RP_NONE && index_node(v, id))
			return RP_NONE;
	}
	*hint_of(v, parent) = id;   /* after the grow: nodes may have moved */
	return id;
}

/* Adds group g's path through row (from entry `from`, stepping `step`, to
 * entry `to` included). */
static int add_path(struct rv_view *v, const struct rp_group *g, uint32_t row, long from, long to,
		    int step)
{
	uint32_t parent = RV_ROOT | row;

	for (long i = from;; i += step) {
		uint32_t id = node_of(v, parent, g->e[2 * i]);
		if (id == RP_NONE)
			return PMU_ENOMEM;
		v->nodes[id].n += g->count, v->nodes[id].p += g->period;
		parent = id;
		if (i == to)
			return 0;
	}
}

/* The path of g through each shown row it counts in (perf's orientation:
 * callee from the row to the root; caller from the root to the row when the
 * row is g's own function, else from the row down to the leaf). hits: its
 * (row, entry) pairs from count_group, its own row first, then with children
 * each row at its innermost entry. */
static int graph_group(struct rv_view *v, const struct rp_group *g, const uint32_t *hits,
		       size_t n_hits, const uint8_t *shown)
{
	long last = (long)g->n - 1;

	if (!g->n || !n_hits)
		return 0;
	uint32_t self = hits[0];
	for (size_t h = v->children ? 1 : 0; h < n_hits; h++) {
		uint32_t row = hits[2 * h];
		size_t i = hits[2 * h + 1];
		if (!shown[row])
			continue;
		int own = row == self;
		size_t at = own ? g->leaf : i;
		int err = v->graph == 2 ? add_path(v, g, row, (long)at, last, 1) :
			  own ? add_path(v, g, row, last, (long)at, -1) :
			  add_path(v, g, row, (long)i, 0, -1);
		if (err)
			return err;
		if (!v->children)
			break;
	}
	return 0;
}

/* Child lists (first child, next sibling) of the nodes; roots per row. */
static void link_nodes(struct rv_view *v)
{
	for (size_t i = 0; i < v->n_nodes; i++)   /* the hints of node_of go */
		v->nodes[i].kids = RP_NONE;
	for (size_t i = 0; i < v->n; i++)
		v->rows[i].roots = RP_NONE;
	for (size_t i = v->n_nodes; i-- > 0;) {
		struct rv_node *n = &v->nodes[i];
		uint32_t *head = n->parent & RV_ROOT ? &v->rows[n->parent & ~RV_ROOT].roots :
				 &v->nodes[n->parent].kids;
		n->next = *head;
		*head = (uint32_t)i;
	}
}

static int build_graphs(struct rv_view *v)
{
	uint8_t *shown = calloc(v->n + 1, 1);
	int err = 0;

	if (!shown || !(v->root_many = calloc(v->n + 1, 1))) {
		free(shown);
		return PMU_ENOMEM;
	}
	/* A node carries at most its row's period: a row under the threshold
	 * would print no branch (report_vout.c), so its graph is not built. */
	for (size_t i = 0; i < v->shown; i++) {
		const struct rv_row *w = &v->rows[v->order[i]];
		shown[v->order[i]] = pmuk_rv_pct(v, v->children ? w->ch_p : w->self_p) >=
				     v->graph_pct;
	}
	for (size_t i = 0; i < v->r->n_groups && !err; i++)
		if (v->r->groups[i].event == v->event)
			err = graph_group(v, &v->r->groups[i], &v->hits[2 * v->hit_at[i]],
					  v->hit_at[i + 1] - v->hit_at[i], shown);
	free(shown);
	free(v->root_many);
	v->root_many = NULL;
	if (!err)
		link_nodes(v);
	return err;
}

int pmuk_rv_build(struct rv_view *v)
{
	struct pmu_report *r = v->r;
	int err = 0;

	if (!v->comm && !(v->comm = calloc(r->n_threads + 1, sizeof(*v->comm))))
		return pmuk_fail(PMU_ENOMEM, "no memory for the report's view");
	for (size_t i = 0; i < r->n_threads; i++)
		v->comm[i] = pmuk_rp_intern(&r->str, pmuk_rp_thread_name(r, &r->threads[i]));
	if (!(v->hit_at = malloc((r->n_groups + 1) * sizeof(*v->hit_at))))
		return pmuk_fail(PMU_ENOMEM, "no memory for the report's view");
	for (size_t i = 0; i < r->n_groups && !err; i++) {
		v->hit_at[i] = (uint32_t)v->n_hits;
		if (r->groups[i].event == v->event)
			err = count_group(v, &r->groups[i]);
	}
	v->hit_at[r->n_groups] = (uint32_t)v->n_hits;
	if (!err)
		err = pmuk_rv_sort(v);
	if (!err && v->graph)
		err = build_graphs(v);
	return err ? pmuk_fail(PMU_ENOMEM, "no memory for the report's view") : 0;
}

void pmuk_rv_free(struct rv_view *v)
{
	free(v->rows), free(v->order), free(v->nodes), free(v->comm);
	free(v->keys), free(v->khash), free(v->first), free(v->set), free(v->hits),
		free(v->hit_at);
	pmuk_index_free(&v->ix);
	pmuk_index_free(&v->node_ix);
}

/* ---- values ---- */

/* Modules as perf names them: "[kernel.kallsyms]_text" is already
 * "[kernel.kallsyms]" (report_tab.c's module_path). */
static const char *dso_name(const struct pmu_report *r, uint32_t m)
{
	return m == RP_NONE ? "[unknown]" : pmuk_rp_str(r, r->mods[m].base);
}

const char *pmuk_rv_value(const struct rv_view *v, const struct rv_row *w, size_t i, char *buf,
			  size_t size)
{
	struct pmu_report *r = v->r;
	uint32_t k = w->k[i];

	switch (v->key[i]) {
	case RV_COMM:
		return pmuk_rp_str(r, k);
	case RV_DSO:
		return dso_name(r, k);
	case RV_SYM: {	/* "[k] label" without snprintf: every row asks it twice */
		char addr[RP_ADDR_BUF];
		const char *l = pmuk_rp_sym_label(r, k, addr);
		size_t n = strlen(l);
		if (size < 5)
			return "";
		n = n < size - 5 ? n : size - 5;
		memcpy(buf, r->syms[k].kernel ? "[k] " : "[.] ", 4);
		memcpy(buf + 4, l, n);
		buf[4 + n] = '\0';
		return buf;
	}
	case RV_TID:
		snprintf(buf, size, "%" PRId32 ":%s", r->threads[k].tid, pmuk_rp_str(r, v->comm[k]));
		return buf;
	case RV_PID:
		snprintf(buf, size, "%" PRId32 ":%s", (int32_t)k,
			 pmuk_rp_process_name(r, (int32_t)k));
		return buf;
	case RV_CPU:
		snprintf(buf, size, "%03" PRId32, (int32_t)k);
		return buf;
	default:
		return k ? pmuk_rp_str(r, k) : "[unknown]";
	}
}

size_t pmuk_rv_value_len(const struct rv_view *v, const struct rv_row *w, size_t i, size_t size)
{
	char buf[700];

	if (v->key[i] == RV_SYM) {   /* "[k] label", cut as pmuk_rv_value cuts it */
		size_t n = pmuk_rp_sym_label_len(v->r, w->k[i]);
		return size < 5 ? 0 : 4 + (n < size - 5 ? n : size - 5);
	}
	return strlen(pmuk_rv_value(v, w, i, buf, size < sizeof(buf) ? size : sizeof(buf)));
}
