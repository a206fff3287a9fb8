/* SPDX-License-Identifier: MIT */
/* The ring consumer on crafted bytes: a fake control page, records written across
 * the end of the data area, a full ring, corruption that must end in an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>

#include "linux/ring.h"
#include "linux/sample_decode.h"
#include "perf_records.h"

#define RSIZE 4096

/* The kernel side of a fake ring. */
struct fake {
	struct perf_event_mmap_page page;
	unsigned char data[RSIZE];
	struct pmuk_ring ring;
	uint64_t *bounce;
};

static struct fake *fake_new(uint64_t start)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->bounce = malloc(PMUK_RING_BOUNCE);
	assert_non_null(f->bounce);
	f->page.data_head = f->page.data_tail = start;
	assert_int_equal(pmuk_ring_init(&f->ring, &f->page, f->data, RSIZE, f->bounce), 0);
	return f;
}

static void fake_free(struct fake *f)
{
	free(f->bounce);
	free(f);
}

static void fake_write(struct fake *f, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		f->data[(f->page.data_head + i) & (RSIZE - 1)] = ((const unsigned char *)p)[i];
	f->page.data_head += n;
}

static void fake_put(struct fake *f, struct rec *r)
{
	fake_write(f, r->w, r->n * 8);
}

/* Collects what a drain delivers. */
struct seen {
	int n;
	uint64_t first_word[64];
	size_t size[64];
	int stop_at;
};

static int collect(void *rec, size_t size, void *ctx)
{
	struct seen *s = ctx;

	assert_int_equal((uintptr_t)rec % 8, 0);
	if (s->n < 64) {
		memcpy(&s->first_word[s->n], (char *)rec + 8, size > 8 ? 8 : 0);
		s->size[s->n] = size;
	}
	s->n++;
	return s->stop_at && s->n == s->stop_at ? 7 : 0;
}

static void simple_rec(struct rec *r, uint64_t payload, size_t words)
{
	rec_start(r);
	for (size_t i = 0; i < words; i++)
		put64(r, payload + i);
	rec_end(r, 99, 0);
}

static void test_single(void **state)
{
	struct fake *f = fake_new(0);
	struct seen s = { 0 };
	struct rec r;

	(void)state;
	simple_rec(&r, 42, 3);
	fake_put(f, &r);
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.size[0], 32);
	assert_int_equal(s.first_word[0], 42);
	assert_int_equal(f->page.data_tail, 32);
	/* nothing new: nothing delivered, tail unchanged */
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(pmuk_ring_pending(&f->ring), 0);
	fake_free(f);
}

static void test_many_with_wrap(void **state)
{
	struct fake *f = fake_new(0);
	struct seen s = { 0 };
	uint64_t next = 0;

	(void)state;
	/* 6 rounds of 40 x 40-byte records: the stream wraps the 4 KiB area twice */
	for (int round = 0; round < 6; round++) {
		memset(&s, 0, sizeof(s));
		for (int i = 0; i < 40; i++) {
			struct rec r;

			simple_rec(&r, next + (uint64_t)i * 100, 4);
			fake_put(f, &r);
		}
		assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), 0);
		assert_int_equal(s.n, 40);
		for (int i = 0; i < 40 && i < 64; i++)
			assert_int_equal(s.first_word[i], next + (uint64_t)i * 100);
		assert_int_equal(f->page.data_tail, f->page.data_head);
		next += 10000;
	}
	assert_true(f->page.data_tail > 2 * RSIZE);
	fake_free(f);
}

