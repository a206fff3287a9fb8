/* SPDX-License-Identifier: MIT */
/* perf report's view over the sample groups (report_view.c builds it,
 * report_vout.c prints it). */
#ifndef PMUK_CORE_REPORT_VIEW_H
#define PMUK_CORE_REPORT_VIEW_H

#include "core/report_int.h"

enum rv_key { RV_COMM, RV_DSO, RV_SYM, RV_TID, RV_PID, RV_CPU, RV_SRCLINE, RV_NKINDS };
#define RV_MAX_KEYS 8

struct rv_row {
	uint32_t k[RV_MAX_KEYS];     /* one value per sort key, in the order given */
	uint64_t self_n, self_p;     /* samples, period as the sampled function */
	uint64_t ch_n, ch_p;         /* ... with the row anywhere in the stack */
	uint32_t roots;              /* first root node of its call graph, RP_NONE */
};

struct rv_node {                 /* a call graph node: a symbol under a parent */
	uint32_t sym, parent;        /* parent: a node, or RV_ROOT | row */
	uint32_t kids, next;         /* first child, next sibling (RP_NONE: none) */
	uint64_t n, p;               /* samples, period through it */
};
#define RV_ROOT 0x80000000u
#define RV_MANY 0u

struct rv_view {
	struct pmu_report *r;
	enum rv_key key[RV_MAX_KEYS];
	size_t nk;
	int children, graph;         /* graph: 0 none, 1 caller, 2 callee */
	double limit_pct, graph_pct;
	size_t limit;
	int32_t event;               /* the section */
	uint64_t total_n, total_p;   /* the event's samples, period (hidden ones included) */
	struct rv_row *rows;
	size_t n, cap;
	struct pmuk_index ix;
	uint32_t *order;             /* rows shown, in order */
	size_t shown;
	struct rv_node *nodes;
	size_t n_nodes, cap_nodes;
	/* the nodes under parents with two children or more (a parent with one
	 * has it as its hint); while the graphs are built, such a node's next is
	 * RV_MANY, and root_many[row] is set for such a row */
	struct pmuk_index node_ix;
	uint8_t *root_many;
	uint32_t *comm;              /* interned thread name per thread */
	/* per group: the row key of each entry, whether it is the key's first
	 * (innermost) entry, and a hash set finding that in linear time */
	uint32_t *keys;
	uint64_t *khash;             /* ... each key's hash */
	uint8_t *first;
	uint32_t *set;
	size_t cap_keys, cap_khash, cap_first, cap_set;
	/* per group (index into r->groups): the rows it counts in, as (row,
	 * entry) pairs from hits[2 * hit_at[g] ..) to hits[2 * hit_at[g + 1]),
	 * its own row first: the call graphs walk these, not the keys again */
	uint32_t *hits, *hit_at;
	size_t n_hits, cap_hits;
};

/* "comm,dso,sym" into v->key; PMU_EINVAL naming the bad key. */
int pmuk_rv_parse(struct rv_view *v, const char *sort);
/* The rows of event v->event, sorted, limited, with call graphs when asked. */
int pmuk_rv_build(struct rv_view *v);
/* Its step that orders v->rows into v->order (shown: v->shown): 0 or
 * PMU_ENOMEM. */
int pmuk_rv_sort(struct rv_view *v);
void pmuk_rv_free(struct rv_view *v);
const char *pmuk_rv_key_name(enum rv_key k);
/* The text of key i of row w: into buf when it is made up. */
const char *pmuk_rv_value(const struct rv_view *v, const struct rv_row *w, size_t i, char *buf,
			  size_t size);
/* ... and its length, without making it where that costs */
size_t pmuk_rv_value_len(const struct rv_view *v, const struct rv_row *w, size_t i, size_t size);
double pmuk_rv_pct(const struct rv_view *v, uint64_t period);

#endif
