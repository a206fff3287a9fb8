/* SPDX-License-Identifier: MIT */
/* Region markers: two threads, nested regions, per (region, thread) aggregates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmukit/counting.h>
#include <pmukit/error.h>

#define CALLS 10
#define PAGES 32

static void touch(long npages)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)(npages * page), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	madvise((void *)p, (size_t)(npages * page), MADV_NOHUGEPAGE);
	for (long i = 0; i < npages; i++)
		p[i * page] = 1;
	munmap((void *)p, (size_t)(npages * page));
}

static void *worker(void *arg)
{
	long failures = 0;

	(void)arg;
	for (int i = 0; i < CALLS; i++) {
		failures += pmu_region_begin("outer") != 0;
		failures += pmu_region_begin("inner") != 0;
		touch(PAGES);
		failures += pmu_region_end("inner") != 0;
		touch(PAGES / 2);
		failures += pmu_region_end("outer") != 0;
	}
	return (void *)failures;
}

/* Checks the JSON with python3: structure, calls, min <= mean <= max, inner faults
 * >= PAGES per call, outer >= inner per thread, two threads. */
static const char *check_py =
	"import json,sys\n"
	"d=json.load(open(sys.argv[1]))\n"
	"rs=d['regions']\n"
	"threads=set(r['thread'] for r in rs)\n"
	"assert len(threads)==2, threads\n"
	"by={(r['name'],r['thread']):r for r in rs}\n"
	"assert len(by)==4, by.keys()\n"
	"for r in rs:\n"
	"  assert r['calls']==%d, r\n"
	"  ev={e['event']:e for e in r['events']}\n"
	"  assert set(ev)=={'task-clock','page-faults'}, ev\n"
	"  for e in r['events']:\n"
	"    assert e['min']<=e['sum']/r['calls']<=e['max'], e\n"
	"  pf=ev['page-faults']\n"
	"  want=%d if r['name']=='inner' else %d\n"
	"  assert pf['min']>=want and pf['sum']>=want*r['calls'], (r['name'],pf)\n"
	"  assert pf['max']<=want+64, pf\n"
	"for t in threads:\n"
	"  o={e['event']:e for e in by[('outer',t)]['events']}\n"
	"  i={e['event']:e for e in by[('inner',t)]['events']}\n"
	"  for k in o: assert o[k]['sum']>=i[k]['sum'], (k,o[k],i[k])\n";

static void test_two_threads(void **state)
{
	char path[] = "/tmp/pmukit-regions-XXXXXX", cmd[512], *text = NULL;
	char script[] = "/tmp/pmukit-regions-check-XXXXXX"; /* unique: tests run side by side */
	pthread_t th[2];
	size_t len = 0;
	void *failures;
	FILE *f;
	int fd;

	(void)state;
	assert_int_equal(pmu_regions_init("task-clock,page-faults"), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, worker, NULL), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(th[i], &failures), 0);
		assert_int_equal((long)failures, 0);
	}

	f = open_memstream(&text, &len);
	assert_int_equal(pmu_regions_write_text(f), 0);
	fclose(f);
	assert_non_null(strstr(text, "region"));
	assert_non_null(strstr(text, "inner"));
	assert_non_null(strstr(text, "outer"));
	assert_non_null(strstr(text, "page-faults"));
	free(text);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_int_equal(pmu_regions_write_json(f, PMU_JSON_PRETTY), 0);
	fclose(f);
	if (system("python3 -c 'pass' 2>/dev/null") != 0) {
		unlink(path);
		pmu_regions_fini();
		fprintf(stderr, "skip: python3 is needed to check the JSON\n");
		skip();
	}
	fd = mkstemp(script);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, check_py, CALLS, PAGES, PAGES + PAGES / 2);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 %s %s", script, path);
	assert_int_equal(system(cmd), 0);
	unlink(script);
	unlink(path);
	pmu_regions_fini();
}

static void test_misuse(void **state)
{
	(void)state;
	assert_int_equal(pmu_region_begin("x"), PMU_EINVAL); /* not initialised */
	assert_non_null(strstr(pmu_error_detail(), "pmu_regions_init"));
	assert_int_equal(pmu_regions_init("task-clock"), 0);
	assert_int_equal(pmu_region_end("never"), PMU_EINVAL);
	assert_string_equal(pmu_error_detail(), "pmu_region_end(\"never\") without a matching "
			    "pmu_region_begin(\"never\") in this thread");
	assert_int_equal(pmu_region_begin("a"), 0);
	assert_int_equal(pmu_region_begin("a"), PMU_EINVAL); /* no self-nesting */
	assert_non_null(strstr(pmu_error_detail(), "already open"));
	assert_int_equal(pmu_region_begin("b"), 0);
	assert_int_equal(pmu_region_end("a"), 0);            /* overlapping is fine */
	assert_int_equal(pmu_region_end("a"), PMU_EINVAL);   /* ended already */
	assert_int_equal(pmu_region_end("b"), 0);
	assert_int_equal(pmu_region_begin(NULL), PMU_EINVAL);
	pmu_regions_fini();
	assert_int_equal(pmu_regions_write_text(stdout), PMU_EINVAL);
	assert_int_equal(pmu_regions_write_json(stdout, 0), PMU_EINVAL);
	assert_int_equal(pmu_regions_write_json(stdout, 2), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "pmu_regions_write_json: flags 0x2"));
	assert_true(pmu_regions_init("no-such-event-xyz") < 0);
	/* events this host cannot count fail at init, not at the first begin */
	if (pmu_device_core_list(NULL, 0) == 0) {
		assert_int_equal(pmu_regions_init("cycles"), PMU_ENOTSUP);
		assert_non_null(strstr(pmu_error_detail(), "no hardware PMU"));
		assert_int_equal(pmu_region_begin("x"), PMU_EINVAL);
	}
}

