/* SPDX-License-Identifier: MIT */
/* record -d: one answer per distinct sampled page (pid, page), kept in the
 * order first seen. A sample with PHYS_ADDR is answered at once from the memory
 * blocks; else its page waits for a batched move_pages query of its process
 * (pmu_memory_query), run from the draining thread at most every
 * PMUK_NODES_GAP_NS unless a batch is full, so the pages are asked about while
 * the process still runs. Each answer carries its time. */
#include "linux/record_node.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/sysroot.h"

#include <pmukit/topology.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t pmuk_rec_nodes_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int pmuk_rec_nodes_init(struct pmuk_rec_nodes *n, int query)
{
	long ps = sysconf(_SC_PAGESIZE);

	memset(n, 0, sizeof(*n));
	n->on = 1;
	n->query = query;
	n->page_size = ps > 0 ? (uint64_t)ps : 4096;
	/* no memory blocks: every answer comes from queries (said in the counts) */
	if (pmuk_phys_nodes_load(&n->phys) < 0)
		memset(&n->phys, 0, sizeof(n->phys));
	n->qaddr = calloc(PMUK_NODES_BATCH, sizeof(*n->qaddr));
	n->qout = calloc(PMUK_NODES_BATCH, sizeof(struct pmu_page_node));
	if (!n->qaddr || !n->qout) {
		pmuk_rec_nodes_free(n);
		return pmuk_fail(PMU_ENOMEM, "out of memory for the node queries of -d");
	}
	return 0;
}

struct page_key {
	int32_t pid;
	uint64_t page;
};

static int page_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct page_key *k = key;
	const struct pmuk_rec_nodes *n = ctx;

	return n->e[id].page == k->page && n->e[id].pid == k->pid;
}

static uint64_t page_hash(int32_t pid, uint64_t page)
{
	return pmuk_hash_u64(page ^ ((uint64_t)(uint32_t)pid << 48));
}

static int queue(struct pmuk_rec_nodes *n, uint32_t id)
{
	if (pmuk_grow((void **)&n->pending, &n->cap_pending, n->npending + 1,
		      sizeof(*n->pending)) < 0)
		return pmuk_fail(PMU_ENOMEM, "out of memory queueing node queries");
	n->pending[n->npending++] = id;
	return 0;
}

int pmuk_rec_nodes_wants_phys(const struct pmuk_rec_nodes *n, int32_t pid, uint64_t addr)
{
	struct page_key k = { pid, addr & ~(n->page_size - 1) };

	return n->phys.block_size && n->n < PMUK_NODES_MAX &&
	       pmuk_index_find(&n->ix, page_hash(pid, k.page), page_eq, &k, n) == PMUK_INDEX_NONE;
}

int pmuk_rec_nodes_add(struct pmuk_rec_nodes *n, int32_t pid, uint64_t addr, uint64_t phys)
{
	struct page_key k = { pid, addr & ~(n->page_size - 1) };
	uint64_t h = page_hash(pid, k.page);
	struct pmuk_node_feat_entry *e;
	uint32_t id;
	int node;

	n->h.samples++;
	if (pmuk_index_find(&n->ix, h, page_eq, &k, n) != PMUK_INDEX_NONE)
		return 0;
	if (n->n >= PMUK_NODES_MAX) {
		n->h.dropped++;  /* counted per sample past the cap: an upper bound of pages */
		return 0;
	}
	if (pmuk_grow((void **)&n->e, &n->cap, n->n + 1, sizeof(*n->e)) < 0 ||
	    (id = pmuk_index_add(&n->ix, h)) == PMUK_INDEX_NONE)
		return pmuk_fail(PMU_ENOMEM, "out of memory for the node answers of -d");
	e = &n->e[n->n++];
	*e = (struct pmuk_node_feat_entry){ k.page, pid, -1, PMU_PAGE_UNKNOWN, PMUK_NODE_SRC_NONE, 0 };
	if (phys && (node = pmuk_phys_node(&n->phys, phys)) >= 0) {
		e->node = node;
		e->state = PMU_PAGE_ON_NODE;
		e->source = PMUK_NODE_SRC_PHYS;
		e->time = pmuk_rec_nodes_now();
		n->h.by_phys++;
		return 0;
	}
	if (!n->query || pid <= 0) {  /* pid 0 would ask about pmukit's own pages */
		n->h.unanswered++;
		return 0;
	}
	return queue(n, id);
}

/* One move_pages batch of pages of one process; answers into their entries. */
static void ask(struct pmuk_rec_nodes *n, int32_t pid, const uint32_t *ids, size_t k)
{
	struct pmu_page_node *out = n->qout;
	uint64_t t0 = pmuk_rec_nodes_now(), t1;
	int err;

	for (size_t i = 0; i < k; i++)
		n->qaddr[i] = n->e[ids[i]].page;
	err = pmu_memory_query(pid, n->qaddr, k, out);
	t1 = pmuk_rec_nodes_now();
	if (err < 0) /* a gone or forbidden process is an answer: this is the OS failing */
		pmuk_clear_detail();
	n->h.batches++;
	n->h.query_ns += t1 - t0;
	for (size_t i = 0; i < k; i++) {
		struct pmuk_node_feat_entry *e = &n->e[ids[i]];

		e->time = t1;
		e->state = err < 0 ? PMU_PAGE_UNKNOWN : out[i].state;
		e->node = err < 0 ? -1 : out[i].node;
		if (e->state == PMU_PAGE_ON_NODE && e->node >= 0) {
			e->source = PMUK_NODE_SRC_QUERY;
			n->h.by_query++;
		} else {
			n->h.unanswered++;
		}
	}
}

int pmuk_rec_nodes_flush(struct pmuk_rec_nodes *n, int force)
{
	uint64_t now;
	size_t done = 0;

	if (!n->on || !n->npending)
		return 0;
	now = pmuk_rec_nodes_now();
	if (!force && n->npending < PMUK_NODES_BATCH && now - n->last_flush_ns < PMUK_NODES_GAP_NS)
		return 0;
	n->last_flush_ns = now;
	/* pages in first-seen order, each batch one pid (a target is mostly one) */
	while (done < n->npending) {
		int32_t pid = n->e[n->pending[done]].pid;
		size_t k = 1;

		while (done + k < n->npending && k < PMUK_NODES_BATCH &&
		       n->e[n->pending[done + k]].pid == pid)
			k++;
		ask(n, pid, n->pending + done, k);
		done += k;
	}
	n->npending = 0;
	return 0;
}

void pmuk_rec_nodes_free(struct pmuk_rec_nodes *n)
{
	pmuk_phys_nodes_free(&n->phys);
	pmuk_index_free(&n->ix);
	free(n->e);
	free(n->pending);
	free(n->qaddr);
	free(n->qout);
	memset(n, 0, sizeof(*n));
}