static void test_split_record(void **state)
{
	struct fake *f = fake_new(3 * RSIZE - 16); /* 16 bytes before the end */
	struct pmuk_sample_fmt fmt = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD };
	struct seen s = { 0 };
	struct pmu_record pr;
	struct rec r;

	(void)state;
	rec_start(&r);
	put64(&r, 0x401000);
	put32(&r, 10, 11);
	put64(&r, 123456789);
	put64(&r, 1000000);
	rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	fake_put(f, &r);
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.size[0], 40);
	/* the bounce buffer holds the record whole */
	assert_int_equal(pmuk_decode_record(&fmt, f->bounce, 40, &pr), 0);
	assert_int_equal(pr.kind, PMU_RECORD_SAMPLE);
	assert_int_equal(pr.sample.ip, 0x401000);
	assert_int_equal(pr.pid, 10);
	assert_int_equal(pr.tid, 11);
	assert_int_equal(pr.time, 123456789);
	assert_int_equal(pr.sample.period, 1000000);
	assert_int_equal(pr.cpumode, PMU_CPUMODE_USER);
	assert_int_equal(f->page.data_tail, 3 * RSIZE + 24);

	/* a header split across the end (4 bytes before it) */
	f->page.data_head = f->page.data_tail = 5 * RSIZE - 4;
	memset(&s, 0, sizeof(s));
	simple_rec(&r, 77, 2);
	fake_put(f, &r);
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.first_word[0], 77);
	fake_free(f);
}

static void test_exactly_full(void **state)
{
	struct fake *f = fake_new(RSIZE / 2);
	struct seen s = { 0 };

	(void)state;
	for (int i = 0; i < RSIZE / 64; i++) {
		struct rec r;

		simple_rec(&r, (uint64_t)i, 7);
		fake_put(f, &r);
	}
	assert_int_equal(f->page.data_head - f->page.data_tail, RSIZE);
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), 0);
	assert_int_equal(s.n, RSIZE / 64);
	assert_int_equal(s.first_word[63], 63);
	assert_int_equal(f->page.data_tail, f->page.data_head);
	fake_free(f);
}

static void test_stop_keeps_rest(void **state)
{
	struct fake *f = fake_new(0);
	struct seen s = { .stop_at = 2 };

	(void)state;
	for (int i = 0; i < 5; i++) {
		struct rec r;

		simple_rec(&r, (uint64_t)i, 1);
		fake_put(f, &r);
	}
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), 7);
	assert_int_equal(s.n, 2);
	assert_int_equal(f->page.data_tail, 32);
	s.stop_at = 0;
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), 0);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.first_word[2], 2);
	assert_int_equal(f->page.data_tail, 80);
	fake_free(f);
}

/* One good record, then a header of the given size at offset 24. */
static void corrupt_case(uint16_t size, uint64_t extra, const char *needle)
{
	struct fake *f = fake_new(0);
	struct seen s = { 0 };
	struct perf_event_header h = { 99, 0, size };
	uint64_t pad[4] = { 0 };
	struct rec r;

	simple_rec(&r, 5, 2);
	fake_put(f, &r);
	fake_write(f, &h, sizeof(h));
	fake_write(f, pad, extra);
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), PMU_EFORMAT);
	assert_int_equal(s.n, 1); /* the good record before it was delivered */
	assert_non_null(strstr(pmu_error_detail(), "at offset 24 "));
	assert_non_null(strstr(pmu_error_detail(), needle));
	assert_int_equal(f->page.data_tail, f->page.data_head); /* resynchronised */
	/* and the next drain finds nothing, rather than the same bytes */
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), 0);
	assert_int_equal(s.n, 1);
	fake_free(f);
}

static void test_corrupt(void **state)
{
	struct fake *f;
	struct seen s = { 0 };

	(void)state;
	corrupt_case(0, 8, "header.size 0");
	corrupt_case(4, 8, "header.size 4");
	corrupt_case(20, 16, "header.size 20");              /* not 8-byte aligned */
	corrupt_case(64, 16, "past data_head: header.size 64"); /* beyond head */
	corrupt_case(65528, 32, "header.size 65528");         /* larger than the ring */

	/* head more than a ring ahead of tail */
	f = fake_new(0);
	f->page.data_head = RSIZE + 8;
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "distance 4104"));
	assert_int_equal(s.n, 0);
	/* stray bytes shorter than a header */
	f->page.data_tail = f->page.data_head = 16;
	f->page.data_head += 4;
	assert_int_equal(pmuk_ring_drain(&f->ring, collect, &s), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "truncated record header of size 4 at offset 16"));
	assert_int_equal(f->page.data_tail, 20);
	fake_free(f);
}

