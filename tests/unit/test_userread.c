/* SPDX-License-Identifier: MIT */
/* The self-monitoring read on crafted perf_event_mmap_pages with a fake counter
 * and clock: exact counts, sign extension, seqlock retry, fallbacks, time math. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "linux/userread.h"

struct fake {
	struct perf_event_mmap_page *pc;
	uint64_t pmc[2];        /* value returned on the first call, then on later calls */
	uint64_t clock;
	uint32_t last_counter;
	int calls;
	int bump_first;         /* simulate a kernel update racing the first pass */
	int64_t new_offset;
};

static uint64_t fake_counter(uint32_t counter, void *ctx)
{
	struct fake *f = ctx;

	f->last_counter = counter;
	if (f->calls++ == 0 && f->bump_first) {
		f->pc->lock += 2;        /* the kernel's seqcount moved on */
		f->pc->offset = f->new_offset;
		return f->pmc[0];
	}
	return f->pmc[f->calls > 1 ? 1 : 0];
}

static uint64_t fake_clock(void *ctx)
{
	return ((struct fake *)ctx)->clock;
}

static struct perf_event_mmap_page pg;

static void craft(uint32_t index, int64_t offset, uint16_t width)
{
	memset(&pg, 0, sizeof(pg));
	pg.version = 0;
	pg.lock = 4;
	pg.index = index;
	pg.offset = offset;
	pg.time_enabled = 1000000;
	pg.time_running = 800000;
	pg.cap_user_rdpmc = 1;
	pg.cap_user_time = 1;
	pg.pmc_width = width;
	/* clock 0 => delta = time_offset = 0 unless a test sets it */
	pg.time_mult = 1;
	pg.time_shift = 0;
	pg.time_offset = 0;
}

static int read_page(struct fake *f, uint64_t *cnt, uint64_t *ena, uint64_t *run)
{
	struct pmuk_uread_ops ops = { fake_counter, fake_clock, f };

	f->pc = &pg;
	return pmuk_uread(&pg, &ops, cnt, ena, run);
}

static void test_exact(void **state)
{
	struct fake f = { .pmc = { 0x123456789aull, 0x123456789aull } };
	uint64_t c = 0, e = 0, r = 0;

	(void)state;
	craft(3, 1000, 48);
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_OK);
	assert_int_equal(f.last_counter, 2);     /* rdpmc(index - 1) */
	assert_int_equal(f.calls, 1);
	assert_int_equal(c, 1000 + 0x123456789aull);
	assert_int_equal(e, 1000000);
	assert_int_equal(r, 800000);
}

static void test_sign_extend_48(void **state)
{
	/* bits above the width are garbage; bit 47 set means negative: -16 */
	struct fake f = { .pmc = { 0xabcdfffffffffff0ull, 0xabcdfffffffffff0ull } };
	uint64_t c = 0, e, r;

	(void)state;
	craft(1, 1000000, 48);
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_OK);
	assert_int_equal(f.last_counter, 0);
	assert_int_equal(c, 1000000 - 16);
	/* a negative offset plus a positive pmc (what the kernel leaves after a start) */
	f.pmc[0] = f.pmc[1] = 0x0000000000000500ull;
	f.calls = 0;
	craft(1, -0x400, 48);
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_OK);
	assert_int_equal(c, 0x100);
}

static void test_sign_extend_40(void **state)
{
	struct fake f = { .pmc = { 0x8000000000ull, 0x8000000000ull } }; /* bit 39: -2^39 */
	uint64_t c = 0, e, r;

	(void)state;
	craft(5, (int64_t)1 << 40, 40);
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_OK);
	assert_int_equal(f.last_counter, 4);
	assert_int_equal(c, 1ull << 39);
	/* positive 40-bit value with garbage above bit 40 */
	f.pmc[0] = f.pmc[1] = 0xff00001234567890ull;
	f.calls = 0;
	craft(5, 7, 40);
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_OK);
	assert_int_equal(c, 7 + 0x1234567890ull);
}

static void test_sext_helper(void **state)
{
	(void)state;
	assert_int_equal(pmuk_uread_sext(0xffffffffffffull, 48), UINT64_MAX);
	assert_int_equal(pmuk_uread_sext(0x7fffffffffffull, 48), 0x7fffffffffffull);
	assert_int_equal(pmuk_uread_sext(0xdeadbeefcafef00dull, 64), 0xdeadbeefcafef00dull);
	assert_int_equal(pmuk_uread_sext(0xdeadbeefcafef00dull, 0), 0xdeadbeefcafef00dull);
	assert_int_equal(pmuk_uread_sext(0x80000000ull, 32), 0xffffffff80000000ull);
}

