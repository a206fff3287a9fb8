/* SPDX-License-Identifier: MIT */
/* ETW configuration blocks for TraceSetInformation, byte by byte against the
 * documented layouts; the PMC budget rule of seed 000; the TraceProfileSourceListInfo
 * parser on a buffer with UTF-16 names, and the name -> source mapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include "core/etw_config.h"

static void test_class_values(void **state)
{
	(void)state;
	/* The values mingw-w64 lacks, from the TRACE_QUERY_INFO_CLASS documentation. */
	assert_int_equal(PMUK_TRACE_SAMPLED_PROFILE_INTERVAL_INFO, 5);
	assert_int_equal(PMUK_TRACE_PROFILE_SOURCE_CONFIG_INFO, 6);
	assert_int_equal(PMUK_TRACE_PROFILE_SOURCE_LIST_INFO, 7);
	assert_int_equal(PMUK_TRACE_PMC_EVENT_LIST_INFO, 8);
	assert_int_equal(PMUK_TRACE_PMC_COUNTER_LIST_INFO, 9);
	assert_int_equal(PMUK_TRACE_LBR_CONFIGURATION_INFO, 20);
	assert_int_equal(PMUK_TRACE_LBR_EVENT_LIST_INFO, 21);
	assert_int_equal(PMUK_TRACE_MAX_PMC_COUNTER_QUERY, 22);
	assert_int_equal(PMUK_TRACE_PMC_COUNTER_OWNERS, 25);
	assert_int_equal(PMUK_TRACE_PMC_SESSION_INFORMATION, 27);
}

static void test_profile_interval(void **state)
{
	static const uint8_t want[] = { 0, 0, 0, 0, 0x10, 0x27, 0, 0 };
	static const uint8_t want2[] = { 0x1a, 0, 0, 0, 0xa0, 0x86, 0x01, 0 };
	struct pmuk_etw_block b;

	(void)state;
	/* ProfileTime every 10000 x 100 ns = 1 ms. */
	assert_int_equal(pmuk_etw_profile_interval(&b, PMUK_PROFILE_TIME, 10000), 0);
	assert_int_equal(b.info_class, 5);
	assert_int_equal(b.len, 8);
	assert_memory_equal(b.data, want, 8);
	/* Source 26 every 100000 events. */
	assert_int_equal(pmuk_etw_profile_interval(&b, 26, 100000), 0);
	assert_memory_equal(b.data, want2, 8);
	assert_int_equal(pmuk_etw_profile_interval(&b, 26, 0), PMU_EINVAL);
}

static void test_source_lists(void **state)
{
	static const uint32_t ids[] = { 26, 19, 0x12345678 };
	static const uint8_t want[] = { 0x1a, 0, 0, 0, 0x13, 0, 0, 0, 0x78, 0x56, 0x34, 0x12 };
	struct pmuk_etw_block b;

	(void)state;
	assert_int_equal(pmuk_etw_source_ids(&b, PMUK_TRACE_PROFILE_SOURCE_CONFIG_INFO, ids, 3), 0);
	assert_int_equal(b.info_class, 6);
	assert_int_equal(b.len, 12);
	assert_memory_equal(b.data, want, 12);
	assert_int_equal(pmuk_etw_source_ids(&b, PMUK_TRACE_PMC_COUNTER_LIST_INFO, ids, 2), 0);
	assert_int_equal(b.info_class, 9);
	assert_int_equal(b.len, 8);
	assert_memory_equal(b.data, want, 8);
	assert_int_equal(pmuk_etw_source_ids(&b, PMUK_TRACE_PMC_COUNTER_LIST_INFO, ids, 0),
			 PMU_EINVAL);
	assert_int_equal(pmuk_etw_source_ids(&b, 5, ids, 1), PMU_EINVAL);
	assert_int_equal(pmuk_etw_source_ids(&b, 9, ids, PMUK_ETW_MAX_IDS + 1), PMU_EINVAL);
}

