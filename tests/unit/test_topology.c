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
	assert_int_equal(pmu_topology_write_json(t, f, PMU_JSON_PRETTY), 0);
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
	/* flags 0: the same document on one line; an unknown bit is refused */
	{
		char *line = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&line, &len);

		assert_int_equal(pmu_topology_write_json(t, f, 0), 0);
		fclose(f);
		assert_non_null(strstr(line, "\"online\":true"));
		assert_ptr_equal(strchr(line, '\n'), line + len - 1);
		free(line);
		assert_int_equal(pmu_topology_write_json(t, stdout, 4), PMU_EINVAL);
	}
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

/* Arrow Lake-H: P-cores, E-cores and low-power E-cores, each with its own core PMU
 * (cpu_core, cpu_atom, cpu_lowpower). Efficiency classes rank the three kinds. */
static void test_three_kinds(void **state)
{
	struct pmu_topology *t;

	(void)state;
	put("sys/devices/system/cpu/present", "0-9");
	for (int i = 0; i < 10; i++)
		cpu_topo(i, 0, 0, i);
	put("sys/bus/event_source/devices/cpu_core/cpus", "0-3");
	put("sys/bus/event_source/devices/cpu_atom/cpus", "4-7");
	put("sys/bus/event_source/devices/cpu_lowpower/cpus", "8-9");
	pmu_sysroot_set(root);
	assert_int_equal(pmu_topology_load(&t), 0);
	assert_true(pmu_topology_is_hybrid(t));
	assert_int_equal(pmu_topology_cpu_by_id(t, 0)->type, PMU_CORE_PERFORMANCE);
	assert_int_equal(pmu_topology_cpu_by_id(t, 0)->efficiency, 2);
	assert_int_equal(pmu_topology_cpu_by_id(t, 4)->type, PMU_CORE_EFFICIENCY);
	assert_int_equal(pmu_topology_cpu_by_id(t, 4)->efficiency, 1);
	assert_int_equal(pmu_topology_cpu_by_id(t, 9)->type, PMU_CORE_EFFICIENCY);
	assert_int_equal(pmu_topology_cpu_by_id(t, 9)->efficiency, 0);
	assert_string_equal(pmu_topology_cpu_by_id(t, 9)->pmu, "cpu_lowpower");
	pmu_topology_free(t);
}

/* Only cpu_core registered (the other kind disabled): not a hybrid topology. */
static void test_one_hybrid_pmu(void **state)
{
	struct pmu_topology *t;

	(void)state;
	put("sys/devices/system/cpu/present", "0-3");
	for (int i = 0; i < 4; i++)
		cpu_topo(i, 0, 0, i);
	put("sys/bus/event_source/devices/cpu_core/cpus", "0-3");
	pmu_sysroot_set(root);
	assert_int_equal(pmu_topology_load(&t), 0);
	assert_false(pmu_topology_is_hybrid(t));
	assert_int_equal(pmu_topology_cpu_by_id(t, 2)->type, PMU_CORE_UNIFORM);
	assert_string_equal(pmu_topology_cpu_by_id(t, 2)->pmu, "cpu_core");
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

/* ---- hwloc and sysfs agree, on trees hwloc can read too (HWLOC_FSROOT) ---- */

/* Declared weak: present when the library was built with hwloc. */
int pmuk_topology_load_hwloc(struct pmu_topology **out) __attribute__((weak));

enum { SC_NUMA, SC_MEMONLY, SC_NODIE, SC_NONUMA, SC_CAPACITY };

/* A CPU set (bit i: CPU i) as a sysfs cpulist. */
static const char *set_list(unsigned set, char *buf, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < 32; i++)
		if (set >> i & 1)
			off += (size_t)snprintf(buf + off, n - off, "%s%d", off ? "," : "", i);
	return buf;
}

/* rel as a cpumask and rel_list as a cpulist, as topology/ has them. */
static void put_set(const char *rel, unsigned set)
{
	char rel2[200], list[64];

	put(rel, "%08x", set);
	snprintf(rel2, sizeof(rel2), "%s_list", rel);
	put(rel2, "%s", set_list(set, list, sizeof(list)));
}

/* 2 packages x 2 cores x 2 threads: CPU c is package (c%4)/2, core c%2; CPU 7 offline
 * (no topology, left out of its node's list as x86 does). Nodes 0 and 1 hold the
 * packages; SC_MEMONLY adds node 2 with memory only, nearest node 0. */
