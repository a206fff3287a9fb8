/* SPDX-License-Identifier: MIT */
/* The listing filter and list shared by every OS's pmu_event_catalog(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "core/catalog.h"

static void test_matches(void **state)
{
	(void)state;
	assert_true(pmuk_catalog_matches(NULL, "cycles"));
	assert_true(pmuk_catalog_matches("", "cycles"));
	assert_true(pmuk_catalog_matches("CACHE", "L1-dcache-load-misses"));    /* substring */
	assert_false(pmuk_catalog_matches("cachex", "L1-dcache-load-misses"));
	assert_true(pmuk_catalog_matches("L1-*", "l1-dcache-loads"));           /* glob, any case */
	assert_false(pmuk_catalog_matches("L1-*", "xL1-dcache-loads"));
	assert_true(pmuk_catalog_matches("*miss*", "branch-misses"));
	assert_true(pmuk_catalog_matches("cycle?", "cycles"));
	assert_false(pmuk_catalog_matches("cycle?", "cycle"));
	assert_true(pmuk_catalog_matches("[bc]ranch*", "branches"));
	assert_false(pmuk_catalog_matches("[xy]ranch*", "branches"));
	assert_true(pmuk_catalog_matches("sched:*", "sched:sched_switch"));
	/* several stars, backtracking past a false start */
	assert_true(pmuk_catalog_matches("*load*miss*", "L1-dcache-load-misses"));
	assert_true(pmuk_catalog_matches("*a*b", "xaxbxab"));
	assert_false(pmuk_catalog_matches("*a*b", "xaxbxa"));
	assert_true(pmuk_catalog_matches("**", ""));
	assert_true(pmuk_catalog_matches("*", "x"));
	assert_false(pmuk_catalog_matches("?*", ""));
	assert_true(pmuk_catalog_matches("*[ML]*-loads", "L1-dcache-loads"));
	assert_true(pmuk_catalog_matches("*?s", "branches"));
	assert_false(pmuk_catalog_matches("b*z*", "branches"));
	assert_true(pmuk_catalog_matches("[a", "[A"));          /* no ']': a plain '[' */
}

/* Many stars against a long name used to backtrack exponentially (minutes per name). */
static void test_glob_is_linear(void **state)
{
	char name[128];
	struct timespec a, b;

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 1000; i++)
		assert_false(pmuk_catalog_matches("*a*a*a*a*a*a*a*a*a*a*a*a*b", name));
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true(b.tv_sec - a.tv_sec < 2);
	assert_true(pmuk_catalog_matches("*a*a*a*a*a*a*a*a*a*a*a*a*", name));
}

static void test_add_filters_and_grows(void **state)
{
	struct pmuk_catalog c = { .pattern = "*clock" };

	(void)state;
	for (int i = 0; i < 1000; i++) {
		assert_non_null(pmuk_catalog_add(&c, "task-clock", "software", PMU_EVENT_SOFTWARE));
		assert_null(pmuk_catalog_add(&c, "page-faults", "software", PMU_EVENT_SOFTWARE));
	}
	assert_int_equal(c.n, 1000);
	assert_string_equal(c.v[999].name, "task-clock");
	assert_string_equal(c.v[999].pmu, "software");
	assert_int_equal(c.v[999].usable, 1);
	assert_int_equal(c.oom, 0);
	free(c.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches), cmocka_unit_test(test_glob_is_linear),
		cmocka_unit_test(test_add_filters_and_grows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
