/* SPDX-License-Identifier: MIT */
/* OS CPU-time counters on Linux against fixture /proc/stat trees: USER_HZ ticks to
 * ns, percentages of an interval (the pdh-math.md 1.3 example), backward steps kept
 * at the high-water mark, cpufreq, cpuidle states, CPUs appearing, malformed files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include <pmukit/error.h>
#include <pmukit/oscounters.h>
#include <pmukit/topology.h>
#include "core/cpustat.h"
#include "fixture_tree.h"


static char root[128];
static long hz;

static int setup(void **state)
{
	(void)state;
	hz = sysconf(_SC_CLK_TCK);
	fixture_create(root, sizeof(root), "cpustat");
	assert_int_equal(pmu_sysroot_set(root), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pmu_sysroot_set("");
	return fixture_remove(root);
}

static uint64_t ns(uint64_t ticks)
{
	return ticks * 1000000000ull / (uint64_t)hz;
}

static void proc_stat(const char *cpu_lines)
{
	fixture_write(root, "proc/stat", "cpu  1 2 3 4 5 6 7 8 0 0\n%s"
		      "intr 1234 5 6 7 8\nctxt 99\nbtime 1700000000\nprocesses 5\n", cpu_lines);
}

/* shared/docs/pdh-math.md 1.3: idle 37368 -> 37418 over 100 ticks is 50 % idle. */
static void test_interval(void **state)
{
	struct pmu_cpustat *s;
	struct pmu_cpustat_cpu c, t;

	(void)state;
	proc_stat("cpu0 9889 0 5130 37368 197 0 51 369 0 0\n"
		  "cpu1 100 10 200 1000 0 5 5 0 0 0\n");
	assert_int_equal(pmu_cpustat_open(NULL, &s), 0);
	assert_string_equal(pmu_cpustat_source(s), "/proc/stat");
	assert_int_equal(pmu_cpustat_cpu_count(s), 2);
	assert_int_equal(pmu_cpustat_read(s, 0, &c), 0);
	assert_int_equal(c.cpu, 0);
	assert_int_equal(c.ns[PMU_CPUTIME_USER], ns(9889));
	assert_int_equal(c.ns[PMU_CPUTIME_SYSTEM], ns(5130));
	assert_int_equal(c.ns[PMU_CPUTIME_IDLE], ns(37368));
	assert_int_equal(c.ns[PMU_CPUTIME_STEAL], ns(369));
	assert_int_equal(c.has, (1u << PMU_CPUTIME_COUNT) - 1);
	assert_int_equal(c.parked, -1);
	assert_true(c.freq_mhz == 0);
	/* Since boot after one sample. */
	assert_int_equal(c.interval_ns, ns(9889 + 5130 + 37368 + 197 + 51 + 369));

	/* One second later: +25 user, +15 system, +50 idle, +10 steal. */
	proc_stat("cpu0 9914 0 5145 37418 197 0 51 379 0 0\n"
		  "cpu1 100 10 200 1100 0 5 5 0 0 0\n");
	assert_int_equal(pmu_cpustat_sample(s), 0);
	assert_int_equal(pmu_cpustat_read(s, 0, &c), 0);
	assert_int_equal(c.interval_ns, ns(100));
	assert_true(c.percent[PMU_CPUTIME_IDLE] > 49.999 && c.percent[PMU_CPUTIME_IDLE] < 50.001);
	assert_true(c.percent[PMU_CPUTIME_USER] > 24.999 && c.percent[PMU_CPUTIME_USER] < 25.001);
	assert_true(c.busy_percent > 49.999 && c.busy_percent < 50.001);
	assert_int_equal(pmu_cpustat_read(s, 1, &c), 0);
	assert_true(c.percent[PMU_CPUTIME_IDLE] > 99.999 && c.busy_percent < 0.001);
	/* Both CPUs: 200 ticks, 150 idle. */
	assert_int_equal(pmu_cpustat_total(s, &t), 0);
	assert_int_equal(t.cpu, -1);
	assert_int_equal(t.interval_ns, ns(200));
	assert_true(t.percent[PMU_CPUTIME_IDLE] > 74.999 && t.percent[PMU_CPUTIME_IDLE] < 75.001);
	assert_int_equal(t.ns[PMU_CPUTIME_IDLE], ns(37418 + 1100));
	assert_int_equal(pmu_cpustat_read(s, 2, &c), PMU_ERANGE);
	pmu_cpustat_close(s);
}

