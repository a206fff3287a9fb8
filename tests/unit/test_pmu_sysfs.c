/* SPDX-License-Identifier: MIT */
/* PMU enumeration against fixture sysfs trees (x86, hybrid, arm64, no PMU). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <libgen.h>
#include <pmukit/pmukit.h>
#include "linux/pmu_sysfs.h"
#include "pmu_fixture.h"

static void test_format_parse(void **state)
{
	struct pmuk_format f;
	uint64_t cfg[PMUK_CONFIG_WORDS] = { 0, 0, 0, 0 };

	(void)state;
	assert_int_equal(pmuk_format_parse("config:0-7,21", &f), 0);
	assert_int_equal(f.word, 0);
	assert_true(f.mask == (0xffULL | 1ULL << 21));
	assert_int_equal(pmuk_format_parse("config1:0-15", &f), 0);
	assert_int_equal(f.word, 1);
	assert_true(f.mask == 0xffffULL);
	assert_int_equal(pmuk_format_parse("config2:63", &f), 0);
	assert_int_equal(f.word, 2);
	assert_true(f.mask == 1ULL << 63);
	assert_int_equal(pmuk_format_parse("config:0-63", &f), 0);
	assert_true(f.mask == ~0ULL);
	assert_int_equal(pmuk_format_parse("foo:1", &f), PMU_EFORMAT);
	assert_int_equal(pmuk_format_parse("config:7-3", &f), PMU_EFORMAT);
	assert_int_equal(pmuk_format_parse("config:64", &f), PMU_EFORMAT);
	assert_int_equal(pmuk_format_parse("config:", &f), PMU_EFORMAT);
	assert_int_equal(pmuk_format_parse("config:1,", &f), PMU_EFORMAT);
	assert_int_equal(pmuk_format_parse("config:1x", &f), PMU_EFORMAT);
	assert_int_equal(pmuk_format_parse("config: 1", &f), PMU_EFORMAT);
	assert_int_equal(pmuk_format_parse("config:+1", &f), PMU_EFORMAT);
	assert_int_equal(pmuk_format_parse("config:1--3", &f), PMU_EFORMAT);
	assert_int_equal(pmuk_format_parse("config4:1", &f), PMU_EFORMAT);
	assert_int_equal(pmuk_format_parse("config3:0-63", &f), 0); /* Linux 6.3+ */
	assert_int_equal(f.word, 3);
	assert_true(f.mask == ~0ULL);
	assert_int_equal(pmuk_format_parse("config1:0-7,32-35\n", &f), 0);
	assert_true(f.word == 1 && f.mask == (0xffULL | 0xfULL << 32));
	assert_int_equal(pmuk_format_apply(&f, 0xabc, cfg), 0);
	assert_true(cfg[1] == (0xbcULL | 0xaULL << 32) && cfg[0] == 0);
	cfg[1] = 0;

	/* A value's bits fill the format's bits low to high, across the gap. */
	assert_int_equal(pmuk_format_parse("config:0-7,21", &f), 0);
	assert_int_equal(pmuk_format_apply(&f, 0x1ff, cfg), 0);
	assert_true(cfg[0] == (0xffULL | 1ULL << 21));
	assert_int_equal(pmuk_format_apply(&f, 0x200, cfg), PMU_ERANGE);
	assert_int_equal(pmuk_format_apply(&f, 0x3, cfg), 0);
	assert_true(cfg[0] == 0x3); /* earlier bits of the same field are replaced */
}

static void test_x86(void **state)
{
	char *root = pmu_fixture_make("x86");
	struct pmu_device *v, d, cores[4];
	char (*names)[64], path[512];
	int n;

	(void)state;
	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmuk_pmu_scan(&v, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(v[0].name, "cpu");
	assert_string_equal(v[1].name, "msr");
	assert_string_equal(v[2].name, "power");
	assert_string_equal(v[3].name, "software");
	assert_string_equal(v[4].name, "tracepoint");
	assert_true(v[0].is_core);
	assert_int_equal(v[0].type, 4);
	assert_false(v[1].is_core);
	assert_false(v[2].is_core);
	assert_string_equal(v[2].cpus, "0");
	assert_int_equal(v[3].type, 1);
	free(v);

	/* The list is kept per sysroot, yet a PMU added to the tree (or removed) is seen. */
	fx_write(root, DEV "breakpoint/type", "5");
	assert_int_equal(pmuk_pmu_scan(&v, &n), 0);
	assert_int_equal(n, 6);
	assert_string_equal(v[0].name, "breakpoint");
	free(v);
	assert_int_equal(pmu_sysroot_set("/nonexistent-pmukit-root"), 0);
	assert_int_equal(pmuk_pmu_scan(&v, &n), 0);
	assert_int_equal(n, 0);
	assert_null(v);
	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmuk_pmu_scan(&v, &n), 0);
	assert_int_equal(n, 6);
	free(v);
	snprintf(path, sizeof(path), "%s/" DEV "breakpoint/type", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dirname(path)), 0);
	assert_int_equal(pmuk_pmu_scan(&v, &n), 0);
	assert_int_equal(n, 5);
	free(v);

	assert_int_equal(pmu_device_core_list(cores, 4), 1);
	assert_string_equal(cores[0].name, "cpu");
	/* libpfm4 only knows the counter budget when it detects a core PMU on this host. */
	assert_true(cores[0].gp_counters == -1 || cores[0].gp_counters > 0);
	assert_int_equal(pmu_device_lookup("msr", &d), 0);
	assert_int_equal(d.type, 10);
	assert_int_equal(pmu_device_lookup("nope", &d), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "no PMU named 'nope'"));
	assert_int_equal(pmu_device_lookup("../msr", &d), PMU_ENOENT);

	struct pmuk_format *f;
	assert_int_equal(pmuk_pmu_formats("cpu", &f, &n), 0);
	assert_int_equal(n, 7);
	free(f);
	assert_int_equal(pmuk_pmu_alias_names("power", &names, &n), 0);
	assert_int_equal(n, 1); /* .scale and .unit describe energy-pkg, they are not events */
	assert_string_equal(names[0], "energy-pkg");
	free(names);
	char body[128];
	assert_int_equal(pmuk_pmu_alias("cpu", "mem-loads", body, sizeof(body)), 0);
	assert_string_equal(body, "event=0xcd,umask=0x1,ldlat=3");
	assert_int_equal(pmuk_pmu_alias("cpu", "nope", body, sizeof(body)), PMU_ENOENT);
	pmu_fixture_free(root);
}

