/* SPDX-License-Identifier: MIT */
/* pmuk_grow: the growable-array step every table uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "core/grow.h"
#include <pmukit/error.h>

static void test_grow_appends(void **state)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	(void)state;
	for (size_t n = 0; n < 1000; n++) {
		assert_int_equal(pmuk_grow((void **)&v, &cap, n + 1, sizeof(*v)), 0);
		assert_true(cap >= n + 1);
		assert_int_equal(v[n], 0);	/* new elements come zeroed */
		v[n] = (uint32_t)n + 1;
	}
	for (size_t n = 0; n < 1000; n++)
		assert_int_equal(v[n], n + 1);
	/* amortised: the capacity at most doubles past what was needed */
	assert_true(cap < 2048);
	free(v);
}

static void test_grow_no_op(void **state)
{
	char *v = malloc(8);
	char *before = v;
	size_t cap = 8;

	(void)state;
	assert_non_null(v);
	assert_int_equal(pmuk_grow((void **)&v, &cap, 8, 1), 0);
	assert_int_equal(pmuk_grow((void **)&v, &cap, 0, 1), 0);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 8);
	/* a jump past double the capacity gets exactly what it asks for */
	assert_int_equal(pmuk_grow((void **)&v, &cap, 100, 1), 0);
	assert_int_equal(cap, 100);
	assert_int_equal(v[99], 0);
	free(v);
}

static void test_grow_refuses_overflow(void **state)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	(void)state;
	/* need * size wraps around: refused, nothing changed */
	assert_int_equal(pmuk_grow((void **)&v, &cap, SIZE_MAX / 8 + 1, 8), PMU_ENOMEM);
	assert_null(v);
	assert_int_equal(cap, 0);
	assert_int_equal(pmuk_grow((void **)&v, &cap, SIZE_MAX, 2), PMU_ENOMEM);
	assert_int_equal(pmuk_grow((void **)&v, &cap, 2, 0), PMU_ENOMEM);

	free(v);
}

/* pmuk_grow_raw: the same capacities as pmuk_grow, the elements kept, the
 * same refusals; pmuk_grow after it still zeroes what it adds. */
static void test_grow_raw(void **state)
{
	uint32_t *v = NULL, *z = NULL;
	size_t cap = 0, zcap = 0;

	(void)state;
	for (size_t n = 0; n < 5000; n++) {
		assert_int_equal(pmuk_grow_raw((void **)&v, &cap, n + 1, sizeof(*v)), 0);
		assert_int_equal(pmuk_grow((void **)&z, &zcap, n + 1, sizeof(*z)), 0);
		assert_int_equal(cap, zcap);
		v[n] = (uint32_t)n * 3 + 1;
	}
	for (size_t n = 0; n < 5000; n++)
		assert_int_equal(v[n], n * 3 + 1);
	assert_int_equal(pmuk_grow_raw((void **)&v, &cap, 20000, sizeof(*v)), 0);
	assert_int_equal(cap, 20000);	/* past double: exactly what was asked */
	assert_int_equal(v[4999], 4999 * 3 + 1);
	size_t before = cap;
	assert_int_equal(pmuk_grow((void **)&v, &cap, cap + 1, sizeof(*v)), 0);
	for (size_t n = before; n < cap; n++)
		assert_int_equal(v[n], 0);
	assert_int_equal(pmuk_grow_raw((void **)&v, &cap, SIZE_MAX / 4 + 1, 4), PMU_ENOMEM);
	assert_int_equal(pmuk_grow_raw((void **)&v, &cap, cap + 1, 0), PMU_ENOMEM);
	assert_int_equal(cap, 2 * before);
	free(v);
	free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_appends),
		cmocka_unit_test(test_grow_no_op),
		cmocka_unit_test(test_grow_refuses_overflow),
		cmocka_unit_test(test_grow_raw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