static void test_event_lists(void **state)
{
	/* Thread {3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c} type 36 (CSwitch). */
	static const uint8_t cswitch[24] = {
		0xd1, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11,
		0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c,
		36, 0, 0, 0, 0, 0, 0, 0,
	};
	/* PerfInfo {ce1dbfb4-137e-4da6-87b0-3f59aa102cbc} types 46 and 47. */
	static const uint8_t perfinfo[16] = {
		0xb4, 0xbf, 0x1d, 0xce, 0x7e, 0x13, 0xa6, 0x4d,
		0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc,
	};
	const struct pmuk_etw_event_id cs = { pmuk_etw_thread_guid, PMUK_ETW_TYPE_CSWITCH };
	const struct pmuk_etw_event_id stacks[2] = {
		{ pmuk_etw_perfinfo_guid, PMUK_ETW_TYPE_SAMPLED_PROFILE },
		{ pmuk_etw_perfinfo_guid, PMUK_ETW_TYPE_PMC_INTERRUPT },
	};
	struct pmuk_etw_block b;

	(void)state;
	memset(&b, 0xee, sizeof(b));
	assert_int_equal(pmuk_etw_event_ids(&b, PMUK_TRACE_PMC_EVENT_LIST_INFO, &cs, 1), 0);
	assert_int_equal(b.info_class, 8);
	assert_int_equal(b.len, 24);
	assert_memory_equal(b.data, cswitch, 24);
	/* TraceLbrEventListInfo takes hook ids, never CLASSIC_EVENT_IDs. */
	assert_int_equal(pmuk_etw_event_ids(&b, PMUK_TRACE_LBR_EVENT_LIST_INFO, &cs, 1),
			 PMU_EINVAL);
	assert_int_equal(pmuk_etw_event_ids(&b, PMUK_TRACE_STACK_TRACING_INFO, stacks, 2), 0);
	assert_int_equal(b.info_class, 3);
	assert_int_equal(b.len, 48);
	assert_memory_equal(b.data, perfinfo, 16);
	assert_int_equal(b.data[16], 46);
	assert_memory_equal(b.data + 24, perfinfo, 16);
	assert_int_equal(b.data[40], 47);
	for (int i = 17; i < 24; i++) {
		assert_int_equal(b.data[i], 0);
		assert_int_equal(b.data[24 + i], 0);
	}
	assert_int_equal(pmuk_etw_event_ids(&b, PMUK_TRACE_PMC_COUNTER_LIST_INFO, &cs, 1),
			 PMU_EINVAL);
	{
		struct pmuk_etw_event_id five[5];

		for (int i = 0; i < 5; i++)
			five[i] = cs;
		assert_int_equal(pmuk_etw_event_ids(&b, PMUK_TRACE_STACK_TRACING_INFO, five, 5), 0);
		assert_int_equal(b.len, 120);
	}
}

/* TraceLbrEventListInfo: ULONG hook ids, 4 bytes each, at most 4 (issue 13 item 2). */
static void test_lbr_events(void **state)
{
	static const uint32_t hooks[] = { PMUK_ETW_HOOK_SAMPLED_PROFILE,
					  PMUK_ETW_HOOK_PMC_INTERRUPT };
	static const uint8_t want[] = { 0x2e, 0x0f, 0, 0, 0x2f, 0x0f, 0, 0 };
	static const uint32_t five[5] = { 0x0f2e, 0x0f2f, 0x0f2e, 0x0f2f, 0x0f2e };
	static const uint32_t wide = 0x10000;
	struct pmuk_etw_block b;

	(void)state;
	memset(&b, 0xee, sizeof(b));
	assert_int_equal(pmuk_etw_lbr_events(&b, hooks, 2), 0);
	assert_int_equal(b.info_class, 21);
	assert_int_equal(b.len, 8);
	assert_memory_equal(b.data, want, 8);
	assert_int_equal(pmuk_etw_lbr_events(&b, five, 4), 0);
	assert_int_equal(b.len, 16);
	assert_int_equal(pmuk_etw_lbr_events(&b, five, 5), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "at most 4"));
	assert_int_equal(pmuk_etw_lbr_events(&b, hooks, 0), PMU_EINVAL);
	assert_int_equal(pmuk_etw_lbr_events(&b, &wide, 1), PMU_EINVAL);
	assert_int_equal(b.len, 0);
}

