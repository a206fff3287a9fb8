/* SPDX-License-Identifier: MIT */
/* The NUMA cases, run in the 2-node guest (scripts/hwtest.sh, second boot): buffers
 * placed on node 0 and node 1 by mbind (raw syscall: the guest has no libnuma) and by
 * first touch from a CPU of each node; pmu_memory_query and `pmukit numa -p` must
 * answer the right node for every page; `pmukit topo --json` shows the two nodes. */
#include "hwtest.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { NPAGES = 64, NBUF = 3, MPOL_BIND_ = 2 };

static char out[1 << 18];

struct placed {
	char *p;
	int want;        /* the node every page must be on */
	const char *how;
};
static struct placed buf[NBUF];
static size_t page;

static int pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

/* A fresh mapping of NPAGES pages; bind_node >= 0: mbind(MPOL_BIND) to it first. */
static char *place(int bind_node, int touch_cpu)
{
	char *p = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	unsigned long mask = bind_node >= 0 ? 1ul << bind_node : 0;

	if (p == MAP_FAILED)
		return NULL;
	if (bind_node >= 0 &&
	    syscall(SYS_mbind, p, NPAGES * page, MPOL_BIND_, &mask, 8 * sizeof(mask) + 1, 0)) {
		hw_note("numa: mbind to node %d failed: %s", bind_node, strerror(errno));
		return NULL;
	}
	if (pin(touch_cpu)) {
		hw_note("numa: sched_setaffinity to CPU %d failed: %s", touch_cpu, strerror(errno));
		return NULL;
	}
	for (size_t i = 0; i < NPAGES; i++)
		p[i * page] = 1;
	return p;
}

static int setup(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	/* touched from CPU 0 but bound to node 1; first touch from CPU 0 and CPU 1 */
	buf[0] = (struct placed){ place(1, 0), 1, "mbind node 1, touched on CPU 0" };
	buf[1] = (struct placed){ place(-1, 0), 0, "first touch on CPU 0" };
	buf[2] = (struct placed){ place(-1, 1), 1, "first touch on CPU 1" };
	pin(0);
	return buf[0].p && buf[1].p && buf[2].p ? 0 : -1;
}

static void test_query(void)
{
	const char *name = "numa_memory_query";
	uint64_t addrs[NPAGES];
	struct pmu_page_node ans[NPAGES];

	for (int b = 0; b < NBUF; b++) {
		int err;

		for (size_t i = 0; i < NPAGES; i++)
			addrs[i] = (uint64_t)(uintptr_t)(buf[b].p + i * page + 8);
		if ((err = pmu_memory_query(0, addrs, NPAGES, ans)) != 0)
			return (void)hw_fail(name, "pmu_memory_query: %s: %s", pmu_strerror(err),
					     pmu_error_detail());
		for (size_t i = 0; i < NPAGES; i++)
			if (ans[i].state != PMU_PAGE_ON_NODE || ans[i].node != buf[b].want)
				return (void)hw_fail(name, "buffer %d (%s) page %zu: %s node %d, "
						     "expected node %d", b, buf[b].how, i,
						     pmu_page_state_name(ans[i].state),
						     ans[i].node, buf[b].want);
	}
	hw_ok(name);
}