/* A counter stepping back keeps its high-water mark; old kernels give 4 fields. */
static void test_backwards_and_short(void **state)
{
	struct pmu_cpustat *s;
	struct pmu_cpustat_cpu c;

	(void)state;
	proc_stat("cpu0 100 0 100 1000\n");
	assert_int_equal(pmu_cpustat_open(NULL, &s), 0);
	assert_int_equal(pmu_cpustat_read(s, 0, &c), 0);
	assert_int_equal(c.has, 0xfu);
	proc_stat("cpu0 150 0 100 990\n");
	assert_int_equal(pmu_cpustat_sample(s), 0);
	assert_int_equal(pmu_cpustat_read(s, 0, &c), 0);
	assert_int_equal(c.ns[PMU_CPUTIME_IDLE], ns(1000));
	assert_true(c.percent[PMU_CPUTIME_USER] > 99.999);
	assert_int_equal(c.interval_ns, ns(50));
	pmu_cpustat_close(s);
}

/* CPUs sorted by id; a CPU coming online has no interval yet: since boot. */
static void test_cpus_and_freq(void **state)
{
	struct pmu_cpustat *s;
	struct pmu_cpustat_cpu c, t;

	(void)state;
	proc_stat("cpu2 10 0 10 80 0 0 0 0 0 0\ncpu0 10 0 10 80 0 0 0 0 0 0\n");
	fixture_writeln(root, "sys/devices/system/cpu/cpu2/cpufreq/scaling_cur_freq", "2995000");
	assert_int_equal(pmu_cpustat_open(NULL, &s), 0);
	assert_int_equal(pmu_cpustat_cpu_count(s), 2);
	assert_int_equal(pmu_cpustat_read(s, 0, &c), 0);
	assert_int_equal(c.cpu, 0);
	assert_true(c.freq_mhz == 0);
	assert_int_equal(pmu_cpustat_read(s, 1, &c), 0);
	assert_int_equal(c.cpu, 2);
	assert_true(c.freq_mhz > 2994.9 && c.freq_mhz < 2995.1);
	proc_stat("cpu0 20 0 10 170 0 0 0 0 0 0\ncpu1 5 0 5 10 0 0 0 0 0 0\n"
		  "cpu2 60 0 10 130 0 0 0 0 0 0\n");
	assert_int_equal(pmu_cpustat_sample(s), 0);
	assert_int_equal(pmu_cpustat_cpu_count(s), 3);
	assert_int_equal(pmu_cpustat_read(s, 1, &c), 0);
	assert_int_equal(c.cpu, 1);
	assert_int_equal(c.interval_ns, ns(20));
	/* The total leaves the new CPU out: cpu0 100 ticks (10 busy), cpu2 100 (50 busy). */
	assert_int_equal(pmu_cpustat_total(s, &t), 0);
	assert_int_equal(t.interval_ns, ns(200));
	assert_true(t.busy_percent > 29.999 && t.busy_percent < 30.001);
	assert_true(t.freq_mhz > 2994.9 && t.freq_mhz < 2995.1);
	pmu_cpustat_close(s);
}

static void test_bad_files(void **state)
{
	struct pmu_cpustat *s = (void *)1;

	(void)state;
	assert_int_equal(pmu_cpustat_open(NULL, &s), PMU_ENOENT);
	assert_null(s);
	assert_non_null(strstr(pmu_error_detail(), "proc"));
	proc_stat("");
	assert_int_equal(pmu_cpustat_open(NULL, &s), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "no cpuN lines"));
	proc_stat("cpu0 1 2\n");
	assert_int_equal(pmu_cpustat_open(NULL, &s), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "at least 4"));
	proc_stat("cpu0x 1 2 3 4\n");
	assert_int_equal(pmu_cpustat_open(NULL, &s), PMU_EFORMAT);
	/* A failed sample keeps the last good one. */
	proc_stat("cpu0 1 2 3 4\n");
	assert_int_equal(pmu_cpustat_open(NULL, &s), 0);
	proc_stat("cpu0 1\n");
	assert_int_equal(pmu_cpustat_sample(s), PMU_EFORMAT);
	assert_int_equal(pmu_cpustat_cpu_count(s), 1);
	proc_stat("cpu0 2 2 3 4\n");
	assert_int_equal(pmu_cpustat_sample(s), 0);
	pmu_cpustat_close(s);
	assert_null(pmu_cputime_name(PMU_CPUTIME_COUNT));
	assert_string_equal(pmu_cputime_name(PMU_CPUTIME_SOFTIRQ), "softirq");
}

