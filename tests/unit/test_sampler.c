/* SPDX-License-Identifier: MIT */
/* The sampler live on this host with the cpu-clock software event (no hardware
 * PMU needed): samples land in the spinning function, on the right thread, in
 * time order, with the asked period; small rings lose records and say so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <pmukit/error.h>
#include <pmukit/sampling.h>

#include "linux/sampler.h"

#define MS 1000000ull

/* The spin loop lives in its own section: the linker's __start_/__stop_ symbols
 * bound exactly the addresses a sample taken while spinning should carry. */
extern const char __start_pmk_spin[], __stop_pmk_spin[];

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, section("pmk_spin"))) static uint64_t spin(uint64_t ns)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + ns;
	volatile uint64_t x = 1;

	do {
		for (int i = 0; i < 200000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	} while (now_ns(CLOCK_MONOTONIC) < end);
	return x;
}

static int32_t my_tid(void)
{
	return (int32_t)syscall(SYS_gettid);
}

static struct pmu_event cpu_clock(void)
{
	struct pmu_event ev = { .name = "cpu-clock", .pmu = "software",
				.kind = PMU_EVENT_SOFTWARE, .type = PERF_TYPE_SOFTWARE,
				.config = PERF_COUNT_SW_CPU_CLOCK, .group_leader = 1,
				.generic = PMU_GENERIC_CPU_CLOCK };
	return ev;
}

/* Everything a test wants to know about what a read delivered. */
struct tally {
	int32_t tid;           /* the thread expected in samples (0: any) */
	int32_t own_tid;       /* samples of this thread are counted in own */
	long own;
	uint64_t period;       /* expected period (0: any) */
	uint64_t t0, t1;       /* samples must fall in [t0, t1] when t1 != 0 */
	long samples, in_spin, bad_tid, bad_period, bad_event, backwards, bad_time;
	long per_event[3];     /* samples of event 0, 1, and of an unknown event */
	long lost_records, comm, mmap, fork, sw, with_cpu;
	uint64_t last_time, lost;
	int32_t cpu_seen[64];
	char comm_name[16], mmap_path[PATH_MAX];
	int32_t fork_ppid;
};

static int count_rec(const struct pmu_record *r, void *ctx)
{
	struct tally *t = ctx;

	switch (r->kind) {
	case PMU_RECORD_SAMPLE:
		t->samples++;
		t->own += t->own_tid && r->tid == t->own_tid;
		if (r->sample.ip >= (uintptr_t)__start_pmk_spin &&
		    r->sample.ip < (uintptr_t)__stop_pmk_spin)
			t->in_spin++;
		t->bad_tid += t->tid && (r->tid != t->tid || r->pid != getpid());
		t->bad_period += t->period && r->sample.period != t->period;
		t->bad_event += r->event != 0;
		t->per_event[r->event >= 0 && r->event < 2 ? r->event : 2]++;
		t->backwards += r->time < t->last_time;
		t->bad_time += t->t1 && (r->time < t->t0 || r->time > t->t1);
		t->last_time = r->time;
		if ((r->has & PMU_HAS_CPU) && r->cpu >= 0) {
			t->with_cpu++;
			if (r->cpu < 64)
				t->cpu_seen[r->cpu]++;
		}
		break;
	case PMU_RECORD_LOST:
		t->lost_records++;
		t->lost += r->lost.count;
		break;
	case PMU_RECORD_COMM:
		t->comm++;
		if (r->tid == t->tid)
			memcpy(t->comm_name, r->comm.name, sizeof(t->comm_name));
		break;
	case PMU_RECORD_MMAP:
		t->mmap++;
		if (r->mmap.path && strstr(r->mmap.path, "test_sampler"))
			snprintf(t->mmap_path, sizeof(t->mmap_path), "%s", r->mmap.path);
		break;
	case PMU_RECORD_FORK:
		t->fork++;
		t->fork_ppid = r->task.ppid;
		break;
	case PMU_RECORD_SWITCH:
		t->sw++;
		break;
	default:
		break;
	}
	return 0;
}

