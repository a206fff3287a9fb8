/* SPDX-License-Identifier: MIT */
/* pmu_memory_nodes / pmu_memory_query: a touched page lives on a node of this
 * machine, an untouched one is not present, an unmapped one not mapped, another
 * process's pages are answered, a gone or forbidden process is an answer for every
 * page, batches of any size, bad arguments are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/topology.h>

static void test_touched_and_untouched(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const void *addrs[2];
	int nodes[2] = { -7, -7 }, err;
	struct pmu_topology *t;

	(void)state;
	assert_true(p != MAP_FAILED);
	p[0] = 1; /* only the first page is faulted in */
	addrs[0] = p;
	addrs[1] = p + page;
	err = pmu_memory_nodes(addrs, 2, nodes);
	if (err == PMU_ENOTSUP) {
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		munmap(p, (size_t)page * 2);
		skip();
	}
	assert_int_equal(err, 0);
	assert_int_equal(nodes[1], -1);
	assert_int_equal(pmu_topology_load(&t), 0);
	/* The node must be one this machine has. */
	{
		int found = 0;

		for (size_t i = 0; i < pmu_topology_node_count(t); i++)
			found |= pmu_topology_node(t, i)->id == nodes[0];
		assert_true(found);
	}
	pmu_topology_free(t);
	munmap(p, (size_t)page * 2);
}

static void test_many_pages(void **state)
{
	enum { N = 200 }; /* more than the on-stack status array */
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)page * N, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const void *addrs[N];
	int nodes[N];

	(void)state;
	assert_true(p != MAP_FAILED);
	for (int i = 0; i < N; i++) {
		if (i % 2 == 0)
			p[(long)i * page] = 1;
		addrs[i] = p + (long)i * page;
	}
	if (pmu_memory_nodes(addrs, N, nodes) == PMU_ENOTSUP)
		skip();
	for (int i = 0; i < N; i++)
		assert_true(i % 2 == 0 ? nodes[i] >= 0 : nodes[i] == -1);
	munmap(p, (size_t)page * N);
}

/* A child that maps three pages, touches the first, unmaps the third, sends the
 * base address and waits for the parent to close the pipe. */
static pid_t spawn_child(uint64_t *base, int *hold)
{
	int up[2], down[2];
	pid_t pid;

	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long page = sysconf(_SC_PAGESIZE);
		char *p = mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint64_t a = (uint64_t)(uintptr_t)p;
		char c;

		close(up[0]);
		close(down[1]); /* else the read below never sees the parent's close */
		p[0] = 1;
		munmap(p + 2 * page, (size_t)page);
		if (write(up[1], &a, sizeof(a)) != sizeof(a))
			_exit(1);
		_exit(read(down[0], &c, 1) < 0);
	}
	close(up[1]);
	close(down[0]);
	assert_int_equal(read(up[0], base, sizeof(*base)), (int)sizeof(*base));
	close(up[0]);
	*hold = down[1];
	return pid;
}

static void test_other_process(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	struct pmu_page_node out[3];
	uint64_t base, addrs[3];
	int hold, st;
	pid_t pid = spawn_child(&base, &hold);

	(void)state;
	for (int i = 0; i < 3; i++)
		addrs[i] = base + (uint64_t)(i * page);
	if (pmu_memory_query(pid, addrs, 3, out) == PMU_ENOTSUP) {
		close(hold);
		waitpid(pid, &st, 0);
		skip();
	}
	assert_int_equal(out[0].state, PMU_PAGE_ON_NODE);
	assert_true(out[0].node >= 0);
	assert_int_equal(out[1].state, PMU_PAGE_NOT_PRESENT);
	assert_int_equal(out[1].node, -1);
	assert_int_equal(out[2].state, PMU_PAGE_NOT_MAPPED);
	close(hold);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	/* Reaped: the pid names no process now (pids are not reused this fast). */
	assert_int_equal(pmu_memory_query(pid, addrs, 3, out), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(out[i].state, PMU_PAGE_PROCESS_GONE);
	assert_string_equal(pmu_page_state_name(PMU_PAGE_PROCESS_GONE), "process gone");
}

/* An exited child not yet reaped (a zombie) has no memory: process gone. */
static void test_zombie(void **state)
{
	struct pmu_page_node out = { .node = 7 };
	uint64_t a = (uint64_t)(uintptr_t)&out;
	char path[64], buf[256] = "";
	pid_t pid = fork();
	int st;

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 400 && !strstr(buf, ") Z"); i++) {
		FILE *f = fopen(path, "r");

		buf[0] = 0;
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = 0;
			fclose(f);
		}
		usleep(5000);
	}
	assert_non_null(strstr(buf, ") Z"));
	if (pmu_memory_query(pid, &a, 1, &out) != PMU_ENOTSUP) {
		assert_int_equal(out.state, PMU_PAGE_PROCESS_GONE);
		assert_int_equal(out.node, -1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
}

/* Another user's process without CAP_SYS_NICE: every page says no permission. */
static void test_no_permission(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	if (geteuid() != 0)
		skip(); /* needs root to become another user */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uint64_t a = 0x400000;
		struct pmu_page_node out = { 0 };

		if (setgid(65534) || setuid(65534))
			_exit(2);
		if (pmu_memory_query(1, &a, 1, &out))
			_exit(3);
		_exit(out.state == PMU_PAGE_NO_PERMISSION ? 0 : 4);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_big_batch(void **state)
{
	enum { N = 1300 }; /* crosses the internal batches */
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)page * N, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t *addrs = calloc(N, sizeof(*addrs));
	struct pmu_page_node *out = calloc(N, sizeof(*out));

	(void)state;
	assert_true(p != MAP_FAILED && addrs && out);
	for (int i = 0; i < N; i++) {
		if (i % 3 == 0)
			p[(long)i * page] = 1;
		addrs[i] = (uint64_t)(uintptr_t)(p + (long)i * page);
	}
	if (pmu_memory_query(0, addrs, N, out) != PMU_ENOTSUP)
		for (int i = 0; i < N; i++)
			assert_int_equal(out[i].state, i % 3 == 0 ? PMU_PAGE_ON_NODE : PMU_PAGE_NOT_PRESENT);
	assert_int_equal(pmu_memory_query(-5, addrs, 1, out), PMU_EINVAL);
	free(addrs);
	free(out);
	munmap(p, (size_t)page * N);
}

static void test_bad_arguments(void **state)
{
	int node;

	(void)state;
	assert_int_equal(pmu_memory_nodes(NULL, 1, &node), PMU_EINVAL);
	assert_int_equal(pmu_memory_nodes((const void *const *)&state, 0, &node), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_touched_and_untouched),
		cmocka_unit_test(test_many_pages),
		cmocka_unit_test(test_other_process),
		cmocka_unit_test(test_zombie),
		cmocka_unit_test(test_no_permission),
		cmocka_unit_test(test_big_batch),
		cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
