/* SPDX-License-Identifier: MIT */
/* pmukit/recording.h's backend on Linux: perf.data from the perf rings
 * (linux/record_int.h names the parts). Start opens the events through the
 * sampler with the recorder's attrs, writes the attrs and the synthesized
 * records, then a thread drains the rings into the file (a FINISHED_ROUND after
 * each pass, as perf record) until stop, which drains the rest, adds
 * LOST_SAMPLES and the header features, and finishes the file. */
#include "linux/record_int.h"
#include "core/error.h"
#include "linux/perf_event.h"
#include "linux/target.h"

#include <errno.h>

#include <pmukit/caps.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

PMUK_RECORDING_HEAD_CHECK(struct pmu_recording);

static int sampler_opts(const struct pmu_recording_opts *o, struct pmu_sampler_opts *so)
{
	size_t pagesz = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t bytes = (uint64_t)(o->buffer_kb ? o->buffer_kb : 512) * 1024;
	uint64_t pages = bytes / pagesz;

	if (pages == 0 || (pages & (pages - 1)) || pages > (1u << 20))
		return pmuk_fail(PMU_EINVAL, "a ring of %llu KiB is %llu pages of %zu bytes: perf "
				 "rings take a power of two pages (1, 2, 4, ... 2^20)",
				 (unsigned long long)bytes / 1024,
				 (unsigned long long)(bytes / pagesz), pagesz);
	memset(so, 0, sizeof(*so));
	so->sz = sizeof(*so);
	so->pages = (unsigned)pages;
	if (o->period) {
		so->period = o->period;
	} else {
		so->use_freq = 1;
		so->freq = o->freq ? o->freq : 1000;
	}
	so->callchain = o->callchain;
	so->task = 1;
	so->context_switch = o->context_switch;
	so->start_disabled = 1;  /* enabled after the synthesis (or by the exec) */
	return 0;
}

/* -b refused: the reason the host has, from caps (the open's own words when caps
 * sees nothing missing). */
static int branch_fail(int err)
{
	char first[512];
	struct pmu_caps *caps = NULL;
	const struct pmu_cap *c;

	snprintf(first, sizeof(first), "%s", pmu_error_detail());
	if (pmu_caps_probe(&caps) < 0 || !(c = pmu_caps_get(caps, PMU_CONCERN_PRECISE)) ||
	    c->status == PMU_CAP_AVAILABLE) {
		pmu_caps_free(caps);
		return pmuk_fail(err, "branch stacks (-b) cannot be recorded here: %s", first);
	}
	err = pmuk_fail(PMU_ENOTSUP, "branch stacks (-b) cannot be recorded here: %s%s%s",
			c->reason, c->remedy[0] ? "; " : "", c->remedy);
	pmu_caps_free(caps);
	return err;
}

/* As perf record: where perf_event_paranoid forbids kernel mode to this user, the
 * events of a task that name no privilege level record user mode only. */
static int user_fallback(struct pmu_recording *r, const struct pmu_target *t)
{
	int n = 0;

	if (t->kind == PMU_TARGET_CPUS)
		return 0;
	for (size_t e = 0; e < r->nev; e++)
		if (pmuk_perf_user_fallback(&r->ev[e], EACCES)) {
			pmuk_rec_note(r, "perf_event_paranoid=%d forbids kernel mode to this user: "
				      "recording %s (user mode only)", pmuk_perf_paranoid(),
				      r->ev[e].name);
			n++;
		}
	return n;
}

static int id_eq(const void *key, uint32_t i, const void *ctx)
{
	return ((const struct pmu_recording *)ctx)->ids[i].id == *(const uint64_t *)key;
}

