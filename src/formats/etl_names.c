/* SPDX-License-Identifier: MIT */
/* Thread and process table built from the lifecycle events while reading.
 * Entries are never dropped when a thread ends: samples, stacks and reports
 * that come later (or reach back) still find the name (seed 001). A reused
 * tid or pid gets a new entry chained to the older one. */
#include "formats/etl_int.h"
#include "core/grow.h"
#include "core/error.h"

#include <stdlib.h>

struct life {
	uint32_t pid, tid;        /* tid unused for processes */
	uint32_t ppid, session;
	int32_t exit_status;
	int64_t start, end;
	int started, ended;
	char *name;               /* thread name, or process image */
	char *cmdline;
	int prev;                 /* older entry with the same id, -1 */
};

struct table {
	struct life *v;
	size_t n, cap;
	uint32_t *keys;           /* id -> index + 1 of the latest entry */
	int *latest;
	size_t hcap, hused;
};

struct etl_names {
	struct table threads, procs;
};

static int *slot(struct table *t, uint32_t id, int insert)
{
	if (insert && (t->hused + 1) * 2 > t->hcap) {
		size_t cap = t->hcap ? 2 * t->hcap : 256;
		uint32_t *k = calloc(cap, sizeof(*k));
		int *l = calloc(cap, sizeof(*l));
		if (!k || !l) {
			free(k);
			free(l);
			return NULL;
		}
		for (size_t i = 0; i < t->hcap; i++) {
			if (!t->latest[i])
				continue;
			size_t j = (t->keys[i] * 2654435761u) & (cap - 1);
			while (l[j])
				j = (j + 1) & (cap - 1);
			k[j] = t->keys[i];
			l[j] = t->latest[i];
		}
		free(t->keys);
		free(t->latest);
		t->keys = k;
		t->latest = l;
		t->hcap = cap;
	}
	if (!t->hcap)
		return NULL;
	size_t j = (id * 2654435761u) & (t->hcap - 1);
	while (t->latest[j] && t->keys[j] != id)
		j = (j + 1) & (t->hcap - 1);
	if (!t->latest[j]) {
		if (!insert)
			return NULL;
		t->keys[j] = id;
		t->hused++;
	}
	return &t->latest[j];
}

static struct life *latest(struct table *t, uint32_t id)
{
	int *s = slot(t, id, 0);
	return s && *s ? &t->v[*s - 1] : NULL;
}

static struct life *add(struct table *t, uint32_t id, int64_t start, int started)
{
	int *s = slot(t, id, 1);

	if (!s)
		return NULL;
	if (pmuk_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		return NULL;
	struct life *l = &t->v[t->n];
	memset(l, 0, sizeof(*l));
	l->prev = *s - 1;
	l->start = start;
	l->end = INT64_MAX;
	l->started = started;
	*s = (int)++t->n;
	return l;
}

static void set_str(char **dst, const char *s, int overwrite)
{
	if (!s[0] || (*dst && !overwrite))
		return;
	char *n = malloc(strlen(s) + 1);
	if (!n)
		return;
	strcpy(n, s);
	free(*dst);
	*dst = n;
}

/* The entry an event about id refers to: a start makes a new one, other
 * events continue the latest unless it ended (then the id was reused). */
static struct life *entry_for(struct table *t, uint32_t id, uint32_t pid, unsigned op,
			      int64_t now)
{
	struct life *l = latest(t, id);

	if (op == 1)
		return add(t, id, now, 1);
	if (l && !l->ended && l->pid == pid)
		return l;
	return add(t, id, INT64_MIN, 0);
}

static void track_thread(struct etl_names *nm, const struct pmu_etl_event *ev)
{
	struct pmu_etl_thread_ev te;
	struct life *l;

	if (ev->opcode == 72) {
		struct pmu_etl_thread_name_ev sn;
		if (pmu_etl_decode_thread_set_name(ev, &sn))
			return;
		if ((l = entry_for(&nm->threads, sn.tid, sn.pid, 0, ev->time_ns))) {
			l->pid = sn.pid;
			l->tid = sn.tid;
			set_str(&l->name, sn.name, 1);
		}
		return;
	}
	if (pmu_etl_decode_thread(ev, &te))
		return;
	if (!(l = entry_for(&nm->threads, te.tid, te.pid, te.opcode, ev->time_ns)))
		return;
	l->pid = te.pid;
	l->tid = te.tid;
	if (te.opcode == 2) {
		l->end = ev->time_ns;
		l->ended = 1;
	}
	set_str(&l->name, te.name, 1);
}

static void track_process(struct etl_names *nm, const struct pmu_etl_event *ev)
{
	struct pmu_etl_process_ev pe;
	struct life *l;

	if (pmu_etl_decode_process(ev, &pe))
		return;
	if (!(l = entry_for(&nm->procs, pe.pid, pe.pid, pe.opcode, ev->time_ns)))
		return;
	l->pid = pe.pid;
	l->ppid = pe.ppid;
	l->session = pe.session;
	if (pe.opcode == 2 || pe.opcode == 39) {
		l->exit_status = pe.exit_status;
		if (!l->ended)
			l->end = ev->time_ns;
		l->ended = 1;
	}
	set_str(&l->name, pe.image, 0);
	set_str(&l->cmdline, pe.command_line, 0);
}

void pmuk_etl_names_track(struct pmu_etl *r, const struct pmu_etl_event *ev)
{
	if (ev->group != PMU_ETL_GROUP_THREAD && ev->group != PMU_ETL_GROUP_PROCESS)
		return;
	if (!r->names && !(r->names = calloc(1, sizeof(*r->names))))
		return;
	if (ev->group == PMU_ETL_GROUP_THREAD &&
	    ((ev->opcode >= 1 && ev->opcode <= 4) || ev->opcode == 72))
		track_thread(r->names, ev);
	else if (ev->group == PMU_ETL_GROUP_PROCESS &&
		 ((ev->opcode >= 1 && ev->opcode <= 4) || ev->opcode == 39))
		track_process(r->names, ev);
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].cmdline);
	}
	free(t->v);
	free(t->keys);
	free(t->latest);
}

