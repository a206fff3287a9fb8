/* SPDX-License-Identifier: MIT */
/* Region markers: each thread lazily opens the region events on itself, begin/end
 * read them (user-space reads where the page allows) and accumulate per (region,
 * thread). The global mutex guards registration only; the hot path takes no lock.
 * OS-neutral: the counters are the backend's PMU_TARGET_SELF counters, the threading
 * is core/osthread.h (fork only exists on POSIX, where a child drops its parent's
 * thread state). */
#include "core/counting_int.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/json.h"
#include "core/osthread.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct region {
	char name[128];
	uint64_t calls;
	int active;
	struct pmu_reading *begin; /* [nev] */
	double *sum, *min, *max;   /* [nev] */
};

struct rthread {
	struct rthread *next;
	uint64_t serial;           /* identifies it to the thread-exit destructor */
	int tid;
	struct pmu_counters *c;    /* NULL once the thread exited */
	struct region *reg;
	size_t nreg, cap;
	struct pmu_reading *now;   /* [nev] */
};

static pmuk_lock_t lock = PMUK_LOCK_INIT;
static pmuk_once_t key_once = PMUK_ONCE_INIT;
static pmuk_tkey_t key;
static int key_ok;
static struct pmu_event *evs;
static size_t nev;
static struct rthread *threads, **threads_tail = &threads;
static unsigned gen = 1;
static uint64_t serials;

static _Thread_local struct rthread *self;
static _Thread_local unsigned self_gen, self_forks;

/* This thread's state, or NULL when it has none yet, regions were set up again since
 * (gen), or it is a forked child's copy of its parent's (whose counters count the
 * parent's thread). */
static struct rthread *current(void)
{
	return self && self_gen == gen && self_forks == pmuk_fork_count ? self : NULL;
}

static struct rthread *find_serial(uint64_t serial)
{
	for (struct rthread *t = threads; t; t = t->next)
		if (t->serial == serial)
			return t;
	return NULL;
}

/* Thread exit: release its descriptors, keep its results. */
static void thread_gone(void *v)
{
	struct rthread *t;

	pmuk_lock(&lock);
	if ((t = find_serial((uint64_t)(uintptr_t)v)) != NULL) {
		pmu_counters_close(t->c);
		t->c = NULL;
	}
	pmuk_unlock(&lock);
}

#ifndef _WIN32
/* Held across fork(): a child must not inherit the lock taken by another thread
 * (pmu_regions_write, a thread registering), which nobody would release there. */
static void fork_prepare(void)
{
	pmuk_lock(&lock);
}

static void fork_release(void)
{
	pmuk_unlock(&lock);
}

static void free_threads(void);

/* The child's table starts empty: the threads listed are its parent's (their
 * counters count the parent), and the child has but the one that forked. */
static void fork_child(void)
{
	free_threads();
	pmuk_unlock(&lock);
}
#endif

static void make_key(void)
{
	key_ok = pmuk_tkey_create(&key, thread_gone) == 0;
#ifndef _WIN32
	pthread_atfork(fork_prepare, fork_release, fork_child);
#endif
}

static void free_region(struct region *r)
{
	free(r->begin);
	free(r->sum);
	free(r->min);
	free(r->max);
}

static void free_thread(struct rthread *t)
{
	pmu_counters_close(t->c);
	for (size_t r = 0; r < t->nreg; r++)
		free_region(&t->reg[r]);
	free(t->reg);
	free(t->now);
	free(t);
}

/* Called with the lock held. */
static void free_threads(void)
{
	while (threads) {
		struct rthread *t = threads;

		threads = t->next;
		free_thread(t);
	}
	threads_tail = &threads;
}

void pmu_regions_fini(void)
{
	pmuk_lock(&lock);
	free_threads();
	free(evs);
	evs = NULL;
	nev = 0;
	gen++;
	pmuk_unlock(&lock);
}

static int thread_state(struct rthread **out);

