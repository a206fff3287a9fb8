/* SPDX-License-Identifier: MIT */
/* Live counting with real perf_event fds and software events (no PMU needed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "core/error.h"
#include "core/sysroot.h"
#include "linux/counters.h"
#include "linux/perf_event.h"

#define NPAGES 256
/* AddressSanitizer faults in shadow pages too (one per 8 pages touched, and more). */
#if defined(__SANITIZE_ADDRESS__)
#define SLACK (NPAGES / 4 + 64)
#else
#define SLACK 16
#endif

static struct pmu_event ev_sw(const char *name, uint64_t config, int group, int leader)
{
	struct pmu_event e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.pmu, sizeof(e.pmu), "software");
	e.kind = PMU_EVENT_SOFTWARE;
	e.type = PERF_TYPE_SOFTWARE;
	e.config = config;
	e.group = group;
	e.group_leader = leader;
	e.generic = -1;
	return e;
}

static struct pmu_event ev_hw(const char *name, uint64_t config, int group, int leader)
{
	struct pmu_event e = ev_sw(name, config, group, leader);

	snprintf(e.pmu, sizeof(e.pmu), "cpu");
	e.kind = PMU_EVENT_HARDWARE;
	e.type = PERF_TYPE_HARDWARE;
	return e;
}

/* {task-clock, page-faults, context-switches} as one group */
static void sw_group(struct pmu_event ev[3])
{
	ev[0] = ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0, 1);
	ev[1] = ev_sw("page-faults", PERF_COUNT_SW_PAGE_FAULTS, 0, 0);
	ev[2] = ev_sw("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Burns ms of this thread's CPU time (not wall time: the host may be busy). */
static void spin(double ms)
{
	volatile unsigned long x = 0;
	uint64_t end = thread_cpu_ns() + (uint64_t)(ms * 1e6);

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
	(void)x;
}

static void touch(long npages)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)(npages * page), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	madvise((void *)p, (size_t)(npages * page), MADV_NOHUGEPAGE); /* one fault per page */
	for (long i = 0; i < npages; i++)
		p[i * page] = 1;
	munmap((void *)p, (size_t)(npages * page));
}

static void test_task_clock_spins(void **state)
{
	struct pmu_event ev = ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0, 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_reading a, b;
	struct pmu_counters *c;
	uint64_t t0, t1;

	(void)state;
	assert_int_equal(pmuk_counters_open_events(&ev, 1, &t, NULL, &c), 0);
	assert_int_equal(pmu_counters_event_count(c), 1);
	assert_string_equal(pmu_counters_event(c, 0)->name, "task-clock");
	assert_null(pmu_counters_event(c, 1));
	assert_int_equal(pmu_counters_cpu_count(c), 0);
	assert_int_equal(pmu_counters_read(c, &a, 1), 0);
	t0 = thread_cpu_ns();
	spin(20);
	t1 = thread_cpu_ns();
	assert_int_equal(pmu_counters_read(c, &b, 1), 0);
	/* task-clock is this thread's CPU time: it agrees with the POSIX thread clock */
	assert_true(b.value - a.value >= t1 - t0 - 1000000ull);
	assert_true(b.value - a.value <= t1 - t0 + 5000000ull);
	assert_true(b.time_enabled > a.time_enabled);
	assert_int_equal(b.flags, 0);
	assert_true(b.scaled == (double)b.value);
	/* too small an output array */
	assert_int_equal(pmu_counters_read(c, &b, 0), PMU_ERANGE);
	pmu_counters_close(c);
}

static void test_group_page_faults(void **state)
{
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_reading a[3], b[3];
	struct pmu_event ev[3];
	struct pmu_counters *c;
	uint64_t faults;

	(void)state;
	sw_group(ev);
	assert_int_equal(pmuk_counters_open_events(ev, 3, &t, NULL, &c), 0);
	assert_int_equal(pmu_counters_read(c, a, 3), 0);
	touch(NPAGES);
	assert_int_equal(pmu_counters_read(c, b, 3), 0);
	faults = b[1].value - a[1].value;
	assert_true(faults >= NPAGES);
	assert_true(faults <= NPAGES + SLACK);
	for (int i = 0; i < 3; i++) {
		assert_true(b[i].time_enabled > 0);
		assert_true(b[i].time_running > 0);
		assert_int_equal(b[i].flags, 0);
		/* one group read: one pair of times for every member */
		assert_int_equal(b[i].time_enabled, b[0].time_enabled);
		assert_int_equal(b[i].time_running, b[0].time_running);
	}
	assert_true(b[0].value > a[0].value);
	pmu_counters_close(c);
}

