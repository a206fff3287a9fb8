/* SPDX-License-Identifier: MIT */
/* The record report: tables of threads, processes, CPUs, modules, code
 * addresses and stacks, filled from a pmu_record stream. */
#include "core/error.h"
#include "core/opts.h"
#include "core/grow.h"
#include "core/report_int.h"
#include "core/utf8.h"

#include <pmukit/symbols.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Bounds the per-CPU table against corrupt input. */
#define MAX_CPUS 65536

/* ---- stacks ---- */

struct stack_key {
	uint32_t proc;
	const uint32_t *f;
	size_t n;
};

static int stack_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct stack_key *k = key;
	const struct rp_stack *s = &((const struct pmu_report *)ctx)->stacks[id];

	return s->proc == k->proc && s->n == k->n &&
	       !memcmp(s->frames, k->f, RP_STACK_WORDS(k->n) * sizeof(*k->f));
}

/* fresh: a symbol of the stack is new, so no stack holds it yet. r->sscratch
 * holds the n symbols (inlined calls included) and, past them, which of them
 * are inlined calls (pmuk_rp_stack_inlined): both are the stack's identity,
 * so a call inlined at one address and called out of line at another, with
 * the same symbols, are two stacks (pprof's leaf differs). */
static int count_stack(struct pmu_report *r, uint32_t proc, size_t n, uint64_t period, int fresh)
{
	size_t words = RP_STACK_WORDS(n);
	struct stack_key k = { proc, r->sscratch, n };
	uint64_t h = pmuk_hash_words(r->sscratch, words, proc);
	uint32_t id = fresh ? RP_NONE : pmuk_index_find(&r->stack_ix, h, stack_eq, &k, r);

	if (id == RP_NONE) {
		uint32_t *copy = pmuk_rp_alloc(&r->mem, words * sizeof(*copy));
		if (!copy || pmuk_grow_raw((void **)&r->stacks, &r->cap_stacks, r->n_stacks + 1,
					   sizeof(*r->stacks)) ||
		    (id = pmuk_index_add(&r->stack_ix, h)) == RP_NONE)
			return PMU_ENOMEM;   /* copy goes with the report */
		memcpy(copy, r->sscratch, words * sizeof(*copy));
		r->stacks[r->n_stacks++] = (struct rp_stack){ proc, (uint32_t)n, copy, 0, 0 };
	}
	r->stacks[id].count++;
	r->stacks[id].period += period;
	return 0;
}

/* ---- records ---- */

static struct rp_cpu *cpu_of(struct pmu_report *r, int32_t cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= r->n_cpus) {
		size_t n = (size_t)cpu + 1;
		struct rp_cpu *c = realloc(r->cpus, n * sizeof(*c));
		if (!c)
			return NULL;
		for (size_t i = r->n_cpus; i < n; i++)
			c[i] = (struct rp_cpu){ .cur = RP_NONE };
		r->cpus = c;
		r->n_cpus = n;
	}
	return &r->cpus[cpu];
}

/* Whether name is one of the comma-separated list. */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && !memcmp(p, name, n))
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

static int in_ids(const int32_t *v, uint32_t n, int32_t id)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == id)
			return 1;
	return 0;
}

/* perf report's --cpu and --time drop a sample from every total. */
static int dropped(const struct pmu_report *r, const struct pmu_record *rec)
{
	const struct pmu_report_opts *o = &r->o;

	if (o->nr_cpus && !in_ids(o->cpus, o->nr_cpus, rec->has & PMU_HAS_CPU ? rec->cpu : -1))
		return 1;
	if ((o->time_start || o->time_end) && rec->has & PMU_HAS_TIME)
		return rec->time < o->time_start || (o->time_end && rec->time > o->time_end);
	return 0;
}

/* ... while --comm, --pid and --tid only hide it from the rows. */
static int hidden(struct pmu_report *r, const struct rp_thread *t)
{
	const struct pmu_report_opts *o = &r->o;

	return (o->comms && !in_list(o->comms, pmuk_rp_thread_name(r, t))) ||
	       (o->nr_pids && !in_ids(o->pids, o->nr_pids, t->pid)) ||
	       (o->nr_tids && !in_ids(o->tids, o->nr_tids, t->tid));
}

