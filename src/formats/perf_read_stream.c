/* SPDX-License-Identifier: MIT */
/* Walking perf.data records: the data section of a file, or a pipe's stream
 * after its header records; each record is handled by kind, the kernel's
 * decoded and queued for time order. */
#include "formats/perf_read_int.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TRACING_DATA (256u << 20)

size_t perf_in(struct perf_src *s, void *dst, size_t n)
{
	size_t got = s->in_n - s->in_at < n ? s->in_n - s->in_at : n;

	if (got) {
		memcpy(dst, (const uint8_t *)s->ibuf + s->in_at, got);
		s->in_at += got;
	}
	if (got < n)
		got += fread((uint8_t *)dst + got, 1, n - got, s->f);
	s->pos += got;
	return got;
}

/* File mode: at least need bytes (up to PERF_IBUF) read ahead, if the data
 * section has them: what is there. The stream stays where it was: the bytes
 * after the read-ahead ones are the next the file gives. */
static size_t ahead(struct perf_src *s, size_t need)
{
	size_t have = s->in_n - s->in_at;

	if (have >= need || (!s->ibuf && !(s->ibuf = malloc(PERF_IBUF))))
		return have;
	memmove(s->ibuf, (const uint8_t *)s->ibuf + s->in_at, have);
	s->in_at = 0;
	s->in_n = have;
	uint64_t left = s->data_end > s->pos + have ? s->data_end - (s->pos + have) : 0;
	size_t want = PERF_IBUF - have < left ? PERF_IBUF - have : (size_t)left;
	s->in_n += want ? fread((uint8_t *)s->ibuf + have, 1, want, s->f) : 0;
	return s->in_n;
}

/* File mode: the next record (at most 64 KiB: its size is 16 bits) in place
 * in the read-ahead block, 1; 0 when it is not whole there (damaged, at the
 * end, misaligned): then nothing was taken and perf_next reads it the long
 * way, with its checks. */
static int next_in_place(struct perf_src *s, uint64_t **rec, size_t *size)
{
	struct perf_rec_header h;

	if (s->pipe || s->pos >= s->data_end || ahead(s, 8) < 8)
		return 0;
	memcpy(&h, (const uint8_t *)s->ibuf + s->in_at, sizeof(h));
	if (h.size < 8 || (s->in_at & 7) || s->pos + h.size > s->data_end_said ||
	    ahead(s, h.size) < h.size)
		return 0;
	*rec = (uint64_t *)(void *)((uint8_t *)s->ibuf + s->in_at);
	*size = h.size;
	s->in_at += h.size;
	s->pos += h.size;
	return 1;
}

static uint64_t u64_at(const void *p, size_t off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)p + off, sizeof(v));
	return v;
}

/* Bytes of input from here to its end (a pipe is drained to count them). */
static uint64_t rest_of_input(struct perf_src *s)
{
	uint8_t b[4096];
	uint64_t n = 0;
	size_t got;

	if (!s->pipe)
		return s->data_end > s->pos ? s->data_end - s->pos : 0;
	while ((got = perf_in(s, b, sizeof(b))))
		n += got;
	return n;
}

/* The input is damaged at off: what was read before stays delivered, the rest
 * is counted as skipped. */
static int damaged(struct perf_src *s, uint64_t off, uint64_t consumed, const char *what)
{
	s->t->st.bytes_skipped += consumed + rest_of_input(s);
	return pmuk_fail(PMU_EFORMAT, "%s: offset %llu: %s; the records before it were read",
			 s->path, (unsigned long long)off, what);
}

static int reserve(struct perf_src *s, size_t size)
{
	if (size <= s->rbuf_cap * 8)
		return 0;
	free(s->rbuf);
	s->rbuf_cap = (size + 7) / 8;
	if (!(s->rbuf = malloc(s->rbuf_cap * 8))) {
		s->rbuf_cap = 0;
		return pmuk_fail(PMU_ENOMEM, "%s: no memory for a record", s->path);
	}
	return 0;
}