static void test_enable_disable_reset(void **state)
{
	PMU_OPTS(pmu_counters_opts, o, .start_disabled = 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_reading r[3], s[3];
	struct pmu_event ev[3];
	struct pmu_counters *c;

	(void)state;
	sw_group(ev);
	assert_int_equal(pmuk_counters_open_events(ev, 3, &t, &o, &c), 0);
	spin(5);
	assert_int_equal(pmu_counters_read(c, r, 3), 0);
	assert_int_equal(r[0].value, 0);
	assert_int_equal(r[0].time_enabled, 0);
	assert_int_equal(r[0].flags, 0);
	assert_int_equal(pmu_counters_enable(c), 0);
	spin(10);
	touch(16);
	assert_int_equal(pmu_counters_disable(c), 0);
	assert_int_equal(pmu_counters_read(c, r, 3), 0);
	assert_true(r[0].value >= 10000000ull);
	assert_true(r[1].value >= 16);
	spin(10);
	touch(16);
	assert_int_equal(pmu_counters_read(c, s, 3), 0);
	assert_int_equal(s[0].value, r[0].value);    /* disabled: frozen */
	assert_int_equal(s[1].value, r[1].value);
	assert_int_equal(s[0].time_enabled, r[0].time_enabled);
	assert_int_equal(pmu_counters_reset(c), 0);
	assert_int_equal(pmu_counters_read(c, s, 3), 0);
	assert_int_equal(s[0].value, 0);
	assert_int_equal(s[1].value, 0);
	assert_int_equal(pmu_counters_enable(c), 0);
	touch(8);
	assert_int_equal(pmu_counters_read(c, s, 3), 0);
	assert_true(s[1].value >= 8 && s[1].value < r[1].value);
	pmu_counters_close(c);
}

/* A child with two extra threads, all held until the parent writes to the pipe;
 * then each touches NPAGES pages. */
static int go_fd;

static void *child_thread(void *arg)
{
	char ch;

	(void)arg;
	if (read(go_fd, &ch, 1) != 1)
		_exit(3);
	touch(NPAGES);
	return NULL;
}

static void test_pid_target(void **state)
{
	struct pmu_target t = { .kind = PMU_TARGET_PID };
	int go[2], ready[2], status;
	struct pmu_reading r[3];
	struct pmu_event ev[3];
	struct pmu_counters *c;
	char ch = 0;
	pid_t pid;

	(void)state;
	sw_group(ev);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pthread_t th[2];

		go_fd = go[0];
		for (int i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, child_thread, NULL);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		child_thread(NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &ch, 1), 1);
	t.pid = pid;
	assert_int_equal(pmuk_counters_open_events(ev, 3, &t, NULL, &c), 0);
	assert_int_equal(write(go[1], "ggg", 3), 3);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* counts survive the exit of the threads */
	assert_int_equal(pmu_counters_read(c, r, 3), 0);
	assert_true(r[1].value >= 3 * NPAGES);
	assert_true(r[1].value <= 3 * NPAGES + 4 * SLACK);
	assert_true(r[0].value > 0);
	/* one counter set per thread, each having touched its NPAGES, summing to the whole */
	assert_int_equal(pmu_counters_thread_count(c), 3);
	assert_int_equal(pmu_counters_cpu_count(c), 0);
	uint64_t faults = 0;
	for (size_t i = 0; i < 3; i++) {
		struct pmu_reading rt[3];

		assert_true(pmu_counters_thread(c, i) > 0);
		assert_int_equal(pmu_counters_read_thread(c, i, rt, 3), 0);
		assert_true(rt[1].value >= NPAGES);
		faults += rt[1].value;
	}
	assert_int_equal(faults, r[1].value);
	assert_int_equal(pmu_counters_thread(c, 3), -1);
	assert_int_equal(pmu_counters_read_thread(c, 3, r, 3), PMU_EINVAL);
	pmu_counters_close(c);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
}

