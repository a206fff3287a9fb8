/* SPDX-License-Identifier: MIT */
/* The exporter's collectors on fixture trees (PMUKIT_SYSROOT): /proc/stat
 * ticks to seconds in the three naming modes, cpuidle, cpufreq, interrupts
 * summed per CPU, the NMI watchdog, the monotonic clamp (a step back held, a
 * reset counted and carried over), a CPU going offline and back, an unknown
 * collector, a synthetic 256-CPU host, the pmu collector on this host's
 * software events, and a child's perf_event fd seen by the contention collector. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <pmukit/error.h>
#include <pmukit/exporter.h>
#include "fixture_tree.h"

static char root[128];
static long hz;

static int setup(void **state)
{
	(void)state;
	hz = sysconf(_SC_CLK_TCK);
	fixture_create(root, sizeof(root), "expo");
	assert_int_equal(pmu_sysroot_set(root), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pmu_sysroot_set("");
	return fixture_remove(root);
}

/* seconds as the writer spells ticks of USER_HZ (cpustat keeps whole ns) */
static const char *secs(uint64_t ticks)
{
	static char buf[4][40];
	static int k;
	double v = (double)(ticks * 1000000000ull / (uint64_t)hz) / 1e9;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%.15g", v);
	return buf[k];
}

static void two_cpus(int with_cpu2, uint64_t irq0)
{
	fixture_write(root, "proc/stat", "cpu  1 2 3 4 5 6 7 8 0 0\n"
		      "cpu0 9889 7 5130 37368 197 11 51 369 40 0\n%s"
		      "intr 1234 5 6\nctxt 99\nbtime 1700000000\n",
		      with_cpu2 ? "cpu2 100 0 200 300 0 0 0 0 0 0\n" : "");
	if (with_cpu2)
		fixture_write(root, "proc/interrupts", "           CPU0       CPU2\n"
			      "  0:  %llu  5   IO-APIC   2-edge      timer\n"
			      "LOC:  10  20   Local timer interrupts\n"
			      "ERR:          0\n", (unsigned long long)irq0 - 10);
	else
		fixture_write(root, "proc/interrupts", "           CPU0\n"
			      "  0:  %llu   IO-APIC   2-edge      timer\n"
			      "LOC:  10   Local timer interrupts\n", (unsigned long long)irq0 - 10);
}

static void sysfs_cpu0(void)
{
	static const char *const files[][2] = {
		{ "cpufreq/scaling_cur_freq", "2000000" },
		{ "cpufreq/cpuinfo_min_freq", "800000" },
		{ "cpufreq/cpuinfo_max_freq", "3500000" },
		{ "cpuidle/state0/name", "POLL" },
		{ "cpuidle/state0/usage", "7" },
		{ "cpuidle/state0/time", "250" },
		{ "cpuidle/state1/name", "C1" },
		{ "cpuidle/state1/usage", "1000" },
		{ "cpuidle/state1/time", "1500000" },
	};
	char p[256];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu0/%s", files[i][0]);
		fixture_writeln(root, p, "%s", files[i][1]);
	}
	fixture_writeln(root, "proc/sys/kernel/nmi_watchdog", "1");
}