int pmu_regions_init(const char *spec)
{
	struct rthread *rt;
	struct pmu_event_list *list;
	struct pmu_event *ev;
	size_t n;
	int err;

	if (!spec)
		spec = pmuk_counters_self_default();
	if ((err = pmu_event_parse(spec, &list)) < 0)
		return err;
	n = pmu_event_list_count(list);
	ev = n ? malloc(n * sizeof(*ev)) : NULL;
	if (!ev) {
		pmu_event_list_free(list);
		return n ? pmuk_fail(PMU_ENOMEM, "out of memory") :
			   pmuk_fail(PMU_EINVAL, "region event list \"%s\" is empty", spec);
	}
	for (size_t i = 0; i < n; i++)
		ev[i] = *pmu_event_list_get(list, i);
	pmu_event_list_free(list);
	if ((err = pmuk_counters_check_budget(ev, n)) < 0) {
		free(ev);
		return err;
	}
	pmu_regions_fini();
	pmuk_once(&key_once, make_key);
	pmuk_fork_watch();
	pmuk_lock(&lock);
	evs = ev;
	nev = n;
	pmuk_unlock(&lock);
	/* Open on the calling thread now, so an event this host cannot count fails here
	 * rather than at the first pmu_region_begin(). */
	if ((err = thread_state(&rt)) < 0) {
		pmu_regions_fini();
		return err;
	}
	return 0;
}

static int thread_state(struct rthread **out)
{
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	PMU_OPTS(pmu_counters_opts, o);
	struct rthread *rt;
	int err;

	if ((*out = current()) != NULL)
		return 0;
	if (!evs)
		return pmuk_fail(PMU_EINVAL, "regions are not initialised: call pmu_regions_init "
				 "first");
	rt = calloc(1, sizeof(*rt));
	if (!rt || !(rt->now = calloc(nev, sizeof(*rt->now)))) {
		free(rt);
		return pmuk_fail(PMU_ENOMEM, "out of memory for this thread's regions");
	}
	if ((err = pmuk_counters_open_events(evs, nev, &t, &o, &rt->c)) < 0) {
		free(rt->now);
		free(rt);
		return err;
	}
	rt->tid = pmuk_thread_id();
	pmuk_lock(&lock);
	rt->serial = ++serials;
	*threads_tail = rt;
	threads_tail = &rt->next;
	pmuk_unlock(&lock);
	if (key_ok)
		pmuk_tkey_set(key, (void *)(uintptr_t)rt->serial);
	self = rt;
	self_gen = gen;
	self_forks = pmuk_fork_count;
	*out = rt;
	return 0;
}

static struct region *find_region(struct rthread *rt, const char *name)
{
	for (size_t i = 0; i < rt->nreg; i++)
		if (strcmp(rt->reg[i].name, name) == 0)
			return &rt->reg[i];
	return NULL;
}

static int add_region(struct rthread *rt, const char *name, struct region **out)
{
	struct region *r;
	int err = 0;

	if (strlen(name) >= sizeof(r->name))
		return pmuk_fail(PMU_EINVAL, "region name \"%.40s...\" is longer than %zu bytes",
				 name, sizeof(r->name) - 1);
	pmuk_lock(&lock); /* pmu_regions_write may be walking rt->reg */
	if (pmuk_grow((void **)&rt->reg, &rt->cap, rt->nreg + 1, sizeof(*rt->reg))) {
		err = PMU_ENOMEM;
	} else {
		r = &rt->reg[rt->nreg];
		memset(r, 0, sizeof(*r));
		snprintf(r->name, sizeof(r->name), "%s", name);
		r->begin = calloc(nev, sizeof(*r->begin));
		r->sum = calloc(nev, sizeof(double));
		r->min = calloc(nev, sizeof(double));
		r->max = calloc(nev, sizeof(double));
		if (!r->begin || !r->sum || !r->min || !r->max) {
			free_region(r);
			err = PMU_ENOMEM;
		} else {
			rt->nreg++;
			*out = r;
		}
	}
	pmuk_unlock(&lock);
	return err ? pmuk_fail(err, "out of memory adding region %s", name) : 0;
}

int pmu_region_begin(const char *name)
{
	struct rthread *rt = NULL;
	struct region *r = NULL;
	int err;

	if (!name)
		return pmuk_fail(PMU_EINVAL, "pmu_region_begin needs a region name");
	if ((err = thread_state(&rt)) < 0)
		return err;
	if (!(r = find_region(rt, name)) && (err = add_region(rt, name, &r)) < 0)
		return err;
	if (r->active)
		return pmuk_fail(PMU_EINVAL, "region %s is already open in this thread: a region "
				 "cannot nest inside itself (end it first)", name);
	if ((err = pmu_counters_read(rt->c, r->begin, nev)) < 0)
		return err;
	r->active = 1;
	return 0;
}

