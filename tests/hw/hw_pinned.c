/* SPDX-License-Identifier: MIT */
/* Counter contention: pinned CPU-wide events hold every counter. The ones that do
 * not fit lose their counter (error state), and a task event started meanwhile is
 * never scheduled: the library flags both, and `pmukit stat` prints <not counted>. */
#include "hwtest.h"

#include <stdio.h>
#include <string.h>

static void check_task_not_counted(const char *name)
{
	static const struct pmu_target self = { .kind = PMU_TARGET_SELF };
	struct pmu_reading r;
	struct pmu_counters *c;
	int err;

	if ((err = hw_counters("instructions:u", &self, NULL, &c)))
		return (void)hw_fail(name, "opening instructions:u: %s: %s", pmu_strerror(err),
				     pmu_error_detail());
	known_loop(100000);
	err = pmu_counters_read(c, &r, 1);
	pmu_counters_close(c);
	if (err)
		return (void)hw_fail(name, "reading: %s: %s", pmu_strerror(err), pmu_error_detail());
	if (!(r.flags & PMU_READING_NOT_COUNTED) || r.time_running != 0)
		return (void)hw_fail(name, "a task event while pinned events hold every counter: "
				     "value %llu, running %llu of %llu ns, flags %#x (expected "
				     "PMU_READING_NOT_COUNTED)", (unsigned long long)r.value,
				     (unsigned long long)r.time_running,
				     (unsigned long long)r.time_enabled, r.flags);
	hw_ok(name);
}

static void check_stat_not_counted(const char *name)
{
	static char out[16384];
	char *argv[] = { (char *)hw.pmukit, "stat", "-e", "instructions:u", "--",
			 (char *)hw.self, "--loop", "100000", NULL };
	const char *line;
	int rc = hw_run(argv, out, sizeof(out));

	if (rc != 0)
		return (void)hw_fail(name, "pmukit stat exited with %d: %.300s", rc, out);
	line = strstr(out, "<not counted>");
	if (!line || !strstr(line, "instructions"))
		return (void)hw_fail(name, "no '<not counted> ... instructions' line in: %.400s", out);
	hw_ok(name);
}

static void test_pinned(void)
{
	const char *name = "pinned_error_state";
	static const struct pmu_target all = { .kind = PMU_TARGET_CPUS };
	PMU_OPTS(pmu_counters_opts, o, .pinned = 1);
	size_t nev = hw.counters > 0 ? (size_t)hw.counters + 2 : 33, nerr = 0, nrun = 0;
	struct pmu_reading r[64];
	struct pmu_counters *c;
	char spec[1024] = "cycles";
	int err;

	if (nev > 64)
		nev = 64;
	/* cycles takes the cycle counter, instructions every other one. */
	for (size_t i = 1; i < nev; i++)
		strncat(spec, ",instructions", sizeof(spec) - strlen(spec) - 1);
	err = hw_counters(spec, &all, &o, &c);
	if (err == PMU_EPERM) {
		hw_skip(name, "CPU-wide events are not allowed here: %s", pmu_error_detail());
		hw_skip("pinned_starves_task", "needs the pinned CPU-wide events");
		hw_skip("stat_not_counted", "needs the pinned CPU-wide events");
		return;
	}
	if (err)
		return (void)hw_fail(name, "opening %zu pinned CPU-wide events: %s: %s", nev,
				     pmu_strerror(err), pmu_error_detail());
	known_loop(1000000);
	if ((err = pmu_counters_read(c, r, nev))) {
		hw_fail(name, "%s: %s", pmu_strerror(err), pmu_error_detail());
		goto out;
	}
	for (size_t i = 0; i < nev; i++) {
		if (r[i].flags & PMU_READING_ERROR_STATE) {
			nerr++;
		} else if (r[i].time_running == r[i].time_enabled && r[i].time_running > 0 &&
			   r[i].value > 0) {
			nrun++;
		} else {
			hw_fail(name, "pinned event %zu neither counts nor is in error state: value "
				"%llu, running %llu of %llu ns, flags %#x", i,
				(unsigned long long)r[i].value, (unsigned long long)r[i].time_running,
				(unsigned long long)r[i].time_enabled, r[i].flags);
			goto out;
		}
	}
	hw_note("pinned: %zu pinned events per CPU: %zu counting, %zu lost their counter",
		nev, nrun, nerr);
	if (nerr == 0 || nrun == 0 || (hw.counters > 0 && nrun > (size_t)hw.counters)) {
		hw_fail(name, "%zu pinned events: %zu counting, %zu in error state (expected both, "
			"at most %d counting)", nev, nrun, nerr, hw.counters);
		goto out;
	}
	hw_ok(name);
	check_task_not_counted("pinned_starves_task");
	check_stat_not_counted("stat_not_counted");
out:
	pmu_counters_close(c);
}

void hw_test_pinned(void)
{
	test_pinned();
}
