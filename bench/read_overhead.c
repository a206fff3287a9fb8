/* SPDX-License-Identifier: MIT */
/* ns per read of a 3-event software group on the calling thread:
 *   raw     read() of the leader fd with PERF_FORMAT_GROUP
 *   pmukit  pmu_counters_read()
 *   PAPI    PAPI_read() of the same three events (when PAPI is built in and starts)
 * plus the user-space read path on crafted 4-event mmap pages with a fake counter.
 * Methods run interleaved in short runs (a few ms each, so that a raw run and the
 * pmukit run beside it see the same machine load), many repetitions, medians
 * reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmukit/counting.h>
#include <pmukit/error.h>
#include <pmukit/events.h>

#include "core/scale.h"
#include "linux/counters.h"
#include "linux/perf_event.h"
#include "linux/userread.h"

#ifdef PMUKIT_HAVE_PAPI
#include <papi.h>
#endif

#define ITERS 2000
#define REPS 101
#define UREAD_ITERS 100000

enum { RAW, PMUKIT, PAPI, UREAD, UREAD_TSC, NMETHODS };
static const char *const names[NMETHODS] = { "raw read()", "pmu_counters_read", "PAPI_read",
					     "user read (4 ev)", "  same, real clock" };

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int raw_open(const struct pmu_event_list *list)
{
	struct pmuk_open_flags f = { 0 };
	struct perf_event_attr a;
	int leader = -1;

	for (size_t i = 0; i < pmu_event_list_count(list); i++) {
		int fd;

		pmuk_perf_attr(pmu_event_list_get(list, i), &f, &a);
		fd = pmuk_perf_open(&a, 0, -1, leader);
		if (fd < 0)
			return fd;
		if (i == 0)
			leader = fd;
	}
	return leader;
}

static double time_raw(int fd, uint64_t *buf, size_t size)
{
	double t0 = now_ns();

	for (int i = 0; i < ITERS; i++)
		if (read(fd, buf, size) <= 0)
			abort();
	return (now_ns() - t0) / ITERS;
}

static double time_pmukit(struct pmu_counters *c, struct pmu_reading *rd)
{
	double t0 = now_ns();

	for (int i = 0; i < ITERS; i++)
		if (pmu_counters_read(c, rd, 3) != 0)
			abort();
	return (now_ns() - t0) / ITERS;
}

/* Crafted self-monitoring pages: on a counter, rdpmc and user time allowed. */
static struct perf_event_mmap_page pages[4];
static uint64_t fake_pmc;

static uint64_t fake_counter(uint32_t counter, void *ctx)
{
	(void)ctx;
	return fake_pmc + counter;
}

static uint64_t fake_clock(void *ctx)
{
	(void)ctx;
	return 123456789;
}

/* The group path of pmu_counters_read on crafted pages: one clock read for the
 * leader, counts of all four members, then scaling. */
static double run_uread(const struct pmuk_uread_ops *ops, struct pmu_reading *r)
{
	static const size_t members[4] = { 0, 1, 2, 3 };
	void *pg[4] = { &pages[0], &pages[1], &pages[2], &pages[3] };
	double t0 = now_ns();

	for (int i = 0; i < UREAD_ITERS; i++) {
		uint64_t c[4], en, ru;

		fake_pmc += 7;
		if (pmuk_uread_group(pg, members, 4, ops, c, &en, &ru) != PMUK_UREAD_OK)
			abort();
		for (int e = 0; e < 4; e++)
			pmuk_reading_set(&r[e], c[e], en, ru);
		__asm__ __volatile__("" ::: "memory");
	}
	return (now_ns() - t0) / UREAD_ITERS;
}

int main(void)
{
	struct pmu_event_list *list;
	struct pmu_target self = { .kind = PMU_TARGET_SELF };
	struct pmuk_uread_ops fake = { fake_counter, fake_clock, NULL };
	const struct pmuk_uread_ops *native = pmuk_uread_native();
	struct pmuk_uread_ops fake_tsc = { fake_counter, native ? native->read_clock : fake_clock,
					   NULL };
	double t[NMETHODS][REPS], med[NMETHODS], pair[REPS];
	struct pmu_reading rd[4];
	struct pmu_counters *c;
	uint64_t buf[3 + 2 * 3];
	int have[NMETHODS] = { 1, 1, 0, 1, native != NULL };
	int leader, err;
#ifdef PMUKIT_HAVE_PAPI
	const char *papi_names[3] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS",
				      "perf::CONTEXT-SWITCHES" };
	long long pv[3];
	int es = PAPI_NULL;
#endif

	/* the same events, through the public API, for every method below */
	if ((err = pmu_event_parse("{task-clock,page-faults,context-switches}", &list)) < 0) {
		fprintf(stderr, "read_overhead: %s: %s\n", pmu_strerror(err), pmu_error_detail());
		return 1;
	}
	leader = raw_open(list);
	if (leader < 0) {
		fprintf(stderr, "read_overhead: perf_event_open failed: %s\n", strerror(-leader));
		return 1;
	}
	if ((err = pmu_counters_open(list, &self, NULL, &c)) < 0) {
		fprintf(stderr, "read_overhead: %s: %s\n", pmu_strerror(err), pmu_error_detail());
		return 1;
	}