static void make_full_tree(int sc)
{
	static const char *const cdir = "sys/devices/system/cpu/cpu%d/%s";
	static const unsigned online = 0x7f;
	char p[160];

	put("sys/devices/system/cpu/present", "0-7");
	put("sys/devices/system/cpu/possible", "0-7");
	put("sys/devices/system/cpu/online", "0-6");
	put("sys/devices/system/cpu/offline", "7");
	for (int c = 0; c < 8; c++) {
		unsigned pkg = 0, sib = 0;

		for (int x = 0; x < 8; x++) {
			pkg |= (unsigned)((online >> x & 1) && (x % 4) / 2 == (c % 4) / 2) << x;
			sib |= (unsigned)((online >> x & 1) && (x % 4) / 2 == (c % 4) / 2 &&
					  x % 2 == c % 2) << x;
		}
		if (sc == SC_CAPACITY) {
			snprintf(p, sizeof(p), cdir, c, "cpu_capacity");
			put(p, "%d", (c % 4) / 2 ? 1024 : 446);
		}
		if (c == 7)
			continue;
		snprintf(p, sizeof(p), cdir, c, "topology/physical_package_id");
		put(p, "%d", (c % 4) / 2);
		snprintf(p, sizeof(p), cdir, c, "topology/core_id");
		put(p, "%d", c % 2);
		if (sc != SC_NODIE) {
			snprintf(p, sizeof(p), cdir, c, "topology/die_id");
			put(p, "0");
			snprintf(p, sizeof(p), cdir, c, "topology/die_cpus");
			put_set(p, pkg);
		}
		snprintf(p, sizeof(p), cdir, c, "topology/thread_siblings");
		put_set(p, sib);
		snprintf(p, sizeof(p), cdir, c, "topology/core_cpus");
		put_set(p, sib);
		snprintf(p, sizeof(p), cdir, c, "topology/core_siblings");
		put_set(p, pkg);
		snprintf(p, sizeof(p), cdir, c, "topology/package_cpus");
		put_set(p, pkg);
		for (int idx = 0; idx < 4; idx++) {
			static const char *const type[] = { "Data", "Instruction", "Unified", "Unified" };
			static const int level[] = { 1, 1, 2, 3 }, kb[] = { 32, 32, 1024, 16384 };
			static const int ways[] = { 8, 8, 16, 16 };
			char base[96], q[160], list[64];
			unsigned shared = idx == 3 ? pkg : sib;

			snprintf(base, sizeof(base), "sys/devices/system/cpu/cpu%d/cache/index%d", c, idx);
#define CACHE_PUT(name, ...) (snprintf(q, sizeof(q), "%s/%s", base, name), put(q, __VA_ARGS__))
			CACHE_PUT("level", "%d", level[idx]);
			CACHE_PUT("type", "%s", type[idx]);
			CACHE_PUT("size", "%dK", kb[idx]);
			CACHE_PUT("ways_of_associativity", "%d", ways[idx]);
			CACHE_PUT("coherency_line_size", "64");
			CACHE_PUT("number_of_sets", "%d", kb[idx] * 1024 / (ways[idx] * 64));
			CACHE_PUT("physical_line_partition", "1");
			CACHE_PUT("shared_cpu_map", "%08x", shared);
			CACHE_PUT("shared_cpu_list", "%s", set_list(shared, list, sizeof(list)));
#undef CACHE_PUT
		}
	}
	if (sc != SC_NONUMA) {
		static const unsigned cpus[] = { 0x33, 0x4c, 0 };
		static const char *const dist[] = { "10 21 17", "21 10 28", "17 28 10" };
		static const int kb[] = { 8388608, 4194304, 2097152 };
		int nn = sc == SC_MEMONLY ? 3 : 2;

		for (int n = 0; n < nn; n++) {
			char q[160];

			snprintf(q, sizeof(q), "sys/devices/system/node/node%d/cpumap", n);
			put(q, "%08x", cpus[n]);
			snprintf(q, sizeof(q), "sys/devices/system/node/node%d/cpulist", n);
			put(q, "%s", n == 0 ? "0-1,4-5" : n == 1 ? "2-3,6" : "");
			snprintf(q, sizeof(q), "sys/devices/system/node/node%d/meminfo", n);
			put(q, "Node %d MemTotal:       %d kB\nNode %d MemFree:   100 kB", n, kb[n], n);
			snprintf(q, sizeof(q), "sys/devices/system/node/node%d/distance", n);
			put(q, "%.*s", nn * 3 - 1, dist[n]);
		}
		put("sys/devices/system/node/online", "0-%d", nn - 1);
		put("sys/devices/system/node/possible", "0-%d", nn - 1);
		put("sys/devices/system/node/has_cpu", "0-1");
		put("sys/devices/system/node/has_memory", "0-%d", nn - 1);
	}
	put("proc/meminfo", "MemTotal:       16384000 kB\nMemFree: 1 kB");
	put("sys/bus/event_source/devices/cpu/type", "4");
}

