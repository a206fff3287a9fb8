/* SPDX-License-Identifier: MIT */
/* Topology model: sysfs fixture trees built here (NUMA + offline CPU, Intel hybrid,
 * ARM big.LITTLE), the JSON writer, and the live host against both backends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmukit/topology.h>
#include <pmukit/error.h>
#include "core/topology_build.h"
#include "linux/topology_linux.h"
#include "fixture_tree.h"

static char root[256];

#define put(rel, ...) fixture_writeln(root, rel, __VA_ARGS__)

static void cache(int cpu, int idx, int level, const char *type, const char *size, int ways,
		  const char *shared)
{
	static const char *dir = "sys/devices/system/cpu/cpu%d/cache/index%d/%s";
	char p[160];

	snprintf(p, sizeof(p), dir, cpu, idx, "level");
	put(p, "%d", level);
	snprintf(p, sizeof(p), dir, cpu, idx, "type");
	put(p, "%s", type);
	snprintf(p, sizeof(p), dir, cpu, idx, "size");
	put(p, "%s", size);
	snprintf(p, sizeof(p), dir, cpu, idx, "coherency_line_size");
	put(p, "64");
	snprintf(p, sizeof(p), dir, cpu, idx, "ways_of_associativity");
	put(p, "%d", ways);
	snprintf(p, sizeof(p), dir, cpu, idx, "shared_cpu_list");
	put(p, "%s", shared);
}

static void cpu_topo(int cpu, int pkg, int die, int core)
{
	static const char *dir = "sys/devices/system/cpu/cpu%d/topology/%s";
	char p[128];

	snprintf(p, sizeof(p), dir, cpu, "physical_package_id");
	put(p, "%d", pkg);
	snprintf(p, sizeof(p), dir, cpu, "die_id");
	put(p, "%d", die);
	snprintf(p, sizeof(p), dir, cpu, "core_id");
	put(p, "%d", core);
}

static int setup(void **state)
{
	(void)state;
	fixture_create(root, sizeof(root), "topo");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pmu_sysroot_set("");
	return fixture_remove(root);
}

/* 2 packages x 2 cores x 2 threads; CPU n is thread n/4 of core n%2 of package (n%4)/2.
 * CPU 7 is offline (no topology, no caches); 2 NUMA nodes, one per package. */
static void make_numa_tree(void)
{
	static const char *core_sib[] = { "0,4", "1,5", "2,6", "3" };
	static const char *pkg_sib[] = { "0-1,4-5", "2-3,6" };

	put("sys/devices/system/cpu/present", "0-7");
	put("sys/devices/system/cpu/online", "0-6");
	for (int c = 0; c < 7; c++) {
		int pkg = (c % 4) / 2;

		cpu_topo(c, pkg, 0, c % 2);
		cache(c, 0, 1, "Data", "32K", 8, core_sib[c % 4]);
		cache(c, 1, 1, "Instruction", "32K", 8, core_sib[c % 4]);
		cache(c, 2, 2, "Unified", "1024K", 16, core_sib[c % 4]);
		cache(c, 3, 3, "Unified", "16384K", 16, pkg_sib[pkg]);
	}
	put("sys/devices/system/node/node0/cpulist", "0-1,4-5");
	put("sys/devices/system/node/node0/meminfo",
	    "Node 0 MemTotal:        8388608 kB\nNode 0 MemFree:  100 kB");
	put("sys/devices/system/node/node0/distance", "10 21");
	put("sys/devices/system/node/node1/cpulist", "2-3,6-7");
	put("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:        4194304 kB");
	put("sys/devices/system/node/node1/distance", "21 10");
	put("sys/bus/event_source/devices/cpu/type", "4");
}

