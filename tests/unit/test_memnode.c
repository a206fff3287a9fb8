/* SPDX-License-Identifier: MIT */
/* pmu_memory_nodes: a touched page lives on a node of this machine, an untouched one
 * is reported not resident, bad arguments are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
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
		cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