/* PERFINFO_GROUPMASK: the classic flag and its Masks[1] twin both set (item 14). */
static void test_group_mask(void **state)
{
	struct pmuk_etw_groups g = { .classic = 0x7 };  /* process, thread, image */
	uint32_t m[8];

	(void)state;
	memset(m, 0xee, sizeof(m));
	pmuk_etw_group_mask(&g, m);
	assert_int_equal(m[0], 0x7);
	for (int i = 1; i < 8; i++)
		assert_int_equal(m[i], 0);
	g.profile = 1;
	pmuk_etw_group_mask(&g, m);
	assert_int_equal(m[0], 0x01000007);
	assert_int_equal(m[1], 0x2);
	g.cswitch = 1;
	pmuk_etw_group_mask(&g, m);
	assert_int_equal(m[0], 0x01000017);
	assert_int_equal(m[1], 0x6);
	g.pmc = 1;
	g.ready_thread = 1;
	pmuk_etw_group_mask(&g, m);
	assert_int_equal(m[0], 0x01000817);
	assert_int_equal(m[1], 0x406);
	for (int i = 2; i < 8; i++)
		assert_int_equal(m[i], 0);
	g = (struct pmuk_etw_groups){ .classic = 0x2, .cswitch = 1 };
	pmuk_etw_group_mask(&g, m);
	assert_int_equal(m[0], 0x12);
	assert_int_equal(m[1], 0x4);
}

/* Stacks on SampledProfile / PMC interrupt, and CSwitch + ReadyThread for waits. */
static void test_stack_events(void **state)
{
	struct pmuk_etw_event_id ev[4];
	size_t n;

	(void)state;
	pmuk_etw_stack_events(1, 0, 0, ev, &n);
	assert_int_equal(n, 1);
	assert_int_equal(ev[0].type, 46);
	pmuk_etw_stack_events(1, 1, 1, ev, &n);
	assert_int_equal(n, 4);
	assert_int_equal(ev[1].type, 47);
	assert_memory_equal(&ev[1].guid, &pmuk_etw_perfinfo_guid, sizeof(ev[1].guid));
	assert_int_equal(ev[2].type, 36);
	assert_int_equal(ev[3].type, 50);
	assert_memory_equal(&ev[3].guid, &pmuk_etw_thread_guid, sizeof(ev[3].guid));
	pmuk_etw_stack_events(0, 0, 1, ev, &n);
	assert_int_equal(n, 2);
	assert_int_equal(ev[0].type, 36);
}

/* The interval against the source's MinInterval/MaxInterval. */
static void test_interval_check(void **state)
{
	struct pmuk_etw_source timer = { .id = 0, .min_interval = 1221, .max_interval = 1000000,
					 .name = "Timer" };
	struct pmuk_etw_source open = { .id = 9, .name = "Open" };

	(void)state;
	assert_int_equal(pmuk_etw_interval_check(&timer, 1221, "x 100 ns"), 0);
	assert_int_equal(pmuk_etw_interval_check(&timer, 1000000, "x 100 ns"), 0);
	assert_int_equal(pmuk_etw_interval_check(&timer, 1220, "x 100 ns"), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "1221 to 1000000 x 100 ns"));
	assert_non_null(strstr(pmu_error_detail(), "Timer"));
	assert_non_null(strstr(pmu_error_detail(), "-F"));
	assert_int_equal(pmuk_etw_interval_check(&timer, 1000001, "events"), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "-c"));
	assert_null(strstr(pmu_error_detail(), "counter"));
	assert_int_equal(pmuk_etw_interval_check(&open, 7, "events"), 0);
}

static void test_lbr(void **state)
{
	static const uint8_t want[] = { 0x01, 0x02, 0, 0 };
	struct pmuk_etw_block b;

	(void)state;
	/* Drop kernel branches, keep a call stack. */
	assert_int_equal(pmuk_etw_lbr_config(&b, PMUK_LBR_FILTER_KERNEL | PMUK_LBR_CALLSTACK_ENABLE), 0);
	assert_int_equal(b.info_class, 20);
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.data, want, 4);
	assert_int_equal(PMUK_LBR_FILTER_FAR_BRANCH, 0x100);
	assert_int_equal(pmuk_etw_lbr_config(&b, 0x400), PMU_EINVAL);
}

