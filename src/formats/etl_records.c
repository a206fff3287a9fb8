/* SPDX-License-Identifier: MIT */
/* .etl -> pmu_record stream. Records wait in a time-ordered queue for one
 * stack window: StackWalk parts name their sample by (timestamp, thread) and
 * come after it - the kernel part at once, the user part when the thread next
 * returns to user mode (then it also completes that thread's earlier samples
 * still waiting in the kernel), cached stacks as key references. */
#include "core/error.h"
#include "core/opts.h"
#include "formats/etl_int.h"
#include "formats/etl_records_int.h"

#include <stdlib.h>

uint64_t *pmuk_er_idmap_at(struct idmap *m, uint32_t id, int add)
{
	if (add && (m->n + 1) * 2 > m->cap) {
		struct idmap g = { 0 };
		g.cap = m->cap ? m->cap * 2 : 256;
		g.key = calloc(g.cap, sizeof(*g.key));
		g.val = calloc(g.cap, sizeof(*g.val));
		if (!g.key || !g.val) {
			free(g.key), free(g.val);
			return NULL;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->key[i])
				continue;
			size_t j = (m->key[i] * 0x9E3779B97F4A7C15ull >> 20) & (g.cap - 1);
			while (g.key[j])
				j = (j + 1) & (g.cap - 1);
			g.key[j] = m->key[i], g.val[j] = m->val[i];
		}
		g.n = m->n;
		free(m->key), free(m->val);
		*m = g;
	}
	if (!m->cap)
		return NULL;
	uint64_t k = (uint64_t)id + 1;
	for (size_t j = (k * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		if (m->key[j] == k)
			return &m->val[j];
		if (!m->key[j]) {
			if (!add)
				return NULL;
			m->key[j] = k;
			m->n++;
			return &m->val[j];
		}
	}
}

uint64_t pmuk_er_idmap_get(struct idmap *m, uint32_t id)
{
	uint64_t *v = pmuk_er_idmap_at(m, id, 0);

	return v ? *v : 0;
}

struct qent *pmuk_er_push(struct pmuk_etl_records *a, enum pmu_record_kind kind, int32_t pid,
			  int32_t tid, const struct pmu_etl_event *ev)
{
	if (a->tail - a->head == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		struct qent *q = malloc(cap * sizeof(*q));
		if (!q) {
			a->err = pmuk_fail(PMU_ENOMEM, "no memory for %zu records waiting for stacks", cap);
			return NULL;
		}
		for (uint64_t s = a->head; s < a->tail; s++)
			q[s & (cap - 1)] = *pmuk_er_at(a, s);
		free(a->q);
		a->q = q;
		a->cap = cap;
	}
	struct qent *e = pmuk_er_at(a, a->tail++);
	memset(e, 0, sizeof(*e));
	e->seq = a->tail - 1;
	e->rec.kind = kind;
	e->rec.has = PMU_HAS_TID | PMU_HAS_TIME;
	e->rec.pid = pid;
	e->rec.tid = tid;
	e->rec.cpu = -1;
	e->rec.event = -1;
	e->rec.time = ev ? (uint64_t)ev->time_ns : (uint64_t)pmu_etl_header(a->r2)->start_ns;
	e->raw = ev ? ev->raw_time : 0;
	if (a->tail - a->head > a->st.max_pending)
		a->st.max_pending = a->tail - a->head;
	return e;
}

static void drop(struct qent *e)
{
	free(e->str), free(e->str2), free(e->kown), free(e->uown), free(e->br);
}