static void test_self_cpu_clock(void **state)
{
	struct pmu_event ev = cpu_clock();
	PMU_OPTS(pmu_sampler_opts, o, .period = MS, .exclude_kernel = 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct tally tl = { .tid = my_tid(), .period = MS };
	struct pmu_sampler_stats st;
	struct pmu_sampler *s;
	uint64_t cpu0, cpu1;
	int err;

	(void)state;
	tl.t0 = now_ns(CLOCK_MONOTONIC);
	err = pmuk_sampler_open_events(&ev, 1, &t, &o, &s);
	if (err == PMU_EPERM) {
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		skip();
	}
	assert_int_equal(err, 0);
	assert_int_equal(pmu_sampler_event_count(s), 1);
	assert_string_equal(pmu_sampler_event(s, 0)->name, "cpu-clock");
	assert_null(pmu_sampler_event(s, 1));
	cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	spin(300 * MS);
	cpu1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	assert_int_equal(pmu_sampler_disable(s), 0);
	tl.t1 = now_ns(CLOCK_MONOTONIC);
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	assert_int_equal(pmu_sampler_stats(s, &st, sizeof(st)), 0);
	fprintf(stderr, "%ld samples over %.0f ms of CPU, %ld in spin()\n", tl.samples,
		(double)(cpu1 - cpu0) / 1e6, tl.in_spin);
	/* one sample per ms of CPU time, give or take scheduling */
	assert_true(tl.samples >= (long)((cpu1 - cpu0) / MS) / 2);
	assert_true(tl.samples <= (long)((cpu1 - cpu0) / MS) + 20);
	assert_true(tl.in_spin * 10 >= tl.samples * 8);
	assert_int_equal(tl.bad_tid, 0);
	assert_int_equal(tl.bad_period, 0);
	assert_int_equal(tl.bad_event, 0);
	assert_int_equal(tl.backwards, 0);
	assert_int_equal(tl.bad_time, 0); /* CLOCK_MONOTONIC timestamps */
	assert_int_equal(tl.with_cpu, tl.samples);
	assert_int_equal(st.samples, (uint64_t)tl.samples);
	assert_int_equal(st.corrupt, 0);
	/* disabled: nothing more arrives */
	spin(20 * MS);
	tl.samples = 0;
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	assert_int_equal(tl.samples, 0);
	pmu_sampler_close(s);
}

/* PERF_FORMAT_LOST (Linux 6.0) lets the sampler read losses no LOST record reported. */
static int kernel_counts_lost(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	return uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 && major >= 6;
}

/* A one-page ring under 20k samples/s: it overflows while nobody reads, and the
 * losses are reported although the kernel writes no LOST record (nothing fits
 * after the ring filled); then it wraps many times while read often, and the
 * LOST record the kernel writes late is not counted twice. */
static void test_small_ring(void **state)
{
	struct pmu_event ev = cpu_clock();
	PMU_OPTS(pmu_sampler_opts, o, .period = 50000, .pages = 1, .exclude_kernel = 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct tally tl = { .tid = my_tid(), .period = 50000 };
	struct pmu_sampler_stats st;
	struct pmu_sampler *s;
	uint64_t cpu0, expect, lost1;
	long got;

	(void)state;
	if (pmuk_sampler_open_events(&ev, 1, &t, &o, &s) == PMU_EPERM) {
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		skip();
	}
	/* overflow: spin without reading, stop, read once */
	cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	spin(200 * MS);
	assert_int_equal(pmu_sampler_disable(s), 0);
	expect = (now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 50000;
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	assert_int_equal(pmu_sampler_stats(s, &st, sizeof(st)), 0);
	got = tl.samples + (long)tl.lost;
	fprintf(stderr, "overflow: %ld samples + %llu lost (%ld LOST records, %llu throttles), "
		"expected ~%llu\n", tl.samples, (unsigned long long)tl.lost, tl.lost_records,
		(unsigned long long)st.throttles, (unsigned long long)expect);
	assert_int_equal(st.lost, tl.lost);
	assert_int_equal(tl.bad_tid + tl.bad_period + tl.backwards, 0);
	assert_int_equal(st.corrupt, 0);
	if (!kernel_counts_lost()) {
		pmu_sampler_close(s);
		fprintf(stderr, "skip: this kernel has no PERF_FORMAT_LOST (Linux 6.0)\n");
		skip();
	}
	assert_true(tl.lost_records >= 1);
	assert_true(tl.lost > 0);
	assert_true(got >= (long)expect / 2 && got <= (long)expect * 3 / 2);
	lost1 = tl.lost;

	/* wrap: read every 2 ms; the 4 KiB ring wraps dozens of times. The kernel
	 * writes its LOST record for the losses above now, which were reported
	 * already: it must not count them again */
	memset(&tl, 0, sizeof(tl));
	tl.tid = my_tid();
	tl.period = 50000;
	assert_int_equal(pmu_sampler_enable(s), 0);
	cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (int i = 0; i < 100; i++) {
		spin(2 * MS);
		assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	}
	assert_int_equal(pmu_sampler_disable(s), 0);
	expect = (now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 50000;
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	got = tl.samples + (long)tl.lost;
	fprintf(stderr, "wrap: %ld samples + %llu lost, expected ~%llu\n", tl.samples,
		(unsigned long long)tl.lost, (unsigned long long)expect);
	assert_true(tl.samples * 56 > 8 * 4096); /* 56-byte records: the ring wrapped */
	assert_true(got >= (long)expect / 2 && got <= (long)expect * 3 / 2);
	assert_true(tl.lost < lost1 / 2);
	assert_int_equal(tl.bad_tid + tl.bad_period + tl.backwards, 0);
	assert_int_equal(pmu_sampler_stats(s, &st, sizeof(st)), 0);
	assert_int_equal(st.lost, lost1 + tl.lost);
	assert_int_equal(st.corrupt, 0);
	pmu_sampler_close(s);
}

static void test_hw_event_without_pmu(void **state)
{
	struct pmu_event ev = { .name = "cycles", .kind = PMU_EVENT_HARDWARE,
				.type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES,
				.group_leader = 1, .generic = PMU_GENERIC_CYCLES };
	PMU_OPTS(pmu_sampler_opts, o, .period = 100000);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_sampler *s = NULL;
	struct pmu_device d;
	int err;

	(void)state;
	if (pmu_device_core_list(&d, 1) > 0) {
		fprintf(stderr, "skip: this host has a hardware PMU (%s)\n", d.name);
		skip();
	}
	err = pmuk_sampler_open_events(&ev, 1, &t, &o, &s);
	assert_int_equal(err, PMU_ENOTSUP);
	assert_null(s);
	assert_non_null(strstr(pmu_error_detail(), "no hardware PMU"));
}

static void test_cpu_target(void **state)
{
	struct pmu_event ev = cpu_clock();
	PMU_OPTS(pmu_sampler_opts, o, .period = MS, .exclude_kernel = 1);
	struct pmu_target t = { .kind = PMU_TARGET_CPUS };
	struct tally tl = { .period = MS, .own_tid = my_tid() };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), mine = 0;
	struct pmu_sampler *s;
	uint64_t cpu0, cpu1;
	int err;

	(void)state;
	err = pmuk_sampler_open_events(&ev, 1, &t, &o, &s);
	if (err == PMU_EPERM) {
		fprintf(stderr, "skip: CPU-wide sampling not allowed: %s\n", pmu_error_detail());
		skip();
	}
	assert_int_equal(err, 0);
	cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	spin(100 * MS);
	cpu1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	assert_int_equal(pmu_sampler_disable(s), 0);
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	for (long c = 0; c < 64; c++) {
		if (c >= ncpu)
			assert_int_equal(tl.cpu_seen[c], 0);
		mine += tl.cpu_seen[c];
	}
	fprintf(stderr, "%ld samples on %ld CPUs, %ld of this thread over %.0f ms of its CPU\n",
		tl.samples, ncpu, tl.own, (double)(cpu1 - cpu0) / 1e6);
	assert_true(tl.own >= (long)((cpu1 - cpu0) / MS) / 2);
	assert_true(tl.own > 0);
	assert_int_equal(tl.with_cpu, tl.samples);
	assert_int_equal(mine, tl.samples);
	assert_int_equal(tl.bad_period + tl.bad_event, 0);
	pmu_sampler_close(s);
}

/* Two events of one thread share its ring; each sample names its event. */
static void test_two_events(void **state)
{
	struct pmu_event ev[2] = { cpu_clock(), cpu_clock() };
	PMU_OPTS(pmu_sampler_opts, o, .period = MS, .exclude_kernel = 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct tally tl = { .tid = my_tid(), .period = MS };
	struct pmu_sampler *s;
	int err;

	(void)state;
	snprintf(ev[1].name, sizeof(ev[1].name), "task-clock");
	ev[1].config = PERF_COUNT_SW_TASK_CLOCK;
	ev[1].group_leader = 0; /* {cpu-clock,task-clock} */
	err = pmuk_sampler_open_events(ev, 2, &t, &o, &s);
	if (err == PMU_EPERM) {
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		skip();
	}
	assert_int_equal(err, 0);
	spin(100 * MS);
	assert_int_equal(pmu_sampler_disable(s), 0);
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	fprintf(stderr, "cpu-clock %ld, task-clock %ld samples\n", tl.per_event[0],
		tl.per_event[1]);
	assert_true(tl.per_event[0] > 0);
	assert_true(tl.per_event[1] > 0);
	/* the group starts as one, so neither member misses part of the run */
	assert_true(tl.per_event[1] * 10 >= tl.per_event[0] * 9);
	assert_true(tl.per_event[0] * 10 >= tl.per_event[1] * 9);
	assert_int_equal(tl.per_event[2], 0);
	assert_int_equal(tl.bad_tid + tl.bad_period + tl.backwards, 0);
	assert_string_equal(pmu_sampler_event(s, 1)->name, "task-clock");
	pmu_sampler_close(s);
}

static void *idle_thread(void *arg)
{
	(void)arg;
	return NULL;
}

/* task and context_switch: COMM, MMAP, FORK and SWITCH records of this thread. */
static void test_task_records(void **state)
{
	struct pmu_event ev = cpu_clock();
	PMU_OPTS(pmu_sampler_opts, o, .period = 10 * MS, .exclude_kernel = 1,
		 .task = 1, .context_switch = 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct tally tl = { .tid = my_tid() };
	char old[16] = "", exe[PATH_MAX];
	struct pmu_sampler *s;
	pthread_t th;
	ssize_t n;
	void *m;
	int fd;

	(void)state;
	if (pmuk_sampler_open_events(&ev, 1, &t, &o, &s) == PMU_EPERM) {
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		skip();
	}
	prctl(PR_GET_NAME, old);
	prctl(PR_SET_NAME, "pmk-sampler");
	fd = open("/proc/self/exe", O_RDONLY);
	assert_true(fd >= 0);
	m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(pthread_create(&th, NULL, idle_thread, NULL), 0);
	pthread_join(th, NULL);
	usleep(2000);
	assert_int_equal(pmu_sampler_disable(s), 0);
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	prctl(PR_SET_NAME, old);
	munmap(m, 4096);
	close(fd);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_string_equal(tl.comm_name, "pmk-sampler");
	assert_string_equal(tl.mmap_path, exe);
	assert_true(tl.fork >= 1);
	assert_int_equal(tl.fork_ppid, getpid());
	assert_true(tl.sw >= 2); /* out and back in around usleep */
	pmu_sampler_close(s);
}

struct spinner {
	volatile int stop;
	volatile int32_t tid;
};

static void *spin_thread(void *arg)
{
	struct spinner *sp = arg;

	sp->tid = my_tid();
	while (!sp->stop)
		spin(5 * MS);
	return NULL;
}

/* Another thread (PMU_TARGET_TID): poll wakes when its ring fills, then reports
 * PMU_ESRCH once the thread has exited. */
static void test_tid_poll(void **state)
{
	struct pmu_event ev = cpu_clock();
	PMU_OPTS(pmu_sampler_opts, o, .period = 100000, .pages = 2, .exclude_kernel = 1);
	struct spinner sp = { 0 };
	struct pmu_target t = { .kind = PMU_TARGET_TID };
	struct tally tl = { .period = 100000 };
	struct pmu_sampler *s;
	pthread_t th;
	int err, polls = 0;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, spin_thread, &sp), 0);
	while (!sp.tid)
		usleep(100);
	t.pid = sp.tid;
	tl.tid = sp.tid;
	err = pmuk_sampler_open_events(&ev, 1, &t, &o, &s);
	if (err == PMU_EPERM) {
		sp.stop = 1;
		pthread_join(th, NULL);
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		skip();
	}
	assert_int_equal(err, 0);
	assert_true(pmu_sampler_poll(s, 5000) >= 1);
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	assert_true(tl.samples > 10);
	sp.stop = 1;
	pthread_join(th, NULL);
	do {
		err = pmu_sampler_poll(s, 1000);
		assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	} while (err >= 0 && ++polls < 10);
	assert_int_equal(err, PMU_ESRCH);
	assert_int_equal(tl.bad_tid + tl.bad_period, 0);
	pmu_sampler_close(s);
}

/* A thread whose ring filled and which then exited: no LOST record can follow,
 * the losses are reported all the same. */
static void test_lost_after_exit(void **state)
{
	struct pmu_event ev = cpu_clock();
	PMU_OPTS(pmu_sampler_opts, o, .period = 50000, .pages = 1, .exclude_kernel = 1);
	struct spinner sp = { 0 };
	struct pmu_target t = { .kind = PMU_TARGET_TID };
	struct tally tl = { .period = 50000 };
	struct pmu_sampler_stats st;
	struct pmu_sampler *s;
	pthread_t th;
	int err;

	(void)state;
	if (!kernel_counts_lost()) {
		fprintf(stderr, "skip: this kernel has no PERF_FORMAT_LOST (Linux 6.0)\n");
		skip();
	}
	assert_int_equal(pthread_create(&th, NULL, spin_thread, &sp), 0);
	while (!sp.tid)
		usleep(100);
	t.pid = sp.tid;
	tl.tid = sp.tid;
	err = pmuk_sampler_open_events(&ev, 1, &t, &o, &s);
	if (err == PMU_EPERM) {
		sp.stop = 1;
		pthread_join(th, NULL);
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		skip();
	}
	assert_int_equal(err, 0);
	usleep(200000);        /* 200 ms at 20k samples/s of its CPU: the 4 KiB ring fills */
	sp.stop = 1;
	pthread_join(th, NULL);
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	assert_int_equal(pmu_sampler_stats(s, &st, sizeof(st)), 0);
	fprintf(stderr, "exited thread: %ld samples + %llu lost\n", tl.samples,
		(unsigned long long)tl.lost);
	assert_true(tl.samples > 0);
	assert_true(tl.lost > 0);
	assert_int_equal(st.lost, tl.lost);
	assert_int_equal(tl.bad_tid + tl.bad_period, 0);
	/* read again: nothing new, nothing reported twice */
	memset(&tl, 0, sizeof(tl));
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	assert_int_equal(tl.samples + (long)tl.lost + tl.lost_records, 0);
	pmu_sampler_close(s);
}

static void test_bad_options(void **state)
{
	struct pmu_event ev = cpu_clock();
	PMU_OPTS(pmu_sampler_opts, o, .period = MS, .pages = 3);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_sampler *s = NULL;
	char path[] = "/proc/sys/kernel/perf_event_max_sample_rate";
	FILE *f;
	int max = 0;

	(void)state;
	assert_int_equal(pmuk_sampler_open_events(&ev, 1, &t, &o, &s), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "power of two"));
	o.pages = 0;
	o.use_freq = 1;
	o.freq = 0;
	assert_int_equal(pmuk_sampler_open_events(&ev, 1, &t, &o, &s), PMU_EINVAL);
	assert_int_equal(pmu_sampler_open(NULL, &t, &o, &s), PMU_EINVAL);
	f = fopen(path, "r");
	if (f && fscanf(f, "%d", &max) == 1 && max > 0) {
		o.freq = (uint64_t)max * 2;
		assert_int_equal(pmuk_sampler_open_events(&ev, 1, &t, &o, &s), PMU_EINVAL);
		assert_non_null(strstr(pmu_error_detail(), "perf_event_max_sample_rate"));
	}
	if (f)
		fclose(f);
	assert_null(s);
}

/* The public entry point with a parsed event list, frequency mode. */
static void test_parsed_freq(void **state)
{
	PMU_OPTS(pmu_sampler_opts, o, .use_freq = 1, .freq = 500, .exclude_kernel = 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct tally tl = { .tid = my_tid() };
	struct pmu_event_list *list;
	struct pmu_sampler *s;
	uint64_t cpu0, expect;
	int err;

	(void)state;
	err = pmu_event_parse("cpu-clock", &list);
	if (err < 0) {
		fprintf(stderr, "skip: the event parser rejects cpu-clock: %s\n", pmu_error_detail());
		skip();
	}
	err = pmu_sampler_open(list, &t, &o, &s);
	pmu_event_list_free(list);
	if (err == PMU_EPERM) {
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		skip();
	}
	assert_int_equal(err, 0);
	cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	spin(200 * MS);
	expect = (now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / (2 * MS); /* 500 Hz of CPU time */
	assert_int_equal(pmu_sampler_read(s, count_rec, &tl), 0);
	fprintf(stderr, "freq 500: %ld samples, ~%llu expected\n", tl.samples,
		(unsigned long long)expect);
	/* the kernel tunes the period while running: loose bounds */
	assert_true(tl.samples >= (long)expect / 3 && tl.samples > 0);
	assert_true(tl.samples <= (long)expect * 3 + 20);
	assert_int_equal(tl.bad_tid + tl.bad_event, 0);
	pmu_sampler_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_cpu_clock),
		cmocka_unit_test(test_small_ring),
		cmocka_unit_test(test_hw_event_without_pmu),
		cmocka_unit_test(test_cpu_target),
		cmocka_unit_test(test_two_events),
		cmocka_unit_test(test_task_records),
		cmocka_unit_test(test_tid_poll),
		cmocka_unit_test(test_lost_after_exit),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_parsed_freq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
