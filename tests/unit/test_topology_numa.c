/* SPDX-License-Identifier: MIT */
/* NUMA layouts as sysfs fixture trees read through PMUKIT_SYSROOT: two sockets with
 * sub-NUMA clustering (two nodes per package), a CXL memory-only node (memory, no
 * CPUs) and offline CPUs that no node lists; the model, the JSON and the text. */
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
#include "core/sysroot.h"
#include "fixture_tree.h"

static char root[256];

#define put(rel, ...) fixture_writeln(root, rel, __VA_ARGS__)

static int setup(void **state)
{
	(void)state;
	fixture_create(root, sizeof(root), "topo-numa");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pmu_sysroot_set("");
	return fixture_remove(root);
}

/* One core per CPU: package pkg, core id core; an L3 shared by the package. */
static void cpu(int c, int pkg, int core, const char *llc_cpus)
{
	char p[128];

	snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
	put(p, "%d", pkg);
	snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/die_id", c);
	put(p, "0");
	snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/core_id", c);
	put(p, "%d", core);
	snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/cache/index0/", c);
	for (const char *kv = "level=3\0type=Unified\0size=32768K\0coherency_line_size=64\0"
			      "ways_of_associativity=16\0"; *kv; kv += strlen(kv) + 1) {
		char f[160];
		const char *eq = strchr(kv, '=');

		snprintf(f, sizeof(f), "%s%.*s", p, (int)(eq - kv), kv);
		put(f, "%s", eq + 1);
	}
	snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/cache/index0/shared_cpu_list", c);
	put(p, "%s", llc_cpus);
}

static void node(int id, const char *cpus, unsigned long long kb, const char *dist)
{
	char p[96];

	snprintf(p, sizeof(p), "sys/devices/system/node/node%d/cpulist", id);
	put(p, "%s", cpus);
	snprintf(p, sizeof(p), "sys/devices/system/node/node%d/meminfo", id);
	put(p, "Node %d MemTotal:       %llu kB", id, kb);
	snprintf(p, sizeof(p), "sys/devices/system/node/node%d/distance", id);
	put(p, "%s", dist);
}

static struct pmu_topology *load(void)
{
	struct pmu_topology *t;

	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmu_topology_load(&t), 0);
	assert_string_equal(pmu_topology_source(t), "sysfs");
	return t;
}

static char *render(struct pmu_topology *t, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(json ? pmu_topology_write_json(t, f, 0) : pmu_topology_write_text(t, f), 0);
	fclose(f);
	return buf;
}

/* 2 packages x 4 cores, sub-NUMA clustering: nodes 0,1 on package 0 and 2,3 on
 * package 1, 11 between the halves of a package, 21 across packages. */
static void test_snc_two_sockets(void **state)
{
	static const int want_node[] = { 0, 0, 1, 1, 2, 2, 3, 3 };
	struct pmu_topology *t;
	char *js, *txt;

	(void)state;
	put("sys/devices/system/cpu/present", "0-7");
	put("sys/devices/system/cpu/online", "0-7");
	for (int c = 0; c < 8; c++)
		cpu(c, c / 4, c % 4, c < 4 ? "0-3" : "4-7");
	node(0, "0-1", 4194304, "10 11 21 21");
	node(1, "2-3", 4194304, "11 10 21 21");
	node(2, "4-5", 4194304, "21 21 10 11");
	node(3, "6-7", 4194304, "21 21 11 10");
	t = load();
	assert_int_equal(pmu_topology_package_count(t), 2);
	assert_int_equal(pmu_topology_node_count(t), 4);
	for (int c = 0; c < 8; c++) {
		assert_int_equal(pmu_topology_cpu_node(t, c), want_node[c]);
		assert_int_equal(pmu_topology_cpu_package(t, c), c / 4);
	}
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(pmu_topology_node(t, i)->id, (int)i);
		assert_int_equal(pmu_topology_node(t, i)->ncpus, 2);
		assert_int_equal(pmu_topology_node(t, i)->memory, 4ull << 30);
		for (size_t k = 0; k < 4; k++)
			assert_int_equal(pmu_topology_node_distance(t, i, k),
					 i == k ? 10 : i / 2 == k / 2 ? 11 : 21);
	}
	/* one L3 per package although each package holds two nodes */
	assert_int_equal(pmu_topology_cache_count(t), 2);
	assert_int_equal(pmu_topology_cache(t, 1)->ncpus, 4);
	js = render(t, 1);
	assert_non_null(strstr(js, "\"distances\":[11,10,21,21]"));
	assert_non_null(strstr(js, "{\"id\":3,\"memory_bytes\":4294967296,\"cpus\":[6,7]"));
	txt = render(t, 0);
	assert_non_null(strstr(txt, "2 packages, 2 dies, 8 cores, 8 CPUs (8 online), 4 NUMA nodes"));
	assert_non_null(strstr(txt, " 21  21  11  10"));
	free(js);
	free(txt);
	pmu_topology_free(t);
}