static void test_numa_fixture(void **state)
{
	struct pmu_topology *t;
	const struct pmu_topo_cpu *c;
	const struct pmu_topo_core *core;
	const struct pmu_topo_cache *k;
	const struct pmu_topo_node *n;
	const int *on;
	size_t non;

	(void)state;
	make_numa_tree();
	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmu_topology_load(&t), 0);
	assert_string_equal(pmu_topology_source(t), "sysfs");
	assert_int_equal(pmu_topology_package_count(t), 2);
	assert_int_equal(pmu_topology_die_count(t), 2);
	assert_int_equal(pmu_topology_core_count(t), 4);
	assert_int_equal(pmu_topology_cpu_count(t), 8);
	assert_int_equal(pmu_topology_node_count(t), 2);
	assert_false(pmu_topology_is_hybrid(t));
	on = pmu_topology_online_cpus(t, &non);
	assert_int_equal(non, 7);
	for (size_t i = 0; i < non; i++)
		assert_int_equal(on[i], (int)i);

	assert_int_equal(pmu_topology_package(t, 1)->id, 1);
	assert_int_equal(pmu_topology_package(t, 1)->ncores, 2);
	assert_int_equal(pmu_topology_package(t, 1)->ncpus, 3);
	assert_int_equal(pmu_topology_die(t, 0)->ncpus, 4);

	core = pmu_topology_core(t, 2); /* package 1, core 0: CPUs 2 and 6 */
	assert_int_equal(core->package, 1);
	assert_int_equal(core->id, 0);
	assert_int_equal(core->ncpus, 2);
	assert_int_equal(core->cpus[0], 2);
	assert_int_equal(core->cpus[1], 6);
	assert_string_equal(core->pmu, "cpu");
	assert_int_equal(pmu_topology_core(t, 3)->ncpus, 1);

	c = pmu_topology_cpu_by_id(t, 6);
	assert_non_null(c);
	assert_true(c->online);
	assert_int_equal(c->package, 1);
	assert_int_equal(c->die, 0);
	assert_int_equal(c->core, 0);
	assert_int_equal(c->core_index, 2);
	assert_int_equal(c->node, 1);
	assert_int_equal(c->smt, 1);
	assert_int_equal(c->type, PMU_CORE_UNIFORM);
	assert_string_equal(c->pmu, "cpu");
	assert_int_equal(pmu_topology_cpu_by_id(t, 5)->smt, 1);
	assert_int_equal(pmu_topology_cpu_by_id(t, 1)->smt, 0);

	c = pmu_topology_cpu_by_id(t, 7); /* offline: present, place unknown, node known */
	assert_non_null(c);
	assert_false(c->online);
	assert_int_equal(c->package, -1);
	assert_int_equal(c->core_index, -1);
	assert_int_equal(c->smt, -1);
	assert_int_equal(c->node, 1);
	assert_null(pmu_topology_cpu_by_id(t, 8));
	assert_int_equal(pmu_topology_cpu_package(t, 3), 1);
	assert_int_equal(pmu_topology_cpu_core(t, 3), 3);
	assert_int_equal(pmu_topology_cpu_node(t, 4), 0);
	assert_int_equal(pmu_topology_cpu_node(t, 99), -1);

	/* 4 x (L1d, L1i, L2) + 2 x L3, sorted by level, type, first CPU */
	assert_int_equal(pmu_topology_cache_count(t), 14);
	k = pmu_topology_cache(t, 0);
	assert_int_equal(k->level, 1);
	assert_int_equal(k->type, PMU_CACHE_DATA);
	assert_int_equal(k->size, 32768);
	assert_int_equal(k->line_size, 64);
	assert_int_equal(k->ways, 8);
	assert_int_equal(k->ncpus, 2);
	assert_int_equal(k->cpus[1], 4);
	assert_int_equal(pmu_topology_cache(t, 4)->type, PMU_CACHE_INSTRUCTION);
	assert_int_equal(pmu_topology_cache(t, 8)->level, 2);
	k = pmu_topology_cache(t, 13);
	assert_int_equal(k->level, 3);
	assert_int_equal(k->type, PMU_CACHE_UNIFIED);
	assert_int_equal(k->size, 16u << 20);
	assert_int_equal(k->ncpus, 3);
	assert_int_equal(k->cpus[0], 2);

	n = pmu_topology_node(t, 0);
	assert_int_equal(n->id, 0);
	assert_int_equal(n->memory, 8388608ull * 1024);
	assert_int_equal(n->ncpus, 4);
	assert_int_equal(pmu_topology_node(t, 1)->memory, 4194304ull * 1024);
	assert_int_equal(pmu_topology_node_distance(t, 0, 0), 10);
	assert_int_equal(pmu_topology_node_distance(t, 0, 1), 21);
	assert_int_equal(pmu_topology_node_distance(t, 1, 0), 21);
	assert_int_equal(pmu_topology_node_distance(t, 1, 1), 10);
	assert_int_equal(pmu_topology_node_distance(t, 2, 0), 0);
	pmu_topology_free(t);
}

