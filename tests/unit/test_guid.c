/* SPDX-License-Identifier: MIT */
/* struct pmu_guid: the public formatter and parser, the internal byte-order load
 * and store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <pmukit/error.h>
#include <pmukit/guid.h>
#include "core/guid.h"

/* The Thread provider, as files store it. */
static const uint8_t stored[16] = { 0xd1, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11,
				    0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c };

static void test_guid_load_store(void **state)
{
	struct pmu_guid g;
	uint8_t back[16];

	(void)state;
	pmuk_guid_load(&g, stored);
	assert_int_equal(g.d1, 0x3d6fa8d1);
	assert_int_equal(g.d2, 0xfe05);
	assert_int_equal(g.d3, 0x11d0);
	assert_int_equal(g.d4[0], 0x9d);
	assert_int_equal(g.d4[7], 0x7c);
	pmuk_guid_store(back, &g);
	assert_memory_equal(back, stored, 16);
}

static void test_guid_format(void **state)
{
	struct pmu_guid g;
	char buf[PMU_GUID_STRLEN + 3];

	(void)state;
	pmuk_guid_load(&g, stored);
	assert_int_equal(pmu_guid_format(&g, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c");
	assert_int_equal(strlen(buf) + 1, PMU_GUID_STRLEN);
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(pmu_guid_format(&g, buf, PMU_GUID_STRLEN), 0);
	assert_string_equal(buf, "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c");
	/* one byte short: refused, buf untouched */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(pmu_guid_format(&g, buf, PMU_GUID_STRLEN - 1), PMU_ERANGE);
	assert_int_equal(buf[0], 'x');
	assert_int_equal(pmu_guid_format(&g, buf, 0), PMU_ERANGE);
	/* NULL in: an error, not a crash (pmu_guid_parse checks the same) */
	assert_int_equal(pmu_guid_format(NULL, buf, sizeof(buf)), PMU_EINVAL);
	assert_int_equal(pmu_guid_format(&g, NULL, sizeof(buf)), PMU_EINVAL);
}

static void test_guid_parse(void **state)
{
	struct pmu_guid g, h;
	char buf[PMU_GUID_STRLEN];

	(void)state;
	pmuk_guid_load(&g, stored);
	assert_int_equal(pmu_guid_parse("{3D6FA8D1-FE05-11D0-9DDA-00C04FD7BA7C}", &h), 0);
	assert_memory_equal(&g, &h, sizeof(g));
	/* format and parse round-trip */
	assert_int_equal(pmu_guid_format(&g, buf, sizeof(buf)), 0);
	memset(&h, 0, sizeof(h));
	assert_int_equal(pmu_guid_parse(buf, &h), 0);
	assert_memory_equal(&g, &h, sizeof(g));
	assert_int_equal(pmu_guid_parse("3d6fa8d1-fe05", &h), PMU_EPARSE);
	assert_int_equal(pmu_guid_parse("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7g", &h), PMU_EPARSE);
	assert_int_equal(pmu_guid_parse(NULL, &h), PMU_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guid_load_store),
		cmocka_unit_test(test_guid_format),
		cmocka_unit_test(test_guid_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