static void test_cpus_target(void **state)
{
	struct pmu_event ev = ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0, 1);
	struct pmu_target t = { .kind = PMU_TARGET_CPUS };
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	struct pmu_reading r, rc;
	struct pmu_counters *c;
	int cpu0 = 0, err;

	(void)state;
	err = pmuk_counters_open_events(&ev, 1, &t, NULL, &c);
	if (err == PMU_EPERM) {
		fprintf(stderr, "skip: CPU-wide counting not allowed here: %s\n", pmu_error_detail());
		skip();
	}
	assert_int_equal(err, 0);
	assert_int_equal(pmu_counters_cpu_count(c), (size_t)online);
	for (long i = 0; i < online; i++)
		assert_true(pmu_counters_cpu(c, (size_t)i) >= 0);
	assert_int_equal(pmu_counters_cpu(c, (size_t)online), -1);
	spin(20);
	assert_int_equal(pmu_counters_read(c, &r, 1), 0);
	/* CPU-wide task-clock counts our spinning on whichever CPU it ran on */
	assert_true(r.value >= 15000000ull);
	assert_true(r.time_enabled > 0);
	for (long i = 0; i < online; i++) {
		assert_int_equal(pmu_counters_read_cpu(c, (size_t)i, &rc, 1), 0);
		assert_true(rc.time_enabled > 0);
	}
	assert_int_equal(pmu_counters_read_cpu(c, (size_t)online, &rc, 1), PMU_EINVAL);
	/* a CPU target has no thread sets */
	assert_int_equal(pmu_counters_thread_count(c), 0);
	assert_int_equal(pmu_counters_read_thread(c, 0, &rc, 1), PMU_EINVAL);
	pmu_counters_close(c);

	/* an explicit CPU list */
	t.cpus = &cpu0;
	t.ncpus = 1;
	assert_int_equal(pmuk_counters_open_events(&ev, 1, &t, NULL, &c), 0);
	assert_int_equal(pmu_counters_cpu_count(c), 1);
	assert_int_equal(pmu_counters_cpu(c, 0), 0);
	pmu_counters_close(c);
}