/* The fuzz seeds are well-formed rings: they decode to the records they were made of. */
struct seed_count {
	const struct pmuk_sample_fmt *f;
	int kinds[PMU_RECORD_KIND_COUNT], errors;
	uint64_t weights, branches, lost;
};

static int seed_rec(void *rec, size_t size, void *ctx)
{
	struct seed_count *c = ctx;
	struct pmu_record pr;
	int ret = pmuk_decode_record(c->f, rec, size, &pr);

	if (ret != 0) {
		c->errors++;
		return 0;
	}
	c->kinds[pr.kind]++;
	if (pr.kind == PMU_RECORD_SAMPLE) {
		c->weights += pr.sample.weight;
		c->branches += pr.sample.nr_branches;
	} else if (pr.kind == PMU_RECORD_LOST) {
		c->lost += pr.lost.count;
	}
	return 0;
}

/* Seeds use the fuzzer's input layout: six u64 (data_head, data_tail, sample_type
 * with bit 63 for sample_id_all, read_format, branch_sample_type, sample_regs_user)
 * and the data area. */
static struct seed_count check_seed(const char *name, int samples, int others)
{
	char path[4096];
	unsigned char buf[70000];
	uint64_t v[6], *bounce = malloc(PMUK_RING_BOUNCE);
	struct perf_event_mmap_page page = { 0 };
	struct pmuk_sample_fmt f = { 0 };
	struct seed_count c = { .f = &f };
	struct pmuk_ring r;
	size_t n, area;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/tests/fuzz/seeds/fuzz_ring/%s", PMUKIT_SOURCE_DIR, name);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	assert_true(n > 48);
	memcpy(v, buf, 48);
	area = n - 48;
	page.data_head = v[0];
	page.data_tail = v[1];
	f.sample_type = v[2] & ~(1ull << 63);
	f.sample_id_all = (int)(v[2] >> 63);
	f.read_format = v[3];
	f.branch_sample_type = v[4];
	f.regs_user = v[5];
	assert_int_equal(pmuk_ring_init(&r, &page, buf + 48, area, bounce), 0);
	assert_int_equal(pmuk_ring_drain(&r, seed_rec, &c), 0);
	assert_int_equal(c.errors, 0);
	assert_int_equal(c.kinds[PMU_RECORD_SAMPLE], samples);
	assert_int_equal(c.kinds[PMU_RECORD_COMM] + c.kinds[PMU_RECORD_LOST] +
			 c.kinds[PMU_RECORD_THROTTLE] + c.kinds[PMU_RECORD_UNTHROTTLE] +
			 c.kinds[PMU_RECORD_MMAP], others);
	free(bounce);
	c.f = NULL;
	return c;
}

static void test_fuzz_seeds(void **state)
{
	(void)state;
	struct seed_count c;

	check_seed("sample_lost_comm", 1, 4);
	check_seed("wrapped", 2, 1);
	check_seed("mmap2", 1, 1);
	/* HW_INDEX branch stacks (one bare nr = 0), user regs and stack, WEIGHT_STRUCT,
	 * across the end of the area */
	c = check_seed("branch_regs_wrapped", 3, 1);
	assert_int_equal(c.weights, 250 + 77 + 88);
	assert_int_equal(c.branches, 2);
	assert_int_equal(c.lost, 5);
}

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(pmu_record_kind_name(PMU_RECORD_SAMPLE), "sample");
	assert_string_equal(pmu_record_kind_name(PMU_RECORD_UNTHROTTLE), "unthrottle");
	assert_string_equal(pmu_record_kind_name(PMU_RECORD_KIND_COUNT), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_many_with_wrap),
		cmocka_unit_test(test_split_record),
		cmocka_unit_test(test_exactly_full),
		cmocka_unit_test(test_stop_keeps_rest),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_fuzz_seeds),
		cmocka_unit_test(test_kind_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