static void test_default_events(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(pmu_regions_init(NULL), 0);
	/* reinitialising after another set of events starts afresh, per thread too */
	assert_int_equal(pmu_region_begin("r"), 0);
	assert_int_equal(pmu_region_end("r"), 0);
	f = open_memstream(&text, &len);
	assert_int_equal(pmu_regions_write_json(f, PMU_JSON_PRETTY), 0);
	fclose(f);
	assert_non_null(strstr(text, "\"regions\""));
	assert_non_null(strstr(text, "\"calls\": 1") ? text : strstr(text, "\"calls\":1"));
	free(text);
	pmu_regions_fini();
}

/* A forked child (a harness's worker) counts itself, not the thread it was forked
 * from: its inherited per-thread state counts the parent. */
static void test_forked_child(void **state)
{
	char *text = NULL;
	size_t len = 0;
	int p[2], status;
	pid_t pid;
	FILE *f;

	(void)state;
	assert_int_equal(pmu_regions_init("page-faults"), 0);
	assert_int_equal(pmu_region_begin("parent"), 0);
	assert_int_equal(pmu_region_end("parent"), 0);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ok;

		close(p[0]);
		f = fdopen(p[1], "w");
		ok = f && pmu_region_begin("child") == 0;
		touch(PAGES);
		ok = ok && pmu_region_end("child") == 0 && pmu_regions_write_text(f) == 0;
		_exit(ok && fclose(f) == 0 ? 0 : 1);
	}
	close(p[1]);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	for (;;) {
		char buf[512];
		ssize_t r = read(p[0], buf, sizeof(buf));

		if (r <= 0)
			break;
		fwrite(buf, 1, (size_t)r, f);
	}
	fclose(f);
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* "child  <tid>  1  page-faults  sum min max": the child's own tid and faults */
	{
		char *line = strstr(text, "child"), name[32], event[32];
		int tid = 0;
		unsigned long long calls = 0;
		double sum = -1;

		assert_non_null(line);
		assert_int_equal(sscanf(line, "%31s %d %llu %31s %lf", name, &tid, &calls, event,
					&sum), 5);
		assert_int_equal(tid, pid);
		assert_int_equal(calls, 1);
		assert_true(sum >= PAGES);
	}
	/* the parent's thread and its region are the parent's: not in the child's table */
	assert_null(strstr(text, "parent"));
	free(text);
	pmu_regions_fini();
}

/* A stream whose first write holds pmu_regions_write (and so the regions lock)
 * for a while, after telling the test it is inside. */
static sem_t in_write;

static ssize_t slow_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	(void)buf;
	sem_post(&in_write);
	usleep(300 * 1000);
	return (ssize_t)n;
}

static void *slow_writer(void *arg)
{
	FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = slow_write });

	(void)arg;
	setvbuf(f, NULL, _IONBF, 0);
	pmu_regions_write_text(f);
	fclose(f);
	return NULL;
}

/* A fork while another thread holds the regions lock (here: writing the table)
 * must not hand the child a lock nobody will release: the child's first region
 * takes it to register the child's thread. */
static void test_fork_during_write(void **state)
{
	pthread_t th;
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(pmu_regions_init("page-faults"), 0);
	assert_int_equal(pmu_region_begin("parent"), 0);
	assert_int_equal(pmu_region_end("parent"), 0);
	assert_int_equal(sem_init(&in_write, 0, 0), 0);
	assert_int_equal(pthread_create(&th, NULL, slow_writer, NULL), 0);
	sem_wait(&in_write);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(5); /* a deadlock: killed by SIGALRM */
		_exit(pmu_region_begin("child") == 0 && pmu_region_end("child") == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	pthread_join(th, NULL);
	sem_destroy(&in_write);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	pmu_regions_fini();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_two_threads),
		cmocka_unit_test(test_default_events),
		cmocka_unit_test(test_forked_child),
		cmocka_unit_test(test_fork_during_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