/* id -> event, and the file's attrs with their ids. */
static int add_events(struct pmu_recording *r)
{
	size_t max = pmuk_sampler_units(r->s);
	int err = 0;

	r->ids = calloc(max * r->nev + 1, sizeof(*r->ids));
	if (!r->ids)
		return pmuk_fail(PMU_ENOMEM, "out of memory for the event ids");
	for (size_t e = 0; e < r->nev && !err; e++) {
		uint64_t *ids = calloc(max + 1, sizeof(*ids));
		size_t n = ids ? pmuk_sampler_ids(r->s, e, ids, max) : 0;

		if (!ids)
			return pmuk_fail(PMU_ENOMEM, "out of memory for the event ids");
		for (size_t i = 0; i < n; i++) {
			if (pmuk_index_find(&r->id_ix, pmuk_hash_u64(ids[i]), id_eq, &ids[i], r) !=
			    PMUK_INDEX_NONE)
				continue;
			if (pmuk_index_add(&r->id_ix, pmuk_hash_u64(ids[i])) == PMUK_INDEX_NONE) {
				free(ids);
				return pmuk_fail(PMU_ENOMEM, "out of memory for the event ids");
			}
			r->ids[r->nids++] = (struct rec_id){ ids[i], (uint32_t)e };
		}
		if (e == 0 && n)
			r->trailer_id = ids[0];
		err = pmuk_pw_add_attr(r->w, pmuk_sampler_attr(r->s, e),
				       sizeof(struct perf_event_attr), ids, n);
		free(ids);
	}
	return err;
}

static void thread_fail(struct pmu_recording *r, int err)
{
	if (r->err)
		return;
	r->err = err;
	snprintf(r->err_detail, sizeof(r->err_detail), "%s", pmu_error_detail());
}

/* One pass over every ring; a FINISHED_ROUND after a pass that wrote. */
static int drain(struct pmu_recording *r)
{
	uint64_t before = r->st.records;
	int err = pmuk_sampler_drain(r->s, pmuk_rec_peek, pmuk_rec_span, r);

	if (err == PMU_EFORMAT)
		err = 0; /* the sampler counted it; the file keeps what was whole */
	if (!err)
		err = pmuk_rec_nodes_flush(&r->nodes, 0);
	if (!err && r->st.records != before) {
		r->drains++;
		err = pmuk_rec_finished_round(r);
	}
	return err;
}

/* As perf record: drain again at once while the rings keep bringing records, and
 * wait on them (woken at half full) only after a pass that found none; waiting
 * for every wakeup loses samples at high rates on a loaded machine. */
static void *drain_thread(void *arg)
{
	struct pmu_recording *r = arg;
	struct timespec idle = { 0, 50 * 1000000 };
	uint64_t before = 0;

	while (!r->stopping) {
		int n = 1, err;

		/* -d's queries must reach pages while their process lives: a ring
		 * short of its wakeup mark is drained every 10 ms, not 100 */
		if (r->st.records == before)
			n = pmu_sampler_poll(r->s, r->nodes.query ? 10 : 100);
		if (n == PMU_ESRCH)
			nanosleep(&idle, NULL); /* every thread exited: wait for stop */
		else if (n < 0) {
			thread_fail(r, n);
			break;
		}
		before = r->st.records;
		if ((err = drain(r)) < 0) {
			thread_fail(r, err);
			break;
		}
	}
	return NULL;
}

/* The events through the sampler with the recorder's attrs (user mode only when
 * paranoid asks it), into a file created first: no event is opened for nothing. */
static int open_events(struct pmu_recording *r, const struct pmu_target *t,
		       const struct pmuk_sampler_raw *raw)
{
	struct pmu_sampler_opts so;
	int err;

	if ((err = sampler_opts(&r->o, &so)) < 0 || (err = pmuk_pw_open(r->path, &r->w)) < 0)
		return err;
	err = pmuk_sampler_open_raw(r->ev, r->nev, t, &so, raw, &r->s);
	if (err == PMU_EPERM && user_fallback(r, t))
		err = pmuk_sampler_open_raw(r->ev, r->nev, t, &so, raw, &r->s);
	if (err < 0)
		return r->o.branches && err != PMU_EPERM && err != PMU_ESRCH ? branch_fail(err) : err;
	return 0;
}

/* With inherit: every thread of the target on every CPU, rings per CPU. */
static int open_inherit(struct pmu_recording *r, const struct pmu_target *t)
{
	struct pmuk_sampler_raw raw = { pmuk_rec_tune, r, r->o.lower_precise, NULL, 0 };
	struct pmuk_units tasks = { NULL, 0, 0 };
	int err;

	if (r->o.inherit && t->kind == PMU_TARGET_CPUS)
		return pmuk_fail(PMU_EINVAL, "inherit follows tasks: a CPU target takes none");
	if (r->o.inherit && (err = pmuk_target_units(t, &tasks)) < 0)
		return err;
	raw.tids = tasks.id;
	raw.ntids = tasks.n;
	err = open_events(r, t, &raw);
	pmuk_units_free(&tasks);
	return err;
}