static void idle_state(int cpu, int k, const char *name, int lat, uint64_t usage, uint64_t us,
		       int disable)
{
	char d[96], f[128];
	static const char *const file[] = { "name", "latency", "usage", "time", "disable" };
	char v[5][32];

	snprintf(d, sizeof(d), "sys/devices/system/cpu/cpu%d/cpuidle/state%d", cpu, k);
	snprintf(v[0], sizeof(v[0]), "%s", name);
	snprintf(v[1], sizeof(v[1]), "%d", lat);
	snprintf(v[2], sizeof(v[2]), "%llu", (unsigned long long)usage);
	snprintf(v[3], sizeof(v[3]), "%llu", (unsigned long long)us);
	snprintf(v[4], sizeof(v[4]), "%d", disable);
	for (int i = 0; i < 5; i++) {
		snprintf(f, sizeof(f), "%s/%s", d, file[i]);
		fixture_writeln(root, f, "%s", v[i]);
	}
}

/* cpuidle: names, latency, the disable knob; entries and residency of the interval
 * (percent of the wall clock between the samples); a state that steps back keeps
 * its high-water mark; a renamed state starts from boot; an unreadable state ends
 * the list; a CPU without cpuidle has none. */
static void test_idle_states(void **state)
{
	struct pmu_cpustat *s;
	struct pmu_idle_state st;
	uint64_t wall;

	(void)state;
	proc_stat("cpu0 10 0 10 80 0 0 0 0 0 0\ncpu1 10 0 10 80 0 0 0 0 0 0\n"
		  "cpu2 10 0 10 80 0 0 0 0 0 0\n");
	idle_state(0, 0, "POLL", 0, 5, 100, 0);
	idle_state(0, 1, "C1E", 2, 1000, 500000, 0);
	idle_state(0, 2, "C6", 170, 40, 900000, 1);
	idle_state(1, 0, "POLL", 0, 7, 70, 0);
	idle_state(1, 2, "C6", 170, 1, 1, 0);	/* no state1: the list ends at state0 */
	assert_int_equal(pmu_cpustat_open(NULL, &s), 0);
	assert_int_equal(pmu_cpustat_idle_count(s, 0), 3);
	assert_int_equal(pmu_cpustat_idle_count(s, 1), 1);
	assert_int_equal(pmu_cpustat_idle_count(s, 2), 0);
	assert_int_equal(pmu_cpustat_idle_count(s, 3), 0);
	assert_int_equal(pmu_cpustat_idle_read(s, 0, 1, &st), 0);
	assert_string_equal(st.name, "C1E");
	assert_int_equal(st.exit_latency_us, 2);
	assert_int_equal(st.entries, 1000);
	assert_int_equal(st.ns, 500000000ull);
	assert_int_equal(st.entries_delta, 1000);	/* since boot */
	assert_true(st.percent == 0);
	assert_int_equal(pmu_cpustat_idle_read(s, 0, 2, &st), 0);
	assert_int_equal(st.disabled, 1);
	assert_int_equal(pmu_cpustat_idle_read(s, 0, 3, &st), PMU_ERANGE);
	assert_int_equal(pmu_cpustat_idle_read(s, 2, 0, &st), PMU_ERANGE);

	usleep(20000);
	idle_state(0, 1, "C1E", 2, 1250, 502000, 0);	/* +250 entries, +2 ms */
	idle_state(0, 2, "C6", 170, 30, 800000, 1);	/* stepped back */
	idle_state(1, 0, "C1", 1, 9, 90, 0);		/* renamed */
	fixture_writeln(root, "sys/devices/system/cpu/cpu2/cpuidle/state0/name", "POLL");
	assert_int_equal(pmu_cpustat_sample(s), 0);
	wall = pmu_cpustat_elapsed_ns(s);
	assert_true(wall >= 20000000);
	assert_int_equal(pmu_cpustat_idle_count(s, 2), 0);	/* no usage/time files */
	assert_int_equal(pmu_cpustat_idle_read(s, 0, 1, &st), 0);
	assert_int_equal(st.entries_delta, 250);
	assert_true(fabs(st.percent - 100.0 * 2e6 / (double)wall) < 1e-9);
	assert_int_equal(pmu_cpustat_idle_read(s, 0, 0, &st), 0);
	assert_int_equal(st.entries_delta, 0);
	assert_true(st.percent == 0);
	assert_int_equal(pmu_cpustat_idle_read(s, 0, 2, &st), 0);
	assert_int_equal(st.entries, 40);
	assert_int_equal(st.ns, 900000000ull);
	assert_int_equal(st.entries_delta, 0);
	assert_int_equal(pmu_cpustat_idle_read(s, 1, 0, &st), 0);
	assert_string_equal(st.name, "C1");
	assert_int_equal(st.entries, 9);
	assert_int_equal(st.entries_delta, 0);	/* no interval: not since boot either */
	assert_int_equal(st.no_interval, 1);
	assert_true(st.percent == 0);
	assert_int_equal(pmu_cpustat_idle_read(s, 0, 1, &st), 0);
	assert_int_equal(st.no_interval, 0);

	/* Residency read a moment after the wall clock never shows more than 100 %. */
	idle_state(0, 1, "C1E", 2, 1300, 502000 + 10000000, 0);
	assert_int_equal(pmu_cpustat_sample(s), 0);
	assert_int_equal(pmu_cpustat_idle_read(s, 0, 1, &st), 0);
	assert_true(st.percent == 100);
	pmu_cpustat_close(s);
}

