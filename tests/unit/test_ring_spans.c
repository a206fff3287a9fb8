/* SPDX-License-Identifier: MIT */
/* pmuk_ring_drain_spans (the perf.data recorder's drain) on a crafted ring: each
 * record seen once and whole (in place, or joined in the bounce buffer when it
 * wraps), the spans giving back exactly the bytes drained, nothing consumed when a
 * callback fails, and a corrupt header ending the drain after the whole records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>

#include "linux/ring.h"

#define RSIZE 256

struct fake {
	struct perf_event_mmap_page page;
	unsigned char data[RSIZE];
	struct pmuk_ring ring;
	uint64_t bounce[PMUK_RING_BOUNCE / 8];
	/* what the callbacks saw */
	uint64_t payload[32];
	int n, fail_peek_at, fail_span;
	unsigned char stream[4 * RSIZE];
	size_t nstream, nspans;
};

static struct fake *fake_new(uint64_t start)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->page.data_head = f->page.data_tail = start;
	assert_int_equal(pmuk_ring_init(&f->ring, &f->page, f->data, RSIZE, f->bounce), 0);
	return f;
}

/* A record of words 8-byte words: header {type 9, size}, then payload in every word. */
static void put(struct fake *f, uint64_t payload, size_t words, unsigned char *expect,
		size_t *nexpect)
{
	uint64_t w[16];

	w[0] = 9 | (uint64_t)(words * 8) << 48;
	for (size_t i = 1; i < words; i++)
		w[i] = payload;
	for (size_t i = 0; i < words * 8; i++)
		f->data[(f->page.data_head + i) & (RSIZE - 1)] = ((unsigned char *)w)[i];
	f->page.data_head += words * 8;
	memcpy(expect + *nexpect, w, words * 8);
	*nexpect += words * 8;
}

static int peek(const void *rec, size_t size, void *ctx)
{
	struct fake *f = ctx;
	const uint64_t *w = rec;

	if (f->fail_peek_at && f->n + 1 == f->fail_peek_at)
		return 5;
	/* whole: every payload word the same */
	for (size_t i = 2; i < size / 8; i++)
		assert_int_equal(w[i], w[1]);
	f->payload[f->n++] = w[1];
	return 0;
}

static int span(const void *p, size_t size, void *ctx)
{
	struct fake *f = ctx;

	if (f->fail_span)
		return 6;
	memcpy(f->stream + f->nstream, p, size);
	f->nstream += size;
	f->nspans++;
	return 0;
}

static void test_wrapping(void **state)
{
	struct fake *f = fake_new(RSIZE - 24); /* the second record wraps */
	unsigned char expect[RSIZE];
	size_t ne = 0;

	(void)state;
	put(f, 0x11, 2, expect, &ne);
	put(f, 0x22, 4, expect, &ne);
	put(f, 0x33, 3, expect, &ne);
	assert_int_equal(pmuk_ring_drain_spans(&f->ring, peek, span, f), 0);
	assert_int_equal(f->n, 3);
	assert_int_equal(f->payload[0], 0x11);
	assert_int_equal(f->payload[1], 0x22);
	assert_int_equal(f->payload[2], 0x33);
	assert_int_equal(f->nspans, 2);  /* the end of the data area, then its start */
	assert_int_equal(f->nstream, ne);
	assert_memory_equal(f->stream, expect, ne);
	assert_int_equal(f->page.data_tail, f->page.data_head);
	/* nothing new: no record, no span */
	assert_int_equal(pmuk_ring_drain_spans(&f->ring, peek, span, f), 0);
	assert_int_equal(f->n, 3);
	assert_int_equal(f->nspans, 2);
	free(f);
}

static void test_callback_fails(void **state)
{
	struct fake *f = fake_new(0);
	unsigned char expect[RSIZE];
	size_t ne = 0;

	(void)state;
	put(f, 1, 2, expect, &ne);
	put(f, 2, 2, expect, &ne);
	f->fail_peek_at = 2;
	assert_int_equal(pmuk_ring_drain_spans(&f->ring, peek, span, f), 5);
	assert_int_equal(f->page.data_tail, 0);  /* nothing consumed */
	f->fail_peek_at = 0;
	f->n = 0;
	f->fail_span = 1;
	assert_int_equal(pmuk_ring_drain_spans(&f->ring, peek, span, f), 6);
	assert_int_equal(f->page.data_tail, 0);
	f->fail_span = 0;
	f->n = 0;
	assert_int_equal(pmuk_ring_drain_spans(&f->ring, peek, span, f), 0);
	assert_int_equal(f->n, 2);
	assert_int_equal(f->page.data_tail, 32);
	free(f);
}

static void test_corrupt(void **state)
{
	struct fake *f = fake_new(8);
	unsigned char expect[RSIZE];
	size_t ne = 0;
	uint64_t bad = 9 | (uint64_t)12 << 48;  /* size not a multiple of 8 */

	(void)state;
	put(f, 7, 3, expect, &ne);
	memcpy(f->data + 8 + 24, &bad, 8);
	f->page.data_head += 16;
	assert_int_equal(pmuk_ring_drain_spans(&f->ring, peek, span, f), PMU_EFORMAT);
	assert_int_equal(f->n, 1);
	assert_int_equal(f->nstream, 24);   /* the whole record before it was kept */
	assert_int_equal(f->page.data_tail, f->page.data_head); /* resynchronised */
	/* data_head beyond what the ring holds */
	f->page.data_head += 2 * RSIZE;
	assert_int_equal(pmuk_ring_drain_spans(&f->ring, peek, span, f), PMU_EFORMAT);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrapping),
		cmocka_unit_test(test_callback_fails),
		cmocka_unit_test(test_corrupt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
