/* SPDX-License-Identifier: MIT */
/* .etl events -> records: thread and process lifecycle with names (also for
 * threads that started before the trace or exited during it), module maps
 * with their PDB identity, samples, stack parts, context switches. */
#include "core/error.h"
#include "core/utf8.h"
#include "formats/etl_int.h"
#include "formats/etl_records_int.h"

#include <stdlib.h>

static void set_name(struct qent *e, const char *name)
{
	size_t n = strlen(name);

	memcpy(e->rec.comm.name, name, n < 15 ? n : pmuk_utf8_whole(name, 15));
	if (n > 15)
		e->str = strdup(name);
}

static void comm(struct pmuk_etl_records *a, int32_t pid, int32_t tid, const char *name,
		 int exec, const struct pmu_etl_event *ev)
{
	struct qent *e = pmuk_er_push(a, PMU_RECORD_COMM, pid, tid, ev);

	if (e) {
		set_name(e, name);
		e->rec.comm.exec = exec;
	}
}

static void mark(struct pmuk_etl_records *a, uint32_t id, uint64_t set, uint64_t clear)
{
	uint64_t *v = pmuk_er_idmap_at(&a->seen, id, 1);

	if (!v)
		a->err = pmuk_fail(PMU_ENOMEM, "no memory for the thread table");
	else
		*v = (*v | set) & ~clear;
}

/* Names a thread (and its process) from the first pass's table before its
 * first record; so threads that started before the trace get names. The Idle
 * process (0) and System (4) keep their names when no rundown listed them. */
static void announce_process(struct pmuk_etl_records *a, uint32_t pid,
			     const struct pmu_etl_event *ev)
{
	struct pmu_etl_process p;

	if (pid != PMU_ETL_NO_ID && !(pmuk_er_idmap_get(&a->seen, pid) & 2)) {
		if (!pmu_etl_process_lookup(a->r1, pid, ev->time_ns, &p) && p.image[0])
			comm(a, (int32_t)pid, (int32_t)pid, p.image, 0, ev);
		else if (pid == 0 || pid == 4)
			comm(a, (int32_t)pid, (int32_t)pid, pid ? "System" : "Idle", 0, ev);
		mark(a, pid, 2, 0);
	}
}

static void announce(struct pmuk_etl_records *a, uint32_t pid, uint32_t tid, const char *name,
		     const struct pmu_etl_event *ev)
{
	struct pmu_etl_thread t;

	announce_process(a, pid, ev);
	if (pmuk_er_idmap_get(&a->seen, tid) & 1)
		return;
	if ((!name || !*name) && !pmu_etl_thread_lookup(a->r1, tid, ev->time_ns, &t))
		name = t.name;
	if (name && *name)
		comm(a, (int32_t)pid, (int32_t)tid, name, 0, ev);
	mark(a, tid, 1, 0);
}

static uint32_t pid_of(struct pmuk_etl_records *a, uint32_t tid, int64_t time)
{
	struct pmu_etl_thread t;

	return pmu_etl_thread_lookup(a->r1, tid, time, &t) ? PMU_ETL_NO_ID : t.pid;
}

static int32_t id32(uint32_t id)
{
	return id == PMU_ETL_NO_ID ? -1 : (int32_t)id;
}

static void sample(struct pmuk_etl_records *a, const struct pmu_etl_event *ev, uint64_t ip,
		   uint32_t tid, uint32_t source, uint64_t count)
{
	uint32_t pid = pid_of(a, tid, ev->time_ns);
	int idx = pmuk_er_source(&a->tab, source);

	announce(a, pid, tid, NULL, ev);
	struct qent *e = pmuk_er_push(a, PMU_RECORD_SAMPLE, id32(pid), (int32_t)tid, ev);
	if (!e)
		return;
	int kernel = ev->pointer_size == 4 ? ip >= 0x80000000u : ip >> 63;
	e->rec.has |= PMU_HAS_CPU | PMU_HAS_IP | PMU_HAS_ID;
	e->rec.cpumode = kernel ? PMU_CPUMODE_KERNEL : PMU_CPUMODE_USER;
	e->rec.cpu = (int32_t)ev->cpu;
	e->rec.event = idx;
	e->rec.id = source;
	e->rec.sample.ip = ip;
	if (idx >= 0 && a->interval[idx]) {
		e->rec.has |= PMU_HAS_PERIOD;	/* timer: 100 ns units */
		e->rec.sample.period = a->interval[idx] * (source == 0 ? 100 : 1) * (count ? count : 1);
	}
	uint64_t *last = pmuk_er_idmap_at(&a->last, tid, 1);
	if (!last) {
		a->err = pmuk_fail(PMU_ENOMEM, "no memory for the thread table");
		return;
	}
	e->prev = *last;
	*last = a->tail;	/* seq + 1 of e */
}

