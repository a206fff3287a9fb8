/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_RING_H
#define PMUK_LINUX_RING_H

/* The consumer side of a perf_event ring buffer: the kernel advances data_head,
 * we copy records out and hand data_tail back. Works on any memory laid out like
 * the mmap (tests and the fuzzer use byte buffers). */

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* header.size is 16 bits, so no record is larger than this. */
#define PMUK_RING_BOUNCE 65536

struct pmuk_ring {
	struct perf_event_mmap_page *page; /* data_head, data_tail */
	const unsigned char *data;         /* the data area */
	uint64_t size;                     /* its bytes, a power of two */
	uint64_t *bounce;                  /* PMUK_RING_BOUNCE bytes the records are copied to */
};

/* Fills r; PMU_EINVAL unless size is a power of two (>= 8). */
int pmuk_ring_init(struct pmuk_ring *r, void *page, const void *data, uint64_t size,
		   uint64_t *bounce);

/* Called with each record (header first, 8-byte aligned copy, writable, valid
 * until it returns). Nonzero stops the drain, which returns that value. */
typedef int (*pmuk_ring_fn)(void *rec, size_t size, void *ctx);

/* Delivers every record between data_tail and data_head, then stores the new
 * data_tail. Returns 0, fn's nonzero value (the records after it stay), or
 * PMU_EFORMAT when a header is corrupt: the records before it were delivered,
 * the rest of the ring is dropped (data_tail = data_head) and the detail names
 * the offset. */
int pmuk_ring_drain(struct pmuk_ring *r, pmuk_ring_fn fn, void *ctx);

/* Called with each record where it lies in the ring (header first, read-only,
 * maybe unaligned for wider loads than 8 bytes: copy to decode), or in the bounce
 * buffer when it wraps past the end of the data area. */
typedef int (*pmuk_ring_peek_fn)(const void *rec, size_t size, void *ctx);
/* Called with the bytes of the whole records drained, as they lie in the data area
 * (one span, or two when they wrap), before the tail moves past them. */
typedef int (*pmuk_ring_span_fn)(const void *p, size_t size, void *ctx);

/* pmuk_ring_drain without copying what does not wrap: peek sees each record in
 * place, then span gets their bytes in at most two pieces (the perf.data writer
 * stores them verbatim). Returns 0, the first nonzero of peek or span (no record
 * is consumed then), or PMU_EFORMAT as pmuk_ring_drain, after the whole records
 * before the corrupt one went through peek and span. */
int pmuk_ring_drain_spans(struct pmuk_ring *r, pmuk_ring_peek_fn peek, pmuk_ring_span_fn span,
			  void *ctx);

/* Bytes waiting to be read (data_head - data_tail). */
uint64_t pmuk_ring_pending(const struct pmuk_ring *r);

#endif