/* The next record, in place in the read-ahead block or copied into s->rbuf
 * (valid until the next call): 1, 0 at the end, or an error. */
int perf_next(struct perf_src *s, uint64_t **rec, size_t *size, uint64_t *off)
{
	struct perf_rec_header h;
	char what[160];
	size_t got;

	if (s->pend) {
		free(s->rbuf);
		s->rbuf = s->pend;
		s->rbuf_cap = (s->pend_size + 7) / 8;
		*rec = s->rbuf;
		*size = s->pend_size;
		*off = s->pend_off;
		s->pend = NULL;
		return 1;
	}
	*off = s->pos;
	if (next_in_place(s, rec, size))
		return 1;
	if (!s->pipe && s->pos >= s->data_end)
		return 0;
	if (reserve(s, 8))
		return PMU_ENOMEM;
	if (!(got = perf_in(s, s->rbuf, 8)))
		return 0;
	if (got < 8) {
		snprintf(what, sizeof(what), "a record header (8 bytes) was expected, the input "
			 "ends after %zu", got);
		return damaged(s, *off, got, what);
	}
	memcpy(&h, s->rbuf, sizeof(h));
	if (h.size < 8) {
		snprintf(what, sizeof(what), "a record of type %u claims %u bytes (at least 8 "
			 "expected)", h.type, h.size);
		return damaged(s, *off, 8, what);
	}
	if (!s->pipe && *off + h.size > s->data_end_said) {
		snprintf(what, sizeof(what), "a record of type %u claims %u bytes, past the end "
			 "of the data section at %llu", h.type, h.size,
			 (unsigned long long)s->data_end_said);
		return damaged(s, *off, 8, what);
	}
	if (reserve(s, h.size))
		return PMU_ENOMEM;
	memcpy(s->rbuf, &h, sizeof(h));
	if ((got = perf_in(s, (uint8_t *)s->rbuf + 8, h.size - 8u)) < h.size - 8u) {
		snprintf(what, sizeof(what), "a record of type %u claims %u bytes, the input ends "
			 "after %zu", h.type, h.size, got + 8);
		return damaged(s, *off, got + 8, what);
	}
	*rec = s->rbuf;
	*size = h.size;
	return 1;
}

static int kernel_record(struct perf_src *s, const void *rec, size_t size, uint64_t off)
{
	static const struct pmuk_sample_fmt none;
	int ev = perf_rec_event(s, rec, size);
	const struct pmuk_sample_fmt *f = ev >= 0 ? &s->evs[ev].fmt :
					  s->nr_evs ? &s->evs[0].fmt : &none;
	struct perf_qent *q = perf_qent_get(s, size);
	int ret;

	if (!q)
		return pmuk_fail(PMU_ENOMEM, "%s: no memory for a record", s->path);
	memcpy(q->buf, rec, size);
	q->size = size;
	ret = pmuk_decode_record_ext(f, q->buf, size, &q->rec, &q->ext);
	if (ret) {
		perf_qent_put(s, q);
		if (ret == 1) {
			s->t->st.skipped++;
			return 0;
		}
		s->t->st.bytes_skipped += size;
		pmuk_trace_warn(s->t, "%s: offset %llu: %s; the record is skipped", s->path,
				(unsigned long long)off, pmu_error_detail());
		return 0;
	}
	if (ev < 0 && (q->rec.has & PMU_HAS_ID))
		ev = perf_id_to_ev(s, q->rec.id);
	q->rec.event = ev;
	/* the kernel and its modules are mapped in every process: pid -1 */
	if (q->rec.kind == PMU_RECORD_MMAP && q->rec.cpumode == PMU_CPUMODE_KERNEL)
		q->rec.pid = -1;
	return perf_order_add(s, q);
}