static void test_budget(void **state)
{
	(void)state;
	/* Seed 000: 3 PMCs with CPU sampling on (the timer takes one), 4 on CSwitch. */
	assert_int_equal(pmuk_etw_pmc_budget(1, -1), 3);
	assert_int_equal(pmuk_etw_pmc_budget(0, -1), 4);
	assert_int_equal(pmuk_etw_pmc_budget(0, 6), 6);
	assert_int_equal(pmuk_etw_pmc_budget(1, 6), 5);
	assert_int_equal(pmuk_etw_pmc_budget(1, 1), 0);
	assert_int_equal(pmuk_etw_pmc_check(3, 1, 0), 0);
	assert_int_equal(pmuk_etw_pmc_check(4, 0, 0), 0);
	assert_int_equal(pmuk_etw_pmc_check(4, 1, 0), PMU_EBUDGET);
	assert_non_null(strstr(pmu_error_detail(), "gets 3"));
	assert_non_null(strstr(pmu_error_detail(), "timer"));
	assert_int_equal(pmuk_etw_pmc_check(7, 0, 6), PMU_EBUDGET);
	assert_non_null(strstr(pmu_error_detail(), "TraceMaxPmcCounterQuery says 6"));
}

/* ---- TraceProfileSourceListInfo ---- */

static uint8_t list[4096];
static size_t list_len, last_entry;

