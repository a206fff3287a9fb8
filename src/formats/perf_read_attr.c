/* SPDX-License-Identifier: MIT */
/* The events of a perf.data (its attrs), the ids their records carry, and
 * which event a raw record belongs to. */
#include "formats/perf_read_int.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

static uint64_t u64_at(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint32_t u32_at(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

int perf_ev_add(struct perf_src *s, const void *attr, uint32_t size, uint64_t off)
{
	struct perf_ev *e;
	uint64_t flags;

	if (size < PERF_ATTR_SIZE_VER0 || size > PERF_READ_MAX_ATTR_SIZE)
		return pmuk_fail(PMU_EFORMAT, "%s: offset %llu: an event attribute of %u bytes "
				 "(%u to %u expected): the file is corrupt", s->path,
				 (unsigned long long)off, size, PERF_ATTR_SIZE_VER0,
				 PERF_READ_MAX_ATTR_SIZE);
	if (s->nr_evs >= PERF_READ_MAX_ATTRS)
		return pmuk_fail(PMU_EFORMAT, "%s: offset %llu: more than %u events: the file is "
				 "corrupt", s->path, (unsigned long long)off, PERF_READ_MAX_ATTRS);
	if (pmuk_grow((void **)&s->evs, &s->cap_evs, s->nr_evs + 1, sizeof(*s->evs)))
		return pmuk_fail(PMU_ENOMEM, "%s: no memory for the events", s->path);
	e = &s->evs[s->nr_evs];
	memset(e, 0, sizeof(*e));
	if (!(e->stored = malloc(size)))
		return pmuk_fail(PMU_ENOMEM, "%s: no memory for the events", s->path);
	memcpy(e->stored, attr, size);
	e->stored_size = size;
	memcpy(e->attr, attr, size < sizeof(e->attr) ? size : sizeof(e->attr));
	flags = u64_at(e->attr, PERF_ATTR_FLAGS);
	e->fmt.sample_type = u64_at(e->attr, PERF_ATTR_SAMPLE_TYPE);
	e->fmt.read_format = u64_at(e->attr, PERF_ATTR_READ_FORMAT);
	e->fmt.branch_sample_type = u64_at(e->attr, PERF_ATTR_BRANCH_SAMPLE_TYPE);
	e->fmt.regs_user = u64_at(e->attr, PERF_ATTR_REGS_USER);
	e->fmt.regs_intr = u64_at(e->attr, PERF_ATTR_REGS_INTR);
	e->fmt.sample_id_all = !!(flags & PERF_AF_SAMPLE_ID_ALL);
	s->nr_evs++;
	return 0;
}

static int id_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct perf_src *s = ctx;

	return s->ids[id].id == *(const uint64_t *)key;
}

static uint64_t id_hash(uint64_t id)
{
	return pmuk_hash_u64(id);
}

int perf_id_to_ev(const struct perf_src *s, uint64_t id)
{
	uint32_t i = pmuk_index_find(&s->id_ix, id_hash(id), id_eq, &id, s);

	return i == PMUK_INDEX_NONE ? -1 : (int)s->ids[i].ev;
}

/* Adds ids of event ev; an id already known keeps its first event. */
int perf_ev_add_ids(struct perf_src *s, uint32_t ev, const uint64_t *ids, size_t n)
{
	struct perf_ev *e = &s->evs[ev];

	for (size_t i = 0; i < n; i++) {
		uint64_t id;
		uint32_t at;

		memcpy(&id, &ids[i], sizeof(id));
		if (perf_id_to_ev(s, id) >= 0)
			continue;
		if (pmuk_grow((void **)&s->ids, &s->cap_ids, s->nr_ids + 1, sizeof(*s->ids)) ||
		    pmuk_grow((void **)&e->ids, &e->cap_ids, e->nr_ids + 1, sizeof(*e->ids)) ||
		    (at = pmuk_index_add(&s->id_ix, id_hash(id))) == PMUK_INDEX_NONE)
			return pmuk_fail(PMU_ENOMEM, "%s: no memory for the event ids", s->path);
		s->ids[at] = (struct perf_id){ id, ev };
		s->nr_ids++;
		e->ids[e->nr_ids++] = id;
	}
	return 0;
}

/* perf's rule (evsel__calc_id_pos): where the id sits in a sample (u64s after
 * the header) and in a sample_id trailer (u64s from the end), -1 nowhere. */
static void calc_id_pos(struct perf_src *s)
{
	uint64_t st = s->nr_evs ? s->evs[0].fmt.sample_type : 0;

	s->id_pos = s->is_pos = -1;
	if (st & PERF_ST_IDENTIFIER) {
		s->id_pos = 0;
		s->is_pos = 1;
	} else if (st & PERF_ST_ID) {
		s->id_pos = __builtin_popcountll(st & (PERF_ST_IP | PERF_ST_TID | PERF_ST_TIME |
						       PERF_ST_ADDR));
		s->is_pos = 1 + __builtin_popcountll(st & (PERF_ST_CPU | PERF_ST_STREAM_ID));
	}
}

int perf_rec_event(const struct perf_src *s, const void *rec, size_t size)
{
	struct perf_rec_header h;
	size_t at;

	if (s->nr_evs <= 1)
		return s->nr_evs ? 0 : -1;
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_REC_SAMPLE) {
		if (s->id_pos < 0)
			return -1;
		at = 8 + 8 * (size_t)s->id_pos;
	} else {
		if (h.type >= PERF_REC_HEADER_ATTR || s->is_pos < 0 || !s->evs[0].fmt.sample_id_all)
			return -1;
		if (size < 8 + 8 * (size_t)s->is_pos)
			return -1;
		at = size - 8 * (size_t)s->is_pos;
	}
	if (at + 8 > size)
		return -1;
	return perf_id_to_ev(s, u64_at(rec, at));
}