void pmuk_etl_names_free(struct pmu_etl *r)
{
	if (!r->names)
		return;
	table_free(&r->names->threads);
	table_free(&r->names->procs);
	free(r->names);
	r->names = NULL;
}

/* The entry of id alive at time t, else the latest started before t, else the oldest. */
static const struct life *find(const struct table *t, uint32_t id, int64_t when)
{
	struct life *l = latest((struct table *)t, id);

	while (l) {
		if (l->start <= when || l->prev < 0)
			return l;
		l = &t->v[l->prev];
	}
	return NULL;
}

static void fill_process(const struct life *l, struct pmu_etl_process *o)
{
	o->pid = l->pid;
	o->ppid = l->ppid;
	o->session = l->session;
	o->image = l->name ? l->name : "";
	o->command_line = l->cmdline ? l->cmdline : "";
	o->start_ns = l->start;
	o->end_ns = l->end;
	o->started = l->started;
	o->ended = l->ended;
	o->exit_status = l->exit_status;
}

static void fill_thread(const struct etl_names *nm, const struct life *l, struct pmu_etl_thread *o)
{
	const struct life *p = find(&nm->procs, l->pid, l->start != INT64_MIN ? l->start : l->end);

	o->pid = l->pid;
	o->tid = l->tid;
	o->name = l->name ? l->name : "";
	o->process = p && p->name ? p->name : "";
	o->start_ns = l->start;
	o->end_ns = l->end;
	o->started = l->started;
	o->ended = l->ended;
}

int pmu_etl_thread_lookup(const struct pmu_etl *r, uint32_t tid, int64_t when,
			  struct pmu_etl_thread *out)
{
	const struct life *l = r->names ? find(&r->names->threads, tid, when) : NULL;

	if (!l)
		return pmuk_fail(PMU_ENOENT, "thread %u appears in no thread event of the trace", tid);
	fill_thread(r->names, l, out);
	return 0;
}

int pmu_etl_process_lookup(const struct pmu_etl *r, uint32_t pid, int64_t when,
			   struct pmu_etl_process *out)
{
	const struct life *l = r->names ? find(&r->names->procs, pid, when) : NULL;

	if (!l)
		return pmuk_fail(PMU_ENOENT, "process %u appears in no process event of the trace", pid);
	fill_process(l, out);
	return 0;
}

size_t pmu_etl_thread_count(const struct pmu_etl *r)
{
	return r->names ? r->names->threads.n : 0;
}

int pmu_etl_thread_at(const struct pmu_etl *r, size_t i, struct pmu_etl_thread *out)
{
	if (i >= pmu_etl_thread_count(r))
		return pmuk_fail(PMU_EINVAL, "thread entry %zu does not exist", i);
	fill_thread(r->names, &r->names->threads.v[i], out);
	return 0;
}

size_t pmu_etl_process_count(const struct pmu_etl *r)
{
	return r->names ? r->names->procs.n : 0;
}

int pmu_etl_process_at(const struct pmu_etl *r, size_t i, struct pmu_etl_process *out)
{
	if (i >= pmu_etl_process_count(r))
		return pmuk_fail(PMU_EINVAL, "process entry %zu does not exist", i);
	fill_process(&r->names->procs.v[i], out);
	return 0;
}
