/* SPDX-License-Identifier: MIT */
/* The target of ETW PMC-on-CSwitch counting, followed through Process and Thread
 * events (core/etw_follow.h). */
#include "core/etw_follow.h"
#include "core/error.h"
#include "core/etw_config.h"
#include "core/grow.h"
#include "core/hash.h"
#include "core/pidtree.h"

#include <pmukit/etl.h>
#include <stdlib.h>
#include <string.h>

struct thread {
	uint32_t tid;
	uint8_t member;
};

struct pmuk_etw_follow {
	enum pmuk_follow_kind kind;
	uint32_t id;
	struct pmuk_pidtree *tree;   /* TREE only */
	struct thread *t;
	size_t n, cap;
	struct pmuk_index ix;
};

static int eq(const void *key, uint32_t id, const void *ctx)
{
	return ((const struct pmuk_etw_follow *)ctx)->t[id].tid == *(const uint32_t *)key;
}

static struct thread *find(const struct pmuk_etw_follow *f, uint32_t tid)
{
	uint32_t id = pmuk_index_find(&f->ix, pmuk_hash_u64(tid), eq, &tid, f);

	return id == PMUK_INDEX_NONE ? NULL : &f->t[id];
}

static int process_member(const struct pmuk_etw_follow *f, uint32_t pid)
{
	if (f->kind == PMUK_FOLLOW_TREE)
		return pmuk_pidtree_has(f->tree, pid);
	return f->kind == PMUK_FOLLOW_PROCESS && pid == f->id;
}

int pmuk_etw_follow_thread(struct pmuk_etw_follow *f, uint32_t tid, uint32_t pid)
{
	struct thread *e;
	uint32_t id;

	if (!tid || f->kind == PMUK_FOLLOW_THREAD)
		return 0;  /* idle threads all have id 0; a THREAD target needs no table */
	if (!(e = find(f, tid))) {
		if (pmuk_grow((void **)&f->t, &f->cap, f->n + 1, sizeof(*f->t)) ||
		    (id = pmuk_index_add(&f->ix, pmuk_hash_u64(tid))) == PMUK_INDEX_NONE)
			return pmuk_fail(PMU_ENOMEM, "out of memory following the counted "
					 "threads");
		e = &f->t[id];
		e->tid = tid;
		f->n++;
	}
	e->member = (uint8_t)process_member(f, pid);
	return 0;
}

int pmuk_etw_follow_new(enum pmuk_follow_kind kind, uint32_t id, struct pmuk_etw_follow **out)
{
	struct pmuk_etw_follow *f = calloc(1, sizeof(*f));
	int err = 0;

	*out = NULL;
	if (!f)
		return pmuk_fail(PMU_ENOMEM, "out of memory following the counted threads");
	f->kind = kind;
	f->id = id;
	if (kind == PMUK_FOLLOW_TREE)
		err = pmuk_pidtree_new(id, &f->tree);
	if (err) {
		pmuk_etw_follow_free(f);
		return err;
	}
	*out = f;
	return 0;
}

void pmuk_etw_follow_free(struct pmuk_etw_follow *f)
{
	if (!f)
		return;
	pmuk_pidtree_free(f->tree);
	pmuk_index_free(&f->ix);
	free(f->t);
	free(f);
}

/* Start (1) and rundown start (3) join through the parent; end (2), rundown end
 * (4) and defunct (39) leave. */
static int process_event(struct pmuk_etw_follow *f, const struct pmu_etl_event *ev)
{
	struct pmu_etl_process_ev p;
	int err;

	if (f->kind != PMUK_FOLLOW_TREE)
		return 0;
	if ((err = pmu_etl_decode_process(ev, &p)))
		return err;
	if (p.opcode == 1 || p.opcode == 3)
		return (err = pmuk_pidtree_start(f->tree, p.pid, p.ppid)) < 0 ? err : 0;
	/* rundown end lists live processes: only a real end leaves */
	if (p.opcode == 2 || p.opcode == 39)
		pmuk_pidtree_end(f->tree, p.pid);
	return 0;
}

int pmuk_etw_follow_event(struct pmuk_etw_follow *f, const struct pmu_etl_event *ev)
{
	struct pmu_etl_thread_ev t;
	int err;

	if (!memcmp(&ev->provider, &pmuk_etw_process_guid, sizeof(ev->provider)))
		return (ev->opcode >= 1 && ev->opcode <= 4) || ev->opcode == 39 ?
		       process_event(f, ev) : 0;
	if (memcmp(&ev->provider, &pmuk_etw_thread_guid, sizeof(ev->provider)) ||
	    (ev->opcode != 1 && ev->opcode != 3))
		return 0;  /* a thread's end changes nothing: its last switch follows */
	if ((err = pmu_etl_decode_thread(ev, &t)))
		return err;
	return pmuk_etw_follow_thread(f, t.tid, t.pid);
}

int pmuk_etw_follow_switch(const struct pmuk_etw_follow *f, uint32_t old_tid)
{
	const struct thread *e;

	if (!old_tid)
		return 0;
	if (f->kind == PMUK_FOLLOW_THREAD)
		return old_tid == f->id;
	e = find(f, old_tid);
	return e ? e->member : -1;
}

uint64_t pmuk_etw_follow_processes(const struct pmuk_etw_follow *f)
{
	return f->tree ? pmuk_pidtree_total(f->tree) : 1;
}
