/* SPDX-License-Identifier: MIT */
/* The little-endian loads every binary reader uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/le.h"

static void test_le_values(void **state)
{
	static const uint8_t b[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88, 0xff };

	(void)state;
	assert_int_equal(pmuk_le16(b), 0x0201);
	assert_int_equal(pmuk_le32(b), 0x04030201u);
	assert_true(pmuk_le64(b) == 0x8807060504030201ull);
	/* high bits are not sign-extended */
	assert_int_equal(pmuk_le16(b + 7), 0xff88);
	assert_int_equal(pmuk_le32(b + 5), 0xff880706u);
}

static void test_le_unaligned(void **state)
{
	uint8_t b[16] = { 0 };

	(void)state;
	b[3] = 0xef, b[4] = 0xbe, b[5] = 0xad, b[6] = 0xde;
	assert_int_equal(pmuk_le32(b + 3), 0xdeadbeefu);
	assert_true(pmuk_le64(b + 3) == 0xdeadbeefull);
	assert_int_equal(pmuk_le16(b + 5), 0xdead);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_le_values),
		cmocka_unit_test(test_le_unaligned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