static void test_hardware_event(void **state)
{
	struct pmu_event ev = ev_hw("cycles", PERF_COUNT_HW_CPU_CYCLES, 0, 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_counters *c = NULL;
	struct pmu_device d;
	struct pmu_reading r;
	int err;

	(void)state;
	err = pmuk_counters_open_events(&ev, 1, &t, NULL, &c);
	if (pmu_device_core_list(&d, 1) <= 0) {
		assert_int_equal(err, PMU_ENOTSUP);
		assert_non_null(strstr(pmu_error_detail(), "no hardware PMU"));
		assert_non_null(strstr(pmu_error_detail(), "cycles"));
		assert_null(c);
		return;
	}
	assert_int_equal(err, 0);
	spin(10);
	assert_int_equal(pmu_counters_read(c, &r, 1), 0);
	assert_true(r.value > 1000000);
	pmu_counters_close(c);
}

/* skip_unsupported: a group no PMU here can count (a PMU type the kernel does not
 * have) is left out with its reason and flagged in every reading; the rest counts.
 * Without it, or with nothing left to count, open fails. */
static void test_skip_unsupported(void **state)
{
	struct pmu_event ev[3] = {
		ev_sw("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 0, 1),
		ev_hw("bogus", 1, 0, 0),
		ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 1, 1),
	};
	PMU_OPTS(pmu_counters_opts, o, .skip_unsupported = 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_counters *c = NULL;
	struct pmu_reading r[3];

	(void)state;
	snprintf(ev[1].pmu, sizeof(ev[1].pmu), "nosuchpmu");
	ev[1].kind = PMU_EVENT_RAW;
	ev[1].type = 0x7ffffff0;	/* no PMU registers this type */
	assert_int_equal(pmuk_counters_open_events(ev, 3, &t, NULL, &c), PMU_ENOTSUP);
	assert_null(c);
	assert_int_equal(pmuk_counters_open_events(ev, 3, &t, &o, &c), 0);
	assert_null(pmu_counters_unsupported(c, 2));
	assert_non_null(pmu_counters_unsupported(c, 0));	/* the whole group */
	assert_non_null(strstr(pmu_counters_unsupported(c, 1), "bogus"));
	/* cpu-clock counts alone: it is left out with its group, for bogus's sake */
	assert_non_null(strstr(pmu_counters_unsupported(c, 0), "left out with its group"));
	assert_int_equal(pmu_counters_left_with_group(c, 0), 1);
	assert_int_equal(pmu_counters_left_with_group(c, 1), 0);
	assert_int_equal(pmu_counters_left_with_group(c, 2), 0);
	assert_null(pmu_counters_unsupported(c, 3));
	spin(5);
	assert_int_equal(pmu_counters_disable(c), 0);
	assert_int_equal(pmu_counters_read(c, r, 3), 0);
	assert_true(r[0].flags & PMU_READING_UNSUPPORTED);
	assert_true(r[1].flags & PMU_READING_UNSUPPORTED);
	assert_int_equal(r[0].value + r[1].value, 0);
	assert_false(r[2].flags & PMU_READING_UNSUPPORTED);
	assert_true(r[2].value >= 4000000);	/* 5 ms of spinning, in ns */
	assert_int_equal(pmu_counters_enable(c), 0);
	assert_int_equal(pmu_counters_reset(c), 0);
	pmu_counters_close(c);

	/* nothing left to count: the error names the reason */
	assert_int_equal(pmuk_counters_open_events(&ev[1], 1, &t, &o, &c), PMU_ENOTSUP);
	assert_null(c);
	assert_non_null(strstr(pmu_error_detail(), "bogus"));

	/* allow_empty: a handle that counts nothing, and says why */
	o.allow_empty = 1;
	assert_int_equal(pmuk_counters_open_events(&ev[1], 1, &t, &o, &c), 0);
	assert_non_null(strstr(pmu_counters_unsupported(c, 0), "bogus"));
	assert_int_equal(pmu_counters_enable(c), 0);
	assert_int_equal(pmu_counters_read(c, r, 3), 0);
	assert_true(r[0].flags & PMU_READING_UNSUPPORTED);
	pmu_counters_close(c);
}

/* A left-out group gives each member its own reason: the one that failed its
 * error, another the error it gets alone (not the first member's). */
static void test_skip_unsupported_reasons(void **state)
{
	struct pmu_event ev[3] = {
		ev_hw("bogus1", 1, 0, 1),
		ev_hw("bogus2", 1, 0, 0),
		ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 1, 1),
	};
	PMU_OPTS(pmu_counters_opts, o, .skip_unsupported = 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_counters *c = NULL;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		snprintf(ev[i].pmu, sizeof(ev[i].pmu), "nosuchpmu");
		ev[i].kind = PMU_EVENT_RAW;
		ev[i].type = 0x7ffffff0;	/* no PMU registers this type */
	}
	assert_int_equal(pmuk_counters_open_events(ev, 3, &t, &o, &c), 0);
	assert_non_null(strstr(pmu_counters_unsupported(c, 0), "bogus1"));
	assert_non_null(strstr(pmu_counters_unsupported(c, 1), "bogus2"));
	assert_null(strstr(pmu_counters_unsupported(c, 1), "bogus1"));
	assert_int_equal(pmu_counters_left_with_group(c, 1), 0);
	assert_null(pmu_counters_unsupported(c, 2));
	pmu_counters_close(c);
}

/* The msr PMU as if it served only msr_cpus (a hybrid-like CPU list). */
static const char *msr_cpus;

static int msr_lookup(const char *name, struct pmu_device *out)
{
	int err = pmu_device_lookup(name, out);

	if (!err && !strcmp(name, "msr"))
		snprintf(out->cpus, sizeof(out->cpus), "%s", msr_cpus);
	return err;
}

/* skip_unsupported on CPU targets: a group is judged where it is first tried (not
 * only on the first CPU), a group whose PMU serves none of the CPUs is left out,
 * and a member refused for its modifier is not taken for a group too large. */
static void test_skip_unsupported_cpus(void **state)
{
	struct pmu_event ev[3] = {
		ev_sw("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 0, 1),
		ev_sw("msr/tsc/u", 0, 0, 0),
		ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 1, 1),
	};
	PMU_OPTS(pmu_counters_opts, o, .skip_unsupported = 1);
	int cpus[2] = { 0, 1 };
	struct pmu_target t = { .kind = PMU_TARGET_CPUS, .cpus = cpus, .ncpus = 2 };
	struct pmu_counters *c = NULL;
	char type[32];
	static const char *const served[] = { "1", "5" };

	(void)state;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    pmuk_read_text("/sys/bus/event_source/devices/msr/type", type, sizeof(type)) <= 0) {
		fprintf(stderr, "skip: needs 2 CPUs and the msr PMU\n");
		skip();
	}
	snprintf(ev[1].pmu, sizeof(ev[1].pmu), "msr");
	ev[1].kind = PMU_EVENT_RAW;
	ev[1].type = (uint32_t)atoi(type);
	ev[1].exclude_kernel = ev[1].exclude_hv = 1;
	pmuk_counters_set_device_lookup(msr_lookup);
	for (size_t k = 0; k < 2; k++) {
		msr_cpus = served[k];
		assert_int_equal(pmuk_counters_open_events(ev, 3, &t, NULL, &c), PMU_ENOTSUP);
		assert_null(strstr(pmu_error_detail(), "does not fit"));
		assert_int_equal(pmuk_counters_open_events(ev, 3, &t, &o, &c), 0);
		assert_non_null(pmu_counters_unsupported(c, 1));
		assert_null(pmu_counters_unsupported(c, 2));
		pmu_counters_close(c);
	}
	pmuk_counters_set_device_lookup(NULL);
}

static pid_t unused_pid(void)
{
	for (pid_t p = 4000000; p > 1000; p -= 7919)
		if (kill(p, 0) < 0 && errno == ESRCH)
			return p;
	return -1;
}

