/* SPDX-License-Identifier: MIT */
/* perf ring buffer consumer. Ordering (see the comment on perf_event_mmap_page in
 * the kernel ABI): load data_head with acquire before reading records, store
 * data_tail with release after the last read, so the kernel never overwrites
 * bytes we are still copying. Every record is copied to the bounce buffer, which
 * also makes records that wrap past the end of the data area contiguous. */
#include "linux/ring.h"
#include "core/error.h"

#include <string.h>

int pmuk_ring_init(struct pmuk_ring *r, void *page, const void *data, uint64_t size,
		   uint64_t *bounce)
{
	if (!r || !page || !data || !bounce)
		return pmuk_fail(PMU_EINVAL, "a ring needs its control page, data area and bounce "
				 "buffer");
	if (size < sizeof(struct perf_event_header) || (size & (size - 1)))
		return pmuk_fail(PMU_EINVAL, "a ring's data area must be a power of two bytes "
				 "(got %llu)", (unsigned long long)size);
	r->page = page;
	r->data = data;
	r->size = size;
	r->bounce = bounce;
	return 0;
}

uint64_t pmuk_ring_pending(const struct pmuk_ring *r)
{
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);

	return head - __atomic_load_n(&r->page->data_tail, __ATOMIC_RELAXED);
}

/* Copies n bytes (n <= size) starting at stream position pos. */
static void copy_out(const struct pmuk_ring *r, uint64_t pos, void *dst, size_t n)
{
	uint64_t off = pos & (r->size - 1);
	size_t first = r->size - off < n ? (size_t)(r->size - off) : n;

	memcpy(dst, r->data + off, first);
	if (first < n)
		memcpy((unsigned char *)dst + first, r->data, n - first);
}

static int corrupt(struct pmuk_ring *r, uint64_t tail, uint64_t head, const char *why,
		   unsigned long long val)
{
	int err = pmuk_fail(PMU_EFORMAT, "corrupt perf ring buffer: %s %llu at offset %llu of "
			    "the %llu-byte data area (stream position %llu, head %llu); the "
			    "%llu bytes after it were dropped", why, val,
			    (unsigned long long)(tail & (r->size - 1)),
			    (unsigned long long)r->size, (unsigned long long)tail,
			    (unsigned long long)head, (unsigned long long)(head - tail));

	/* Resynchronise with the writer rather than trip over the same bytes again. */
	__atomic_store_n(&r->page->data_tail, head, __ATOMIC_RELEASE);
	return err;
}

/* Reads the header of the record at stream position pos, left bytes before data_head.
 * NULL when it is sound, else what is wrong, with the offending value in *val. */
static const char *bad_record(const struct pmuk_ring *r, uint64_t pos, uint64_t left,
			      struct perf_event_header *h, unsigned long long *val)
{
	if (left < sizeof(*h)) {
		*val = left;
		return "truncated record header of size";
	}
	copy_out(r, pos, h, sizeof(*h));
	*val = h->size;
	/* The ABI keeps every record a multiple of 8 bytes. */
	if (h->size < sizeof(*h) || (h->size & 7))
		return "record header.size";
	if (h->size > left)
		return "record extends past data_head: header.size";
	return NULL;
}

int pmuk_ring_drain(struct pmuk_ring *r, pmuk_ring_fn fn, void *ctx)
{
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&r->page->data_tail, __ATOMIC_RELAXED);
	struct perf_event_header h;
	unsigned long long val;
	const char *why;
	int ret = 0;

	if (head - tail > r->size)
		return corrupt(r, tail, head, "data_head runs ahead of data_tail by more than the "
			       "ring holds: distance", (unsigned long long)(head - tail));
	while (head != tail) {
		if ((why = bad_record(r, tail, head - tail, &h, &val)))
			return corrupt(r, tail, head, why, val);
		copy_out(r, tail, r->bounce, h.size);
		tail += h.size;
		ret = fn(r->bounce, h.size, ctx);
		if (ret)
			break;
	}
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

/* The whole records of [tail, tail + n) to span, in one or two pieces. */
static int spans(const struct pmuk_ring *r, uint64_t tail, uint64_t n, pmuk_ring_span_fn span,
		 void *ctx)
{
	uint64_t off = tail & (r->size - 1), first = r->size - off < n ? r->size - off : n;
	int ret = n ? span(r->data + off, (size_t)first, ctx) : 0;

	if (!ret && first < n)
		ret = span(r->data, (size_t)(n - first), ctx);
	return ret;
}

int pmuk_ring_drain_spans(struct pmuk_ring *r, pmuk_ring_peek_fn peek, pmuk_ring_span_fn span,
			  void *ctx)
{
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&r->page->data_tail, __ATOMIC_RELAXED), pos = tail;
	struct perf_event_header h;
	const char *why = NULL;
	unsigned long long val = 0;
	int ret = 0;

	if (head - tail > r->size)
		return corrupt(r, tail, head, "data_head runs ahead of data_tail by more than the "
			       "ring holds: distance", (unsigned long long)(head - tail));
	while (pos != head && !ret) {
		uint64_t off = pos & (r->size - 1);

		if ((why = bad_record(r, pos, head - pos, &h, &val)))
			break;
		if (off + h.size <= r->size) {
			ret = peek(r->data + off, h.size, ctx);
		} else {
			copy_out(r, pos, r->bounce, h.size);
			ret = peek(r->bounce, h.size, ctx);
		}
		if (!ret)
			pos += h.size;
	}
	if (!ret)
		ret = spans(r, tail, pos - tail, span, ctx);
	if (ret)
		return ret; /* nothing consumed: the caller failed to keep it */
	__atomic_store_n(&r->page->data_tail, pos, __ATOMIC_RELEASE);
	return why ? corrupt(r, pos, head, why, val) : 0;
}