static void test_hybrid(void **state)
{
	char *root = pmu_fixture_make("hybrid");
	struct pmu_device cores[4];

	(void)state;
	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmu_device_core_list(cores, 4), 2);
	assert_string_equal(cores[0].name, "cpu_atom");
	assert_int_equal(cores[0].type, 10);
	assert_string_equal(cores[0].cpus, "8-15");
	assert_string_equal(cores[1].name, "cpu_core");
	assert_int_equal(cores[1].type, 4);
	assert_string_equal(cores[1].cpus, "0-7");
	/* The count is returned even when fewer entries fit. */
	assert_int_equal(pmu_device_core_list(cores, 1), 2);
	assert_int_equal(pmu_device_core_list(NULL, 0), 2);
	pmu_fixture_free(root);
}

static void test_arm64(void **state)
{
	char *root = pmu_fixture_make("arm64");
	struct pmu_device cores[2];

	(void)state;
	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmu_device_core_list(cores, 2), 1);
	assert_string_equal(cores[0].name, "armv8_pmuv3_0");
	assert_int_equal(cores[0].type, 8);
	assert_string_equal(cores[0].cpus, "0-3");
	pmu_fixture_free(root);
}

static void test_no_pmu(void **state)
{
	char *root = pmu_fixture_make("none");
	struct pmu_device d;

	(void)state;
	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmu_device_core_list(NULL, 0), 0);
	assert_int_equal(pmu_device_lookup("cpu", &d), PMU_ENOENT);
	pmu_fixture_free(root);
	/* No sysfs at all: no PMUs, not an error. */
	assert_int_equal(pmu_sysroot_set("/nonexistent-pmukit-root"), 0);
	assert_int_equal(pmu_device_core_list(NULL, 0), 0);
}

static const struct pmu_event_info *find_info(const struct pmu_event_info *v, size_t n,
					     const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* The listing on fixture hosts: usability follows the core PMUs, aliases and
 * tracepoints come from the tree. */
static void test_catalog(void **state)
{
	char *root = pmu_fixture_make("hybrid");
	const struct pmu_event_info *e;
	struct pmu_event_info *v;
	size_t n;

	(void)state;
	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmu_event_catalog(NULL, &v, &n), 0);
	assert_non_null(e = find_info(v, n, "cycles"));
	assert_int_equal(e->kind, PMU_EVENT_HARDWARE);
	assert_true(e->usable);
	assert_string_equal(e->pmu, "cpu_atom,cpu_core");
	assert_non_null(e = find_info(v, n, "cpu_core/mem-loads/"));
	assert_non_null(strstr(e->desc, "event=0xcd,umask=0x1,ldlat=3"));
	assert_non_null(e = find_info(v, n, "sched:sched_switch"));
	assert_int_equal(e->kind, PMU_EVENT_TRACEPOINT);
	assert_non_null(e = find_info(v, n, "TotalIssues"));
	assert_non_null(strstr(e->desc, "alias of instructions (Windows profile source name)"));
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1].kind <= v[i].kind);
	pmu_event_catalog_free(v);
	pmu_fixture_free(root);

	root = pmu_fixture_make("none");
	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmu_event_catalog("*-load-misses", &v, &n), 0);
	assert_true(n >= 7);
	for (size_t i = 0; i < n; i++) {
		assert_false(v[i].usable);
		assert_non_null(strstr(v[i].reason, "no hardware PMU: "));
	}
	pmu_event_catalog_free(v);
	assert_int_equal(pmu_event_catalog("TASK-clock", &v, &n), 0);
	assert_int_equal(n, 1);
	assert_true(v[0].usable);
	pmu_event_catalog_free(v);
	assert_int_equal(pmu_event_catalog("sched", &v, &n), 0);
	assert_int_equal(n, 1); /* only the line saying tracefs is not mounted */
	assert_non_null(strstr(v[0].reason, "mount -t tracefs"));
	pmu_event_catalog_free(v);
	pmu_fixture_free(root);
}

static void test_host(void **state)
{
	struct pmu_device d;

	(void)state;
	assert_int_equal(pmu_sysroot_set(""), 0);
	assert_true(pmu_device_core_list(NULL, 0) >= 0);
	if (access("/sys/bus/event_source/devices/software/type", R_OK)) {
		fprintf(stderr, "skip host part: no /sys/bus/event_source/devices/software\n");
		skip();
	}
	assert_int_equal(pmu_device_lookup("software", &d), 0);
	assert_int_equal(d.type, 1);
	assert_false(d.is_core);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse), cmocka_unit_test(test_x86),
		cmocka_unit_test(test_hybrid), cmocka_unit_test(test_arm64),
		cmocka_unit_test(test_no_pmu), cmocka_unit_test(test_catalog),
		cmocka_unit_test(test_host),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