static void test_no_such_process(void **state)
{
	struct pmu_event ev = ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0, 1);
	struct pmu_target t = { .kind = PMU_TARGET_PID, .pid = unused_pid() };
	struct pmu_counters *c = NULL;
	char want[64];

	(void)state;
	assert_true(t.pid > 0);
	snprintf(want, sizeof(want), "no such process %d", t.pid);
	assert_int_equal(pmuk_counters_open_events(&ev, 1, &t, NULL, &c), PMU_ESRCH);
	assert_non_null(strstr(pmu_error_detail(), want));
	t.kind = PMU_TARGET_TID;
	assert_int_equal(pmuk_counters_open_events(&ev, 1, &t, NULL, &c), PMU_ESRCH);
	assert_non_null(strstr(pmu_error_detail(), want));
	assert_null(c);
	t.pid = 0;
	assert_int_equal(pmuk_counters_open_events(&ev, 1, &t, NULL, &c), PMU_EINVAL);
}

static int fake_lookup(const char *name, struct pmu_device *out)
{
	if (strcmp(name, "cpu") != 0)
		return PMU_ENOENT;
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "cpu");
	out->is_core = 1;
	out->gp_counters = 4;
	out->fixed_counters = 3;
	return 0;
}

static int atom_lookup(const char *name, struct pmu_device *out)
{
	if (strcmp(name, "cpu_atom") != 0)
		return PMU_ENOENT;
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "cpu_atom");
	snprintf(out->cpus, sizeof(out->cpus), "8-15");
	out->is_core = 1;
	out->gp_counters = out->fixed_counters = -1;
	return 0;
}

/* Hybrid: a group whose PMU serves none of the CPUs asked would open nowhere and
 * read zeros; it must fail and say which CPUs the PMU serves. */
static void test_hybrid_pmu_serves_none(void **state)
{
	struct pmu_event ev = ev_hw("cycles", PERF_COUNT_HW_CPU_CYCLES, 0, 1);
	int cpus[2] = { 0, 1 };
	struct pmu_target t = { .kind = PMU_TARGET_CPUS, .cpus = cpus, .ncpus = 2 };
	struct pmu_counters *c = NULL;

	(void)state;
	snprintf(ev.pmu, sizeof(ev.pmu), "cpu_atom");
	pmuk_counters_set_device_lookup(atom_lookup);
	assert_int_equal(pmuk_counters_open_events(&ev, 1, &t, NULL, &c), PMU_ENOTSUP);
	assert_null(c);
	assert_string_equal(pmu_error_detail(), "group {cycles} cannot count on the CPUs asked: "
			    "the cpu_atom PMU serves CPUs 8-15 only");
	pmuk_counters_set_device_lookup(NULL);
}

static void test_budget(void **state)
{
	const char *names[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i" };
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_counters *c = NULL;
	struct pmu_event ev[10];

	(void)state;
	for (int i = 0; i < 9; i++)
		ev[i] = ev_hw(names[i], (uint64_t)i, 0, i == 0);
	ev[9] = ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0, 0); /* needs no counter */
	pmuk_counters_set_device_lookup(fake_lookup);
	assert_int_equal(pmuk_counters_open_events(ev, 10, &t, NULL, &c), PMU_EBUDGET);
	assert_null(c);
	assert_string_equal(pmu_error_detail(),
			    "group {a,b,c,d,e,f,g,h,i,task-clock} needs 9 counters but the cpu "
			    "PMU has 4 general-purpose + 3 fixed; split the group");
	/* seven fit the budget */
	assert_int_equal(pmuk_counters_check_budget(ev, 7), 0);
	/* the same nine in two groups fit too */
	for (int i = 5; i < 9; i++) {
		ev[i].group = 1;
		ev[i].group_leader = i == 5;
	}
	assert_int_equal(pmuk_counters_check_budget(ev, 10), 0);
	/* unknown counter counts: no verdict */
	for (int i = 0; i < 9; i++)
		snprintf(ev[i].pmu, sizeof(ev[i].pmu), "other");
	for (int i = 0; i < 9; i++)
		ev[i].group = 0;
	assert_int_equal(pmuk_counters_check_budget(ev, 10), 0);
	pmuk_counters_set_device_lookup(NULL);
}