static int kernel_mode(enum pmu_cpumode m)
{
	return m == PMU_CPUMODE_KERNEL || m == PMU_CPUMODE_HYPERVISOR ||
	       m == PMU_CPUMODE_GUEST_KERNEL;
}

/* The user stack unwound by the symbolizer into r->uscratch: its length, 0
 * when the sample has none or the symbolizer cannot (then the call chain
 * stands). */
static size_t unwound(struct pmu_report *r, const struct pmu_record *rec)
{
	const uint32_t both = PMU_HAS_REGS_USER | PMU_HAS_STACK_USER;
	size_t n = 0;

	if (!r->o.symbolizer || r->no_unwind || (rec->has & both) != both || !rec->sample.ext)
		return 0;
	if (pmuk_grow((void **)&r->uscratch, &r->uscratch_cap, 256, sizeof(*r->uscratch)))
		return 0;
	int err = pmu_symbolizer_unwind(r->o.symbolizer, rec, r->uscratch, 256, &n);
	if (err == PMU_ENOTSUP)
		r->no_unwind = 1;	/* this OS or arch: not per sample */
	if (err || !n)
		return 0;
	r->sum.unwound++;
	return n;
}

/* The sample's code addresses, innermost first, as frame ids in r->scratch:
 * their number, or SIZE_MAX without memory. */
static size_t sample_frames(struct pmu_report *r, const struct pmu_record *rec, int32_t pid)
{
	const struct pmu_sample *s = &rec->sample;
	size_t n = rec->has & PMU_HAS_CALLCHAIN ? s->nr_callchain : 0;
	size_t nk = s->nr_kernel_frames < n ? s->nr_kernel_frames : n;
	size_t nu = unwound(r, rec), k = 0;
	int lead = !n || s->callchain[0] != s->ip;	/* the ip heads the stack */

	if (nu) {	/* the kernel part of the chain, then the unwound user stack */
		n = nk;
		lead = 0;
	}
	if (pmuk_grow((void **)&r->scratch, &r->scratch_cap, n + nu + 2, sizeof(*r->scratch)))
		return SIZE_MAX;
	/* New frames add no mapping sets, so these pointers stay valid for the sample:
	 * the process's set is made now (a JIT frame records its lines in it). */
	struct rp_mapset *own = pmuk_rp_mapset(r, pid, pid >= 0);
	if (pid >= 0 && !own)
		return SIZE_MAX;
	const struct rp_mapset *all = pmuk_rp_mapset(r, -1, 0);
	if (lead)
		r->scratch[k++] = pmuk_rp_frame(r, own, all, pid, s->ip, kernel_mode(rec->cpumode));
	for (size_t i = 0; i < n; i++)
		r->scratch[k++] = pmuk_rp_frame(r, own, all, pid, s->callchain[i], i < nk);
	for (size_t i = 0; i < nu; i++)
		r->scratch[k++] = pmuk_rp_frame(r, own, all, pid, r->uscratch[i], 0);
	for (size_t i = 0; i < k; i++)
		if (r->scratch[i] == RP_NONE)
			return SIZE_MAX;
	return k;
}

/* The symbols of frames r->scratch[0..k), inlined calls included, into
 * r->sscratch: their number, or SIZE_MAX without memory. */
static size_t expand(struct pmu_report *r, size_t k)
{
	size_t n = k;

	for (size_t i = 0; i < k; i++)
		n += r->frames[r->scratch[i]].n_inl;
	if (pmuk_grow((void **)&r->sscratch, &r->sscratch_cap, RP_STACK_WORDS(n) + 1,
		      sizeof(*r->sscratch)))
		return SIZE_MAX;
	uint32_t *bits = r->sscratch + n;   /* symbol i is a call inlined into i + 1 */
	memset(bits, 0, (RP_STACK_WORDS(n) - n) * sizeof(*bits));
	n = 0;
	for (size_t i = 0; i < k; i++) {
		const struct rp_frame *f = &r->frames[r->scratch[i]];
		for (uint32_t j = 0; j < f->n_inl; j++, n++) {
			r->sscratch[n] = r->inl[2 * (f->inl + j)];
			bits[n / 32] |= 1u << (n % 32);
		}
		r->sscratch[n++] = f->sym;
	}
	return n;
}