static int emit(struct pmuk_etl_records *a, struct qent *e, pmu_record_fn cb, void *ctx)
{
	struct pmu_record *rec = &e->rec;

	if (rec->kind == PMU_RECORD_SAMPLE) {
		uint32_t n = 0;
		for (uint32_t i = 0; i < e->nk && n < 2 * PMU_ETL_MAX_FRAMES; i++)
			a->chain[n++] = e->kfr[i];
		rec->sample.nr_kernel_frames = n;
		for (uint32_t i = 0; i < e->nu && n < 2 * PMU_ETL_MAX_FRAMES; i++)
			a->chain[n++] = e->ufr[i];
		if (n) {
			rec->has |= PMU_HAS_CALLCHAIN;
			rec->sample.callchain = a->chain;
			rec->sample.nr_callchain = n;
			a->st.with_stack++;
		}
		if (e->nbr) {
			rec->has |= PMU_HAS_BRANCH_STACK;
			rec->sample.branches = e->br;
			rec->sample.nr_branches = e->nbr;
			a->st.with_branches++;
		}
		a->st.samples++;
	} else if (rec->kind == PMU_RECORD_COMM) {
		rec->comm.long_name = e->str;
	} else if (rec->kind == PMU_RECORD_MMAP) {
		rec->mmap.path = e->str ? e->str : "";
		rec->mmap.debug_path = e->str2;
	} else if (rec->kind == PMU_RECORD_SYMBOL) {
		rec->symbol.name = e->str;
		rec->symbol.module = e->str2;
	} else if (rec->kind == PMU_RECORD_SWITCH && rec->sw.nr_pmc) {
		rec->sw.pmc = e->pmc;
	}
	a->st.records++;
	return cb(rec, ctx);
}

/* Hands on the records older than the window (all of them at the end). */
static int release(struct pmuk_etl_records *a, int all, pmu_record_fn cb, void *ctx)
{
	uint64_t w = a->o.stack_window_ns ? a->o.stack_window_ns : 1000000000ull;

	while (a->head < a->tail) {
		struct qent *e = pmuk_er_at(a, a->head);
		if (!all && (int64_t)(e->rec.time + w) > a->now)
			return 0;
		int rc = emit(a, e, cb, ctx);
		drop(e);
		a->head++;
		if (rc)
			return rc;
	}
	return 0;
}

static void on_problem(const char *msg, void *ctx)
{
	struct pmuk_etl_records *a = ctx;

	a->problem = 1;
	if (a->o.on_problem)
		a->o.on_problem(msg, a->o.problem_ctx);
}

int pmuk_etl_records_open(const char *path, const struct pmuk_etl_records_opts *opts,
			  struct pmuk_etl_records **out)
{
	PMU_OPTS(pmu_etl_opts, o1, .order = PMU_ETL_ORDER_TIME);
	struct pmuk_etl_records *a = calloc(1, sizeof(*a));
	int err;

	*out = NULL;
	if (!a || !(a->path = strdup(path))) {
		free(a);
		return pmuk_fail(PMU_ENOMEM, "no memory to read %s", path);
	}
	if ((err = PMUK_OPTS_LOAD(a->o, opts, pmuk_etl_records_opts)) < 0 ||
	    (err = pmu_etl_open(path, &o1, &a->r1)) || (err = pmuk_er_collect(&a->tab, a->r1))) {
		pmuk_etl_records_close(a);
		return err;
	}
	for (size_t i = 0; i < a->tab.n_src; i++)
		a->interval[i] = a->tab.src[i].first_interval;
	*out = a;
	return 0;
}