/* HEADER_ATTR: {attr (attr.size bytes); u64 ids[]} */
static int header_attr(struct perf_src *s, const uint8_t *rec, size_t size, uint64_t off)
{
	uint32_t asz;
	int err;

	if (size < 8 + PERF_ATTR_SIZE_VER0)
		return pmuk_fail(PMU_EFORMAT, "%s: offset %llu: an attr record of %zu bytes (at "
				 "least %u expected)", s->path, (unsigned long long)off, size,
				 8 + PERF_ATTR_SIZE_VER0);
	memcpy(&asz, rec + 8 + PERF_ATTR_SIZE, 4);
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz > size - 8)
		return pmuk_fail(PMU_EFORMAT, "%s: offset %llu: an attr of %u bytes in a record of "
				 "%zu", s->path, (unsigned long long)off, asz, size);
	if ((err = perf_ev_add(s, rec + 8, asz, off)) ||
	    (err = perf_ev_add_ids(s, (uint32_t)s->nr_evs - 1,
				   (const uint64_t *)(const void *)(rec + 8 + asz),
				   (size - 8 - asz) / 8)))
		return err;
	perf_ev_publish(s);
	return 0;
}

/* HEADER_TRACING_DATA: {u32 size} then size bytes outside the record, read
 * as they come (a damaged size must not allocate what is not there). */
static int tracing_data(struct perf_src *s, const uint8_t *rec, size_t size, uint64_t off)
{
	uint32_t n;
	uint8_t *p = NULL;
	size_t have = 0, cap = 0;

	if (size < 12)
		return damaged(s, off, size, "a tracing data record shorter than 12 bytes");
	memcpy(&n, rec + 8, 4);
	if (n > MAX_TRACING_DATA)
		return damaged(s, off, size, "tracing data over 256 MiB");
	while (have < n) {
		size_t want = n - have < (1u << 20) ? n - have : (1u << 20), got;

		if (pmuk_grow((void **)&p, &cap, have + want, 1)) {
			free(p);
			return pmuk_fail(PMU_ENOMEM, "%s: no memory for the tracing data", s->path);
		}
		if ((got = perf_in(s, p + have, want)) < want) {
			free(p);
			return damaged(s, off, size + have + got,
				       "the tracing data ends before its size");
		}
		have += got;
	}
	perf_feat_parse(s, HEADER_TRACING_DATA, p ? p : (const uint8_t *)"", n, off + size);
	free(p);
	perf_ev_publish(s);
	perf_info_finish(s);
	return 0;
}

/* AUXTRACE: {u64 size, ...} then size bytes of trace data outside the record. */
static int skip_aux(struct perf_src *s, const uint8_t *rec, size_t size, uint64_t off)
{
	uint8_t b[4096];
	uint64_t n = size >= 16 ? u64_at(rec, 8) : 0, done = 0;
	size_t got;

	s->t->st.skipped++;
	while (done < n && (got = perf_in(s, b, n - done < sizeof(b) ? n - done : sizeof(b))))
		done += got;
	if (done < n)
		return damaged(s, off, size + done, "the AUX trace data ends before its size");
	return 0;
}

/* ID_INDEX: {u64 nr; {u64 id, idx, cpu, tid}[nr]} */
static int id_index(struct perf_src *s, const uint8_t *rec, size_t size)
{
	uint64_t nr = size >= 16 ? u64_at(rec, 8) : 0;
	int err;

	if (nr > (size - 16) / 32)
		nr = (size - 16) / 32;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t id = u64_at(rec, 16 + 32 * i), idx = u64_at(rec, 24 + 32 * i);

		if (idx < s->nr_evs && (err = perf_ev_add_ids(s, (uint32_t)idx, &id, 1)))
			return err;
	}
	perf_ev_publish(s);
	return 0;
}

/* EVENT_UPDATE: {u64 type, id; ...}, type 2: the event's name. */
static void event_update(struct perf_src *s, const uint8_t *rec, size_t size)
{
	int ev;
	char *n;

	if (size <= 24 || u64_at(rec, 8) != 2 || s->feat_event_desc ||
	    (ev = perf_id_to_ev(s, u64_at(rec, 16))) < 0)
		return;
	size_t len = strnlen((const char *)rec + 24, size - 24);
	if (!(n = malloc(len + 1)))
		return;
	memcpy(n, rec + 24, len);
	n[len] = 0;
	free(s->evs[ev].name);
	s->evs[ev].name = n;
	perf_ev_publish(s);
}