/* 4 CPUs on node 0 and a CXL expander as node 1: memory, no CPUs, farther away. */
static void test_cxl_memory_only(void **state)
{
	struct pmu_topology *t;
	const struct pmu_topo_node *n;
	char *js, *txt;

	(void)state;
	put("sys/devices/system/cpu/present", "0-3");
	put("sys/devices/system/cpu/online", "0-3");
	for (int c = 0; c < 4; c++)
		cpu(c, 0, c, "0-3");
	node(0, "0-3", 8388608, "10 24");
	node(1, "", 16777216, "24 10");
	t = load();
	assert_int_equal(pmu_topology_node_count(t), 2);
	n = pmu_topology_node(t, 1);
	assert_int_equal(n->id, 1);
	assert_int_equal(n->ncpus, 0);
	assert_int_equal(n->memory, 16ull << 30);
	assert_int_equal(pmu_topology_node(t, 0)->ncpus, 4);
	for (int c = 0; c < 4; c++)
		assert_int_equal(pmu_topology_cpu_node(t, c), 0);
	assert_int_equal(pmu_topology_node_distance(t, 0, 1), 24);
	js = render(t, 1);
	assert_non_null(strstr(js, "{\"id\":1,\"memory_bytes\":17179869184,\"cpus\":[],"
				   "\"distances\":[24,10]}"));
	txt = render(t, 0);
	assert_non_null(strstr(txt, "1 package, 1 die, 4 cores, 4 CPUs (4 online), 2 NUMA nodes"));
	/* the memory-only node: its memory, "-" for CPUs, its distances */
	assert_non_null(strstr(txt, "\n1         16 GiB  -                 24  10\n"));
	free(js);
	free(txt);
	pmu_topology_free(t);
}

/* 6 CPUs present, 2, 3 and 5 offline: the kernel lists only online CPUs in a node's
 * cpulist, so the offline ones have no node (null), and a node keeps its memory. */
static void test_offline_cpus(void **state)
{
	struct pmu_topology *t;
	const int *on;
	size_t non;
	char *js, *txt;

	(void)state;
	put("sys/devices/system/cpu/present", "0-5");
	put("sys/devices/system/cpu/online", "0-1,4");
	for (int c = 0; c < 6; c++)
		if (c == 0 || c == 1 || c == 4)
			cpu(c, c / 3, c % 3, c < 3 ? "0-1" : "4");
	node(0, "0-1", 2097152, "10 20");
	node(1, "4", 2097152, "20 10");
	t = load();
	assert_int_equal(pmu_topology_cpu_count(t), 6);
	on = pmu_topology_online_cpus(t, &non);
	assert_int_equal(non, 3);
	assert_int_equal(on[0], 0);
	assert_int_equal(on[2], 4);
	for (int c = 2; c < 6; c++) {
		const struct pmu_topo_cpu *x = pmu_topology_cpu_by_id(t, c);

		assert_non_null(x);
		assert_int_equal(x->online, c == 4);
		assert_int_equal(x->node, c == 4 ? 1 : -1);
		assert_int_equal(x->package, c == 4 ? 1 : -1);
	}
	assert_int_equal(pmu_topology_node(t, 1)->ncpus, 1);
	assert_int_equal(pmu_topology_package_count(t), 2);
	js = render(t, 1);
	assert_non_null(strstr(js, "{\"id\":5,\"online\":false,\"package\":null"));
	assert_non_null(strstr(js, "\"numa_node\":null"));
	txt = render(t, 0);
	assert_non_null(strstr(txt, "6 CPUs (3 online), 2 NUMA nodes"));
	assert_non_null(strstr(txt, "offline CPUs: 2-3,5"));
	free(js);
	free(txt);
	pmu_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_snc_two_sockets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cxl_memory_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offline_cpus, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
