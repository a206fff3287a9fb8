/* SPDX-License-Identifier: MIT */
/* Memory-controller PMUs for stat --per-node, on sysfs fixture trees: Intel
 * uncore_imc_N on two sockets and with sub-NUMA clustering, AMD amd_umc_N, amd_df
 * alone, a controller without events, none at all. The event specs found are parsed
 * back through pmu_event_parse on the same tree: the encodings are the PMU's. */
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

#include <pmukit/pmukit.h>
#include "linux/uncore_mc.h"
#include "fixture_tree.h"

static char root[256];

#define put(rel, ...) fixture_writeln(root, rel, __VA_ARGS__)
#define DEV "sys/bus/event_source/devices/"

static int setup(void **state)
{
	(void)state;
	fixture_create(root, sizeof(root), "uncore-mc");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pmu_sysroot_set("");
	return fixture_remove(root);
}

/* npkg packages of 4 CPUs; nodes_per_pkg nodes each (2: sub-NUMA clustering). */
static void cpus(int npkg, int nodes_per_pkg)
{
	char p[128];
	int ncpu = 4 * npkg;

	put("sys/devices/system/cpu/present", "0-%d", ncpu - 1);
	put("sys/devices/system/cpu/online", "0-%d", ncpu - 1);
	for (int c = 0; c < ncpu; c++) {
		snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
		put(p, "%d", c / 4);
		snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/core_id", c);
		put(p, "%d", c % 4);
	}
	for (int n = 0; n < npkg * nodes_per_pkg; n++) {
		int per = 4 / nodes_per_pkg;

		snprintf(p, sizeof(p), "sys/devices/system/node/node%d/cpulist", n);
		put(p, "%d-%d", n * per, n * per + per - 1);
		snprintf(p, sizeof(p), "sys/devices/system/node/node%d/meminfo", n);
		put(p, "Node %d MemTotal: 1048576 kB", n);
	}
}

static void pmu(const char *name, int type, const char *cpumask)
{
	char p[160];

	snprintf(p, sizeof(p), DEV "%s/type", name);
	put(p, "%d", type);
	snprintf(p, sizeof(p), DEV "%s/cpumask", name);
	put(p, "%s", cpumask);
	snprintf(p, sizeof(p), DEV "%s/format/event", name);
	put(p, "config:0-7");
}

/* Intel server IMC: CAS counts, 64 bytes each, said as a MiB scale. */
static void imc(const char *name, int type, const char *cpumask)
{
	char p[160];

	pmu(name, type, cpumask);
	snprintf(p, sizeof(p), DEV "%s/format/umask", name);
	put(p, "config:8-15");
	snprintf(p, sizeof(p), DEV "%s/events/cas_count_read", name);
	put(p, "event=0x04,umask=0x03");
	snprintf(p, sizeof(p), DEV "%s/events/cas_count_write", name);
	put(p, "event=0x04,umask=0x0c");
	for (int w = 0; w < 2; w++) {
		snprintf(p, sizeof(p), DEV "%s/events/cas_count_%s.scale", name, w ? "write" : "read");
		put(p, "6.103515625e-5");
		snprintf(p, sizeof(p), DEV "%s/events/cas_count_%s.unit", name, w ? "write" : "read");
		put(p, "MiB");
	}
}

static struct pmuk_mc *discover(size_t *n, char *why, size_t size)
{
	struct pmu_topology *t;
	struct pmuk_mc *m;

	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmu_topology_load(&t), 0);
	why[0] = '\0';
	assert_int_equal(pmuk_mc_discover(t, &m, n, why, size), 0);
	pmu_topology_free(t);
	return m;
}

/* The spec parses on the same tree to this type and config. */
static void assert_encodes(const char *spec, uint32_t type, uint64_t config)
{
	struct pmu_event_list *l;

	assert_int_equal(pmu_event_parse(spec, &l), 0);
	assert_int_equal(pmu_event_list_count(l), 1);
	assert_int_equal(pmu_event_list_get(l, 0)->type, type);
	assert_int_equal(pmu_event_list_get(l, 0)->config, config);
	pmu_event_list_free(l);
}

