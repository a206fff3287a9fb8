/* SPDX-License-Identifier: MIT */
/* Multiplexing arithmetic: scaling, flags, percentages, overflow edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/scale.h"

static void test_scale_u64(void **state)
{
	(void)state;
	assert_int_equal(pmuk_scale_u64(1000, 400, 0), 0);          /* never ran */
	assert_int_equal(pmuk_scale_u64(1000, 400, 400), 1000);     /* not multiplexed */
	assert_int_equal(pmuk_scale_u64(1000, 300, 400), 1000);     /* enabled < running: no scaling */
	assert_int_equal(pmuk_scale_u64(1000, 400, 100), 4000);
	assert_int_equal(pmuk_scale_u64(7, 10, 4), 17);             /* 17.5 truncates */
	assert_int_equal(pmuk_scale_u64(0, 10, 4), 0);
	/* 1e18 * 1e12 would wrap 64 bits; the split keeps it exact. */
	assert_int_equal(pmuk_scale_u64(1000000000000000000ull, 1000000000000ull, 500000000000ull),
			 2000000000000000000ull);
	/* remainder * enabled is ~2^80 here though the result fits: still exact. */
	assert_int_equal(pmuk_scale_u64((1ull << 41) - 1, (1ull << 40) + (1ull << 30), 1ull << 40),
			 (1ull << 41) + (1ull << 31) - 2);
	/* The true result does not fit: saturate rather than wrap. */
	assert_int_equal(pmuk_scale_u64(UINT64_MAX / 2, 3, 1), UINT64_MAX);
	assert_int_equal(pmuk_scale_u64(UINT64_MAX, UINT64_MAX, UINT64_MAX - 1), UINT64_MAX);
}

static void test_reading_set_plain(void **state)
{
	struct pmu_reading r = { 0 };

	(void)state;
	pmuk_reading_set(&r, 12345, 5000, 5000);
	assert_int_equal(r.value, 12345);
	assert_int_equal(r.time_enabled, 5000);
	assert_int_equal(r.time_running, 5000);
	assert_true(r.scaled == 12345.0);
	assert_int_equal(r.flags, 0);
	assert_true(pmu_reading_running_percent(&r) == 100.0);
}

static void test_reading_set_multiplexed(void **state)
{
	struct pmu_reading r = { 0 };

	(void)state;
	pmuk_reading_set(&r, 1000, 400, 100);
	assert_int_equal(r.value, 1000);
	assert_true(r.scaled == 4000.0);
	assert_int_equal(r.flags, PMU_READING_MULTIPLEXED);
	assert_true(pmu_reading_running_percent(&r) == 25.0);
}

static void test_reading_set_not_counted(void **state)
{
	struct pmu_reading r = { 0 };

	(void)state;
	pmuk_reading_set(&r, 0, 400, 0);
	assert_true(r.scaled == 0.0);
	assert_int_equal(r.flags, PMU_READING_NOT_COUNTED);
	assert_true(pmu_reading_running_percent(&r) == 0.0);
	/* enabled 0: never enabled (e.g. opened disabled), not "not counted" */
	pmuk_reading_set(&r, 0, 0, 0);
	assert_int_equal(r.flags, 0);
	assert_true(r.scaled == 0.0);
	assert_true(pmu_reading_running_percent(&r) == 0.0);
	assert_true(pmu_reading_running_percent(NULL) == 0.0);
}

static void test_reading_flags_kept(void **state)
{
	struct pmu_reading r = { .flags = PMU_READING_ERROR_STATE | PMU_READING_MULTIPLEXED };

	(void)state;
	/* ERROR_STATE comes from the read, the scaling flags are recomputed. */
	pmuk_reading_set(&r, 10, 10, 10);
	assert_int_equal(r.flags, PMU_READING_ERROR_STATE);
	pmuk_reading_set(&r, 10, 20, 10);
	assert_int_equal(r.flags, PMU_READING_ERROR_STATE | PMU_READING_MULTIPLEXED);
}

static void test_reading_huge(void **state)
{
	struct pmu_reading r = { 0 };

	(void)state;
	/* 2^63 * 2^62 / 2^61 = 2^64: beyond uint64_t, exact in double. */
	pmuk_reading_set(&r, 1ull << 63, 1ull << 62, 1ull << 61);
	assert_true(r.scaled == 18446744073709551616.0);
	assert_int_equal(r.flags, PMU_READING_MULTIPLEXED);
	/* Percent of huge times: no overflow in the * 100. */
	pmuk_reading_set(&r, 1, UINT64_MAX, UINT64_MAX / 2);
	assert_true(pmu_reading_running_percent(&r) > 49.999999 &&
		    pmu_reading_running_percent(&r) < 50.000001);
	pmuk_reading_set(&r, UINT64_MAX, UINT64_MAX, UINT64_MAX);
	assert_true(r.scaled == 18446744073709551615.0);
	assert_true(pmu_reading_running_percent(&r) == 100.0);
}

/* pmukit stat -r: the mean reading and its spread. */
static void test_runs_mean(void **state)
{
	struct pmuk_runs s = { 0 };
	struct pmu_reading r = { 0 }, m;
	double pct;

	(void)state;
	/* one run multiplexed at 25% (scaled 400), one not (100): the mean of what each
	 * run reports is 250, not the 161 that scaling the summed raw counts by the
	 * summed times would give */
	pmuk_reading_set(&r, 100, 100, 25);
	pmuk_runs_add(&s, &r);
	pmuk_reading_set(&r, 100, 100, 100);
	pmuk_runs_add(&s, &r);
	pmuk_runs_mean(&s, &m, &pct);
	assert_true(m.scaled == 250.0);
	assert_int_equal(m.value, 100);
	assert_int_equal(m.time_enabled, 100);
	assert_int_equal(m.time_running, 62);
	assert_int_equal(m.flags, PMU_READING_MULTIPLEXED);
	/* standard error of the mean: sd 212.13 / sqrt(2) = 150, 60% of 250 */
	assert_true(pct > 59.999 && pct < 60.001);

	/* perf stat -r's example: 10, 12, 14 -> mean 12, sd 2, stderr 1.1547 = 9.62% */
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 3; i++) {
		memset(&r, 0, sizeof(r));
		pmuk_reading_set(&r, 10 + 2 * (uint64_t)i, 50, 50);
		pmuk_runs_add(&s, &r);
	}
	pmuk_runs_mean(&s, &m, &pct);
	assert_true(m.scaled == 12.0);
	assert_int_equal(m.flags, 0);
	assert_true(pct > 9.6224 && pct < 9.6226);

	/* one run: no spread; an error state in any run stays visible */
	memset(&s, 0, sizeof(s));
	r.flags = PMU_READING_ERROR_STATE;
	pmuk_reading_set(&r, 0, 0, 0);
	pmuk_runs_add(&s, &r);
	pmuk_runs_mean(&s, &m, &pct);
	assert_true(pct == 0.0);
	assert_int_equal(m.flags, PMU_READING_ERROR_STATE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_u64),
		cmocka_unit_test(test_reading_set_plain),
		cmocka_unit_test(test_reading_set_multiplexed),
		cmocka_unit_test(test_reading_set_not_counted),
		cmocka_unit_test(test_reading_flags_kept),
		cmocka_unit_test(test_reading_huge),
		cmocka_unit_test(test_runs_mean),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