static void test_seqlock_retry(void **state)
{
	struct fake f = { .pmc = { 111, 222 }, .bump_first = 1, .new_offset = 5000 };
	uint64_t c = 0, e, r;

	(void)state;
	craft(2, 1000, 48);
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_OK);
	/* the first pass (1000 + 111) was torn: the second pass is the answer */
	assert_int_equal(f.calls, 2);
	assert_int_equal(c, 5000 + 222);
	assert_int_equal(pg.lock, 6);
}

static void test_fallbacks(void **state)
{
	struct fake f = { .pmc = { 1, 1 } };
	uint64_t c = 77, e = 88, r = 99;

	(void)state;
	craft(0, 1000, 48);   /* index 0: not on a counter (software events, descheduled) */
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_FALLBACK);
	assert_int_equal(f.calls, 0);
	assert_int_equal(c, 77);
	assert_int_equal(e, 88);
	assert_int_equal(r, 99);
	craft(1, 1000, 48);
	pg.cap_user_rdpmc = 0;  /* the kernel forbids rdpmc */
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_FALLBACK);
	craft(1, 1000, 48);
	pg.cap_user_time = 0;   /* times would be stale */
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_FALLBACK);
	assert_int_equal(f.calls, 0);
	/* no instructions on this architecture */
	craft(1, 1000, 48);
	assert_int_equal(pmuk_uread(&pg, NULL, &c, &e, &r), PMUK_UREAD_FALLBACK);
	assert_int_equal(c, 77);
}

static void test_time_extension(void **state)
{
	struct fake f = { .pmc = { 10, 10 }, .clock = 1000000 };
	uint64_t c, e, r, delta;

	(void)state;
	craft(1, 0, 48);
	pg.time_shift = 10;
	pg.time_mult = 2000;
	pg.time_offset = (uint64_t)-5000;
	/* quot = 976, rem = 576: -5000 + 976 * 2000 + (576 * 2000 >> 10) */
	delta = 1948125;
	assert_int_equal(pmuk_uread_delta(1000000, (uint64_t)-5000, 2000, 10), delta);
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_OK);
	assert_int_equal(c, 10);
	assert_int_equal(e, 1000000 + delta);
	assert_int_equal(r, 800000 + delta);
	/* large clock values: the quot/rem split avoids cyc * mult overflow */
	assert_int_equal(pmuk_uread_delta(1ull << 62, 0, 1u << 31, 31), 1ull << 62);
	assert_int_equal(pmuk_uread_delta((1ull << 62) + 1, 0, 1u << 31, 31), (1ull << 62) + 1);
}

static void test_time_short(void **state)
{
	struct fake f = { .pmc = { 0, 0 }, .clock = 0xabcd00002345ull };
	uint64_t c, e, r;

	(void)state;
	craft(1, 0, 48);
	pg.cap_user_time_short = 1;
	pg.time_cycles = 0x1000;
	pg.time_mask = 0xffff;
	pg.time_shift = 1;
	pg.time_mult = 1;
	pg.time_offset = 100;
	/* cyc = 0x1000 + ((0xabcd00002345 - 0x1000) & 0xffff) = 0x2345; delta = 100 + 0x11a2 */
	assert_int_equal(read_page(&f, &c, &e, &r), PMUK_UREAD_OK);
	assert_int_equal(e, 1000000 + 100 + 0x11a2);
	assert_int_equal(r, 800000 + 100 + 0x11a2);
}

static void test_native_table(void **state)
{
	const struct pmuk_uread_ops *ops = pmuk_uread_native();

	(void)state;
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
	assert_non_null(ops);
	assert_non_null(ops->read_counter);
	assert_non_null(ops->read_clock);
	/* the clock is readable from user space everywhere we support */
	assert_true(ops->read_clock(NULL) != 0);
#else
	assert_null(ops);
#endif
}

/* Counter value per hardware counter number, for group reads. */
static uint64_t group_counter(uint32_t counter, void *ctx)
{
	return ((uint64_t *)ctx)[counter] | 0xffff000000000000ull; /* above pmc_width 48 */
}