int perf_handle(struct perf_src *s, void *rec, size_t size, uint64_t off)
{
	struct perf_rec_header h;
	const uint8_t *r = rec;

	memcpy(&h, rec, sizeof(h));
	switch (h.type) {
	case PERF_REC_HEADER_ATTR:
		return header_attr(s, r, size, off);
	case PERF_REC_HEADER_TRACING_DATA:
		return tracing_data(s, r, size, off);
	case PERF_REC_HEADER_BUILD_ID:
		if (perf_build_id_entry(s, r, size) < 0)
			pmuk_trace_warn(s->t, "%s: offset %llu: a build-id record does not parse",
					s->path, (unsigned long long)off);
		s->t->build_ids = s->bids;
		s->t->nr_build_ids = s->nr_bids;
		return 0;
	case PERF_REC_HEADER_FEATURE:
		if (size >= 16) {
			perf_feat_parse(s, (int)u64_at(r, 8), r + 16, size - 16, off);
			perf_ev_publish(s);
			perf_info_finish(s);
		}
		return 0;
	case PERF_REC_HEADER_EVENT_TYPE:
		return 0;
	case PERF_REC_FINISHED_ROUND:
		return perf_order_round(s);
	case PERF_REC_FINISHED_INIT:
		return perf_order_flush(s, UINT64_MAX);
	case PERF_REC_ID_INDEX:
		return id_index(s, r, size);
	case PERF_REC_EVENT_UPDATE:
		event_update(s, r, size);
		return 0;
	case PERF_REC_COMPRESSED:
		s->t->info.compressed = 1;
		return perf_zstd_records(s, r + 8, size - 8, off);
	case PERF_REC_AUXTRACE:
		return skip_aux(s, r, size, off);
	default:
		if (h.type < PERF_REC_HEADER_ATTR)
			return kernel_record(s, rec, size, off);
		s->t->st.skipped++;
		return 0;
	}
}

int perf_stream_read(struct pmu_trace *t, pmu_record_fn cb, void *ctx)
{
	struct perf_src *s = t->be;
	uint64_t *rec, off;
	size_t size;
	int ret;

	s->cb = cb;
	s->ctx = ctx;
	while ((ret = perf_next(s, &rec, &size, &off)) > 0)
		if ((ret = perf_handle(s, rec, size, off)) != 0)
			break;
	if (s->pipe)
		t->info.data_size = s->pos - PERF_PIPE_HEADER_SIZE;
	if (s->z_failed > 1)
		pmuk_trace_warn(t, "%s: %llu more compressed records did not decompress (the "
				"stream broke at the first); they are skipped", s->path,
				(unsigned long long)s->z_failed - 1);
	if (s->carry_n) {
		/* the compressed stream ended inside a record */
		pmuk_trace_warn(t, "%s: the compressed records end with %zu bytes of an unfinished "
				"record; they are skipped", s->path, s->carry_n);
		t->st.bytes_skipped += s->carry_n;
		s->carry_n = 0;
	}
	if (ret > 0 || s->cb_ret)
		return s->cb_ret ? s->cb_ret : ret;
	if (!ret && !s->pipe && s->data_end < s->data_end_said) {
		ret = pmuk_fail(PMU_EFORMAT, "%s: offset %llu: the data section should go on to "
				"offset %llu but the file ends there (truncated); the records "
				"before it were read", s->path, (unsigned long long)s->data_end,
				(unsigned long long)s->data_end_said);
	}
	if (ret < 0) {
		/* deliver what came before the damage, keeping the error's sentence */
		char detail[512];

		snprintf(detail, sizeof(detail), "%s", pmu_error_detail());
		perf_order_flush(s, UINT64_MAX);
		return s->cb_ret ? s->cb_ret : pmuk_fail(ret, "%s", detail);
	}
	perf_order_flush(s, UINT64_MAX);
	return s->cb_ret;
}
