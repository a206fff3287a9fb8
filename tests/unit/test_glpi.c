/* SPDX-License-Identifier: MIT */
/* GetLogicalProcessorInformationEx(RelationAll) parsing on buffers built byte by byte
 * (glpi_synth.h): a 2-group 128-CPU server, a hybrid CPU, a NUMA node spanning two
 * groups, and malformed buffers (every one PMU_EFORMAT with the offset). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/topology.h>
#include "core/glpi.h"
#include "glpi_synth.h"

static struct gbuf B;

static const struct pmu_topo_cache *find_cache(const struct pmu_topology *t, int level,
					       enum pmu_cache_type type, int cpu)
{
	for (size_t i = 0; i < pmu_topology_cache_count(t); i++) {
		const struct pmu_topo_cache *c = pmu_topology_cache(t, i);

		if (c->level != level || c->type != type)
			continue;
		for (size_t k = 0; k < c->ncpus; k++)
			if (c->cpus[k] == cpu)
				return c;
	}
	return NULL;
}

static size_t count_caches(const struct pmu_topology *t, int level, enum pmu_cache_type type)
{
	size_t n = 0;

	for (size_t i = 0; i < pmu_topology_cache_count(t); i++)
		n += pmu_topology_cache(t, i)->level == level &&
		     pmu_topology_cache(t, i)->type == type;
	return n;
}

static void test_two_groups(void **state)
{
	struct pmu_topology *t;
	const struct pmu_topo_cpu *c;
	const struct pmu_topo_cache *l3;
	const struct pmu_topo_core *core;
	size_t n;

	(void)state;
	g_two_group_machine(&B);
	assert_int_equal(pmuk_glpi_parse(B.d, B.n, &t), 0);
	assert_string_equal(pmu_topology_source(t), "glpi");
	assert_int_equal(pmu_topology_cpu_count(t), 128);
	pmu_topology_online_cpus(t, &n);
	assert_int_equal(n, 128);
	assert_int_equal(pmu_topology_package_count(t), 2);
	assert_int_equal(pmu_topology_core_count(t), 64);
	assert_int_equal(pmu_topology_node_count(t), 2);
	assert_false(pmu_topology_is_hybrid(t));
	/* The second group: flat ids 64-127. */
	c = pmu_topology_cpu_by_id(t, 101);
	assert_non_null(c);
	assert_int_equal(c->package, 1);
	assert_int_equal(c->core, 18);     /* (101 - 64) / 2 within package 1 */
	assert_int_equal(c->smt, 1);
	assert_int_equal(c->node, 1);
	assert_int_equal(c->type, PMU_CORE_UNIFORM);
	assert_int_equal(pmu_topology_cpu_node(t, 63), 0);
	assert_int_equal(pmu_topology_cpu_package(t, 64), 1);
	core = pmu_topology_core(t, (size_t)pmu_topology_cpu_core(t, 127));
	assert_int_equal(core->ncpus, 2);
	assert_int_equal(core->cpus[0], 126);
	assert_int_equal(pmu_topology_package(t, 1)->ncpus, 64);
	assert_int_equal(pmu_topology_package(t, 1)->ncores, 32);
	assert_int_equal(pmu_topology_node(t, 1)->ncpus, 64);
	assert_int_equal(pmu_topology_node(t, 1)->cpus[0], 64);
	/* Caches: L1d, L1i, L2 per core, L3 per package. */
	assert_int_equal(count_caches(t, 1, PMU_CACHE_DATA), 64);
	assert_int_equal(count_caches(t, 1, PMU_CACHE_INSTRUCTION), 64);
	assert_int_equal(count_caches(t, 2, PMU_CACHE_UNIFIED), 64);
	assert_int_equal(count_caches(t, 3, PMU_CACHE_UNIFIED), 2);
	l3 = find_cache(t, 3, PMU_CACHE_UNIFIED, 100);
	assert_non_null(l3);
	assert_int_equal(l3->ncpus, 64);
	assert_int_equal(l3->cpus[0], 64);
	assert_int_equal(l3->size, 60ull << 20);
	assert_int_equal(l3->ways, 15);
	assert_int_equal(l3->line_size, 64);
	assert_int_equal(find_cache(t, 1, PMU_CACHE_DATA, 127)->size, 48 << 10);
	assert_int_equal(find_cache(t, 2, PMU_CACHE_UNIFIED, 127)->ncpus, 2);
	pmu_topology_free(t);
}