/* Appends one PROFILE_SOURCE_INFO; name is UTF-8 of BMP or astral characters. */
static void entry(uint32_t id, uint32_t min, uint32_t max, const char *name)
{
	size_t at = list_len, o = at + 24;

	memset(list + at, 0, 24);
	for (int i = 0; i < 4; i++) {
		list[at + 4 + i] = (uint8_t)(id >> (8 * i));
		list[at + 8 + i] = (uint8_t)(min >> (8 * i));
		list[at + 12 + i] = (uint8_t)(max >> (8 * i));
	}
	list[at + 16] = 0xaa;   /* Reserved: ignored */
	for (const unsigned char *s = (const unsigned char *)name; *s;) {
		uint32_t c;

		if (*s < 0x80) {
			c = *s++;
		} else if (*s < 0xe0) {
			c = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
			s += 2;
		} else if (*s < 0xf0) {
			c = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
			s += 3;
		} else {
			c = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
			    (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
			s += 4;
		}
		if (c >= 0x10000) {
			uint32_t hi = 0xd800 + ((c - 0x10000) >> 10), lo = 0xdc00 + ((c - 0x10000) & 0x3ff);

			list[o++] = (uint8_t)hi;
			list[o++] = (uint8_t)(hi >> 8);
			c = lo;
		}
		list[o++] = (uint8_t)c;
		list[o++] = (uint8_t)(c >> 8);
	}
	list[o++] = 0;
	list[o++] = 0;
	while ((o - at) % 8)
		list[o++] = 0;
	/* Chain the previous entry to this one. */
	if (at) {
		uint32_t next = (uint32_t)(at - last_entry);

		for (int i = 0; i < 4; i++)
			list[last_entry + i] = (uint8_t)(next >> (8 * i));
	}
	last_entry = at;
	list_len = o;
}

static void build_list(void)
{
	list_len = last_entry = 0;
	entry(0, 1221, 1000000, "Timer");
	entry(2, 4096, 0x7fffffff, "TotalIssues");
	entry(6, 4096, 0x7fffffff, "BranchInstructions");
	entry(10, 4096, 0x7fffffff, "CacheMisses");
	entry(11, 4096, 0x7fffffff, "BranchMispredictions");
	entry(19, 4096, 0x7fffffff, "TotalCycles");
	entry(25, 4096, 0x7fffffff, "UnhaltedCoreCycles");
	entry(26, 4096, 0x7fffffff, "InstructionRetired");
	entry(27, 4096, 0x7fffffff, "UnhaltedReferenceCycles");
	entry(28, 4096, 0x7fffffff, "LLCReference");
	entry(29, 4096, 0x7fffffff, "LLCMisses");
	entry(30, 4096, 0x7fffffff, "Zyklen\xe2\x82\xac\xf0\x9f\x98\x80"); /* BMP + astral */
}

static void test_source_list_parse(void **state)
{
	struct pmuk_etw_source *v;
	const struct pmuk_etw_source *s;
	size_t n;

	(void)state;
	build_list();
	assert_int_equal(pmuk_etw_source_list_parse(list, list_len, &v, &n), 0);
	assert_int_equal(n, 12);
	assert_string_equal(v[0].name, "Timer");
	assert_int_equal(v[0].id, 0);
	assert_int_equal(v[0].min_interval, 1221);
	assert_int_equal(v[0].max_interval, 1000000);
	assert_string_equal(v[7].name, "InstructionRetired");
	assert_int_equal(v[7].id, 26);
	assert_string_equal(v[11].name, "Zyklen\xe2\x82\xac\xf0\x9f\x98\x80");
	assert_int_equal(v[11].generic, -1);
	/* Names map to generic events through the alias table of event_table.c. */
	assert_int_equal(v[7].generic, 1);   /* PMU_GENERIC_INSTRUCTIONS */
	assert_int_equal(v[5].generic, 0);   /* TotalCycles -> cycles */
	assert_int_equal(v[6].generic, 0);   /* UnhaltedCoreCycles -> cycles */
	/* name <-> id, by profile-source name or by pmukit generic name. */
	assert_int_equal(pmuk_etw_source_find(v, n, "instructionretired")->id, 26);
	assert_int_equal(pmuk_etw_source_find(v, n, "instructions")->id, 26);
	assert_int_equal(pmuk_etw_source_find(v, n, "cycles")->id, 19);
	assert_int_equal(pmuk_etw_source_find(v, n, "cpu-cycles")->id, 19);
	assert_int_equal(pmuk_etw_source_find(v, n, "ref-cycles")->id, 27);
	assert_int_equal(pmuk_etw_source_find(v, n, "branch-misses")->id, 11);
	assert_int_equal(pmuk_etw_source_find(v, n, "cache-misses")->id, 10);
	assert_int_equal(pmuk_etw_source_find(v, n, "cache-references")->id, 28);
	s = pmuk_etw_source_find(v, n, "page-faults");
	assert_null(s);
	assert_non_null(strstr(pmu_error_detail(), "Timer, TotalIssues"));
	/* Without TotalCycles the other cycles source serves. */
	v[5].name[0] = 'X';
	assert_int_equal(pmuk_etw_source_find(v, n, "cycles")->id, 25);
	free(v);
	/* An empty answer: no sources. */
	assert_int_equal(pmuk_etw_source_list_parse(list, 0, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_null(pmuk_etw_source_find(v, n, "cycles"));
	assert_non_null(strstr(pmu_error_detail(), "none"));
}

static void test_source_list_malformed(void **state)
{
	struct pmuk_etw_source *v;
	size_t n;
	uint8_t save;

	(void)state;
	build_list();
	/* NextEntryOffset past the end. */
	save = list[2];
	list[2] = 0x10;
	assert_int_equal(pmuk_etw_source_list_parse(list, list_len, &v, &n), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "byte 0"));
	list[2] = save;
	/* NextEntryOffset shorter than an entry. */
	save = list[0];
	list[0] = 8;
	assert_int_equal(pmuk_etw_source_list_parse(list, list_len, &v, &n), PMU_EFORMAT);
	list[0] = save;
	/* Truncated: the last name loses its NUL, or the header is cut. */
	assert_int_equal(pmuk_etw_source_list_parse(list, list_len - 10, &v, &n), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "NUL"));
	assert_int_equal(pmuk_etw_source_list_parse(list, last_entry + 10, &v, &n), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "cut short"));
	/* Every prefix parses or fails cleanly. */
	for (size_t len = 1; len <= list_len; len++) {
		int err = pmuk_etw_source_list_parse(list, len, &v, &n);

		assert_true(err == 0 || err == PMU_EFORMAT);
		if (!err)
			free(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_class_values),
		cmocka_unit_test(test_profile_interval),
		cmocka_unit_test(test_source_lists),
		cmocka_unit_test(test_event_lists),
		cmocka_unit_test(test_lbr),
		cmocka_unit_test(test_lbr_events),
		cmocka_unit_test(test_group_mask),
		cmocka_unit_test(test_stack_events),
		cmocka_unit_test(test_interval_check),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_source_list_parse),
		cmocka_unit_test(test_source_list_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
