/* SPDX-License-Identifier: MIT */
/* COMPRESSED records (perf record -z): a zstd stream whose bytes are records
 * again; one record may start in one COMPRESSED record and end in the next
 * (perf compresses the ring in chunks), so the tail is carried over. */
#include "formats/perf_read_int.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

#ifdef PMUKIT_HAVE_ZSTD
#include <zstd.h>

#define ZOUT (256u << 10)

/* Every whole record in the carry buffer, the rest moved to its front. */
static int drain_carry(struct perf_src *s, uint64_t off)
{
	size_t at = 0;
	int err = 0;

	while (!err && s->carry_n - at >= 8) {
		struct perf_rec_header h;

		memcpy(&h, s->carry + at, sizeof(h));
		if (h.size < 8) {
			s->t->st.bytes_skipped += s->carry_n - at;
			s->carry_n = 0;
			return pmuk_fail(PMU_EFORMAT, "%s: offset %llu: a compressed record holds a "
					 "record of type %u claiming %u bytes (at least 8 expected)",
					 s->path, (unsigned long long)off, h.type, h.size);
		}
		if (h.size > s->carry_n - at)
			break;
		/* records inside carry no extra bytes (tracing data, AUX) of their own */
		if (h.type == PERF_REC_HEADER_TRACING_DATA || h.type == PERF_REC_AUXTRACE ||
		    h.type == PERF_REC_COMPRESSED)
			s->t->st.skipped++;
		else
			err = perf_handle(s, s->carry + at, h.size, off);
		at += h.size;
	}
	memmove(s->carry, s->carry + at, s->carry_n - at);
	s->carry_n -= at;
	return err;
}

int perf_zstd_records(struct perf_src *s, const uint8_t *in, size_t n, uint64_t off)
{
	ZSTD_inBuffer ib = { in, n, 0 };
	int err = 0;

	if (!s->zctx && (!(s->zctx = ZSTD_createDStream()) || !(s->zout = malloc(ZOUT))))
		return pmuk_fail(PMU_ENOMEM, "%s: no memory to decompress", s->path);
	while (!err && ib.pos < ib.size) {
		ZSTD_outBuffer ob = { s->zout, ZOUT, 0 };
		size_t r = ZSTD_decompressStream(s->zctx, &ob, &ib);

		if (ZSTD_isError(r)) {
			/* the record and the head of one begun before it */
			s->t->st.bytes_skipped += n + 8 + s->carry_n;
			/* perf compresses a session as one stream: once it breaks, the
			 * records after fail too; one warning, the rest counted */
			if (!s->z_failed++)
				pmuk_trace_warn(s->t, "%s: offset %llu: the compressed record does "
						"not decompress (%s); it is skipped", s->path,
						(unsigned long long)off, ZSTD_getErrorName(r));
			ZSTD_initDStream(s->zctx);
			s->carry_n = 0;
			return 0;
		}
		if (!ob.pos)
			continue;
		if (pmuk_grow((void **)&s->carry, &s->carry_cap, s->carry_n + ob.pos, 1))
			return pmuk_fail(PMU_ENOMEM, "%s: no memory to decompress", s->path);
		memcpy(s->carry + s->carry_n, s->zout, ob.pos);
		s->carry_n += ob.pos;
		err = drain_carry(s, off);
	}
	return err;
}

int perf_zstd_available(void)
{
	return 1;
}

void perf_zstd_free(struct perf_src *s)
{
	ZSTD_freeDStream(s->zctx);
	free(s->zout);
	free(s->carry);
}

#else

int perf_zstd_records(struct perf_src *s, const uint8_t *in, size_t n, uint64_t off)
{
	(void)in;
	(void)n;
	s->t->st.bytes_skipped += n + 8;
	return pmuk_fail(PMU_ENOTSUP, "%s: offset %llu: the records are zstd-compressed (perf "
			 "record -z) and this pmukit was built without libzstd; rebuild it with "
			 "libzstd (libzstd-dev) or record without -z", s->path,
			 (unsigned long long)off);
}

int perf_zstd_available(void)
{
	return 0;
}

void perf_zstd_free(struct perf_src *s)
{
	free(s->carry);
}

#endif