static struct rp_event *event_of(struct pmu_report *r, int32_t event)
{
	size_t i = event >= 0 && (uint32_t)event < 1u << 16 ? (size_t)event + 1 : 0;

	if (i >= r->n_events) {
		struct rp_event *e = realloc(r->events, (i + 1) * sizeof(*e));
		if (!e)
			return NULL;
		memset(e + r->n_events, 0, (i + 1 - r->n_events) * sizeof(*e));
		r->events = e;
		r->n_events = i + 1;
	}
	return &r->events[i];
}

static void count(uint64_t *samples, uint64_t *period, uint64_t p)
{
	++*samples;
	*period += p;
}

static int add_sample(struct pmu_report *r, const struct pmu_record *rec)
{
	uint64_t period = rec->has & PMU_HAS_PERIOD ? rec->sample.period : 1;
	struct rp_event *ev = event_of(r, rec->event);
	struct rp_thread *t;
	struct rp_process *p;

	if (dropped(r, rec)) {
		r->sum.filtered++;
		return 0;
	}
	if (!ev || !(t = pmuk_rp_thread(r, rec->pid, rec->tid)) || !(p = pmuk_rp_process(r, t->pid)))
		return pmuk_fail(PMU_ENOMEM, "no memory for the report's thread table");
	count(&ev->samples, &ev->period, period);
	count(&r->sum.samples, &r->sum.period, period);
	r->sum.with_callchain += rec->has & PMU_HAS_CALLCHAIN && rec->sample.nr_callchain > 0;
	r->sum.with_branches += rec->sample.nr_branches > 0;
	if (hidden(r, t)) {
		r->sum.hidden++;
		return 0;
	}
	size_t syms = r->n_syms;
	size_t k = sample_frames(r, rec, t->pid), n = k == SIZE_MAX ? k : expand(r, k);
	if (n == SIZE_MAX)
		return pmuk_fail(PMU_ENOMEM, "no memory for the report's address table");
	/* a sampled data word (no frame pointer) is most often a new symbol: then
	 * the sample's stack and group are new, and their lookups are skipped. A
	 * symbol made for this sample is one of its stack's (a frame's, or a call
	 * inlined at it): the table's growth says so without scanning the stack. */
	int fresh = r->n_syms > syms;
	struct rp_sym *leaf = &r->syms[r->frames[r->scratch[0]].sym];
	count(&leaf->samples, &leaf->period, period);
	if (leaf->module != RP_NONE)
		count(&r->mods[leaf->module].samples, &r->mods[leaf->module].period, period);
	count(&t->samples, &t->period, period);
	count(&p->samples, &p->period, period);
	struct rp_cpu *c = cpu_of(r, rec->has & PMU_HAS_CPU ? rec->cpu : -1);
	if (c)
		count(&c->samples, &c->period, period);
	/* p->name is interned already: only a nameless process's fallback is looked up */
	uint32_t proc = *pmuk_rp_str(r, p->name) ? p->name :
			pmuk_rp_intern(&r->str, pmuk_rp_thread_name(r, t));
	if (count_stack(r, proc, n, period, fresh) ||
	    pmuk_rp_group(r, rec, t, k, period, fresh))
		return pmuk_fail(PMU_ENOMEM, "no memory for the report's stack table");
	if (r->o.script)
		pmuk_rp_script(r, rec, t, k);
	return 0;
}