/* Files are kept open between samples: a CPU that goes offline (out of
 * /proc/stat; sysfs removes its cpuidle nodes) and comes back with new files
 * and restarted counters shows the new values, not the old files' ones. */
static void test_offline_online(void **state)
{
	const char *both = "cpu0 10 0 10 80 0 0 0 0 0 0\ncpu1 10 0 10 80 0 0 0 0 0 0\n";
	char dir[256];
	struct pmu_cpustat *s;
	struct pmu_cpustat_cpu c;
	struct pmu_idle_state st;

	(void)state;
	proc_stat(both);
	idle_state(1, 0, "C1", 1, 100, 1000, 0);
	idle_state(1, 1, "C2", 50, 50, 5000, 0);
	fixture_writeln(root, "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "2000000");
	assert_int_equal(pmu_cpustat_open(NULL, &s), 0);
	assert_int_equal(pmu_cpustat_idle_count(s, 1), 2);
	assert_int_equal(pmu_cpustat_sample(s), 0);
	assert_int_equal(pmu_cpustat_idle_read(s, 1, 0, &st), 0);
	assert_int_equal(st.entries, 100);

	proc_stat("cpu0 11 0 10 80 0 0 0 0 0 0\n");	/* cpu1 offline */
	snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu/cpu1", root);
	assert_int_equal(fixture_remove(dir), 0);
	assert_int_equal(pmu_cpustat_sample(s), 0);
	assert_int_equal(pmu_cpustat_cpu_count(s), 1);

	proc_stat(both);				/* back, one state, counters restarted */
	idle_state(1, 0, "C1", 1, 3, 30, 0);
	fixture_writeln(root, "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "1500000");
	assert_int_equal(pmu_cpustat_sample(s), 0);
	assert_int_equal(pmu_cpustat_cpu_count(s), 2);
	assert_int_equal(pmu_cpustat_idle_count(s, 1), 1);
	assert_int_equal(pmu_cpustat_idle_read(s, 1, 0, &st), 0);
	assert_int_equal(st.entries, 3);
	assert_int_equal(st.ns, 30000);
	assert_int_equal(pmu_cpustat_read(s, 1, &c), 0);
	assert_true(c.freq_mhz > 1499.9 && c.freq_mhz < 1500.1);
	pmu_cpustat_close(s);
}

/* Asked for times only, a sample reads neither idle states nor frequencies. */
static void test_times_only(void **state)
{
	struct pmu_cpustat *s;
	struct pmu_cpustat_cpu c;

	(void)state;
	proc_stat("cpu0 10 0 10 80 0 0 0 0 0 0\n");
	idle_state(0, 0, "C1", 1, 100, 1000, 0);
	fixture_writeln(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "2000000");
	assert_int_equal(pmuk_cpustat_open_want(NULL, 0, &s), 0);
	assert_int_equal(pmu_cpustat_sample(s), 0);
	assert_int_equal(pmu_cpustat_idle_count(s, 0), 0);
	assert_int_equal(pmu_cpustat_read(s, 0, &c), 0);
	assert_true(c.freq_mhz == 0);
	assert_int_equal(c.ns[PMU_CPUTIME_USER], ns(10));
	pmu_cpustat_close(s);
	assert_int_equal(pmuk_cpustat_open_want(NULL, PMUK_CPUSTAT_IDLE, &s), 0);
	assert_int_equal(pmu_cpustat_idle_count(s, 0), 1);
	assert_int_equal(pmu_cpustat_read(s, 0, &c), 0);
	assert_true(c.freq_mhz == 0);
	pmu_cpustat_close(s);
}

/* The live host: every CPU of /proc/stat, percentages summing to 100. */
/* A fixture file replaced by rename (mv, sed -i, a copy refreshed) is a new
 * inode: the kept descriptor of the old one must not go on reading the old
 * value, for per-CPU text files (cpufreq, cpuidle) as for /proc/stat. */
static void test_replaced_file(void **state)
{
	const char *rel = "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq";
	char tmp[256], path[256];
	struct pmu_cpustat *s;
	struct pmu_cpustat_cpu c;

	(void)state;
	proc_stat("cpu0 10 0 10 80 0 0 0 0 0 0\n");
	fixture_writeln(root, rel, "2000000");
	assert_int_equal(pmu_cpustat_open(NULL, &s), 0);
	assert_int_equal(pmu_cpustat_read(s, 0, &c), 0);
	assert_true(c.freq_mhz > 1999.9 && c.freq_mhz < 2000.1);
	fixture_writeln(root, "new_freq", "1500000");
	snprintf(tmp, sizeof(tmp), "%s/new_freq", root);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(rename(tmp, path), 0);
	proc_stat("cpu0 20 0 10 170 0 0 0 0 0 0\n");
	assert_int_equal(pmu_cpustat_sample(s), 0);
	assert_int_equal(pmu_cpustat_read(s, 0, &c), 0);
	assert_true(c.freq_mhz > 1499.9 && c.freq_mhz < 1500.1);
	pmu_cpustat_close(s);
}

static void test_live(void **state)
{
	struct pmu_cpustat *s;
	struct pmu_cpustat_cpu c;
	double sum;

	(void)state;
	pmu_sysroot_set("");
	assert_int_equal(pmu_cpustat_open(NULL, &s), 0);
	usleep(50000);
	assert_int_equal(pmu_cpustat_sample(s), 0);
	assert_true(pmu_cpustat_elapsed_ns(s) >= 50000000);
	assert_int_equal((long)pmu_cpustat_cpu_count(s), sysconf(_SC_NPROCESSORS_ONLN));
	for (size_t i = 0; i < pmu_cpustat_cpu_count(s); i++) {
		assert_int_equal(pmu_cpustat_read(s, i, &c), 0);
		sum = 0;
		for (int k = 0; k < PMU_CPUTIME_COUNT; k++)
			sum += c.percent[k];
		if (c.interval_ns)
			assert_true(sum > 99.99 && sum < 100.01);
	}
	pmu_cpustat_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backwards_and_short, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpus_and_freq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offline_online, setup, teardown),
		cmocka_unit_test_setup_teardown(test_times_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