static void fill_pub(const struct perf_ev *e, struct pmu_trace_event *p)
{
	uint64_t flags = u64_at(e->attr, PERF_ATTR_FLAGS);

	memset(p, 0, sizeof(*p));
	p->name = e->name ? e->name : "";
	p->type = u32_at(e->attr, PERF_ATTR_TYPE);
	p->config = u64_at(e->attr, PERF_ATTR_CONFIG);
	p->config1 = u64_at(e->attr, PERF_ATTR_CONFIG1);
	p->config2 = u64_at(e->attr, PERF_ATTR_CONFIG2);
	p->sample_type = e->fmt.sample_type;
	p->read_format = e->fmt.read_format;
	p->period = u64_at(e->attr, PERF_ATTR_PERIOD);
	p->freq = !!(flags & PERF_AF_FREQ);
	p->branch_sample_type = e->fmt.branch_sample_type;
	p->regs_user = e->fmt.regs_user;
	p->stack_user = u32_at(e->attr, PERF_ATTR_STACK_USER);
	p->clockid = flags & PERF_AF_USE_CLOCKID ? (int32_t)u32_at(e->attr, PERF_ATTR_CLOCKID) : -1;
	p->exclude_user = !!(flags & PERF_AF_EXCLUDE_USER);
	p->exclude_kernel = !!(flags & PERF_AF_EXCLUDE_KERNEL);
	p->exclude_hv = !!(flags & PERF_AF_EXCLUDE_HV);
	p->precise_ip = (int)((flags >> PERF_AF_PRECISE_SHIFT) & 3);
	p->attr = e->stored;
	p->attr_size = e->stored_size;
	p->ids = e->ids;
	p->nr_ids = e->nr_ids;
}

/* Names every event still unnamed and (re)builds the public array. */
void perf_ev_publish(struct perf_src *s)
{
	struct pmu_trace_event *p;

	calc_id_pos(s);
	for (size_t i = 0; i < s->nr_evs; i++)
		if (!s->evs[i].name)
			s->evs[i].name = perf_event_name(s, &s->evs[i]);
	if (s->nr_evs && (p = realloc(s->pub, s->nr_evs * sizeof(*p)))) {
		s->pub = p;
		for (size_t i = 0; i < s->nr_evs; i++)
			fill_pub(&s->evs[i], &p[i]);
		s->t->events = p;
		s->t->nr_events = s->nr_evs;
	}
}

void perf_ev_free(struct perf_src *s)
{
	for (size_t i = 0; i < s->nr_evs; i++) {
		free(s->evs[i].stored);
		free(s->evs[i].ids);
		free(s->evs[i].name);
	}
	free(s->evs);
	free(s->pub);
	free(s->ids);
	pmuk_index_free(&s->id_ix);
}
