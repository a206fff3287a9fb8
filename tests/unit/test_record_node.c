/* SPDX-License-Identifier: MIT */
/* record -d's node answers: physical address -> node on fixture memory-block
 * trees (holes, several nodes, a missing tree), the per-page table fed crafted
 * samples (PHYS_ADDR answers, one entry per page, the counts), the feature body
 * read back, perf's NUMA_TOPOLOGY written from a fixture tree and read back as
 * CPU -> node, damaged bodies refused, and both features found in a perf.data
 * written with other features around them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/topology.h>

#include "core/report_node.h"
#include "fixture_tree.h"
#include "formats/perf_write.h"
#include "linux/record_node.h"

#define BLOCK 0x8000000ull   /* 128 MiB, as x86 kernels have it */

static char root[128];

/* node0: blocks 0-1, node1: blocks 2 and 5 (3-4 a hole); CPUs 0-1 and 2-3. */
static int setup(void **state)
{
	(void)state;
	fixture_create(root, sizeof(root), "recnode");
	fixture_writeln(root, "sys/devices/system/memory/block_size_bytes", "%llx", BLOCK);
	fixture_writeln(root, "sys/devices/system/node/node0/memory0/online", "1");
	fixture_writeln(root, "sys/devices/system/node/node0/memory1/online", "1");
	fixture_writeln(root, "sys/devices/system/node/node1/memory2/online", "1");
	fixture_writeln(root, "sys/devices/system/node/node1/memory5/online", "1");
	fixture_writeln(root, "sys/devices/system/node/node0/cpulist", "0-1");
	fixture_writeln(root, "sys/devices/system/node/node1/cpulist", "2,3");
	fixture_writeln(root, "sys/devices/system/node/node0/meminfo",
			"Node 0 MemTotal:       262144 kB\nNode 0 MemFree:        131072 kB");
	fixture_writeln(root, "sys/devices/system/node/node1/meminfo",
			"Node 1 MemTotal:       524288 kB\nNode 1 MemFree:        1000 kB");
	fixture_writeln(root, "sys/devices/system/node/possible", "0-1");
	return pmu_sysroot_set(root);
}

static int teardown(void **state)
{
	(void)state;
	pmu_sysroot_set(NULL);
	fixture_remove(root);
	return 0;
}

static void test_phys_blocks(void **state)
{
	struct pmuk_phys_nodes m;

	(void)state;
	assert_int_equal(pmuk_phys_nodes_load(&m), 0);
	assert_int_equal(m.block_size, BLOCK);
	assert_int_equal(pmuk_phys_node(&m, 0), 0);
	assert_int_equal(pmuk_phys_node(&m, 2 * BLOCK - 1), 0);
	assert_int_equal(pmuk_phys_node(&m, 2 * BLOCK), 1);
	assert_int_equal(pmuk_phys_node(&m, 3 * BLOCK + 4096), -1);   /* the hole */
	assert_int_equal(pmuk_phys_node(&m, 5 * BLOCK + 12345), 1);
	assert_int_equal(pmuk_phys_node(&m, 6 * BLOCK), -1);          /* past the last */
	pmuk_phys_nodes_free(&m);
}

static void test_phys_missing(void **state)
{
	char bare[128];
	struct pmuk_phys_nodes m;

	(void)state;
	fixture_create(bare, sizeof(bare), "recnode-bare");
	fixture_writeln(bare, "sys/devices/system/node/node0/cpulist", "0");
	assert_int_equal(pmu_sysroot_set(bare), 0);
	assert_int_equal(pmuk_phys_nodes_load(&m), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "block_size_bytes"));
	assert_int_equal(pmuk_phys_node(&m, 0), -1);
	pmu_sysroot_set(root);
	fixture_remove(bare);
}

