/* SPDX-License-Identifier: MIT */
/* Counts its own CPU time through pmukit.dll (the public API, linked by import
 * library) while spinning, and checks the count is real: task-clock must cover most
 * of the spin. Events the host cannot count are reported with pmukit's reason.
 * Then the Windows backend's reading of pmu_counters_opts (pmukit/opts.h).
 * Exit 0 pass, 1 fail. */
#include <pmukit/pmukit.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include "thread_cpu.h"

static int count(const char *spec)
{
	struct pmu_target self = { .kind = PMU_TARGET_SELF };
	struct pmu_event_list *l;
	struct pmu_counters *c;
	struct pmu_reading r;
	volatile unsigned long x = 1;
	double t0;
	int err;

	if ((err = pmu_event_parse(spec, &l))) {
		printf("%s: parse: %s: %s\n", spec, pmu_strerror(err), pmu_error_detail());
		return 1;
	}
	err = pmu_counters_open(l, &self, NULL, &c);
	pmu_event_list_free(l);
	if (err) {
		printf("%s: not counted here: %s\n", spec, pmu_error_detail());
		return err == PMU_ENOTSUP ? 0 : 1;
	}
	t0 = cpu_ms();
	while (cpu_ms() - t0 < 300)
		for (int i = 0; i < 100000; i++)
			x = x * 1103515245u + 12345u;
	err = pmu_counters_read(c, &r, 1);
	pmu_counters_close(c);
	if (err) {
		printf("%s: read: %s\n", spec, pmu_error_detail());
		return 1;
	}
	printf("%s: %llu over %.1f ms enabled\n", spec, (unsigned long long)r.value,
	       r.time_enabled / 1e6);
	if (!strcmp(spec, "task-clock") && (r.value < 250000000ull || r.value > 5000000000ull)) {
		printf("task-clock: expected about 300 ms of CPU time, got %.1f ms\n", r.value / 1e6);
		return 1;
	}
	return 0;
}

/* start_disabled is read, and only when the caller's sz reaches it; a newer
 * caller's option this library does not know is refused. */
static int opts_rules(void)
{
	struct pmu_target self = { .kind = PMU_TARGET_SELF };
	struct { struct pmu_counters_opts o; unsigned long long newer; } big;
	struct pmu_event_list *l;
	struct pmu_counters *c = NULL;
	struct pmu_reading r;
	int err, bad = 0;

	if (pmu_event_parse("task-clock", &l))
		return 1;
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big.o);
	big.o.start_disabled = 1;
	if ((err = pmu_counters_open(l, &self, &big.o, &c)) || (Sleep(20), 0) ||
	    pmu_counters_read(c, &r, 1) || r.time_enabled != 0) {
		printf("opts: start_disabled not honoured (%d)\n", err);
		bad = 1;
	}
	pmu_counters_close(c);
	c = NULL;
	big.o.sz = offsetof(struct pmu_counters_opts, start_disabled); /* an older caller */
	if ((err = pmu_counters_open(l, &self, &big.o, &c)) || (Sleep(20), 0) ||
	    pmu_counters_read(c, &r, 1) || r.time_enabled == 0) {
		printf("opts: an older caller's struct was read past its sz (%d)\n", err);
		bad = 1;
	}
	pmu_counters_close(c);
	c = NULL;
	big.o.sz = sizeof(big);
	big.newer = 1;
	err = pmu_counters_open(l, &self, &big.o, &c);
	if (err != PMU_EINVAL || !strstr(pmu_error_detail(), "pmu_counters_opts")) {
		printf("opts: a newer caller's option was not refused (%d: %s)\n", err,
		       pmu_error_detail());
		bad = 1;
	}
	pmu_counters_close(c);
	pmu_event_list_free(l);
	if (!bad)
		printf("opts: ok\n");
	return bad;
}

int main(void)
{
	return count("task-clock") | count("cycles") | count("context-switches") | opts_rules();
}