static char *to_json(struct pmu_topology *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pmu_topology_write_json(t, f), 0);
	fclose(f);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_json_and_text(void **state)
{
	struct pmu_topology *t;
	char *js, *txt = NULL;
	size_t len;
	FILE *f;

	(void)state;
	make_numa_tree();
	pmu_sysroot_set(root);
	assert_int_equal(pmu_topology_load(&t), 0);
	js = to_json(t);
	for (const char *key = "packages\0dies\0cores\0cpus\0caches\0numa_nodes\0"; *key;
	     key += strlen(key) + 1) {
		char q[32];

		snprintf(q, sizeof(q), "\"%s\": [", key);
		assert_non_null(strstr(js, q));
	}
	assert_int_equal(count(js, "\"online\": true"), 7);
	assert_int_equal(count(js, "\"online\": false"), 1);
	assert_int_equal(count(js, "\"smt\": null"), 1);
	assert_int_equal(count(js, "\"memory_bytes\": 8589934592"), 1);
	assert_int_equal(count(js, "\"level\": 3"), 2);
	assert_int_equal(count(js, "\"numa_node\": 1"), 4);
	assert_int_equal(count(js, "\"pmu\": \"cpu\""), 12); /* 4 cores + 8 CPUs */
	assert_int_equal(js[0], '{');
	assert_int_equal(js[strlen(js) - 2], '}');
	free(js);

	f = open_memstream(&txt, &len);
	assert_int_equal(pmu_topology_write_text(t, f), 0);
	fclose(f);
	assert_non_null(strstr(txt, "2 packages, 2 dies, 4 cores, 8 CPUs (7 online), 2 NUMA nodes"));
	assert_non_null(strstr(txt, "offline CPUs: 7"));
	assert_non_null(strstr(txt, "0[2,6] 1[3]"));
	assert_non_null(strstr(txt, "core PMU: cpu (CPUs 0-7)\n"));
	assert_non_null(strstr(txt, "16 MiB"));
	assert_non_null(strstr(txt, " 21  10"));
	free(txt);
	pmu_topology_free(t);
}

/* Alder Lake-like: 4 SMT P-cores (core ids 0,4,8,12) + 4 E-cores sharing one L2;
 * no node directory (NUMA off), so one node comes from /proc/meminfo. */