/* Crafted samples: two on one page, one per other page; PHYS_ADDR answers. */
static void feed(struct pmuk_rec_nodes *n)
{
	uint64_t pg = n->page_size;

	assert_true(pmuk_rec_nodes_wants_phys(n, 100, 0x10000 + 8));
	assert_int_equal(pmuk_rec_nodes_add(n, 100, 0x10000 + 8, 2 * BLOCK + 8), 0);
	/* the same page again: its PHYS_ADDR would change nothing, so is not wanted */
	assert_false(pmuk_rec_nodes_wants_phys(n, 100, 0x10000 + 16));
	assert_true(pmuk_rec_nodes_wants_phys(n, 200, 0x10000 + 16));
	assert_int_equal(pmuk_rec_nodes_add(n, 100, 0x10000 + 16, 2 * BLOCK + 16), 0);
	assert_int_equal(pmuk_rec_nodes_add(n, 100, 0x10000 + pg, 4096), 0);
	assert_int_equal(pmuk_rec_nodes_add(n, 200, 0x10000, 3 * BLOCK), 0);  /* the hole */
	assert_int_equal(pmuk_rec_nodes_add(n, 200, 0x90000, 0), 0);          /* no PHYS_ADDR */
}

static void test_answers_roundtrip(void **state)
{
	struct pmuk_rec_nodes n;
	struct pmuk_pw_buf b = { 0 };
	struct pmuk_nodefile nf;
	const struct pmuk_node_feat_entry *e;

	(void)state;
	assert_int_equal(pmuk_rec_nodes_init(&n, 0), 0);  /* no live queries */
	feed(&n);
	assert_int_equal(pmuk_rec_nodes_flush(&n, 1), 0);
	assert_int_equal(n.n, 4);             /* 5 samples, 4 distinct pages */
	assert_int_equal(n.h.samples, 5);
	assert_int_equal(n.h.by_phys, 2);
	assert_int_equal(n.h.by_query, 0);
	assert_int_equal(n.h.unanswered, 2);
	pmuk_rec_nodes_body(&n, &b);
	assert_int_equal(b.err, 0);
	memset(&nf, 0, sizeof(nf));
	assert_int_equal(pmuk_nodefile_parse_nodes(&nf, b.p, b.n), 0);
	assert_int_equal(nf.n, 4);
	e = pmuk_nodefile_find(&nf, 100, 0x10000 + 100);
	assert_non_null(e);
	assert_int_equal(e->node, 1);
	assert_int_equal(e->source, PMUK_NODE_SRC_PHYS);
	assert_true(e->time > 0);
	e = pmuk_nodefile_find(&nf, 100, 0x10000 + n.page_size);
	assert_non_null(e);
	assert_int_equal(e->node, 0);
	e = pmuk_nodefile_find(&nf, 200, 0x10000);
	assert_non_null(e);
	assert_int_equal(e->source, PMUK_NODE_SRC_NONE);
	assert_int_equal(e->node, -1);
	assert_null(pmuk_nodefile_find(&nf, 300, 0x10000));   /* another pid */
	/* damaged: short, and another magic */
	assert_int_equal(pmuk_nodefile_parse_nodes(&nf, b.p, b.n - 8), PMU_EFORMAT);
	b.p[0] ^= 1;
	assert_int_equal(pmuk_nodefile_parse_nodes(&nf, b.p, b.n), PMU_EFORMAT);
	pmuk_nodefile_free(&nf);
	pmuk_pw_buf_free(&b);
	pmuk_rec_nodes_free(&n);
}

static void test_numa_topology(void **state)
{
	struct pmuk_pw_buf b = { 0 };
	struct pmuk_nodefile nf;
	uint32_t nr, id;
	uint64_t total;

	(void)state;
	assert_int_equal(pmuk_numa_topology_body(&b), 0);
	memcpy(&nr, b.p, 4);
	memcpy(&id, b.p + 4, 4);
	memcpy(&total, b.p + 8, 8);
	assert_int_equal(nr, 2);
	assert_int_equal(id, 0);
	assert_int_equal(total, 262144);
	memset(&nf, 0, sizeof(nf));
	assert_int_equal(pmuk_nodefile_parse_numa(&nf, b.p, b.n), 0);
	assert_int_equal(nf.nnodes, 2);
	assert_int_equal(pmuk_nodefile_cpu_node(&nf, 0), 0);
	assert_int_equal(pmuk_nodefile_cpu_node(&nf, 1), 0);
	assert_int_equal(pmuk_nodefile_cpu_node(&nf, 2), 1);
	assert_int_equal(pmuk_nodefile_cpu_node(&nf, 3), 1);
	assert_int_equal(pmuk_nodefile_cpu_node(&nf, 4), -1);
	assert_int_equal(pmuk_nodefile_cpu_node(&nf, -1), -1);
	pmuk_nodefile_free(&nf);
	memset(&nf, 0, sizeof(nf));
	assert_int_equal(pmuk_nodefile_parse_numa(&nf, b.p, b.n - 30), PMU_EFORMAT);
	pmuk_nodefile_free(&nf);
	pmuk_pw_buf_free(&b);
}