static void add_switch(struct pmu_report *r, const struct pmu_record *rec)
{
	struct rp_cpu *c = cpu_of(r, rec->cpu);
	struct rp_thread *t = pmuk_rp_thread(r, rec->pid, rec->tid);
	uint32_t n = rec->sw.nr_pmc < r->o.nr_pmc ? rec->sw.nr_pmc : r->o.nr_pmc;

	if (!c || !t)
		return;
	uint32_t id = (uint32_t)(t - r->threads);
	struct rp_process *p = pmuk_rp_process(r, t->pid);
	if (!rec->sw.out) {
		r->sum.switches++;
		t->switches++;
		if (p)
			p->switches++;
		c->cur = id;
		c->t_in = rec->time;
		c->have_pmc = n && rec->sw.pmc && (c->pmc_in || (c->pmc_in = pmuk_rp_pmc_array(r)));
		if (c->have_pmc)
			memcpy(c->pmc_in, rec->sw.pmc, n * sizeof(*c->pmc_in));
		return;
	}
	if (c->cur == id && rec->time >= c->t_in) {
		t->cpu_ns += rec->time - c->t_in;
		if (p)
			p->cpu_ns += rec->time - c->t_in;
		for (uint32_t i = 0; c->have_pmc && rec->sw.pmc && i < n; i++) {
			uint64_t d = rec->sw.pmc[i] >= c->pmc_in[i] ? rec->sw.pmc[i] - c->pmc_in[i] : 0;
			t->pmc[i] += d;
			if (p && p->pmc)
				p->pmc[i] += d;
		}
	}
	c->cur = RP_NONE;
}

/* Samples are named by the thread's name when they were taken, as perf does:
 * a thread renamed after it had samples (exec: sh becomes cc) goes on as a new
 * entry, the old one keeps its name and samples. A CPU it runs on follows. */
static struct rp_thread *rename_thread(struct pmu_report *r, struct rp_thread *t)
{
	uint32_t old = (uint32_t)(t - r->threads), id;
	int32_t pid = t->pid, tid = t->tid;

	t->replaced = 1;
	if (!(t = pmuk_rp_thread(r, pid, tid)))
		return NULL;
	id = (uint32_t)(t - r->threads);
	for (size_t i = 0; i < r->n_cpus; i++)
		if (r->cpus[i].cur == old)
			r->cpus[i].cur = id;
	return t;
}

static void set_name(struct pmu_report *r, const struct pmu_record *rec)
{
	char buf[sizeof(rec->comm.name) + 1];
	const char *name = rec->comm.long_name;

	if (!name) {
		memcpy(buf, rec->comm.name, sizeof(rec->comm.name));
		buf[sizeof(rec->comm.name)] = '\0';
		/* the kernel cuts comm at 15 bytes, characters or not */
		buf[pmuk_utf8_whole(buf, strlen(buf))] = '\0';
		name = buf;
	}
	struct rp_thread *t = pmuk_rp_thread(r, rec->pid, rec->tid);
	uint32_t id = pmuk_rp_intern(&r->str, name);
	if (t && t->comm && t->comm != id && (t->samples || t->switches))
		t = rename_thread(r, t);
	if (t)
		t->comm = id;
	if (rec->pid >= 0 && (rec->pid == rec->tid || rec->comm.exec)) {
		struct rp_process *p = pmuk_rp_process(r, rec->pid);
		if (p)
			p->name = id;
	}
}

/* A new thread or process is called as its parent until it execs (perf does
 * the same): without this its samples would land in an unnamed row. */
static void inherit_name(struct pmu_report *r, const struct pmu_record *rec)
{
	struct rp_thread *parent, *t;
	struct rp_process *pp;
	uint32_t name;

	if (rec->task.ptid == rec->tid || rec->task.ptid < 0 ||
	    !(parent = pmuk_rp_thread(r, rec->task.ppid, rec->task.ptid)))
		return;
	name = parent->comm;
	if (!name && rec->task.ppid >= 0 && (pp = pmuk_rp_process(r, rec->task.ppid)))
		name = pp->name;
	if (!name || !(t = pmuk_rp_thread(r, rec->pid, rec->tid)) || t->comm)
		return;
	t->comm = name;
	if (rec->pid == rec->tid) {
		struct rp_process *p = pmuk_rp_process(r, rec->pid);
		if (p && !p->name)
			p->name = name;
	}
}