static void test_hybrid_fixture(void **state)
{
	struct pmu_topology *t;
	const struct pmu_topo_cpu *c;
	char *js;

	(void)state;
	put("sys/devices/system/cpu/present", "0-11");
	put("sys/devices/system/cpu/online", "0-11");
	for (int i = 0; i < 12; i++) {
		int p = i < 8;
		char sib[16], self[8];

		snprintf(sib, sizeof(sib), "%d-%d", i & ~1, i | 1);
		snprintf(self, sizeof(self), "%d", i);
		cpu_topo(i, 0, 0, p ? (i / 2) * 4 : 16 + (i - 8));
		cache(i, 0, 1, "Data", p ? "48K" : "32K", p ? 12 : 8, p ? sib : self);
		cache(i, 1, 2, "Unified", p ? "1280K" : "2048K", p ? 10 : 16, p ? sib : "8-11");
		cache(i, 2, 3, "Unified", "12M", 12, "0-11");
	}
	put("sys/bus/event_source/devices/cpu_core/cpus", "0-7");
	put("sys/bus/event_source/devices/cpu_atom/cpus", "8-11");
	put("proc/meminfo", "MemTotal:       16384000 kB\nMemFree: 1 kB");
	pmu_sysroot_set(root);
	assert_int_equal(pmu_topology_load(&t), 0);
	assert_true(pmu_topology_is_hybrid(t));
	assert_int_equal(pmu_topology_package_count(t), 1);
	assert_int_equal(pmu_topology_core_count(t), 8);
	assert_int_equal(pmu_topology_cpu_count(t), 12);
	c = pmu_topology_cpu_by_id(t, 3);
	assert_int_equal(c->core, 4);
	assert_int_equal(c->smt, 1);
	assert_int_equal(c->type, PMU_CORE_PERFORMANCE);
	assert_int_equal(c->efficiency, 1);
	assert_string_equal(c->pmu, "cpu_core");
	c = pmu_topology_cpu_by_id(t, 9);
	assert_int_equal(c->core, 17);
	assert_int_equal(c->smt, 0);
	assert_int_equal(c->type, PMU_CORE_EFFICIENCY);
	assert_int_equal(c->efficiency, 0);
	assert_string_equal(c->pmu, "cpu_atom");
	assert_int_equal(pmu_topology_core(t, 7)->type, PMU_CORE_EFFICIENCY);
	assert_string_equal(pmu_topology_core(t, 0)->pmu, "cpu_core");
	/* L1d: 4 P + 4 E instances; L2: 4 P + one shared by the E-cores; one L3 */
	assert_int_equal(pmu_topology_cache_count(t), 8 + 5 + 1);
	assert_int_equal(pmu_topology_cache(t, 12)->ncpus, 4);
	assert_int_equal(pmu_topology_cache(t, 12)->size, 2048u << 10);
	assert_int_equal(pmu_topology_node_count(t), 1);
	assert_int_equal(pmu_topology_node(t, 0)->memory, 16384000ull * 1024);
	assert_int_equal(pmu_topology_node(t, 0)->ncpus, 12);
	assert_int_equal(pmu_topology_node_distance(t, 0, 0), 10);
	js = to_json(t);
	assert_int_equal(count(js, "\"core_type\": \"performance\""), 4 + 8);
	assert_int_equal(count(js, "\"core_type\": \"efficiency\""), 4 + 4);
	assert_non_null(strstr(js, "\"hybrid\": true"));
	free(js);
	pmu_topology_free(t);
}

/* ARM big.LITTLE: no hybrid PMU names, kinds come from cpu_capacity; no die_id. */
static void test_capacity_fixture(void **state)
{
	static const int caps[] = { 446, 446, 1024, 1024 };
	struct pmu_topology *t;
	char p[128];

	(void)state;
	put("sys/devices/system/cpu/present", "0-3");
	for (int i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/physical_package_id", i);
		put(p, "0");
		snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/core_id", i);
		put(p, "%d", i);
		snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/cpu_capacity", i);
		put(p, "%d", caps[i]);
	}
	put("sys/bus/event_source/devices/armv8_cortex_a53/cpus", "0-1");
	put("sys/bus/event_source/devices/armv8_cortex_a72/cpus", "2-3");
	pmu_sysroot_set(root);
	assert_int_equal(pmu_topology_load(&t), 0);
	assert_true(pmu_topology_is_hybrid(t));
	assert_int_equal(pmu_topology_cpu_count(t), 4);
	assert_true(pmu_topology_cpu(t, 3)->online); /* no online file: all online */
	assert_int_equal(pmu_topology_cpu(t, 0)->die, 0);
	assert_int_equal(pmu_topology_cpu(t, 1)->type, PMU_CORE_EFFICIENCY);
	assert_int_equal(pmu_topology_cpu(t, 1)->efficiency, 0);
	assert_int_equal(pmu_topology_cpu(t, 2)->type, PMU_CORE_PERFORMANCE);
	assert_int_equal(pmu_topology_cpu(t, 2)->efficiency, 1);
	assert_string_equal(pmu_topology_cpu(t, 1)->pmu, "armv8_cortex_a53");
	assert_string_equal(pmu_topology_core(t, 3)->pmu, "armv8_cortex_a72");
	assert_int_equal(pmu_topology_cache_count(t), 0);
	pmu_topology_free(t);
}