/* Both backends read the same tree; their JSON differs only in "source". */
static void test_hwloc_agrees(void **state)
{
	static const char *const names[] = { "two NUMA nodes", "a memory-only node", "no die_id",
					     "no NUMA", "cpu_capacity classes" };

	(void)state;
	if (!pmuk_topology_load_hwloc) {
		fprintf(stderr, "skip: pmukit is built without hwloc\n");
		skip();
	}
	for (int sc = SC_NUMA; sc <= SC_CAPACITY; sc++) {
		struct pmu_topology *h, *s;
		char *jh, *js, *p;

		fixture_remove(root);
		fixture_mkdir(root, "");
		make_full_tree(sc);
		pmu_sysroot_set(root);
		setenv("HWLOC_FSROOT", root, 1);
		assert_int_equal(pmuk_topology_load_hwloc(&h), 0);
		unsetenv("HWLOC_FSROOT");
		assert_int_equal(pmuk_topology_load_sysfs(&s), 0);
		jh = to_json(h);
		js = to_json(s);
		assert_non_null(p = strstr(jh, "\"hwloc\""));
		memcpy(p, "\"sysfs\"", 7);
		if (strcmp(jh, js)) {
			size_t at = 0;

			while (jh[at] == js[at])
				at++;
			at = at > 120 ? at - 120 : 0;
			fail_msg("%s: hwloc and sysfs disagree at byte %zu:\nhwloc: %.200s\n"
				 "sysfs: %.200s", names[sc], at, jh + at, js + at);
		}
		/* What both must say: the memory-only node has no CPU, and CPUs keep theirs. */
		assert_int_equal(pmu_topology_cpu_node(s, 0), 0);
		assert_int_equal(pmu_topology_cpu_node(s, 7), sc == SC_NONUMA ? 0 : -1);
		if (sc == SC_MEMONLY) {
			assert_int_equal(pmu_topology_node_count(s), 3);
			assert_int_equal(pmu_topology_node(s, 2)->ncpus, 0);
			assert_int_equal(pmu_topology_node(s, 2)->memory, 2097152ull * 1024);
			assert_int_equal(pmu_topology_node_distance(s, 2, 0), 17);
		}
		if (sc == SC_CAPACITY) {
			assert_int_equal(pmu_topology_cpu_by_id(s, 7)->type, PMU_CORE_PERFORMANCE);
			assert_int_equal(pmu_topology_cpu_by_id(s, 0)->type, PMU_CORE_EFFICIENCY);
		}
		free(jh);
		free(js);
		pmu_topology_free(h);
		pmu_topology_free(s);
	}
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
	/* ids beyond int would wrap to negative CPU numbers (3000000000 -> -1294967296) */
	assert_int_equal(pmuk_cpulist_parse("3000000000", &ids, &n), PMU_EFORMAT);
	assert_int_equal(pmuk_cpulist_parse("4294967295", &ids, &n), PMU_EFORMAT);
	assert_int_equal(pmuk_cpulist_parse("0-2147483648", &ids, &n), PMU_EFORMAT);
	assert_int_equal(pmuk_cpulist_parse("-1", &ids, &n), PMU_EFORMAT);
	assert_int_equal(pmuk_cpulist_parse("1- 3", &ids, &n), PMU_EFORMAT);
	assert_int_equal(pmuk_cpulist_parse("+1", &ids, &n), PMU_EFORMAT);
	assert_int_equal(pmuk_cpulist_parse("2147483647", &ids, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], 2147483647);
	free(ids);
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
		cmocka_unit_test_setup_teardown(test_three_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_hybrid_pmu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hwloc_agrees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_sysfs, setup, teardown),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