static void test_intel_two_sockets(void **state)
{
	struct pmuk_mc *m;
	size_t n;
	char why[400];

	(void)state;
	cpus(2, 1);
	imc("uncore_imc_0", 20, "0,4");
	imc("uncore_imc_1", 21, "0,4");
	pmu("uncore_imc_free_running_0", 30, "0,4"); /* not one of the CAS PMUs */
	pmu("uncore_cha_0", 31, "0,4");
	m = discover(&n, why, sizeof(why));
	assert_int_equal(n, 4);
	/* by node, then PMU: the CPU of each package counts its socket's controller */
	assert_string_equal(m[0].pmu, "uncore_imc_0");
	assert_int_equal(m[0].cpu, 0);
	assert_int_equal(m[0].node, 0);
	assert_string_equal(m[1].pmu, "uncore_imc_1");
	assert_int_equal(m[1].node, 0);
	assert_int_equal(m[2].cpu, 4);
	assert_int_equal(m[2].node, 1);
	assert_int_equal(m[2].package, 1);
	assert_int_equal(m[3].node, 1);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(m[i].package_nodes, 1);
		assert_true(m[i].read_bytes == 64.0 && m[i].write_bytes == 64.0);
	}
	assert_string_equal(m[0].read_ev, "uncore_imc_0/cas_count_read/");
	assert_string_equal(m[3].write_ev, "uncore_imc_1/cas_count_write/");
	assert_encodes(m[0].read_ev, 20, 0x0304);
	assert_encodes(m[3].write_ev, 21, 0x0c04);
	free(m);
}

/* Sub-NUMA clustering: two nodes per package, the cpumask still one CPU a package. */
static void test_intel_snc(void **state)
{
	struct pmuk_mc *m;
	size_t n;
	char why[400];

	(void)state;
	cpus(2, 2);
	imc("uncore_imc_0", 20, "0,4");
	m = discover(&n, why, sizeof(why));
	assert_int_equal(n, 2);
	assert_int_equal(m[0].node, 0);
	assert_int_equal(m[1].node, 2);
	assert_int_equal(m[0].package_nodes, 2);
	assert_int_equal(m[1].package_nodes, 2);
	free(m);
}

/* AMD UMC (Linux 6.9+): umc_cas_cmd, rdwrmask 1 = reads, 2 = writes. */
static void test_amd_umc(void **state)
{
	struct pmuk_mc *m;
	size_t n;
	char why[400];

	(void)state;
	cpus(1, 1);
	pmu("amd_umc_0", 40, "0");
	put(DEV "amd_umc_0/format/rdwrmask", "config:8-9");
	pmu("amd_umc_1", 41, "0");
	put(DEV "amd_umc_1/format/rdwrmask", "config:8-9");
	pmu("amd_df", 42, "0");
	m = discover(&n, why, sizeof(why));
	assert_int_equal(n, 2);
	assert_string_equal(m[0].pmu, "amd_umc_0");
	assert_int_equal(m[1].node, 0);
	assert_true(m[0].read_bytes == 64.0);
	assert_encodes(m[0].read_ev, 40, 0x10a);
	assert_encodes(m[1].write_ev, 41, 0x20a);
	free(m);
}

static void test_none_and_why(void **state)
{
	struct pmuk_mc *m;
	size_t n;
	char why[400];

	(void)state;
	cpus(1, 1);
	pmu("cpu", 4, "0-3");
	m = discover(&n, why, sizeof(why));
	assert_int_equal(n, 0);
	assert_null(m);
	assert_non_null(strstr(why, "no memory-controller PMU: /sys/bus/event_source/devices "
				    "lists no uncore_imc_*, amd_umc_* or amd_df"));
	/* amd_df alone: present, but no encoding */
	pmu("amd_df", 42, "0");
	m = discover(&n, why, sizeof(why));
	assert_int_equal(n, 0);
	assert_non_null(strstr(why, "only amd_df"));
	/* an IMC without CAS events */
	pmu("uncore_imc_0", 20, "0");
	m = discover(&n, why, sizeof(why));
	assert_int_equal(n, 0);
	assert_non_null(strstr(why, "uncore_imc_0 has no read/write CAS events"));
	/* a cpumask that is no CPU list is an error naming the file */
	imc("uncore_imc_0", 20, "bogus");
	{
		struct pmu_topology *t;

		assert_int_equal(pmu_topology_load(&t), 0);
		assert_int_equal(pmuk_mc_discover(t, &m, &n, why, sizeof(why)), PMU_EIO);
		assert_non_null(strstr(pmu_error_detail(), "uncore_imc_0/cpumask"));
		pmu_topology_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_intel_two_sockets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_intel_snc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_amd_umc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_none_and_why, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