#ifdef PMUKIT_HAVE_PAPI
	if ((err = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT)
		printf("PAPI: library init failed: %s\n", PAPI_strerror(err));
	else if ((err = PAPI_create_eventset(&es)) != PAPI_OK)
		printf("PAPI: create_eventset: %s\n", PAPI_strerror(err));
	else {
		have[PAPI] = 1;
		for (int i = 0; i < 3 && have[PAPI]; i++)
			if ((err = PAPI_add_named_event(es, papi_names[i])) != PAPI_OK) {
				const PAPI_component_info_t *ci = PAPI_get_component_info(0);

				printf("PAPI: cannot add %s: %s (perf_event component: %s)\n",
				       papi_names[i], PAPI_strerror(err),
				       ci && ci->disabled ? ci->disabled_reason : "enabled");
				have[PAPI] = 0;
			}
		if (have[PAPI] && (err = PAPI_start(es)) != PAPI_OK) {
			printf("PAPI: start: %s\n", PAPI_strerror(err));
			have[PAPI] = 0;
		}
	}
#else
	printf("PAPI: not built in (pkg-config papi not found at configure time)\n");
#endif
	for (int e = 0; e < 4; e++) {
		memset(&pages[e], 0, sizeof(pages[e]));
		pages[e].lock = 2;
		pages[e].index = (uint32_t)e + 1;
		pages[e].offset = 1000;
		pages[e].time_enabled = pages[e].time_running = 5000000;
		pages[e].cap_user_rdpmc = 1;
		pages[e].cap_user_time = 1;
		pages[e].pmc_width = 48;
		pages[e].time_mult = 1u << 20;
		pages[e].time_shift = 20;
	}

	for (int rep = 0; rep < REPS; rep++) {
		/* Either may go first: the second of two back-to-back runs finds warmer caches. */
		if (rep & 1) {
			t[PMUKIT][rep] = time_pmukit(c, rd);
			t[RAW][rep] = time_raw(leader, buf, sizeof(buf));
		} else {
			t[RAW][rep] = time_raw(leader, buf, sizeof(buf));
			t[PMUKIT][rep] = time_pmukit(c, rd);
		}
#ifdef PMUKIT_HAVE_PAPI
		if (have[PAPI]) {
			double t0 = now_ns();
			for (int i = 0; i < ITERS; i++)
				if (PAPI_read(es, pv) != PAPI_OK)
					abort();
			t[PAPI][rep] = (now_ns() - t0) / ITERS;
		}
#endif
		t[UREAD][rep] = run_uread(&fake, rd);
		t[UREAD_TSC][rep] = run_uread(&fake_tsc, rd);
	}
	/* Runs are interleaved, so each run's pmukit/raw pair saw the same machine load:
	 * the median of the paired ratios is steadier than the ratio of medians. */
	for (int rep = 0; rep < REPS; rep++)
		pair[rep] = t[PMUKIT][rep] / t[RAW][rep];
	qsort(pair, REPS, sizeof(double), cmp_double);
	for (int m = 0; m < NMETHODS; m++) {
		qsort(t[m], REPS, sizeof(double), cmp_double);
		med[m] = t[m][REPS / 2];
	}

	printf("\nread overhead, 3-event software group {task-clock,page-faults,context-switches}\n"
	       "on the calling thread; %d reads per run, median of %d interleaved runs\n\n",
	       ITERS, REPS);
	printf("%-22s %12s %12s %12s\n", "method", "median ns", "min ns", "max ns");
	for (int m = 0; m < NMETHODS; m++) {
		if (!have[m]) {
			printf("%-22s %12s\n", names[m], "n/a");
			continue;
		}
		printf("%-22s %12.1f %12.1f %12.1f\n", names[m], med[m], t[m][0], t[m][REPS - 1]);
	}
	printf("\nratio pmukit/raw:  %.3f (median of the %d paired runs)\n", pair[REPS / 2], REPS);
	if (have[PAPI])
		printf("ratio PAPI/pmukit: %.2f\n", med[PAPI] / med[PMUKIT]);
	else
		printf("ratio PAPI/pmukit: n/a (PAPI could not count these events here)\n");
	printf("user read, 4 events (crafted pages, fake counter, %d reads per run): %.1f ns "
	       "(target < 60 ns)\n", UREAD_ITERS, med[UREAD]);
	if (have[UREAD_TSC])
		printf("  with the real time-extension clock (rdtsc/cntvct): %.1f ns\n",
		       med[UREAD_TSC]);
	printf("sanity: task-clock %llu ns, page-faults %llu, context-switches %llu\n",
	       (unsigned long long)buf[3], (unsigned long long)buf[5], (unsigned long long)buf[7]);
	pmu_counters_close(c);
	pmu_event_list_free(list);
	close(leader);
	return 0;
}