static uint64_t group_clock_calls;

static uint64_t group_clock(void *ctx)
{
	(void)ctx;
	group_clock_calls++;
	return 500;
}

/* A group: the leader's extended times serve every member; each member's count is
 * its own offset + counter; one clock read per group; any member off its counter
 * sends the whole group to read(). */
static void test_group(void **state)
{
	static struct perf_event_mmap_page pages[3];
	uint64_t pmc[8] = { 0, 10, 20, 30, 0, 0, 0, 0 };
	struct pmuk_uread_ops ops = { group_counter, group_clock, pmc };
	void *pp[3] = { &pages[0], &pages[1], &pages[2] };
	size_t members[3] = { 2, 0, 1 }; /* the leader need not be page 0 */
	uint64_t c[3], e, r;

	(void)state;
	for (int i = 0; i < 3; i++) {
		craft((uint32_t)(i + 1), 1000 * (i + 1), 48);
		pages[i] = pg;
	}
	pages[2].time_mult = 3; /* leader: delta = 500 * 3 = 1500 ns */
	group_clock_calls = 0;
	assert_int_equal(pmuk_uread_group(pp, members, 3, &ops, c, &e, &r), PMUK_UREAD_OK);
	assert_int_equal(group_clock_calls, 1);
	assert_int_equal(c[0], 3000 + 20); /* page 2: index 3 -> counter 2 */
	assert_int_equal(c[1], 1000 + 0);
	assert_int_equal(c[2], 2000 + 10);
	assert_int_equal(e, 1000000 + 1500);
	assert_int_equal(r, 800000 + 1500);
	pages[1].index = 0; /* a sibling is off its counter */
	assert_int_equal(pmuk_uread_group(pp, members, 3, &ops, c, &e, &r), PMUK_UREAD_FALLBACK);
	pages[1].index = 2;
	pages[2].cap_user_time = 0; /* the leader's times cannot be extended */
	assert_int_equal(pmuk_uread_group(pp, members, 3, &ops, c, &e, &r), PMUK_UREAD_FALLBACK);
}

/* The group is scheduled out and back in between the leader's read and a sibling's:
 * every member's page is rewritten (new offsets, the leader's lock moves too). The
 * sibling's own seqlock only makes its own count whole; the group read must start
 * over so that the leader's count and times and the siblings' come from one
 * schedule, as a PERF_FORMAT_GROUP read() would give. */
struct resched {
	struct perf_event_mmap_page *pages;
	int fired;
};

static uint64_t resched_counter(uint32_t counter, void *ctx)
{
	struct resched *rs = ctx;

	if (counter == 1 && !rs->fired) { /* the sibling's first read */
		rs->fired = 1;
		for (int i = 0; i < 2; i++) {
			rs->pages[i].lock += 2;
			rs->pages[i].offset += 1000;
			rs->pages[i].time_enabled += 70;
			rs->pages[i].time_running += 70;
		}
	}
	return 5;
}

static uint64_t zero_clock(void *ctx)
{
	(void)ctx;
	return 0;
}

static void test_group_resched(void **state)
{
	static struct perf_event_mmap_page pages[2];
	struct resched rs = { pages, 0 };
	struct pmuk_uread_ops ops = { resched_counter, zero_clock, &rs };
	void *pp[2] = { &pages[0], &pages[1] };
	size_t members[2] = { 0, 1 };
	uint64_t c[2], e, r;

	(void)state;
	for (int i = 0; i < 2; i++) {
		craft((uint32_t)(i + 1), 100 * (i + 1), 48);
		pages[i] = pg;
	}
	assert_int_equal(pmuk_uread_group(pp, members, 2, &ops, c, &e, &r), PMUK_UREAD_OK);
	assert_int_equal(rs.fired, 1);
	assert_int_equal(c[0], 1100 + 5);
	assert_int_equal(c[1], 1200 + 5);
	assert_int_equal(e, 1000000 + 70);
	assert_int_equal(r, 800000 + 70);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_sign_extend_48),
		cmocka_unit_test(test_sign_extend_40),
		cmocka_unit_test(test_sext_helper),
		cmocka_unit_test(test_seqlock_retry),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_time_extension),
		cmocka_unit_test(test_time_short),
		cmocka_unit_test(test_native_table),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_group_resched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