int pmuk_etl_records_read(struct pmuk_etl_records *a, pmu_record_fn cb, void *ctx)
{
	PMU_OPTS(pmu_etl_opts, o2, .order = PMU_ETL_ORDER_TIME, .no_names = 1,
		 .on_problem = on_problem, .problem_ctx = a);
	struct pmu_etl_event ev;
	struct pmu_etl_stats st;
	struct qent *e;
	int rc;

	if (a->read++)
		return pmuk_fail(PMU_EINVAL, "the records of %s were read already", a->path);
	if ((rc = pmu_etl_open(a->path, &o2, &a->r2)))
		return rc;
	const struct pmu_etl_header *h = pmu_etl_header(a->r2);
	if (h->events_lost && (e = pmuk_er_push(a, PMU_RECORD_LOST, -1, -1, NULL)))
		e->rec.lost.count = h->events_lost;
	if (h->buffers_lost && (e = pmuk_er_push(a, PMU_RECORD_LOST, -1, -1, NULL)))
		e->rec.lost.buffers = h->buffers_lost;
	pmuk_er_clr_announce(a);
	while (!a->err && (rc = pmu_etl_next(a->r2, &ev)) > 0) {
		a->now = ev.time_ns;
		if (a->problem) {	/* bytes the reader skipped before this event */
			pmu_etl_stats(a->r2, &st, sizeof(st));
			if (st.bytes_skipped > a->skipped && (e = pmuk_er_push(a, PMU_RECORD_LOST, -1, -1, &ev)))
				e->rec.lost.bytes = st.bytes_skipped - a->skipped;
			a->skipped = st.bytes_skipped;
			a->problem = 0;
		}
		pmuk_er_convert(a, &ev);
		if (!a->err && (rc = release(a, 0, cb, ctx)))
			return rc;
	}
	if (a->err)
		return a->err;
	if (rc < 0)
		return rc;
	pmu_etl_stats(a->r2, &st, sizeof(st));
	if (st.bytes_skipped > a->skipped && (e = pmuk_er_push(a, PMU_RECORD_LOST, -1, -1, NULL))) {
		e->rec.time = a->now > 0 ? (uint64_t)a->now : e->rec.time;
		e->rec.lost.bytes = st.bytes_skipped - a->skipped;
	}
	/* The header's count covers the flagged buffers when the session wrote one. */
	if (st.events_lost_flagged && !h->events_lost &&
	    (e = pmuk_er_push(a, PMU_RECORD_LOST, -1, -1, NULL))) {
		e->rec.time = a->now > 0 ? (uint64_t)a->now : e->rec.time;
		e->rec.lost.uncounted = st.events_lost_flagged;
	}
	return a->err ? a->err : release(a, 1, cb, ctx);
}

const struct pmu_etl_header *pmuk_etl_records_header(const struct pmuk_etl_records *a)
{
	return pmu_etl_header(a->r1);
}

size_t pmuk_etl_records_event_count(const struct pmuk_etl_records *a)
{
	return a->tab.n_src;
}

const char *const *pmuk_etl_records_event_names(const struct pmuk_etl_records *a)
{
	return a->tab.src_names;
}

size_t pmuk_etl_records_pmc_count(const struct pmuk_etl_records *a)
{
	return a->tab.n_pmc;
}

const char *const *pmuk_etl_records_pmc_names(const struct pmuk_etl_records *a)
{
	return a->tab.pmc_names;
}

void pmuk_etl_records_report_opts(const struct pmuk_etl_records *a, struct pmu_report_opts *ro)
{
	ro->event_names = a->tab.src_names;
	ro->nr_events = (uint32_t)a->tab.n_src;
	ro->pmc_names = a->tab.pmc_names;
	ro->nr_pmc = (uint32_t)a->tab.n_pmc;
	ro->time_zero = (uint64_t)pmuk_etl_records_header(a)->start_ns;
}

void pmuk_etl_records_stats(const struct pmuk_etl_records *a, struct pmuk_etl_records_stats *st)
{
	*st = a->st;
}

void pmuk_etl_records_close(struct pmuk_etl_records *a)
{
	if (!a)
		return;
	for (; a->head < a->tail; a->head++)
		drop(pmuk_er_at(a, a->head));
	free(a->q);
	free(a->last.key), free(a->last.val), free(a->seen.key), free(a->seen.val);
	free(a->kwait.key), free(a->kwait.val);
	pmuk_er_tables_free(&a->tab);
	pmu_etl_close(a->r1);
	pmu_etl_close(a->r2);
	free(a->path);
	free(a);
}
