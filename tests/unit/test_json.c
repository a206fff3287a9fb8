/* SPDX-License-Identifier: MIT */
/* The shared JSON writer: nesting, commas, escaping, numbers, pretty and compact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>

#include "core/json.h"

static char *buf;
static size_t len;

static struct pmuk_json *start(int pretty)
{
	static struct pmuk_json j;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	pmuk_json_init(&j, f, pretty);
	return &j;
}

static const char *finish(struct pmuk_json *j)
{
	pmuk_json_finish(j);
	fclose(j->f);
	return buf;
}

static void test_compact_document(void **state)
{
	struct pmuk_json *j = start(0);

	(void)state;
	pmuk_json_obj_begin(j, NULL);
	pmuk_json_str(j, "s", "a\"b\\c\n\t\x01");
	pmuk_json_int(j, "i", -42);
	pmuk_json_uint(j, "u", 18446744073709551615ull);
	pmuk_json_double(j, "d", 0.5);
	pmuk_json_double(j, "nan", NAN);
	pmuk_json_double(j, "inf", INFINITY);
	pmuk_json_bool(j, "t", 1);
	pmuk_json_null(j, "n");
	pmuk_json_str(j, "null_str", NULL);
	pmuk_json_arr_begin(j, "a");
	pmuk_json_int(j, NULL, 1);
	pmuk_json_obj_begin(j, NULL);
	pmuk_json_obj_end(j);
	pmuk_json_arr_begin(j, NULL);
	pmuk_json_arr_end(j);
	pmuk_json_arr_end(j);
	pmuk_json_obj_end(j);
	assert_string_equal(finish(j),
		"{\"s\":\"a\\\"b\\\\c\\n\\t\\u0001\",\"i\":-42,\"u\":18446744073709551615,"
		"\"d\":0.5,\"nan\":null,\"inf\":null,\"t\":true,\"n\":null,\"null_str\":null,"
		"\"a\":[1,{},[]]}\n");
	free(buf);
}

static void test_pretty_indents(void **state)
{
	struct pmuk_json *j = start(1);

	(void)state;
	pmuk_json_obj_begin(j, NULL);
	pmuk_json_arr_begin(j, "x");
	pmuk_json_int(j, NULL, 1);
	pmuk_json_int(j, NULL, 2);
	pmuk_json_arr_end(j);
	pmuk_json_obj_begin(j, "empty");
	pmuk_json_obj_end(j);
	pmuk_json_obj_end(j);
	assert_string_equal(finish(j), "{\n  \"x\": [\n    1,\n    2\n  ],\n  \"empty\": {}\n}\n");
	free(buf);
}

/* UTF-8 passes through unescaped (JSON allows it); only control bytes are escaped. */
static void test_utf8_passthrough(void **state)
{
	struct pmuk_json *j = start(0);

	(void)state;
	pmuk_json_str(j, NULL, "Win32k Raw Input Thread \xc3\xa9");
	assert_string_equal(finish(j), "\"Win32k Raw Input Thread \xc3\xa9\"\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_document),
		cmocka_unit_test(test_pretty_indents),
		cmocka_unit_test(test_utf8_passthrough),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