static struct qent *find_sample(struct pmuk_etl_records *a, uint32_t tid, uint64_t raw)
{
	for (uint64_t s = pmuk_er_idmap_get(&a->last, tid); s && s - 1 >= a->head;) {
		struct qent *e = pmuk_er_at(a, s - 1);
		if (e->raw == raw)
			return e;
		if (e->raw < raw)
			return NULL;
		s = e->prev;
	}
	return NULL;
}

static const uint64_t *own(struct pmuk_etl_records *a, uint64_t **slot, const uint64_t *f, uint32_t n)
{
	if (!(*slot = malloc((n ? n : 1) * sizeof(**slot)))) {
		a->err = pmuk_fail(PMU_ENOMEM, "no memory for a stack of %u frames", n);
		return NULL;
	}
	memcpy(*slot, f, n * sizeof(**slot));
	return *slot;
}

/* A user part: its own sample's, and that of every sample of the thread whose
 * kernel part waits for one (the thread has not left the kernel since). */
static void set_user(struct pmuk_etl_records *a, struct qent *e, const uint64_t *f, uint32_t n,
		     int copy)
{
	e->ufr = copy ? own(a, &e->uown, f, n) : f;
	e->nu = e->ufr ? n : 0;
}

static void user_part(struct pmuk_etl_records *a, uint32_t tid, uint64_t raw, const uint64_t *f,
		      uint32_t n, int copy)
{
	struct qent *e = find_sample(a, tid, raw);
	uint64_t *w = pmuk_er_idmap_at(&a->kwait, tid, 0);

	if (e && !e->ufr)
		set_user(a, e, f, n, copy);
	else
		a->st.unmatched++;
	for (uint64_t s = w ? *w : 0; s && s - 1 >= a->head;) {
		e = pmuk_er_at(a, s - 1);
		s = e->kprev;
		if (!e->ufr)
			set_user(a, e, f, n, copy);
	}
	if (w)
		*w = 0;
}

static void kernel_part(struct pmuk_etl_records *a, struct qent *e, const uint64_t *f, uint32_t n,
			int copy)
{
	uint64_t *w;

	if (!e || e->kfr) {
		a->st.unmatched++;
		return;
	}
	e->kfr = copy ? own(a, &e->kown, f, n) : f;
	e->nk = e->kfr ? n : 0;
	if (e->ufr)
		return;
	if (!(w = pmuk_er_idmap_at(&a->kwait, (uint32_t)e->rec.tid, 1))) {
		a->err = pmuk_fail(PMU_ENOMEM, "no memory for the thread table");
		return;
	}
	e->kprev = *w;
	*w = e->seq + 1;
}

static void stack(struct pmuk_etl_records *a, const struct pmu_etl_event *ev)
{
	const uint64_t *f;
	uint32_t n;
	uint64_t top = ev->pointer_size == 4 ? 0x80000000u : 1ull << 63;

	a->st.fragments++;
	if (ev->opcode == 32) {
		struct pmu_etl_stack_ev *sw = &a->u.sw;
		if (pmu_etl_decode_stackwalk(ev, sw) || !sw->n_frames)
			return;
		n = sw->n_frames;
		f = sw->frames;
		if (f[n - 1] >= top) {		/* kernel only: the user part follows */
			kernel_part(a, find_sample(a, sw->tid, sw->event_time), f, n, 1);
		} else if (f[0] >= top) {	/* the whole stack in one part */
			struct qent *e = find_sample(a, sw->tid, sw->event_time);
			uint32_t k = 0;
			while (f[k] >= top)
				k++;
			kernel_part(a, e, f, k, 1);
			if (e && !e->ufr) {
				e->ufr = own(a, &e->uown, f + k, n - k);
				e->nu = e->ufr ? n - k : 0;
			}
		} else {
			user_part(a, sw->tid, sw->event_time, f, n, 1);
		}
		return;
	}
	struct pmu_etl_stack_key_ev *sk = &a->u.sk;
	if (pmu_etl_decode_stack_key(ev, sk) || sk->definition)
		return;
	if (!(f = pmuk_er_key(&a->tab, sk->key, ev->raw_time, &n))) {
		a->st.keys_unresolved++;
		return;
	}
	if (sk->user)
		user_part(a, sk->tid, sk->event_time, f, n, 0);
	else
		kernel_part(a, find_sample(a, sk->tid, sk->event_time), f, n, 0);
}