int pmu_region_end(const char *name)
{
	struct rthread *rt = current();
	struct region *r;
	int err;

	if (!name)
		return pmuk_fail(PMU_EINVAL, "pmu_region_end needs a region name");
	/* Read first, so the bookkeeping below is not counted in the region. */
	if (rt && (err = pmu_counters_read(rt->c, rt->now, nev)) < 0)
		return err;
	if (!rt || !(r = find_region(rt, name)) || !r->active)
		return pmuk_fail(PMU_EINVAL, "pmu_region_end(\"%s\") without a matching "
				 "pmu_region_begin(\"%s\") in this thread", name, name);
	r->active = 0;
	r->calls++;
	for (size_t e = 0; e < nev; e++) {
		double d = rt->now[e].scaled - r->begin[e].scaled;

		r->sum[e] += d;
		if (r->calls == 1 || d < r->min[e])
			r->min[e] = d;
		if (r->calls == 1 || d > r->max[e])
			r->max[e] = d;
	}
	return 0;
}

static void write_text(FILE *f)
{
	fprintf(f, "%-24s %8s %10s  %-28s %16s %16s %16s\n", "region", "thread", "calls", "event",
		"sum", "min", "max");
	for (struct rthread *t = threads; t; t = t->next)
		for (size_t i = 0; i < t->nreg; i++) {
			const struct region *r = &t->reg[i];

			for (size_t e = 0; r->calls && e < nev; e++)
				fprintf(f, "%-24s %8d %10llu  %-28s %16.0f %16.0f %16.0f\n",
					e ? "" : r->name, t->tid, (unsigned long long)r->calls,
					evs[e].name, r->sum[e], r->min[e], r->max[e]);
		}
}

static void write_json(struct pmuk_json *j)
{
	pmuk_json_obj_begin(j, NULL);
	pmuk_json_arr_begin(j, "regions");
	for (struct rthread *t = threads; t; t = t->next)
		for (size_t i = 0; i < t->nreg; i++) {
			const struct region *r = &t->reg[i];

			if (!r->calls)
				continue;
			pmuk_json_obj_begin(j, NULL);
			pmuk_json_str(j, "name", r->name);
			pmuk_json_int(j, "thread", t->tid);
			pmuk_json_uint(j, "calls", r->calls);
			pmuk_json_arr_begin(j, "events");
			for (size_t e = 0; e < nev; e++) {
				pmuk_json_obj_begin(j, NULL);
				pmuk_json_str(j, "event", evs[e].name);
				pmuk_json_double(j, "sum", r->sum[e]);
				pmuk_json_double(j, "min", r->min[e]);
				pmuk_json_double(j, "max", r->max[e]);
				pmuk_json_obj_end(j);
			}
			pmuk_json_arr_end(j);
			pmuk_json_obj_end(j);
		}
	pmuk_json_arr_end(j);
	pmuk_json_obj_end(j);
	pmuk_json_finish(j);
}

/* Writes the table as text (j NULL) or JSON under the lock. */
static int write_table(FILE *f, struct pmuk_json *j)
{
	pmuk_lock(&lock);
	if (!evs) {
		pmuk_unlock(&lock);
		return pmuk_fail(PMU_EINVAL, "regions are not initialised: call pmu_regions_init "
				 "first");
	}
	if (j)
		write_json(j);
	else
		write_text(f);
	pmuk_unlock(&lock);
	return ferror(f) ? pmuk_fail(PMU_EIO, "writing the region table failed") : 0;
}

int pmu_regions_write_text(FILE *f)
{
	if (!f)
		return pmuk_fail(PMU_EINVAL, "pmu_regions_write_text needs a stream");
	return write_table(f, NULL);
}

int pmu_regions_write_json(FILE *f, unsigned flags)
{
	struct pmuk_json j;
	int err = pmuk_json_open(&j, f, flags, "pmu_regions_write_json");

	return err ? err : write_table(f, &j);
}
