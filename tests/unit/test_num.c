/* SPDX-License-Identifier: MIT */
/* The strict number parser every option and input goes through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>

#include "core/num.h"

static void test_long_accepts(void **state)
{
	long v = -1;

	(void)state;
	assert_int_equal(pmuk_parse_long("42", 10, 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(pmuk_parse_long("-7", 10, -10, 10, &v), 0);
	assert_int_equal(v, -7);
	assert_int_equal(pmuk_parse_long("0x10", 0, 0, 100, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(pmuk_parse_long("2147483647", 10, 1, INT_MAX, &v), 0);
	assert_int_equal(v, INT_MAX);
	/* base 0: decimal unless 0x, never octal ("010" was 8, "08" an error) */
	assert_int_equal(pmuk_parse_long("010", 0, 0, 255, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(pmuk_parse_long("080", 0, 0, 255, &v), 0);
	assert_int_equal(v, 80);
	assert_int_equal(pmuk_parse_long("-0x10", 0, -100, 0, &v), 0);
	assert_int_equal(v, -16);
}

static void test_long_rejects(void **state)
{
	static const char *const bad[] = {
		"", " 1", "+1", "1 ", "abc", "1x", "4294967297", "99999999999999999999", "-", "--1",
		"0x", "-0", "101",
	};
	long v = 5;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* "-0" is zero, out of [1, 100]: rejected by range like the others */
		assert_int_equal(pmuk_parse_long(bad[i], 10, 1, 100, &v), -1);
		assert_int_equal(v, 5);
	}
	assert_int_equal(pmuk_parse_long(NULL, 10, 0, 1, &v), -1);
	assert_int_equal(pmuk_parse_long("-1", 10, 0, 100, &v), -1);
}

static void test_u64(void **state)
{
	uint64_t v = 3;

	(void)state;
	assert_int_equal(pmuk_parse_u64("ffffffffffffffff", 16, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(pmuk_parse_u64("8e08", 16, &v), 0);
	assert_true(v == 0x8e08);
	assert_int_equal(pmuk_parse_u64("0x8e13", 16, &v), 0);
	assert_true(v == 0x8e13);
	v = 3;
	assert_int_equal(pmuk_parse_u64("99999999999999999999", 10, &v), -1);
	assert_int_equal(pmuk_parse_u64("10000000000000000", 16, &v), -1);
	assert_int_equal(pmuk_parse_u64("-1", 10, &v), -1);
	assert_int_equal(pmuk_parse_u64(" 1", 10, &v), -1);
	assert_int_equal(pmuk_parse_u64("12g", 16, &v), -1);
	assert_int_equal(pmuk_parse_u64("", 10, &v), -1);
	assert_true(v == 3);
	assert_int_equal(pmuk_parse_u64("0x", 0, &v), -1);
	assert_int_equal(pmuk_parse_u64("09", 0, &v), 0);
	assert_true(v == 9);
	assert_int_equal(pmuk_parse_u64("0X1f", 0, &v), 0);
	assert_true(v == 0x1f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_accepts),
		cmocka_unit_test(test_long_rejects),
		cmocka_unit_test(test_u64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
