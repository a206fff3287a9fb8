/* SPDX-License-Identifier: MIT */
/* The byte cursor and the address-table binary search every reader shares. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/bsearch.h"
#include "core/cursor.h"

static void test_cursor_steps(void **state)
{
	static const uint8_t b[] = { 1, 2, 3, 4, 5, 6 };
	struct pmuk_cursor c = { b, sizeof(b) };
	uint8_t two[2];

	(void)state;
	assert_int_equal(pmuk_cursor_take(&c, two, 2), 0);
	assert_int_equal(two[0], 1);
	assert_int_equal(two[1], 2);
	assert_ptr_equal(pmuk_cursor_span(&c, 3), b + 2);
	assert_int_equal(c.left, 1);
	/* a step past the end takes nothing and leaves the cursor where it was */
	assert_null(pmuk_cursor_span(&c, 2));
	assert_int_equal(pmuk_cursor_take(&c, two, 2), -1);
	assert_int_equal(c.left, 1);
	assert_int_equal(pmuk_cursor_take(&c, NULL, 1), 0);
	assert_int_equal(c.left, 0);
	assert_non_null(pmuk_cursor_span(&c, 0));
	assert_null(pmuk_cursor_span(&c, SIZE_MAX));
}

struct range {
	uint32_t tag;
	uint64_t start, end;
};

static void test_bsearch_upper(void **state)
{
	static const struct range r[] = { { 1, 10, 20 }, { 2, 20, 30 }, { 3, 20, 25 },
					  { 4, 40, 50 } };

	(void)state;
	assert_int_equal(PMUK_BSEARCH_UPPER(r, 4, start, 5), 0);    /* before every entry */
	assert_int_equal(PMUK_BSEARCH_UPPER(r, 4, start, 10), 1);   /* at a start */
	assert_int_equal(PMUK_BSEARCH_UPPER(r, 4, start, 19), 1);
	assert_int_equal(PMUK_BSEARCH_UPPER(r, 4, start, 20), 3);   /* past equal starts */
	assert_int_equal(PMUK_BSEARCH_UPPER(r, 4, start, 39), 3);
	assert_int_equal(PMUK_BSEARCH_UPPER(r, 4, start, UINT64_MAX), 4);
	assert_int_equal(PMUK_BSEARCH_UPPER(r, 0, start, 30), 0);   /* empty table */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cursor_steps),
		cmocka_unit_test(test_bsearch_upper),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