/* Through the public API with a parsed list: groups and order survive. */
static void test_parsed_list(void **state)
{
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_event_list *list;
	struct pmu_reading a[3], b[3];
	struct pmu_counters *c;

	(void)state;
	assert_int_equal(pmu_event_parse("{task-clock,page-faults},context-switches", &list), 0);
	assert_int_equal(pmu_counters_open(list, &t, NULL, &c), 0);
	pmu_event_list_free(list);
	assert_int_equal(pmu_counters_event_count(c), 3);
	assert_string_equal(pmu_counters_event(c, 0)->name, "task-clock");
	assert_string_equal(pmu_counters_event(c, 1)->name, "page-faults");
	assert_string_equal(pmu_counters_event(c, 2)->name, "context-switches");
	assert_int_equal(pmu_counters_read(c, a, 3), 0);
	touch(NPAGES);
	assert_int_equal(pmu_counters_read(c, b, 3), 0);
	assert_true(b[1].value - a[1].value >= NPAGES);
	assert_true(b[1].value - a[1].value <= NPAGES + SLACK);
	/* page-faults shares the leader's times; context-switches has its own */
	assert_int_equal(b[0].time_enabled, b[1].time_enabled);
	assert_true(b[2].time_enabled > 0);
	pmu_counters_close(c);
}

/* errno -> code and sentence, against a fixture sysroot with paranoid = 3 */
static void test_errno_sentences(void **state)
{
	struct pmu_event ev = ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0, 1);
	struct pmu_event hw = ev_hw("cycles", PERF_COUNT_HW_CPU_CYCLES, 0, 1);
	struct pmuk_open_ctx cpuwide = { &ev, -1, 2, 0, "{task-clock}" };
	struct pmuk_open_ctx self = { &ev, 0, -1, 0, "{task-clock}" };
	struct pmuk_open_ctx other = { &hw, 4321, -1, 0, "{cycles}" };
	char root[] = "/tmp/pmukit-sysroot-XXXXXX", path[256];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "mkdir -p %s/proc/sys/kernel", root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/perf_event_paranoid", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("3\n", f);
	fclose(f);
	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pmuk_perf_paranoid(), 3);

	assert_int_equal(pmuk_perf_fail(EACCES, &cpuwide), PMU_EPERM);
	assert_non_null(strstr(pmu_error_detail(), "perf_event_paranoid=3"));
	assert_non_null(strstr(pmu_error_detail(), "CAP_PERFMON"));
	assert_non_null(strstr(pmu_error_detail(), "CPU-wide"));
	assert_int_equal(pmuk_perf_fail(EPERM, &self), PMU_EPERM);
	assert_non_null(strstr(pmu_error_detail(), "task-clock:u"));
	assert_int_equal(pmuk_perf_fail(ESRCH, &other), PMU_ESRCH);
	assert_string_equal(pmu_error_detail(), "no such process 4321");
	assert_int_equal(pmuk_perf_fail(EBUSY, &self), PMU_EBUSY);
	assert_non_null(strstr(pmu_error_detail(), "another user holds exclusive counters"));
	/* an offline CPU: say which and where the online ones are listed */
	assert_int_equal(pmuk_perf_fail(ENODEV, &cpuwide), PMU_ENOTSUP);
	assert_non_null(strstr(pmu_error_detail(), "cpu 2 is offline"));
	assert_non_null(strstr(pmu_error_detail(), "/sys/devices/system/cpu/online"));
	assert_int_equal(pmuk_perf_fail(EMFILE, &self), PMU_EIO);
	assert_non_null(strstr(pmu_error_detail(), "ulimit -n"));
	/* the fixture has no PMUs at all */
	assert_int_equal(pmuk_perf_fail(ENOENT, &other), PMU_ENOTSUP);
	assert_non_null(strstr(pmu_error_detail(), "no hardware PMU"));
	assert_non_null(strstr(pmu_error_detail(), "cycles needs a core PMU"));
	assert_int_equal(pmuk_perf_fail(EOPNOTSUPP, &other), PMU_ENOTSUP);
	/* a kernel-only event: the hint is a spelling the parser takes */
	snprintf(ev.name, sizeof(ev.name), "task-clock:k");
	ev.exclude_user = 1;
	assert_int_equal(pmuk_perf_fail(EACCES, &self), PMU_EPERM);
	assert_non_null(strstr(pmu_error_detail(), "(task-clock:u)"));
	assert_null(strstr(pmu_error_detail(), "task-clock:k:u"));
	/* perf's fallback: only for an event that names no privilege level */
	assert_int_equal(pmuk_perf_user_fallback(&ev, EACCES), 0);
	assert_int_equal(pmuk_perf_user_fallback(&hw, ENOENT), 0);
	assert_int_equal(pmuk_perf_user_fallback(&hw, EACCES), 1);
	assert_string_equal(hw.name, "cycles:u");
	assert_true(hw.exclude_kernel && hw.exclude_hv && !hw.exclude_user);

	pmu_sysroot_set("");
	/* paranoid below 2 allows kernel mode: an EACCES there is something else */
	if (pmuk_perf_paranoid() < 2) {
		hw = ev_hw("cycles", PERF_COUNT_HW_CPU_CYCLES, 0, 1);
		assert_int_equal(pmuk_perf_user_fallback(&hw, EACCES), 0);
	}
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* The user-only spelling of a name keeps precise levels and drops u/k/h. */
static void test_user_only_name(void **state)
{
	static const char *const cases[][2] = {
		{ "task-clock", "task-clock:u" }, { "task-clock:k", "task-clock:u" },
		{ "cycles:p", "cycles:pu" }, { "cycles:kpp", "cycles:ppu" },
		{ "cpu/event=0x3c/", "cpu/event=0x3c/u" }, { "cpu_core/cycles/k", "cpu_core/cycles/u" },
		{ "INST_RETIRED:ANY_P", "INST_RETIRED:ANY_P:u" },
	};
	char out[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pmuk_user_only_name(cases[i][0], out, sizeof(out));
		assert_string_equal(out, cases[i][1]);
	}
}