static const char *scrape(struct pmu_exporter *e, enum pmu_expo_format fmt)
{
	const char *text;
	size_t len;

	assert_int_equal(pmu_exporter_scrape(e, fmt, &text, &len), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

static void has(const char *text, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!strstr(text, line))
		fail_msg("missing \"%s\" in:\n%s", line, text);
}

static struct pmu_exporter *open_with(const char *coll, enum pmu_exporter_compat m)
{
	PMU_OPTS(pmu_exporter_opts, o, .collectors = coll, .compat = m);
	struct pmu_exporter *e;

	assert_int_equal(pmu_exporter_open(&o, &e), 0);
	return e;
}

static void test_native(void **state)
{
	struct pmu_exporter *e;
	const char *t;

	(void)state;
	two_cpus(1, 1000);
	sysfs_cpu0();
	e = open_with("cpu,cpuidle,cpufreq,interrupts,contention", PMU_EXPORTER_NATIVE);
	t = scrape(e, PMU_EXPO_TEXT);
	has(t, "# TYPE pmukit_cpu_seconds_total counter\n");
	has(t, "pmukit_cpu_seconds_total{cpu=\"0\",mode=\"user\"} %s\n", secs(9889));
	has(t, "pmukit_cpu_seconds_total{cpu=\"0\",mode=\"steal\"} %s\n", secs(369));
	has(t, "pmukit_cpu_seconds_total{cpu=\"2\",mode=\"system\"} %s\n", secs(200));
	assert_null(strstr(t, "guest"));
	has(t, "pmukit_cpuidle_residency_seconds_total{cpu=\"0\",state=\"C1\"} 1.5\n");
	has(t, "pmukit_cpuidle_entries_total{cpu=\"0\",state=\"POLL\"} 7\n");
	has(t, "pmukit_cpu_frequency_hertz{cpu=\"0\"} 2000000000\n");
	has(t, "pmukit_cpu_frequency_max_hertz{cpu=\"0\"} 3500000000\n");
	assert_null(strstr(t, "pmukit_cpu_frequency_hertz{cpu=\"2\"}"));
	has(t, "pmukit_cpu_interrupts_total{cpu=\"0\"} 1000\n");
	has(t, "pmukit_cpu_interrupts_total{cpu=\"2\"} 25\n");
	has(t, "pmukit_pmu_nmi_watchdog 1\n");
	t = scrape(e, PMU_EXPO_OPENMETRICS);
	has(t, "# TYPE pmukit_cpu_seconds counter\n# UNIT pmukit_cpu_seconds seconds\n");
	has(t, "pmukit_cpu_seconds_created{cpu=\"0\",mode=\"user\"} 1700000000\n");
	has(t, "\n# EOF\n");
	pmu_exporter_close(e);
}

static void test_compat(void **state)
{
	struct pmu_exporter *e;
	const char *t;

	(void)state;
	two_cpus(1, 1000);
	sysfs_cpu0();
	e = open_with(NULL, PMU_EXPORTER_COMPAT_NODE);
	t = scrape(e, PMU_EXPO_TEXT);
	has(t, "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} %s\n", secs(37368));
	has(t, "node_cpu_seconds_total{cpu=\"0\",mode=\"softirq\"} %s\n", secs(51));
	has(t, "node_cpu_scaling_frequency_hertz{cpu=\"0\"} 2000000000\n");
	has(t, "node_cpu_frequency_min_hertz{cpu=\"0\"} 800000000\n");
	pmu_exporter_close(e);

	e = open_with("cpu,cpuidle,interrupts", PMU_EXPORTER_COMPAT_WINDOWS);
	t = scrape(e, PMU_EXPO_TEXT);
	/* windows_exporter's privileged holds interrupt and DPC time */
	has(t, "windows_cpu_time_total{core=\"0,0\",mode=\"privileged\"} %s\n", secs(5130 + 11 + 51));
	has(t, "windows_cpu_time_total{core=\"0,0\",mode=\"dpc\"} %s\n", secs(51));
	has(t, "windows_cpu_time_total{core=\"0,2\",mode=\"user\"} %s\n", secs(100));
	assert_null(strstr(t, "mode=\"steal\""));
	has(t, "windows_cpu_cstate_seconds_total{core=\"0,0\",state=\"c1\"} 1.5\n");
	has(t, "windows_cpu_interrupts_total{core=\"0,2\"} 25\n");
	pmu_exporter_close(e);
}

/* interrupts come straight from the file: the clamp is all that keeps them up */
static void test_clamp_and_hotplug(void **state)
{
	struct pmu_exporter *e;
	const char *t;

	(void)state;
	two_cpus(1, 1000);
	e = open_with("interrupts", PMU_EXPORTER_NATIVE);
	t = scrape(e, PMU_EXPO_TEXT);
	has(t, "pmukit_cpu_interrupts_total{cpu=\"0\"} 1000\n");
	two_cpus(1, 990);           /* a small step back: held */
	t = scrape(e, PMU_EXPO_TEXT);
	has(t, "pmukit_cpu_interrupts_total{cpu=\"0\"} 1000\n");
	has(t, "pmukit_source_resets_total{metric=\"pmukit_cpu_interrupts\"} 0\n");
	two_cpus(1, 100);           /* a reset: counted, carried over */
	t = scrape(e, PMU_EXPO_TEXT);
	has(t, "pmukit_cpu_interrupts_total{cpu=\"0\"} 1000\n");
	has(t, "pmukit_source_resets_total{metric=\"pmukit_cpu_interrupts\"} 1\n");
	two_cpus(1, 150);
	t = scrape(e, PMU_EXPO_TEXT);
	has(t, "pmukit_cpu_interrupts_total{cpu=\"0\"} 1050\n");
	two_cpus(0, 160);           /* cpu2 offline: its series go */
	t = scrape(e, PMU_EXPO_TEXT);
	has(t, "pmukit_cpu_interrupts_total{cpu=\"0\"} 1060\n");
	assert_null(strstr(t, "cpu=\"2\""));
	two_cpus(1, 170);           /* back, its counter restarted: fresh, no reset */
	t = scrape(e, PMU_EXPO_TEXT);
	has(t, "pmukit_cpu_interrupts_total{cpu=\"2\"} 25\n");
	has(t, "pmukit_source_resets_total{metric=\"pmukit_cpu_interrupts\"} 1\n");
	pmu_exporter_close(e);
}

static void test_bad_options(void **state)
{
	PMU_OPTS(pmu_exporter_opts, o, .collectors = "cpu,gpu");
	PMU_OPTS(pmu_exporter_opts, o2, .compat = (enum pmu_exporter_compat)9);
	struct pmu_exporter *e = (void *)1;
	const char *text;
	size_t len;

	(void)state;
	assert_int_equal(pmu_exporter_open(&o, &e), PMU_EINVAL);
	assert_null(e);
	assert_non_null(strstr(pmu_error_detail(), "\"gpu\""));
	assert_int_equal(pmu_exporter_open(&o2, &e), PMU_EINVAL);
	o.collectors = "";
	assert_int_equal(pmu_exporter_open(&o, &e), PMU_EINVAL);
	assert_int_equal(pmu_exporter_scrape(NULL, PMU_EXPO_TEXT, &text, &len), PMU_EINVAL);
	pmu_exporter_close(NULL);
}

static void host_256(void)
{
	FILE *st, *irq;
	char p[4096];

	fixture_path(root, "proc/stat", p, sizeof(p));
	assert_non_null(st = fopen(p, "w"));
	fixture_path(root, "proc/interrupts", p, sizeof(p));
	assert_non_null(irq = fopen(p, "w"));
	fprintf(st, "cpu  1 2 3 4 5 6 7 8 0 0\n");
	for (int c = 0; c < 256; c++) {
		fprintf(st, "cpu%d %d 1 %d %d 2 3 4 5 0 0\n", c, 100 + c, 50 + c, 1000 + c);
		fprintf(irq, "%sCPU%d", c ? " " : "     ", c);
		for (int k = 0; k < 3; k++) {
			snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", c, k);
			fixture_writeln(root, p, "C%d", k);
			snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage", c, k);
			fixture_writeln(root, p, "%d", c * 10 + k);
			snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/cpuidle/state%d/time", c, k);
			fixture_writeln(root, p, "%d", c * 1000 + k);
		}
	}
	fprintf(irq, "\n");
	for (int r = 0; r < 40; r++) {
		fprintf(irq, "%3d:", r);
		for (int c = 0; c < 256; c++)
			fprintf(irq, " %d", r + c);
		fprintf(irq, "  PCI-MSI %d-edge dev%d\n", r, r);
	}
	fclose(st);
	fclose(irq);
}

static size_t count(const char *t, const char *needle)
{
	size_t n = 0;

	for (const char *p = t; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_256_cpus(void **state)
{
	struct pmu_exporter *e;
	struct timespec a, b;
	const char *t;

	(void)state;
	host_256();
	e = open_with("cpu,cpuidle,cpufreq,interrupts", PMU_EXPORTER_NATIVE);
	scrape(e, PMU_EXPO_TEXT);
	clock_gettime(CLOCK_MONOTONIC, &a);
	t = scrape(e, PMU_EXPO_TEXT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_int_equal(count(t, "\npmukit_cpu_seconds_total{"), 256 * 8);
	assert_int_equal(count(t, "\npmukit_cpuidle_residency_seconds_total{"), 256 * 3);
	assert_int_equal(count(t, "\npmukit_cpu_interrupts_total{"), 256);
	has(t, "pmukit_cpu_interrupts_total{cpu=\"255\"} %d\n", 40 * 255 + 39 * 40 / 2);
	has(t, "pmukit_cpuidle_entries_total{cpu=\"255\",state=\"C2\"} 2552\n");
	has(t, "pmukit_cpu_seconds_total{cpu=\"255\",mode=\"idle\"} %s\n", secs(1255));
	print_message("256 CPUs: one scrape %.2f ms, %zu bytes\n",
		      ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e6,
		      strlen(t));
	pmu_exporter_close(e);
}

/* The real host: counters stay open; cpu-clock counts, cycles may not. */
static void test_pmu_host(void **state)
{
	PMU_OPTS(pmu_exporter_opts, o, .collectors = "pmu", .pmu_events = "cpu-clock,cycles");
	struct pmu_exporter *e;
	const char *t;

	(void)state;
	pmu_sysroot_set("");
	if (pmu_exporter_open(&o, &e)) {
		pmu_sysroot_set(root);
		skip();
	}
	t = scrape(e, PMU_EXPO_TEXT);
	has(t, "pmukit_pmu_available{event=\"cpu-clock\"} 1\n");
	has(t, "pmukit_pmu_events_total{cpu=\"0\",event=\"cpu-clock\"} ");
	has(t, "pmukit_pmu_running_seconds_total{cpu=\"0\",event=\"cpu-clock\"} ");
	if (strstr(t, "event=\"cycles\",reason="))
		has(t, "pmukit_pmu_available{event=\"cycles\",reason=\"");
	else
		has(t, "pmukit_pmu_events_total{cpu=\"0\",event=\"cycles\"} ");
	pmu_exporter_close(e);
	pmu_sysroot_set(root);
}

/* A child holding a real perf_event fd (a software event) is listed, with its
 * pid and name, by the contention collector on the live /proc. */
static void test_perf_event_holder(void **state)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_TASK_CLOCK, .disabled = 1 };
	int ready[2], done[2];
	struct pmu_exporter *e;
	const char *t;
	char ok = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(done), 0);
	if ((pid = fork()) == 0) {
		long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

		close(done[1]);  /* the parent's close is the signal to go */
		prctl(PR_SET_NAME, "pmuk-holder");
		ok = fd >= 0 ? 'y' : 'n';
		if (write(ready[1], &ok, 1) != 1 || read(done[0], &ok, 1) < 0)
			_exit(1);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(read(ready[0], &ok, 1), 1);
	if (ok != 'y') {
		close(done[1]);
		waitpid(pid, NULL, 0);
		skip();  /* perf_event_open refused here (perf_event_paranoid) */
	}
	pmu_sysroot_set("");
	e = open_with("contention", PMU_EXPORTER_NATIVE);
	t = scrape(e, PMU_EXPO_TEXT);
	has(t, "pmukit_pmu_perf_event_holder_fds{pid=\"%d\",comm=\"pmuk-holder\"} 1\n",
	    (int)pid);
	pmu_exporter_close(e);
	pmu_sysroot_set(root);
	close(done[1]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_native, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clamp_and_hotplug, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_256_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pmu_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perf_event_holder, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
