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

static void on_sample(struct pmu_recording *r, const struct pmu_record *d)
{
	const struct pmu_sample *s = &d->sample;
	int kernel = d->cpumode == PMU_CPUMODE_KERNEL;

	r->st.samples++;
	if (d->has & PMU_HAS_TIME) {
		if (!r->first_time || d->time < r->first_time)
			r->first_time = d->time;
		if (d->time > r->last_time)
			r->last_time = d->time;
	}
	if (d->has & PMU_HAS_IP)
		pmuk_rec_maps_hit(&r->maps, d->pid, s->ip, kernel);
	for (uint32_t i = 0; (d->has & PMU_HAS_CALLCHAIN) && i < s->nr_callchain; i++)
		pmuk_rec_maps_hit(&r->maps, d->pid, s->callchain[i], i < s->nr_kernel_frames);
}

static int on_mmap(struct pmu_recording *r, const struct pmu_record *d)
{
	const struct pmu_mmap *m = &d->mmap;

	if (m->data || !m->path)
		return 0;
	return pmuk_rec_maps_add(&r->maps, d->pid, m->start, m->len, m->path, m->build_id,
				 m->build_id_size, d->cpumode == PMU_CPUMODE_KERNEL);
}

static int inspect(struct pmu_recording *r, void *rec, size_t size)
{
	struct pmu_record d;
	int e = event_of(r, rec, size);

	if (e < 0 || pmuk_decode_record(&r->fmt[e], rec, size, &d) != 0)
		return 0; /* written all the same: perf may know what we do not */
	switch (d.kind) {
	case PMU_RECORD_SAMPLE:
		on_sample(r, &d);
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

int pmuk_rec_write(struct pmu_recording *r, const void *rec, size_t size)
{
	int err = pmuk_pw_write(r->w, rec, size);

	if (!err)
		r->st.records++;
	return err;
}

int pmuk_rec_on_record(void *rec, size_t size, void *ctx)
{
	struct pmu_recording *r = ctx;
	int err = pmuk_rec_write(r, rec, size);

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
