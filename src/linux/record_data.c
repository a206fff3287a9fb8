/* SPDX-License-Identifier: MIT */
/* Each record of the rings goes to the file as the kernel wrote it; then it is
 * decoded (in place, after the write) for what the recorder keeps: counts, the
 * first and last sample times, the mmap table and the modules samples hit. */
#include "linux/record_int.h"
#include "core/error.h"

#include <string.h>

static int event_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct pmu_recording *r = ctx;

	return r->ids[id].id == *(const uint64_t *)key;
}

/* The event a record came from: sample_id's IDENTIFIER is first in a sample and
 * last in every other record (sample_id_all). -1 when unknown. */
static int event_of(const struct pmu_recording *r, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	uint64_t id;
	uint32_t i;

	if (size < sizeof(*h) + 8)
		return -1;
	memcpy(&id, h->type == PERF_RECORD_SAMPLE ? rec + sizeof(*h) : rec + size - 8, 8);
	i = pmuk_index_find(&r->id_ix, pmuk_hash_u64(id), event_eq, &id, r);
	return i == PMUK_INDEX_NONE ? -1 : (int)r->ids[i].event;
}

#define SAMPLE_HEAD (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

/* A sample marks the module of its ip (as perf record: not its callers'), read
 * straight from the record's first fields, {identifier, ip, pid/tid, time}, which
 * every attr of the recorder has: the drain must keep up with the kernel. */
static int on_sample(struct pmu_recording *r, const uint8_t *rec, size_t size, int e)
{
	const struct perf_event_header *h = (const void *)rec;
	uint64_t ip, time;
	int32_t pid;

	if ((r->fmt[e].sample_type & SAMPLE_HEAD) != SAMPLE_HEAD || size < 40)
		return -1;
	memcpy(&ip, rec + 16, 8);
	memcpy(&pid, rec + 24, 4);
	memcpy(&time, rec + 32, 8);
	r->st.samples++;
	if (!r->first_time || time < r->first_time)
		r->first_time = time;
	if (time > r->last_time)
		r->last_time = time;
	pmuk_rec_maps_hit(&r->maps, pid, ip,
			  (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL);
	return r->nodes.on ? pmuk_rec_node_sample(r, rec, size, e) : 0;
}

/* -d: ADDR follows the head ({identifier, ip, pid/tid, time}); PHYS_ADDR comes
 * late in the sample, so only samples that carry it, of a page not seen before,
 * are decoded (on a copy): the drain must keep up with the kernel. */
int pmuk_rec_node_sample(struct pmu_recording *r, const uint8_t *rec, size_t size, int e)
{
	uint64_t addr, phys = 0;
	int32_t pid;
	struct pmu_record d;

	if (!(r->fmt[e].sample_type & PERF_SAMPLE_ADDR) || size < 48)
		return 0;
	memcpy(&pid, rec + 24, 4);
	memcpy(&addr, rec + 40, 8);
	if ((r->fmt[e].sample_type & PERF_SAMPLE_PHYS_ADDR) &&
	    pmuk_rec_nodes_wants_phys(&r->nodes, pid, addr)) {
		memcpy(r->scratch, rec, size);
		if (pmuk_decode_record(&r->fmt[e], r->scratch, size, &d) == 0 &&
		    (d.has & PMU_HAS_PHYS_ADDR))
			phys = d.sample.phys_addr;
	}
	return pmuk_rec_nodes_add(&r->nodes, pid, addr, phys);
}

static int on_mmap(struct pmu_recording *r, const struct pmu_record *d)
{
	const struct pmu_mmap *m = &d->mmap;

	if (m->data || !m->path)
		return 0;
	return pmuk_rec_maps_add(&r->maps, d->pid, m->start, m->len, m->path, m->build_id,
				 m->build_id_size, d->cpumode == PMU_CPUMODE_KERNEL);
}

/* rec is read-only: the decoder works on a copy (the rare records it needs). */
static int inspect(struct pmu_recording *r, const void *rec, size_t size)
{
	struct pmu_record d;
	int e = event_of(r, rec, size);

	r->st.records++;
	if (e < 0)
		return 0; /* written all the same: perf may know what we do not */
	if (((const struct perf_event_header *)rec)->type == PERF_RECORD_SAMPLE &&
	    on_sample(r, rec, size, e) == 0)
		return 0;
	memcpy(r->scratch, rec, size);
	if (pmuk_decode_record(&r->fmt[e], r->scratch, size, &d) != 0)
		return 0;
	switch (d.kind) {
	case PMU_RECORD_SAMPLE:
		r->st.samples++;  /* an attr without the usual head: counted, not tracked */
		return 0;
	case PMU_RECORD_MMAP:
		return on_mmap(r, &d);
	case PMU_RECORD_FORK:
		return pmuk_rec_maps_fork(&r->maps, d.pid, d.task.ppid);
	case PMU_RECORD_LOST:
		if (d.lost.samples)
			r->st.lost_samples += d.lost.count;
		else
			r->lost_records += d.lost.count;
		return 0;
	case PMU_RECORD_THROTTLE:
		r->st.throttles++;
		return 0;
	default:
		return 0;
	}
}

int pmuk_rec_peek(const void *rec, size_t size, void *ctx)
{
	return inspect(ctx, rec, size);
}

int pmuk_rec_span(const void *p, size_t size, void *ctx)
{
	return pmuk_pw_write_bytes(((struct pmu_recording *)ctx)->w, p, size);
}

int pmuk_rec_on_record(const void *rec, size_t size, void *ctx)
{
	struct pmu_recording *r = ctx;
	int err = pmuk_pw_write(r->w, rec, size);

	return err ? err : inspect(r, rec, size);
}

int pmuk_rec_finished_round(struct pmu_recording *r)
{
	struct perf_event_header h = { PERF_REC_FINISHED_ROUND, 0, sizeof(h) };

	return pmuk_pw_write(r->w, &h, sizeof(h));
}

/* PERF_RECORD_LOST_SAMPLES {u64 lost} + sample_id, one per event that lost
 * samples at a full ring, as perf record writes at its end. */
int pmuk_rec_lost_samples(struct pmu_recording *r)
{
	uint64_t id;

	for (size_t e = 0; e < r->nev; e++) {
		uint64_t lost = pmuk_sampler_lost_samples(r->s, e);
		int err;

		if (!lost || !pmuk_sampler_ids(r->s, e, &id, 1))
			continue;
		err = pmuk_rec_emit(r, PERF_RECORD_LOST_SAMPLES, 0, &lost, sizeof(lost), -1, -1,
				    r->last_time, id);
		if (err < 0)
			return err;
	}
	return 0;
}