static void test_missing_sysfs(void **state)
{
	struct pmu_topology *t = (void *)1;

	(void)state;
	pmu_sysroot_set(root); /* empty tree */
	assert_int_equal(pmu_topology_load(&t), PMU_ENOTSUP);
	assert_null(t);
	assert_non_null(strstr(pmu_error_detail(), "present"));
}

static void test_cpulist(void **state)
{
	int *ids, v[] = { 0, 1, 2, 3, 8, 10, 11 };
	char buf[64];
	size_t n;

	(void)state;
	assert_int_equal(pmuk_cpulist_parse("8,0-3,10-11,2\n", &ids, &n), 0);
	assert_int_equal(n, 7);
	assert_memory_equal(ids, v, sizeof(v));
	free(ids);
	assert_int_equal(pmuk_cpulist_parse("", &ids, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(pmuk_cpulist_parse("3-1", &ids, &n), PMU_EFORMAT);
	assert_int_equal(pmuk_cpulist_parse("1,x", &ids, &n), PMU_EFORMAT);
	assert_int_equal(pmu_cpulist_format(v, 7, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-3,8,10-11");
	assert_int_equal(pmu_cpulist_format(v, 7, buf, 8), PMU_ERANGE);
	assert_string_equal(buf, "0-3...");
}

/* The live host: both backends agree with each other and with the kernel's lists. */
static void test_live(void **state)
{
	struct pmu_topology *t, *s;
	char buf[4096];
	int *ids;
	size_t n, non;
	FILE *f;

	(void)state;
	pmu_sysroot_set("");
	f = fopen("/sys/devices/system/cpu/present", "r");
	if (!f) {
		fprintf(stderr, "skip: no /sys/devices/system/cpu/present on this host\n");
		skip();
	}
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_int_equal(pmuk_cpulist_parse(buf, &ids, &n), 0);
	free(ids);
	assert_int_equal(pmu_topology_load(&t), 0);
	assert_int_equal(pmu_topology_cpu_count(t), n);
	assert_true(pmu_topology_cpu_count(t) >= (size_t)sysconf(_SC_NPROCESSORS_ONLN));
	pmu_topology_online_cpus(t, &non);
	assert_int_equal(non, (size_t)sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(pmuk_topo_read_list(&ids, &n, "/sys/devices/system/cpu/online"), 0);
	assert_int_equal(n, non);
	free(ids);
	assert_true(pmu_topology_package_count(t) >= 1);
	assert_true(pmu_topology_node_count(t) >= 1);

	assert_int_equal(pmuk_topology_load_sysfs(&s), 0);
	assert_int_equal(pmu_topology_cpu_count(s), pmu_topology_cpu_count(t));
	assert_int_equal(pmu_topology_core_count(s), pmu_topology_core_count(t));
	assert_int_equal(pmu_topology_package_count(s), pmu_topology_package_count(t));
	assert_int_equal(pmu_topology_node_count(s), pmu_topology_node_count(t));
	assert_int_equal(pmu_topology_cache_count(s), pmu_topology_cache_count(t));
	for (size_t i = 0; i < pmu_topology_cpu_count(t); i++) {
		const struct pmu_topo_cpu *a = pmu_topology_cpu(t, i), *b = pmu_topology_cpu(s, i);

		assert_int_equal(a->id, b->id);
		assert_int_equal(a->online, b->online);
		assert_int_equal(a->package, b->package);
		assert_int_equal(a->core, b->core);
		assert_int_equal(a->node, b->node);
		assert_int_equal(a->smt, b->smt);
		assert_string_equal(a->pmu, b->pmu);
	}
	for (size_t i = 0; i < pmu_topology_cache_count(t); i++) {
		assert_int_equal(pmu_topology_cache(t, i)->size, pmu_topology_cache(s, i)->size);
		assert_int_equal(pmu_topology_cache(t, i)->ncpus, pmu_topology_cache(s, i)->ncpus);
	}
	pmu_topology_free(s);
	pmu_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_numa_fixture, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_and_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hybrid_fixture, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capacity_fixture, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_sysfs, setup, teardown),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
