/* SPDX-License-Identifier: MIT */
/* Internals of the node report (core/report_node.h). */
#ifndef PMUK_CORE_REPORT_NODE_INT_H
#define PMUK_CORE_REPORT_NODE_INT_H

#include "core/hash.h"
#include "core/report_node.h"

/* One sample as the tables count it. */
struct nr_hit {
	uint64_t period, weight;
	int page_node, cpu_node;   /* -1 unknown */
	const char *comm;          /* the thread's name, looked up once per sample */
};

struct nr_row {
	char *key;
	int node;                  /* -1: no answer (state says why) */
	uint32_t state;            /* enum pmu_page_state of a page without a node */
	int answered;              /* the recording had an answer for the page */
	char *obj, *module, *sym, *comm;
	int32_t pid, tid;
	uint64_t samples, period, weight;
	uint64_t local, remote, unknown;   /* periods */
};

struct nr_table {
	struct nr_row *rows;
	size_t n, cap;
	struct pmuk_index ix;
};

/* The row of key (created zeroed, *created 1, key copied); NULL without memory. */
struct nr_row *pmuk_nr_row(struct nr_table *t, const char *key, int *created);
void pmuk_nr_count(struct nr_row *r, const struct nr_hit *h);
/* By period, highest first; no row is added after. */
void pmuk_nr_sort(struct nr_table *t);
void pmuk_nr_free(struct nr_table *t);

/* The sort keys of the rows. */
enum { NR_NODE = 1, NR_OBJ = 2, NR_SYM = 4, NR_TID = 8, NR_COMM = 16 };

struct nr_report {
	const struct pmuk_node_report_args *a;
	unsigned keys;
	struct pmuk_nodefile nf;
	struct pmuk_dobj *dobj;
	struct pmu_symbolizer *sym;
	struct nr_table rows, threads, objects;
	struct nr_comm {           /* thread names, latest last */
		int32_t tid;
		char name[16];
	} *comm;
	size_t ncomm, capcomm;
	uint64_t samples, with_addr, period, no_answer;
	int mono;                  /* sample times are CLOCK_MONOTONIC, as answer times */
	uint64_t lag_n, lag_sum, lag_max;  /* ns from a sample to its page's later answer */
	char event[128];           /* the first event's name */
	uint64_t *fixed_period;    /* per event: its attr's period when not freq, else 0 */
	size_t nevents;
};

/* report_node_out.c */
void pmuk_nr_text(struct nr_report *r, FILE *f);
void pmuk_nr_json(struct nr_report *r, FILE *f);

#endif