/* Sets the size of feature feat's section in the file at path. */
static void damage_size(const char *path, int feat, uint64_t size)
{
	struct perf_file_header h;
	FILE *f = fopen(path, "r+b");
	long at;
	int k = 0;

	assert_non_null(f);
	assert_int_equal(fread(&h, sizeof(h), 1, f), 1);
	for (int i = 0; i < feat; i++)
		k += (h.adds_features[i / 64] >> (i % 64)) & 1;
	at = (long)(h.data.offset + h.data.size) + k * 16 + 8;
	assert_int_equal(fseek(f, at, SEEK_SET), 0);
	assert_int_equal(fwrite(&size, 8, 1, f), 1);
	fclose(f);
}

/* A perf.data with features below and between: the section walk finds both. */
static void test_file_features(void **state)
{
	char path[256];
	struct pmuk_perf_writer *w;
	struct pmuk_rec_nodes n;
	struct pmuk_pw_buf b = { 0 }, t = { 0 }, hn = { 0 };
	struct pmuk_nodefile nf;
	uint8_t attr[PERF_ATTR_SIZE_VER8] = { 0 };
	uint64_t id = 7;

	(void)state;
	snprintf(path, sizeof(path), "%s/n.data", root);
	assert_int_equal(pmuk_pw_open(path, &w), 0);
	assert_int_equal(pmuk_pw_add_attr(w, attr, sizeof(attr), &id, 1), 0);
	pmuk_pw_str(&hn, "host");
	assert_int_equal(pmuk_pw_feature(w, HEADER_HOSTNAME, hn.p, hn.n), 0);
	assert_int_equal(pmuk_numa_topology_body(&t), 0);
	assert_int_equal(pmuk_pw_feature(w, HEADER_NUMA_TOPOLOGY, t.p, t.n), 0);
	assert_int_equal(pmuk_rec_nodes_init(&n, 0), 0);
	feed(&n);
	pmuk_rec_nodes_body(&n, &b);
	assert_int_equal(pmuk_pw_feature(w, PMUK_FEAT_NODES, b.p, b.n), 0);
	assert_int_equal(pmuk_pw_feature(w, PERF_FEAT_BITS, b.p, b.n), PMU_EINVAL);
	assert_int_equal(pmuk_pw_finish(w, NULL), 0);
	assert_int_equal(pmuk_nodefile_load(path, &nf), 0);
	assert_true(nf.have_answers);
	assert_int_equal(nf.n, 4);
	assert_int_equal(nf.h.by_phys, 2);
	assert_int_equal(pmuk_nodefile_cpu_node(&nf, 3), 1);
	pmuk_nodefile_free(&nf);
	/* a section size past the end of the file is a damaged file, not a lack of memory */
	damage_size(path, HEADER_NUMA_TOPOLOGY, UINT64_MAX);
	assert_int_equal(pmuk_nodefile_load(path, &nf), PMU_EFORMAT);
	damage_size(path, HEADER_NUMA_TOPOLOGY, 1ull << 29);
	assert_int_equal(pmuk_nodefile_load(path, &nf), PMU_EFORMAT);
	assert_int_equal(pmuk_nodefile_load("/nonexistent/perf.data", &nf), PMU_ENOENT);
	pmuk_rec_nodes_free(&n);
	pmuk_pw_buf_free(&b);
	pmuk_pw_buf_free(&t);
	pmuk_pw_buf_free(&hn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phys_blocks),
		cmocka_unit_test(test_phys_missing),
		cmocka_unit_test(test_answers_roundtrip),
		cmocka_unit_test(test_numa_topology),
		cmocka_unit_test(test_file_features),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
