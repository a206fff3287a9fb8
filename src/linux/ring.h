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

/* Bytes waiting to be read (data_head - data_tail). */
uint64_t pmuk_ring_pending(const struct pmuk_ring *r);

#endif
