/* SPDX-License-Identifier: MIT */
/* pmuk_utf16_to_utf8 and pmuk_utf8_put: the one UTF-16LE -> UTF-8 conversion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/utf8.h"

static void test_utf16_ascii_and_nul(void **state)
{
	static const uint8_t s[] = { 'a', 0, 'b', 0, 0, 0, 'c', 0 };
	char out[16];

	(void)state;
	/* stops at the NUL unit and says how many bytes it took, the NUL included */
	assert_int_equal(pmuk_utf16_to_utf8(s, sizeof(s), out, sizeof(out)), 6);
	assert_string_equal(out, "ab");
	/* no NUL within n: converted all the same, 0 consumed */
	assert_int_equal(pmuk_utf16_to_utf8(s, 4, out, sizeof(out)), 0);
	assert_string_equal(out, "ab");
	/* an odd trailing byte is no unit */
	assert_int_equal(pmuk_utf16_to_utf8(s, 3, out, sizeof(out)), 0);
	assert_string_equal(out, "a");
	/* outsz 0 only measures */
	assert_int_equal(pmuk_utf16_to_utf8(s, sizeof(s), NULL, 0), 6);
}

static void test_utf16_non_ascii(void **state)
{
	/* U+00E9, U+20AC, U+1F600 (a surrogate pair), NUL */
	static const uint8_t s[] = { 0xe9, 0x00, 0xac, 0x20, 0x3d, 0xd8, 0x00, 0xde, 0, 0 };
	char out[16];

	(void)state;
	assert_int_equal(pmuk_utf16_to_utf8(s, sizeof(s), out, sizeof(out)), sizeof(s));
	assert_string_equal(out, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

static void test_utf16_lone_surrogates(void **state)
{
	/* high then 'x'; a lone low; a high at the very end */
	static const uint8_t s[] = { 0x3d, 0xd8, 'x', 0, 0x00, 0xde, 0x3d, 0xd8 };
	char out[32];

	(void)state;
	assert_int_equal(pmuk_utf16_to_utf8(s, sizeof(s), out, sizeof(out)), 0);
	assert_string_equal(out, "\xef\xbf\xbdx\xef\xbf\xbd\xef\xbf\xbd");
}

static void test_utf16_truncates_whole_characters(void **state)
{
	/* "a", U+00E9, "b" */
	static const uint8_t s[] = { 'a', 0, 0xe9, 0, 'b', 0, 0, 0 };
	char out[4];

	(void)state;
	/* 3 bytes hold "a" and the NUL: the 2-byte e-acute does not fit, and the
	 * "b" after it is not appended either */
	assert_int_equal(pmuk_utf16_to_utf8(s, sizeof(s), out, 3), sizeof(s));
	assert_string_equal(out, "a");
	assert_int_equal(pmuk_utf16_to_utf8(s, sizeof(s), out, 4), sizeof(s));
	assert_string_equal(out, "a\xc3\xa9");
	assert_int_equal(pmuk_utf16_to_utf8(s, sizeof(s), out, 1), sizeof(s));
	assert_string_equal(out, "");
}

static void test_utf8_put(void **state)
{
	char out[8];
	size_t o = 0;
	int full = 0;

	(void)state;
	pmuk_utf8_put(out, sizeof(out), &o, 'A', &full);
	pmuk_utf8_put(out, sizeof(out), &o, 0xe9, &full);	/* Latin-1 byte as U+00E9 */
	pmuk_utf8_put(out, sizeof(out), &o, 0x10ffff, &full);
	assert_int_equal(o, 7);
	assert_false(full);
	/* one byte is left for the NUL: nothing more fits, not even ASCII after */
	pmuk_utf8_put(out, sizeof(out), &o, 'B', &full);
	assert_true(full);
	assert_int_equal(o, 7);
	out[o] = '\0';
	assert_string_equal(out, "A\xc3\xa9\xf4\x8f\xbf\xbf");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf16_ascii_and_nul),
		cmocka_unit_test(test_utf16_non_ascii),
		cmocka_unit_test(test_utf16_lone_surrogates),
		cmocka_unit_test(test_utf16_truncates_whole_characters),
		cmocka_unit_test(test_utf8_put),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
