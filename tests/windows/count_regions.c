/* SPDX-License-Identifier: MIT */
/* Region markers through pmukit.dll: two threads (CreateThread) each run CALLS
 * outer/inner region pairs spinning on CPU time, exit (the FLS destructor releases
 * their counters, their results stay), then the main thread writes the table as text
 * to stdout and as JSON to argv[1]; smoke_regions.sh checks the JSON. Also checks the
 * misuse errors and pmu_regions_init(NULL)'s default events, and that pmu_sampler_*
 * exist and say why there is no live sampling on Windows.
 * Exit 0 pass, 1 fail. */
#include <pmukit/pmukit.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include "thread_cpu.h"

#define CALLS 4
#define SPIN_MS 40

static void spin(double ms)
{
	volatile unsigned long x = 1;
	double t0 = cpu_ms();

	while (cpu_ms() - t0 < ms)
		for (int i = 0; i < 10000; i++)
			x = x * 1103515245u + 12345u;
}

static DWORD WINAPI worker(LPVOID arg)
{
	DWORD failures = 0;

	(void)arg;
	for (int i = 0; i < CALLS; i++) {
		failures += pmu_region_begin("outer") != 0;
		failures += pmu_region_begin("inner") != 0;
		spin(SPIN_MS);
		failures += pmu_region_end("inner") != 0;
		spin(SPIN_MS / 2);
		failures += pmu_region_end("outer") != 0;
	}
	return failures;
}

static int misuse(void)
{
	int bad = 0;

	if (pmu_region_end("never") != PMU_EINVAL || !strstr(pmu_error_detail(), "without"))
		bad++, printf("misuse: end without begin: %s\n", pmu_error_detail());
	if (pmu_region_begin("twice") || pmu_region_begin("twice") != PMU_EINVAL ||
	    !strstr(pmu_error_detail(), "already open"))
		bad++, printf("misuse: nested begin: %s\n", pmu_error_detail());
	if (pmu_region_end("twice"))
		bad++, printf("misuse: end: %s\n", pmu_error_detail());
	return bad;
}

static int sampler(void)
{
	struct pmu_target self = { .kind = PMU_TARGET_SELF };
	struct pmu_event_list *l;
	struct pmu_sampler *s = (struct pmu_sampler *)&self;
	int err;

	if (pmu_event_parse("task-clock", &l))
		return 1;
	err = pmu_sampler_open(l, &self, NULL, &s);
	pmu_event_list_free(l);
	printf("sampler: %s\n", pmu_error_detail());
	if (err != PMU_ENOTSUP || s || !strstr(pmu_error_detail(), "pmu_recording"))
		return 1;
	pmu_sampler_close(NULL);
	return pmu_sampler_event_count(NULL) != 0 || pmu_sampler_poll(NULL, 0) != PMU_EINVAL;
}

int main(int argc, char **argv)
{
	HANDLE th[2];
	DWORD rc, failures = 0;
	FILE *f;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: count_regions OUT.json\n");
		return 1;
	}
	/* The default events are the calling thread's events this host counts. */
	if ((err = pmu_regions_init(NULL))) {
		printf("default: %s: %s\n", pmu_strerror(err), pmu_error_detail());
		return 1;
	}
	printf("default: ok\n");
	pmu_regions_fini();
	if (pmu_region_begin("x") != PMU_EINVAL) {
		printf("begin after fini: not refused\n");
		return 1;
	}
	if ((err = pmu_regions_init("task-clock"))) {
		printf("init: %s: %s\n", pmu_strerror(err), pmu_error_detail());
		return 1;
	}
	failures += misuse();
	failures += sampler();
	for (int i = 0; i < 2; i++)
		if (!(th[i] = CreateThread(NULL, 0, worker, NULL, 0, NULL)))
			return 1;
	for (int i = 0; i < 2; i++) {
		WaitForSingleObject(th[i], INFINITE);
		GetExitCodeThread(th[i], &rc);
		CloseHandle(th[i]);
		failures += rc;
	}
	if (pmu_regions_write_text(stdout))
		failures++;
	if (!(f = fopen(argv[1], "w")) || pmu_regions_write_json(f, PMU_JSON_PRETTY) || fclose(f))
		failures++, printf("json: %s\n", pmu_error_detail());
	pmu_regions_fini();
	printf("failures: %lu\n", (unsigned long)failures);
	return failures != 0;
}