static void test_hybrid(void **state)
{
	struct pmu_topology *t;
	const struct pmu_topo_cache *l2;
	const struct pmu_topo_cpu *p, *e;
	char *json = NULL;
	size_t jlen = 0;
	FILE *f;

	(void)state;
	g_hybrid(&B);
	assert_int_equal(pmuk_glpi_parse(B.d, B.n, &t), 0);
	assert_int_equal(pmu_topology_cpu_count(t), 20);
	assert_int_equal(pmu_topology_core_count(t), 14);
	assert_int_equal(pmu_topology_package_count(t), 1);
	assert_int_equal(pmu_topology_die_count(t), 1);
	assert_true(pmu_topology_is_hybrid(t));
	p = pmu_topology_cpu_by_id(t, 11);
	e = pmu_topology_cpu_by_id(t, 12);
	assert_int_equal(p->type, PMU_CORE_PERFORMANCE);
	assert_int_equal(p->efficiency, 1);
	assert_int_equal(p->smt, 1);
	assert_int_equal(e->type, PMU_CORE_EFFICIENCY);
	assert_int_equal(e->efficiency, 0);
	assert_int_equal(e->smt, 0);
	assert_int_equal(e->core, 6);
	assert_int_equal(pmu_topology_core(t, 13)->type, PMU_CORE_EFFICIENCY);
	/* E-cores share an L2 per 4; P-cores have their own. */
	assert_int_equal(count_caches(t, 2, PMU_CACHE_UNIFIED), 8);
	l2 = find_cache(t, 2, PMU_CACHE_UNIFIED, 17);
	assert_int_equal(l2->ncpus, 4);
	assert_int_equal(l2->cpus[0], 16);
	assert_int_equal(l2->size, 2 << 20);
	assert_int_equal(find_cache(t, 2, PMU_CACHE_UNIFIED, 3)->ncpus, 2);
	/* The L3 record in the pre-GroupCount form (GroupCount 0, one mask). */
	assert_int_equal(find_cache(t, 3, PMU_CACHE_UNIFIED, 0)->ncpus, 20);
	assert_int_equal(pmu_topology_node(t, 0)->ncpus, 20);
	/* The JSON of topo --json carries the core types. */
	f = open_memstream(&json, &jlen);
	assert_int_equal(pmu_topology_write_json(t, f, PMU_JSON_PRETTY), 0);
	fclose(f);
	assert_non_null(strstr(json, "\"efficiency\""));
	assert_non_null(strstr(json, "performance"));
	free(json);
	pmu_topology_free(t);
}

/* A node spanning two groups (GroupCount 2), described both as RelationNumaNode and
 * RelationNumaNodeEx (merged), and a cache shared across groups. */
static void test_multi_group_node(void **state)
{
	uint64_t act[2] = { 0xf, 0xf }, masks[2] = { 0x3, 0x3 }, rest[2] = { 0xc, 0xc };
	unsigned groups[2] = { 0, 1 };
	struct pmu_topology *t;
	const struct pmu_topo_node *n0;

	(void)state;
	B.n = 0;
	for (unsigned g = 0; g < 2; g++)
		for (int k = 0; k < 4; k++)
			g_proc(&B, 0, 0, 0, 1ull << k, g);
	g_node(&B, 1, 0, 1, masks, groups);     /* old form: the primary group only */
	g_node(&B, 6, 0, 2, masks, groups);     /* NumaNodeEx: both groups */
	g_node(&B, 6, 1, 2, rest, groups);
	g_proc(&B, 3, 0, 0, 0xf, 0);
	g_proc(&B, 3, 0, 0, 0xf, 1);
	g_groups(&B, 2, act);
	assert_int_equal(pmuk_glpi_parse(B.d, B.n, &t), 0);
	assert_int_equal(pmu_topology_cpu_count(t), 8);
	assert_int_equal(pmu_topology_node_count(t), 2);
	n0 = pmu_topology_node(t, 0);
	assert_int_equal(n0->ncpus, 4);
	assert_int_equal(n0->cpus[0], 0);
	assert_int_equal(n0->cpus[2], 64);
	assert_int_equal(pmu_topology_cpu_node(t, 65), 0);
	assert_int_equal(pmu_topology_cpu_node(t, 66), 1);
	assert_int_equal(pmu_topology_cpu_package(t, 67), 1);
	assert_int_equal(pmu_topology_cpu_by_id(t, 67)->core, 3);
	pmu_topology_free(t);
}

/* 72 CPUs in two groups of 36 (Windows balances groups): processor index 36 (ETW's
 * GetEventProcessorIndex) is the first CPU of group 1, flat id 64, not CPU 36. */