/* pmukit numa -p SELF ADDR... --json: one address per buffer page. */
static void test_command_addrs(void)
{
	const char *name = "numa_command_addrs";
	static char words[NBUF * NPAGES][24];
	char *argv[5 + NBUF * NPAGES] = { (char *)hw.pmukit, "numa", "--json", "-p" };
	char pid[16];
	const struct hj *arr;
	struct hj *doc;
	int rc, k = 5;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	argv[4] = pid;
	for (int b = 0; b < NBUF; b++)
		for (size_t i = 0; i < NPAGES; i++, k++) {
			snprintf(words[k - 5], sizeof(words[0]), "%p", (void *)(buf[b].p + i * page));
			argv[k] = words[k - 5];
		}
	argv[k] = NULL;
	if ((rc = hw_run(argv, out, sizeof(out))) != 0)
		return (void)hw_fail(name, "pmukit numa exited with %d: %.400s", rc, out);
	if (!(doc = hj_parse(out)))
		return (void)hw_fail(name, "pmukit numa --json printed no JSON: %.400s", out);
	arr = hj_get(doc, "addresses");
	if (!arr || arr->type != HJ_ARR || arr->n != NBUF * NPAGES) {
		hj_free(doc);
		return (void)hw_fail(name, "expected %d answers: %.400s", NBUF * NPAGES, out);
	}
	for (size_t i = 0; i < arr->n; i++) {
		const struct hj *node = hj_get(&arr->kids[i], "node");
		int want = buf[i / NPAGES].want;

		if (!node || node->type != HJ_NUM || (int)node->num != want) {
			hw_fail(name, "%s: %s, expected node %d (%s)", hj_str(&arr->kids[i], "address"),
				hj_str(&arr->kids[i], "state"), want, buf[i / NPAGES].how);
			hj_free(doc);
			return;
		}
	}
	hj_free(doc);
	hw_ok(name);
}

/* The node count of one mapping object: nodes[{node, pages}]. */
static double node_pages(const struct hj *m, int node)
{
	const struct hj *arr = hj_get(m, "nodes");

	for (size_t i = 0; arr && arr->type == HJ_ARR && i < arr->n; i++) {
		const struct hj *id = hj_get(&arr->kids[i], "node");
		const struct hj *n = hj_get(&arr->kids[i], "pages");

		if (id && n && (int)id->num == node)
			return n->num;
	}
	return -1;
}

/* pmukit numa -p SELF --maps --json: the mbind'ed buffer is a mapping of its own
 * (its policy splits it off), all of its pages on node 1. */
static void test_command_maps(void)
{
	const char *name = "numa_command_maps";
	char pid[16], want[24];
	char *argv[] = { (char *)hw.pmukit, "numa", "-p", pid, "--maps", "--json", NULL };
	const struct hj *arr, *m = NULL;
	struct hj *doc;
	int rc;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(want, sizeof(want), "%p", (void *)buf[0].p);
	if ((rc = hw_run(argv, out, sizeof(out))) != 0)
		return (void)hw_fail(name, "pmukit numa --maps exited with %d: %.400s", rc, out);
	if (!(doc = hj_parse(out)))
		return (void)hw_fail(name, "pmukit numa --maps printed no JSON: %.400s", out);
	arr = hj_get(doc, "mappings");
	for (size_t i = 0; arr && arr->type == HJ_ARR && i < arr->n; i++)
		if (hj_str(&arr->kids[i], "start") && !strcmp(hj_str(&arr->kids[i], "start"), want))
			m = &arr->kids[i];
	if (!m)
		hw_fail(name, "no mapping starts at %s: %.400s", want, out);
	else if (node_pages(m, 1) != NPAGES || node_pages(m, 0) != 0 ||
		 strcmp(hj_str(m, "name") ? hj_str(m, "name") : "", "[anon]"))
		hw_fail(name, "mapping %s (%s): node0 %.0f node1 %.0f pages, expected 0 and %d",
			want, hj_str(m, "name"), node_pages(m, 0), node_pages(m, 1), NPAGES);
	else
		hw_ok(name);
	hj_free(doc);
}