/* A child that waits for a byte on fd, then exits with status 0. */
static pid_t held_child(int fd)
{
	pid_t pid = fork();
	char ch;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(read(fd, &ch, 1) == 1 ? 0 : 1);
	return pid;
}

/* A sysroot holds fixture sysfs/proc trees, not processes: a live process and its
 * exit are looked up in the real /proc (stat under any sysroot said "no such process"). */
static void test_live_task_ignores_sysroot(void **state)
{
	PMU_OPTS(pmu_counters_opts, o, .start_disabled = 1);
	struct pmu_event ev = ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0, 1);
	struct pmu_target t = { .kind = PMU_TARGET_PID };
	char root[] = "/tmp/pmukit-sysroot-XXXXXX";
	struct pmu_counters *c = NULL;
	int go[2], status, opened, enabled = -1;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(pmu_sysroot_set(root), 0);
	assert_int_equal(pipe(go), 0);
	t.pid = held_child(go[0]);
	opened = pmuk_counters_open_events(&ev, 1, &t, &o, &c);
	/* blocked, not gone: the real /proc says so (the sysroot has no such task) */
	if (opened == 0)
		enabled = pmu_counters_enable(c);
	/* the child exits either way: nothing is left waiting */
	assert_int_equal(write(go[1], "x", 1), 1);
	close(go[1]);
	close(go[0]);
	waitpid(t.pid, &status, 0);
	pmu_counters_close(c);
	pmu_sysroot_set("");
	rmdir(root);
	assert_int_equal(opened, 0);
	assert_int_equal(enabled, 0);
}

/* The kernel accepts PERF_EVENT_IOC_ENABLE on the counter of a task that has exited
 * and ignores it: enabling must say so rather than leave zeros that read like an
 * idle task (pmukit stat -t once printed 0 with time_enabled 0 for a spinning
 * thread that exited between open and enable under load). */