static void test_processor_index(void **state)
{
	uint64_t act[2] = { (1ull << 36) - 1, (1ull << 36) - 1 };
	struct pmu_topology *t;

	(void)state;
	B.n = 0;
	for (unsigned g = 0; g < 2; g++) {
		for (int k = 0; k < 36; k++)
			g_proc(&B, 0, 0, 0, 1ull << k, g);
		g_proc(&B, 3, 0, 0, act[g], g);
	}
	g_groups(&B, 2, act);
	assert_int_equal(pmuk_glpi_parse(B.d, B.n, &t), 0);
	assert_int_equal(pmu_topology_cpu_count(t), 72);
	assert_null(pmu_topology_cpu_by_id(t, 36));
	assert_int_equal(pmuk_glpi_index_cpu(t, 0), 0);
	assert_int_equal(pmuk_glpi_index_cpu(t, 35), 35);
	assert_int_equal(pmuk_glpi_index_cpu(t, 36), 64);
	assert_int_equal(pmuk_glpi_index_cpu(t, 71), 99);
	assert_int_equal(pmuk_glpi_index_cpu(t, 72), -1);
	pmu_topology_free(t);
}

static void expect_format(const uint8_t *buf, size_t len, const char *needle)
{
	struct pmu_topology *t = (struct pmu_topology *)1;

	assert_int_equal(pmuk_glpi_parse(buf, len, &t), PMU_EFORMAT);
	assert_null(t);
	if (!strstr(pmu_error_detail(), needle))
		fail_msg("detail '%s' lacks '%s'", pmu_error_detail(), needle);
}

static void test_malformed(void **state)
{
	struct gbuf x;
	size_t second;

	(void)state;
	g_hybrid(&B);
	second = B.d[4];   /* Size of the first record: where the second starts */
	/* Size 0 in the second record. */
	memcpy(&x, &B, sizeof(x));
	x.d[second + 4] = 0;
	x.d[second + 5] = 0;
	{
		char want[32];

		snprintf(want, sizeof(want), "byte %zu", second);
		expect_format(x.d, x.n, want);
	}
	/* Size past the end. */
	memcpy(&x, &B, sizeof(x));
	x.d[second + 5] = 0x40;
	expect_format(x.d, x.n, "past the end");
	/* GroupCount too big for the record. */
	memcpy(&x, &B, sizeof(x));
	x.d[30] = 100;
	expect_format(x.d, x.n, "GroupCount 100");
	/* A group number beyond what is accepted. */
	memcpy(&x, &B, sizeof(x));
	x.d[32 + 8] = 0xff;
	x.d[32 + 9] = 0xff;
	expect_format(x.d, x.n, "group 65535");
	/* A record shorter than its relationship's header. */
	x.n = 0;
	g_put(&x, 0, 4);
	g_put(&x, 16, 4);
	g_zero(&x, 8);
	expect_format(x.d, x.n, "shorter than");
	/* A partial header, an empty buffer, an unknown cache type. */
	expect_format(B.d, 5, "partial record header");
	expect_format(B.d, 0, "no logical processor");
	memcpy(&x, &B, sizeof(x));
	x.d[second + 16] = 9;
	expect_format(x.d, x.n, "cache type 9");
	/* ActiveGroupCount beyond its record. */
	x.n = 0;
	{
		uint64_t a = 1;

		g_groups(&x, 1, &a);
		x.d[10] = 3;
	}
	expect_format(x.d, x.n, "ActiveGroupCount 3");
}

/* Every prefix and every single-byte corruption of a valid buffer parses or fails
 * with PMU_EFORMAT; nothing else (ASan builds check the memory side). */
static void test_never_crashes(void **state)
{
	struct pmu_topology *t;
	struct gbuf x;
	int err;

	(void)state;
	g_hybrid(&B);
	for (size_t len = 0; len <= B.n; len++) {
		err = pmuk_glpi_parse(B.d, len, &t);
		assert_true(err == 0 || err == PMU_EFORMAT);
		pmu_topology_free(t);
	}
	for (size_t i = 0; i < B.n; i += 3) {
		memcpy(&x, &B, sizeof(x));
		x.d[i] ^= 0xa5;
		err = pmuk_glpi_parse(x.d, x.n, &t);
		assert_true(err == 0 || err == PMU_EFORMAT);
		pmu_topology_free(t);
	}
	/* A relationship newer than the parser is skipped. */
	memcpy(&x, &B, sizeof(x));
	x.d[0] = 42;
	assert_int_equal(pmuk_glpi_parse(x.d, x.n, &t), 0);
	assert_int_equal(pmu_topology_core_count(t), 13);
	assert_int_equal(pmu_topology_cpu_count(t), 20);  /* CPUs 0-1 still come from the
							    * group record, without a core */
	assert_int_equal(pmu_topology_cpu_core(t, 0), -1);
	pmu_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_groups),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_multi_group_node),
		cmocka_unit_test(test_processor_index),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_never_crashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