/* pmukit topo --json: two nodes, one CPU each, distances 10/20 as QEMU was told. */
static void test_topo(void)
{
	const char *name = "numa_topo";
	char *argv[] = { (char *)hw.pmukit, "topo", "--json", NULL };
	const struct hj *nodes;
	struct hj *doc;
	int rc;

	if ((rc = hw_run(argv, out, sizeof(out))) != 0)
		return (void)hw_fail(name, "pmukit topo --json exited with %d: %.400s", rc, out);
	if (!(doc = hj_parse(out)))
		return (void)hw_fail(name, "pmukit topo --json printed no JSON: %.400s", out);
	nodes = hj_get(doc, "numa_nodes");
	if (!nodes || nodes->type != HJ_ARR || nodes->n != 2) {
		hj_free(doc);
		return (void)hw_fail(name, "expected 2 NUMA nodes: %.600s", out);
	}
	for (size_t i = 0; i < 2; i++) {
		const struct hj *d = hj_get(&nodes->kids[i], "distances");
		const struct hj *c = hj_get(&nodes->kids[i], "cpus");

		if (!d || d->type != HJ_ARR || d->n != 2 || d->kids[i].num != 10 ||
		    d->kids[1 - i].num != 20 || !c || c->type != HJ_ARR || c->n != 1 ||
		    c->kids[0].num != (double)i) {
			hj_free(doc);
			return (void)hw_fail(name, "node %zu: expected CPU %zu, distances 10/20: %.600s",
					     i, i, out);
		}
	}
	hj_free(doc);
	hw_ok(name);
}

/* instructions:u of the known loop on one CPU: 2 per iteration + a fixed cost. */
static int loop_count(uint64_t n, uint64_t *v)
{
	static const struct pmu_target self = { .kind = PMU_TARGET_SELF };
	PMU_OPTS(pmu_counters_opts, o, .start_disabled = 1);
	struct pmu_counters *c;
	struct pmu_reading r;
	int err = hw_counters("instructions:u", &self, &o, &c);

	if (err)
		return err;
	if (!(err = pmu_counters_enable(c))) {
		known_loop(n);
		if (!(err = pmu_counters_disable(c)) && !(err = pmu_counters_read(c, &r, 1)))
			*v = r.value;
	}
	pmu_counters_close(c);
	return err;
}

/* The emulated PMU on both CPUs of the 2-node boot, under -icount: within 1% (the
 * one icount clock of both vCPUs lets the other CPU's instructions in). */
int hw_numa_pmu(void)
{
	const char *name = "numa_pmu_each_cpu";
	uint64_t n = 1000000, a = 0, b = 0;

	if (!hw_loop_exact)
		return hw_skip(name, "no hand-written known loop for this architecture");
	if (!hw.core.name[0])
		return hw_skip(name, "no core PMU on this host");
	if (access("/sys/devices/system/cpu/cpu1", F_OK))
		return hw_skip(name, "this machine has no CPU 1");
	for (int cpu = 0; cpu < 2; cpu++) {
		int err = pin(cpu);

		if (err || (err = loop_count(0, &a)) || (err = loop_count(n, &b))) {
			pin(0);
			return hw_fail(name, "CPU %d: %s", cpu, err < 0 ? pmu_error_detail() :
				       strerror(errno));
		}
		hw_note("numa_pmu: CPU %d: instructions:u %llu for 0 and %llu for %llu iterations",
			cpu, (unsigned long long)a, (unsigned long long)b, (unsigned long long)n);
		if (!hw_near(b - a, 2 * n, 0.01, 0))
			return pin(0), hw_fail(name, "CPU %d: %llu instructions for %llu iterations, "
					       "expected %llu", cpu, (unsigned long long)(b - a),
					       (unsigned long long)n, 2 * (unsigned long long)n);
	}
	pin(0);
	return hw_ok(name);
}

int hw_numa_place(void)
{
	if (access("/sys/devices/system/node/node1", F_OK))
		return hw_skip("numa", "this machine has no node 1: the NUMA cases run in the "
			       "second (2-node) boot of make hwtest");
	if (setup())
		return hw_fail("numa_setup", "could not place the buffers (see above)");
	hw_note("numa: %d buffers of %d pages: node %d, %d, %d", NBUF, NPAGES, buf[0].want,
		buf[1].want, buf[2].want);
	test_query();
	test_command_addrs();
	test_command_maps();
	test_topo();
	return 0;
}
