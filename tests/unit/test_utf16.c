/* SPDX-License-Identifier: MIT */
/* pmuk_utf16_to_utf8 and pmuk_utf8_put: the one UTF-16LE -> UTF-8 conversion; the
 * strict conversions of the Windows command line and file names (issue 13 item 4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/error.h>
#include "core/file.h"
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

/* C:\Users\Zoë\x.etl and an emoji (a surrogate pair), as CommandLineToArgvW gives them. */
static const uint16_t w_path[] = { 'C', ':', '\\', 'U', 's', 'e', 'r', 's', '\\', 'Z', 'o', 0x00EB,
				   '\\', 'x', '.', 'e', 't', 'l', 0 };
static const char u_path[] = "C:\\Users\\Zo\xC3\xAB\\x.etl";
static const uint16_t w_emoji[] = { 'a', 0xD83D, 0xDE00, 'b', 0 };
static const char u_emoji[] = "a\xF0\x9F\x98\x80" "b";

static void test_strict_utf16_to_utf8(void **state)
{
	static const uint16_t lone_high[] = { 'a', 0xD83D, 'b', 0 };
	static const uint16_t lone_low[] = { 0xDE00, 0 };
	static const uint16_t high_at_end[] = { 'x', 0xD800, 0 };
	static const uint16_t empty[] = { 0 };
	char *out;

	(void)state;
	assert_int_equal(pmuk_utf16_to_utf8_strict(w_path, &out), 0);
	assert_string_equal(out, u_path);
	free(out);
	assert_int_equal(pmuk_utf16_to_utf8_strict(w_emoji, &out), 0);
	assert_string_equal(out, u_emoji);
	free(out);
	assert_int_equal(pmuk_utf16_to_utf8_strict(empty, &out), 0);
	assert_string_equal(out, "");
	free(out);
	/* the lenient converter makes these U+FFFD; a file name must not change */
	assert_int_equal(pmuk_utf16_to_utf8_strict(lone_high, &out), PMU_EINVAL);
	assert_null(out);
	assert_non_null(strstr(pmu_error_detail(), "(0xd83d) at unit 1"));
	assert_int_equal(pmuk_utf16_to_utf8_strict(lone_low, &out), PMU_EINVAL);
	assert_int_equal(pmuk_utf16_to_utf8_strict(high_at_end, &out), PMU_EINVAL);
}

static void test_utf8_to_utf16(void **state)
{
	static const char *const bad[] = {
		"\xC3",                 /* cut short */
		"ab\xE2\x82",           /* cut short after ASCII */
		"\xC0\xAF",             /* overlong '/': a classic path trick */
		"\xE0\x80\xAF",         /* overlong, 3 bytes */
		"\xED\xA0\x80",         /* an encoded surrogate */
		"\xF4\x90\x80\x80",     /* beyond U+10FFFF */
		"\xFF",
		"\x80",                 /* a continuation byte first */
		"Zo\xEB",               /* Latin-1 ë, as an ANSI argv would give it */
	};
	uint16_t *w;

	(void)state;
	assert_int_equal(pmuk_utf8_to_utf16(u_path, &w), 0);
	assert_memory_equal(w, w_path, sizeof(w_path));
	free(w);
	assert_int_equal(pmuk_utf8_to_utf16(u_emoji, &w), 0);
	assert_memory_equal(w, w_emoji, sizeof(w_emoji));
	free(w);
	assert_int_equal(pmuk_utf8_to_utf16("\xEF\xBF\xBF\xF4\x8F\xBF\xBF", &w), 0);
	assert_int_equal(w[0], 0xFFFF);   /* the last of the BMP, the last code point */
	assert_int_equal(w[1], 0xDBFF);
	assert_int_equal(w[2], 0xDFFF);
	assert_int_equal(w[3], 0);
	free(w);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		w = (uint16_t *)1;
		assert_int_equal(pmuk_utf8_to_utf16(bad[i], &w), PMU_EINVAL);
		assert_null(w);
		assert_non_null(strstr(pmu_error_detail(), "valid UTF-8"));
	}
	assert_non_null(strstr(pmu_error_detail(), "byte 2 "));
}

static void test_argv_from_utf16(void **state)
{
	static const uint16_t w0[] = { 'p', 'm', 'u', 'k', 'i', 't', 0 };
	static const uint16_t w1[] = { 's', 't', 'a', 't', 0 };
	static const uint16_t w3[] = { 0 };
	static const uint16_t lone[] = { 'x', 0xDC00, 0 };
	const uint16_t *wargv[] = { w0, w1, w_path, w3, w_emoji };
	const uint16_t *badv[] = { w0, w1, lone };
	char **v;

	(void)state;
	assert_int_equal(pmuk_argv_from_utf16(5, wargv, &v), 0);
	assert_string_equal(v[0], "pmukit");
	assert_string_equal(v[1], "stat");
	assert_string_equal(v[2], u_path);
	assert_string_equal(v[3], "");
	assert_string_equal(v[4], u_emoji);
	assert_null(v[5]);
	free(v);  /* one block */
	assert_int_equal(pmuk_argv_from_utf16(0, wargv, &v), 0);
	assert_null(v[0]);
	free(v);
	assert_int_equal(pmuk_argv_from_utf16(3, badv, &v), PMU_EINVAL);
	assert_null(v);
	assert_non_null(strstr(pmu_error_detail(), "argument 2 of the command line"));
	assert_non_null(strstr(pmu_error_detail(), "surrogate"));
}

/* pmuk_fopen takes UTF-8 names (on Linux, fopen's own bytes). */
static void test_fopen_utf8(void **state)
{
	char dir[] = "/tmp/pmukit-utf8-XXXXXX", path[96], buf[8] = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/Zo\xC3\xAB.etl", dir);
	assert_non_null(f = pmuk_fopen(path, "wb"));
	assert_int_equal(fputs("etl", f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_non_null(f = pmuk_fopen(path, "rb"));
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "etl");
	fclose(f);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf16_ascii_and_nul),
		cmocka_unit_test(test_utf16_non_ascii),
		cmocka_unit_test(test_utf16_lone_surrogates),
		cmocka_unit_test(test_utf16_truncates_whole_characters),
		cmocka_unit_test(test_utf8_put),
		cmocka_unit_test(test_strict_utf16_to_utf8),
		cmocka_unit_test(test_utf8_to_utf16),
		cmocka_unit_test(test_argv_from_utf16),
		cmocka_unit_test(test_fopen_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