/* An LBR record is logged right after its sample and names it by raw time and
 * thread, as StackWalk does. */
static void lbr_event(struct pmuk_etl_records *a, const struct pmu_etl_event *ev)
{
	struct pmu_etl_lbr_ev *l = &a->u.lbr;
	struct qent *e;

	if (pmu_etl_decode_lbr(ev, l) || !l->n)
		return;
	if (!(e = find_sample(a, l->tid, l->time)) || e->br) {
		a->st.lbr_unmatched++;
		return;
	}
	if (!(e->br = malloc(l->n * sizeof(*e->br)))) {
		a->err = pmuk_fail(PMU_ENOMEM, "no memory for a branch stack of %u entries", l->n);
		return;
	}
	for (unsigned i = 0; i < l->n; i++)
		e->br[i] = (struct pmu_branch){ .from = l->branch[i].from, .to = l->branch[i].to };
	e->nbr = l->n;
}

static void thread_event(struct pmuk_etl_records *a, const struct pmu_etl_event *ev)
{
	struct pmu_etl_thread_ev *t = &a->u.te;
	struct pmu_etl_cswitch_ev cs;
	struct pmu_etl_thread_name_ev tn;
	struct qent *e;

	if (!pmu_etl_decode_thread(ev, t)) {
		uint64_t *w = pmuk_er_idmap_at(&a->kwait, t->tid, 0);
		if (w && (t->opcode == 1 || t->opcode == 2))
			*w = 0;	/* kernel parts still waiting never get this user part */
		if (t->opcode == 1 && (e = pmuk_er_push(a, PMU_RECORD_FORK, (int32_t)t->pid, (int32_t)t->tid, ev))) {
			e->rec.task.ppid = (int32_t)t->pid;
			e->rec.task.ptid = id32(ev->tid);
			mark(a, t->tid, 0, 1);
		}
		announce(a, t->pid, t->tid, t->has_name ? t->name : NULL, ev);
		if (t->opcode == 2 && (e = pmuk_er_push(a, PMU_RECORD_EXIT, (int32_t)t->pid, (int32_t)t->tid, ev))) {
			e->rec.task.ppid = (int32_t)t->pid;
			e->rec.task.ptid = (int32_t)t->tid;
			mark(a, t->tid, 0, 1);
		}
	} else if (!pmu_etl_decode_thread_set_name(ev, &tn)) {
		announce_process(a, tn.pid, ev);
		comm(a, (int32_t)tn.pid, (int32_t)tn.tid, tn.name, 0, ev);
		mark(a, tn.tid, 1, 0);
	} else if (!pmu_etl_decode_cswitch(ev, &cs)) {
		uint32_t op = pid_of(a, cs.old_tid, ev->time_ns), np = pid_of(a, cs.new_tid, ev->time_ns);
		announce(a, op, cs.old_tid, NULL, ev);
		announce(a, np, cs.new_tid, NULL, ev);
		a->st.switches++;
		for (int out = 1; out >= 0; out--) {
			uint32_t tid = out ? cs.old_tid : cs.new_tid, other = out ? cs.new_tid : cs.old_tid;
			if (!(e = pmuk_er_push(a, PMU_RECORD_SWITCH, id32(out ? op : np), (int32_t)tid, ev)))
				return;
			e->rec.has |= PMU_HAS_CPU;
			e->rec.cpu = (int32_t)ev->cpu;
			e->rec.sw.out = out;
			e->rec.sw.preempt = out && (cs.old_state == 1 || cs.old_state == 7);
			e->rec.sw.other_pid = id32(out ? np : op);
			e->rec.sw.other_tid = (int32_t)other;
			e->rec.sw.nr_pmc = ev->n_pmc;
			memcpy(e->pmc, ev->pmc, sizeof(e->pmc));
		}
	}
}

