/* SPDX-License-Identifier: MIT */
/* perf stat's aggregation modes over one counter handle: the row sets printed
 * instead of the aggregate, one per CPU, core, socket or thread, each the sum of
 * some units (CPUs or threads) of the handle. */
#include "cmd.h"
#include "stat.h"

#include "core/scale.h"
#include "core/sysroot.h"

#include <stdlib.h>
#include <string.h>

struct stat_aggr {
	size_t nrows, nunits, n;
	int threads;                 /* units are threads, else CPUs */
	size_t *row_of;              /* [nunits]: the row a unit is summed into */
	struct stat_rows *id;        /* [nrows]: only the identity fields are set */
	char (*comm)[32];            /* [nunits], --per-thread */
	struct pmu_reading *one;     /* [n]: one unit's readings */
};

static void blank_id(struct stat_rows *id)
{
	memset(id, 0, sizeof(*id));
	id->cpu = id->socket = id->die = id->core = id->tid = -1;
}

/* The thread's name when the handle was opened: it may be gone when printed. The
 * real /proc, whatever the sysroot (it holds fixture trees, never live threads). */
static void thread_name(int tid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	if (pmuk_read_text(path, buf, size) <= 0)
		snprintf(buf, size, "?");
}

static int cmp_place(const void *pa, const void *pb)
{
	const struct stat_rows *a = pa, *b = pb;

	if (a->socket != b->socket)
		return a->socket < b->socket ? -1 : 1;
	if (a->die != b->die)
		return a->die < b->die ? -1 : 1;
	return a->core < b->core ? -1 : a->core > b->core;
}

/* Where CPU unit u is: its socket, and for --per-core its die and core. */
static void place_of(const struct pmu_topology *t, const struct stat_config *cfg,
		     const struct pmu_counters *c, size_t u, struct stat_rows *place)
{
	const struct pmu_topo_cpu *tc = pmu_topology_cpu_by_id(t, pmu_counters_cpu(c, u));

	blank_id(place);
	place->socket = tc ? tc->package : -1;
	if (cfg->aggr == STAT_AGGR_CORE) {
		place->die = tc && tc->die >= 0 ? tc->die : 0;
		place->core = tc ? tc->core : -1;
	}
}

/* --per-core / --per-socket: one row per distinct place, sorted as perf sorts them. */
static int group_cpus(struct stat_aggr *a, const struct stat_config *cfg,
		      const struct pmu_counters *c)
{
	struct pmu_topology *t;
	struct stat_rows place;
	int err = pmu_topology_load(&t);

	if (err) {
		fprintf(stderr, "pmukit stat: %s needs the CPU topology: %s: %s\n",
			cfg->aggr == STAT_AGGR_CORE ? "--per-core" : "--per-socket",
			pmu_strerror(err), pmu_error_detail());
		return 1;
	}
	for (size_t u = 0; u < a->nunits; u++) {
		size_t k;

		place_of(t, cfg, c, u, &place);
		for (k = 0; k < a->nrows && cmp_place(&a->id[k], &place); k++)
			;
		if (k == a->nrows)
			a->id[a->nrows++] = place;
	}
	qsort(a->id, a->nrows, sizeof(*a->id), cmp_place);
	for (size_t u = 0; u < a->nunits; u++) {
		size_t k;

		place_of(t, cfg, c, u, &place);
		for (k = 0; cmp_place(&a->id[k], &place); k++)
			;
		a->row_of[u] = k;
		a->id[k].ncpus++;
	}
	pmu_topology_free(t);
	return 0;
}

/* -A / --no-aggr and --per-thread: one row per unit. */
static void one_row_each(struct stat_aggr *a, const struct pmu_counters *c)
{
	for (size_t u = 0; u < a->nunits; u++) {
		blank_id(&a->id[u]);
		a->row_of[u] = u;
		if (a->threads) {
			a->id[u].tid = pmu_counters_thread(c, u);
			thread_name(a->id[u].tid, a->comm[u], sizeof(a->comm[u]));
			a->id[u].comm = a->comm[u];
		} else {
			a->id[u].cpu = pmu_counters_cpu(c, u);
		}
	}
	a->nrows = a->nunits;
}

int stat_aggr_open(const struct stat_config *cfg, struct pmu_counters *c,
		   struct stat_aggr **out)
{
	struct stat_aggr *a;

	*out = NULL;
	if (cfg->aggr == STAT_AGGR_GLOBAL)
		return 0;
	if (!(a = calloc(1, sizeof(*a))))
		return tool_error("stat", "allocating", PMU_ENOMEM);
	a->threads = cfg->aggr == STAT_AGGR_THREAD;
	a->nunits = a->threads ? pmu_counters_thread_count(c) : pmu_counters_cpu_count(c);
	a->n = pmu_counters_event_count(c);
	a->row_of = calloc(a->nunits + 1, sizeof(*a->row_of));
	a->id = calloc(a->nunits + 1, sizeof(*a->id));
	a->comm = calloc(a->nunits + 1, sizeof(*a->comm));
	a->one = calloc(a->n + 1, sizeof(*a->one));
	if (!a->row_of || !a->id || !a->comm || !a->one) {
		stat_aggr_free(a);
		return tool_error("stat", "allocating", PMU_ENOMEM);
	}
	if (cfg->aggr == STAT_AGGR_CORE || cfg->aggr == STAT_AGGR_SOCKET) {
		if (group_cpus(a, cfg, c)) {
			stat_aggr_free(a);
			return 1;
		}
	} else {
		one_row_each(a, c);
	}
	*out = a;
	return 0;
}

size_t stat_aggr_rows(const struct stat_aggr *a)
{
	return a ? a->nrows : 0;
}

void stat_aggr_label(const struct stat_aggr *a, size_t k, struct stat_rows *row)
{
	const struct stat_rows *id = &a->id[k];

	row->cpu = id->cpu;
	row->socket = id->socket;
	row->die = id->die;
	row->core = id->core;
	row->ncpus = id->ncpus;
	row->tid = id->tid;
	row->comm = id->comm;
}

static int read_unit(struct stat_aggr *a, struct pmu_counters *c, size_t u,
		     struct pmu_reading *out)
{
	return a->threads ? pmu_counters_read_thread(c, u, out, a->n)
			  : pmu_counters_read_cpu(c, u, out, a->n);
}

/* Sums each unit's readings into its row (a unit alone in its row is copied, flags
 * and all), as the library sums units into the aggregate. */
int stat_aggr_read(struct stat_aggr *a, struct pmu_counters *c, struct pmu_reading *out)
{
	int err;

	if (a->nrows == a->nunits) {
		for (size_t u = 0; u < a->nunits; u++)
			if ((err = read_unit(a, c, u, out + a->row_of[u] * a->n)))
				return err;
		return 0;
	}
	memset(out, 0, a->nrows * a->n * sizeof(*out));
	for (size_t u = 0; u < a->nunits; u++) {
		struct pmu_reading *row = out + a->row_of[u] * a->n;

		if ((err = read_unit(a, c, u, a->one)))
			return err;
		for (size_t e = 0; e < a->n; e++)
			pmuk_reading_add(&row[e], &a->one[e]);
	}
	for (size_t k = 0; k < a->nrows * a->n; k++)
		pmuk_reading_set(&out[k], out[k].value, out[k].time_enabled, out[k].time_running);
	return 0;
}

void stat_aggr_free(struct stat_aggr *a)
{
	if (!a)
		return;
	free(a->row_of);
	free(a->id);
	free(a->comm);
	free(a->one);
	free(a);
}