static void task(struct pmu_report *r, const struct pmu_record *rec)
{
	int process = rec->pid >= 0 && rec->pid == rec->tid;
	struct rp_thread *t = pmuk_rp_thread(r, rec->pid, rec->tid);
	struct rp_process *p = process ? pmuk_rp_process(r, rec->pid) : NULL;

	if (rec->kind == PMU_RECORD_EXIT) {
		if (t)
			t->exited = 1;
		if (p)
			p->exited = 1;
		return;
	}
	if (t && t->exited) {	/* the id was reused */
		t->replaced = 1;
		pmuk_rp_thread(r, rec->pid, rec->tid);
	}
	if (p && p->exited) {
		p->replaced = 1;
		pmuk_rp_process(r, rec->pid);
		struct rp_mapset *s = pmuk_rp_mapset(r, rec->pid, 0);
		if (s)
			s->n = 0;
	}
	if (rec->kind == PMU_RECORD_FORK)
		inherit_name(r, rec);
}

int pmu_report_record(const struct pmu_record *rec, void *report)
{
	struct pmu_report *r = report;

	r->sum.records++;
	r->gen++;
	switch (rec->kind) {
	case PMU_RECORD_SAMPLE:
		return add_sample(r, rec);
	case PMU_RECORD_COMM:
		set_name(r, rec);
		break;
	case PMU_RECORD_FORK:
	case PMU_RECORD_EXIT:
		task(r, rec);
		/* a forked process runs its parent's code until it execs */
		if (rec->kind == PMU_RECORD_FORK && pmuk_rp_fork_maps(r, rec->pid, rec->task.ppid))
			return pmuk_fail(PMU_ENOMEM, "no memory for the report's module maps");
		if (rec->kind == PMU_RECORD_FORK && r->o.symbolizer &&
		    pmu_symbolizer_add_fork(r->o.symbolizer, rec) == PMU_ENOMEM)
			return pmuk_fail(PMU_ENOMEM, "no memory for the symbolizer's module maps");
		break;
	case PMU_RECORD_MMAP:
		if (rec->mmap.data)
			break;
		if (pmuk_rp_add_map(r, rec))
			return pmuk_fail(PMU_ENOMEM, "no memory for the report's module maps");
		/* a missing or stale file is the symbolizer's to flag per frame */
		if (r->o.symbolizer && pmu_symbolizer_add_mmap(r->o.symbolizer, rec) == PMU_ENOMEM)
			return pmuk_fail(PMU_ENOMEM, "no memory for the symbolizer's module maps");
		break;
	case PMU_RECORD_SWITCH:
		add_switch(r, rec);
		break;
	case PMU_RECORD_SYMBOL:	/* JIT code the recording names */
		pmuk_rp_jit_symbol(r, rec);	/* frames named there are named again */
		if (r->o.symbolizer && pmu_symbolizer_add_symbol(r->o.symbolizer, rec) == PMU_ENOMEM)
			return PMU_ENOMEM;
		break;
	case PMU_RECORD_LOST:
		r->sum.lost += rec->lost.count;
		if (rec->lost.samples)
			r->sum.lost_samples += rec->lost.count;
		r->sum.lost_buffers += rec->lost.buffers;
		r->sum.lost_bytes += rec->lost.bytes;
		r->sum.lost_uncounted += rec->lost.uncounted;
		break;
	default:
		break;
	}
	return 0;
}

int pmu_report_summary(const struct pmu_report *r, struct pmu_report_summary *out, size_t size)
{
	struct pmu_report_summary sum;

	if (!r)
		return pmuk_fail(PMU_EINVAL, "pmu_report_summary needs a report");
	sum = r->sum;
	sum.threads = 0;
	for (size_t i = 0; i < r->n_threads; i++)
		sum.threads += r->threads[i].samples || r->threads[i].switches;
	sum.processes = 0;
	for (size_t i = 0; i < r->n_procs; i++)
		sum.processes += r->procs[i].samples || r->procs[i].switches;
	sum.modules = r->n_mods;
	sum.stacks = r->n_stacks;
	return PMUK_COPY_OUT(out, size, sum, pmu_report_summary);
}