static int open_all(struct pmu_recording *r, const struct pmu_event_list *events,
		    const struct pmu_target *t)
{
	int err = pmuk_rec_events(r, events);

	if (!err && r->o.data_addr)
		err = pmuk_rec_nodes_init(&r->nodes, !r->o.no_node_query);
	if (err < 0 || (err = open_inherit(r, t)) < 0)
		return err;
	pmuk_rec_opened(r);
	if ((err = add_events(r)) < 0)
		return err;
	if (r->has_tracepoints && (err = pmuk_rec_tracing(r)) < 0)
		return err;
	return pmuk_rec_synth(r, t);
}

int pmuk_recording_os_start(const struct pmu_event_list *events, const struct pmu_target *t,
			    const struct pmu_recording_opts *o, struct pmu_recording **out)
{
	struct pmu_target self = { .kind = PMU_TARGET_SELF };
	struct pmu_recording *r;
	int err;

	if (!o->path || !o->path[0])
		return pmuk_fail(PMU_EINVAL, "a recording needs the path of the perf.data to "
				 "write (opts.path)");
	if (strlen(o->path) >= sizeof(r->path))
		return pmuk_fail(PMU_EINVAL, "the path %.64s... is too long", o->path);
	if (o->period && o->freq)
		return pmuk_fail(PMU_EINVAL, "a recording samples on a period or at a frequency, "
				 "not both (perf's -c or -F)");
	if (!(r = calloc(1, sizeof(*r))))
		return pmuk_fail(PMU_ENOMEM, "out of memory starting a recording");
	snprintf(r->path, sizeof(r->path), "%s", o->path);
	r->o = *o;
	r->o.path = r->path;
	err = open_all(r, events, t ? t : &self);
	if (!err && (err = pthread_create(&r->thread, NULL, drain_thread, r)) != 0)
		err = pmuk_fail(PMU_ENOMEM, "cannot start the thread that writes %s: %s", r->path,
				strerror(err));
	if (!err)
		r->running = 1;
	/* Sampling starts once what ran before is written (as perf): the /proc walk
	 * of -a takes long enough to overflow every ring at high rates. */
	if (!err && !o->enable_on_exec)
		err = pmu_sampler_enable(r->s);
	if (err) {
		r->finished = 1; /* nothing to finish: the file is dropped below */
		if (r->w)
			remove(o->path);
		pmuk_recording_os_close(r);
		return err;
	}
	*out = r;
	return 0;
}

static int finish(struct pmu_recording *r)
{
	int err = pmu_sampler_disable(r->s);

	if (!err)
		err = drain(r);
	if (!err)
		err = pmuk_rec_nodes_flush(&r->nodes, 1);
	if (!err)
		err = pmuk_rec_lost_samples(r);
	if (!err)
		err = pmuk_rec_features(r);
	if (err) {
		pmuk_pw_free(r->w);
		r->w = NULL;
		return err;
	}
	err = pmuk_pw_finish(r->w, &r->st.bytes);
	r->w = NULL;
	return err;
}

int pmuk_recording_os_stop(struct pmu_recording *r, struct pmu_recording_stats *st)
{
	int err;

	if (r->finished)
		return pmuk_fail(PMU_EINVAL, "the recording of %s was stopped already", r->path);
	r->finished = 1;
	if (r->running) {
		r->stopping = 1;
		pthread_join(r->thread, NULL);
		r->running = 0;
	}
	err = finish(r);
	if (!err && r->err)
		err = pmuk_fail(r->err, "%s (the file holds what was written before)",
				r->err_detail);
	r->st.events_lost = r->lost_records;
	r->st.buffers_written = r->drains;
	*st = r->st;
	return err;
}

void pmuk_recording_os_close(struct pmu_recording *r)
{
	struct pmu_recording_stats st;

	if (!r->finished)
		pmuk_recording_os_stop(r, &st);
	if (r->running) { /* a start that failed after the thread began */
		r->stopping = 1;
		pthread_join(r->thread, NULL);
	}
	pmuk_pw_free(r->w);
	pmu_sampler_close(r->s);
	pmuk_rec_maps_free(&r->maps);
	pmuk_rec_nodes_free(&r->nodes);
	pmuk_index_free(&r->id_ix);
	free(r->ids);
	free(r->ev);
	free(r->fmt);
	free(r);
}