static void process_event(struct pmuk_etl_records *a, const struct pmu_etl_event *ev)
{
	struct pmu_etl_process_ev *p = &a->u.pe;
	struct qent *e;

	if (pmu_etl_decode_process(ev, p))
		return;
	int32_t pid = (int32_t)p->pid;
	if (p->opcode == 1 && (e = pmuk_er_push(a, PMU_RECORD_FORK, pid, pid, ev))) {
		e->rec.task.ppid = (int32_t)p->ppid;
		e->rec.task.ptid = -1;
	}
	if ((p->opcode == 1 || p->opcode == 3) && p->image[0]) {
		comm(a, pid, pid, p->image, p->opcode == 1, ev);
		mark(a, p->pid, 2, 0);
	}
	if (p->opcode == 2 && (e = pmuk_er_push(a, PMU_RECORD_EXIT, pid, pid, ev))) {
		e->rec.task.ppid = (int32_t)p->ppid;
		e->rec.task.ptid = pid;
		mark(a, p->pid, 0, 2);
	}
	if (p->opcode == 2)
		pmuk_er_clr_exit(a, p->pid, ev);
}

static void image_event(struct pmuk_etl_records *a, const struct pmu_etl_event *ev)
{
	struct pmu_etl_image_ev *im = &a->u.im;
	struct qent *e;

	if (pmu_etl_decode_image(ev, im) || (im->opcode != 10 && im->opcode != 3))
		return;
	int kernel = im->pid == 0;	/* drivers: mapped in every process */
	if (!(e = pmuk_er_push(a, PMU_RECORD_MMAP, kernel ? -1 : (int32_t)im->pid, kernel ? -1 : 0, ev)))
		return;
	e->rec.has = PMU_HAS_TIME | (kernel ? 0 : PMU_HAS_TID);
	e->rec.cpumode = kernel ? PMU_CPUMODE_KERNEL : PMU_CPUMODE_USER;
	e->rec.mmap.start = im->base;
	e->rec.mmap.len = im->size;
	char path[sizeof(im->file_name) + 8];
	pmuk_er_path(&a->tab, im->file_name, path, sizeof(path));
	e->str = strdup(path);
	const struct er_rsds *id = pmuk_er_rsds(&a->tab, im->pid, im->base, ev->raw_time);
	if (id) {
		memcpy(e->rec.mmap.build_id, id->id, 20);
		e->rec.mmap.build_id_size = 20;
		e->rec.mmap.build_id_kind = PMU_BUILD_ID_PDB;
		e->str2 = strdup(id->pdb);
	}
	if (!e->str || (id && !e->str2))
		a->err = pmuk_fail(PMU_ENOMEM, "no memory for a module path");
}

static void perfinfo_event(struct pmuk_etl_records *a, const struct pmu_etl_event *ev)
{
	struct pmu_etl_sample_ev s;
	struct pmu_etl_pmc_sample_ev ps;
	uint32_t src, interval;
	char name[8];

	if (!pmu_etl_decode_sampled_profile(ev, &s)) {
		sample(a, ev, s.ip, s.tid, 0, s.count);
	} else if (!pmu_etl_decode_pmc_profile(ev, &ps)) {
		sample(a, ev, ps.ip, ps.tid, ps.source, 1);
	} else if (!pmuk_er_interval(ev, &src, &interval, name, sizeof(name)) && ev->opcode != 74) {
		int i = pmuk_er_source(&a->tab, src);
		if (i >= 0)
			a->interval[i] = interval;
	}
}

void pmuk_er_convert(struct pmuk_etl_records *a, const struct pmu_etl_event *ev)
{
	if (pmuk_etl_is_group(ev, PMU_ETL_GROUP_THREAD))
		thread_event(a, ev);
	else if (pmuk_etl_is_group(ev, PMU_ETL_GROUP_PROCESS))
		process_event(a, ev);
	else if (pmuk_etl_is_group(ev, PMU_ETL_GROUP_IMAGE))
		image_event(a, ev);
	else if (pmuk_etl_is_group(ev, PMU_ETL_GROUP_PERFINFO))
		perfinfo_event(a, ev);
	else if (pmuk_etl_is_group(ev, PMU_ETL_GROUP_STACKWALK) &&
		 (ev->opcode == 32 || ev->opcode == 37 || ev->opcode == 38))
		stack(a, ev);
	else if (pmuk_etl_is_group(ev, PMU_ETL_GROUP_LBR))
		lbr_event(a, ev);
	else if (ev->kind == PMU_ETL_EVENT)
		pmuk_er_clr_event(a, ev);
}