static void test_enable_after_exit(void **state)
{
	PMU_OPTS(pmu_counters_opts, o, .start_disabled = 1);
	struct pmu_target t = { .kind = PMU_TARGET_TID };
	struct pmu_reading r[3];
	struct pmu_event ev[3];
	struct pmu_counters *c;
	siginfo_t si;
	int go[2];

	(void)state;
	sw_group(ev);
	assert_int_equal(pipe(go), 0);
	for (int zombie = 1; zombie >= 0; zombie--) {
		t.pid = held_child(go[0]);
		assert_int_equal(pmuk_counters_open_events(ev, 3, &t, &o, &c), 0);
		assert_int_equal(write(go[1], "g", 1), 1);
		/* exited: left a zombie (not reaped), then gone (reaped) */
		assert_int_equal(waitid(P_PID, (id_t)t.pid, &si, WEXITED | (zombie ? WNOWAIT : 0)), 0);
		assert_int_equal(pmu_counters_enable(c), PMU_ESRCH);
		assert_non_null(strstr(pmu_error_detail(), "exited before the counters were enabled"));
		assert_int_equal(pmu_counters_read(c, r, 3), 0);
		assert_int_equal(r[0].time_enabled, 0);
		pmu_counters_close(c);
		if (zombie)
			assert_int_equal(waitpid(t.pid, NULL, 0), t.pid);
	}
	/* a thread that counted and then exited keeps its counts: enabling again is fine */
	t.pid = held_child(go[0]);
	o.start_disabled = 0;
	assert_int_equal(pmuk_counters_open_events(ev, 3, &t, &o, &c), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(waitpid(t.pid, NULL, 0), t.pid);
	assert_int_equal(pmu_counters_read(c, r, 3), 0);
	assert_true(r[0].time_enabled > 0 && r[0].value > 0);
	assert_int_equal(pmu_counters_disable(c), 0);
	assert_int_equal(pmu_counters_enable(c), 0);
	pmu_counters_close(c);
	close(go[0]);
	close(go[1]);
}

/* rdpmc reads the counter of the CPU it runs on, so a self handle's pages are only
 * valid on the thread that opened it, and a forked child has no pages at all (perf
 * mappings are not copied: touching them faults). Crafted pages with a fake counter
 * stand in for a hardware group; any other caller must get the read() answer. */
static struct perf_event_mmap_page owner_pages[3];
static unsigned fake_calls;

static uint64_t owner_counter(uint32_t counter, void *ctx)
{
	(void)ctx;
	fake_calls++;
	return 100 + counter;
}

static uint64_t owner_clock(void *ctx)
{
	(void)ctx;
	return 0;
}

static void *other_thread_read(void *arg)
{
	static struct pmu_reading r[3];

	return pmu_counters_read(arg, r, 3) == 0 ? r : NULL;
}

static void test_uread_owner_only(void **state)
{
	static const struct pmuk_uread_ops fake = { owner_counter, owner_clock, NULL };
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_reading r[3], *theirs;
	struct pmu_event ev[3];
	struct pmu_counters *c;
	pthread_t th;
	int status;
	pid_t pid;

	(void)state;
	if (!pmuk_uread_native()) {
		fprintf(stderr, "skip: no user-space counter read on this architecture\n");
		skip();
	}
	sw_group(ev);
	assert_int_equal(pmuk_counters_open_events(ev, 3, &t, NULL, &c), 0);
	for (int i = 0; i < 3; i++) {
		memset(&owner_pages[i], 0, sizeof(owner_pages[i]));
		owner_pages[i].lock = 2;
		owner_pages[i].index = (uint32_t)i + 1;
		owner_pages[i].offset = 1000 * (i + 1);
		owner_pages[i].time_enabled = owner_pages[i].time_running = 5000;
		owner_pages[i].cap_user_rdpmc = owner_pages[i].cap_user_time = 1;
		owner_pages[i].pmc_width = 48;
		owner_pages[i].time_mult = 1;
		c->page[i] = &owner_pages[i];
	}
	c->grp[0].uread = 1;
	pmuk_counters_set_uread_ops(c, &fake);
	/* the owner: from the pages */
	assert_int_equal(pmu_counters_read(c, r, 3), 0);
	assert_int_equal(fake_calls, 3);
	assert_int_equal(r[0].value, 1000 + 100);
	assert_int_equal(r[2].value, 3000 + 102);
	assert_int_equal(r[0].time_enabled, 5000);
	/* another thread: read(), the owner's real counts */
	fake_calls = 0;
	assert_int_equal(pthread_create(&th, NULL, other_thread_read, c), 0);
	assert_int_equal(pthread_join(th, (void **)&theirs), 0);
	assert_non_null(theirs);
	assert_int_equal(fake_calls, 0);
	assert_true(theirs[0].time_enabled > 5000 && theirs[0].value != 1100);
	/* a forked child: read() too (exit 0), never the pages (exit 3) */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(pmu_counters_read(c, r, 3) != 0 ? 2 : fake_calls ? 3 : 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	for (int i = 0; i < 3; i++)
		c->page[i] = NULL;
	pmu_counters_close(c);
}

static void test_bad_args(void **state)
{
	struct pmu_event ev = ev_sw("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0, 1);
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_counters *c = NULL;

	(void)state;
	assert_int_equal(pmuk_counters_open_events(&ev, 0, &t, NULL, &c), PMU_EINVAL);
	assert_int_equal(pmuk_counters_open_events(&ev, 1, NULL, NULL, &c), PMU_EINVAL);
	assert_int_equal(pmu_counters_open(NULL, &t, NULL, &c), PMU_EINVAL);
	assert_int_equal(pmu_counters_enable(NULL), PMU_EINVAL);
	pmu_counters_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task_clock_spins),
		cmocka_unit_test(test_group_page_faults),
		cmocka_unit_test(test_enable_disable_reset),
		cmocka_unit_test(test_pid_target),
		cmocka_unit_test(test_cpus_target),
		cmocka_unit_test(test_hardware_event),
		cmocka_unit_test(test_skip_unsupported),
		cmocka_unit_test(test_skip_unsupported_reasons),
		cmocka_unit_test(test_user_only_name),
		cmocka_unit_test(test_live_task_ignores_sysroot),
		cmocka_unit_test(test_skip_unsupported_cpus),
		cmocka_unit_test(test_no_such_process),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_hybrid_pmu_serves_none),
		cmocka_unit_test(test_parsed_list),
		cmocka_unit_test(test_errno_sentences),
		cmocka_unit_test(test_enable_after_exit),
		cmocka_unit_test(test_uread_owner_only),
		cmocka_unit_test(test_bad_args),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
