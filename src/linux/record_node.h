/* SPDX-License-Identifier: MIT */
/* record -d: the node of each sampled data page, kept next to the samples
 * (formats/perf_file.h PMUK_FEAT_NODES), and the NUMA_TOPOLOGY feature so the
 * node of each sample's CPU is known offline.
 *   record_node_phys.c   physical address -> node from the memory blocks in sysfs
 *   record_node.c        per-page answers: PHYS_ADDR, else batched move_pages queries
 *   record_node_feat.c   the two header features */
#ifndef PMUK_LINUX_RECORD_NODE_H
#define PMUK_LINUX_RECORD_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "core/hash.h"
#include "formats/perf_file.h"

/* Which node each memory block of physical memory belongs to
 * (/sys/devices/system/node/nodeN/memoryM, block M covering
 * [M * block_size, (M + 1) * block_size), block_size_bytes in hex). */
struct pmuk_phys_nodes {
	uint64_t block_size;      /* 0: unknown (no sysfs memory blocks) */
	int32_t *node;            /* [nblocks]: -1 where no node lists the block */
	size_t nblocks;
};
/* Reads the tree under pmu_sysroot(). PMU_ENOENT (the detail says what is
 * missing) when the kernel exposes no memory blocks. */
int pmuk_phys_nodes_load(struct pmuk_phys_nodes *m);
/* The node of physical address phys, -1 when no block holds it. */
int pmuk_phys_node(const struct pmuk_phys_nodes *m, uint64_t phys);
void pmuk_phys_nodes_free(struct pmuk_phys_nodes *m);

/* The answers of one recording. */
struct pmuk_rec_nodes {
	int on;                   /* -d: pages are answered */
	int query;                /* live queries allowed (pmu_recording_opts) */
	struct pmuk_phys_nodes phys;
	uint64_t page_size;
	struct pmuk_node_feat_entry *e;
	size_t n, cap;
	struct pmuk_index ix;     /* (pid, page) -> e */
	uint32_t *pending;        /* entries waiting for a query */
	size_t npending, cap_pending;
	uint64_t last_flush_ns;
	struct pmuk_node_feat_head h;  /* the counts */
	uint64_t *qaddr;          /* a batch of one pid, scratch */
	void *qout;               /* struct pmu_page_node[batch] */
};

#define PMUK_NODES_MAX (1u << 20)   /* distinct pages kept: 32 MiB of answers */
#define PMUK_NODES_BATCH 512        /* pages per move_pages call */
#define PMUK_NODES_GAP_NS 2000000   /* queries at most every 2 ms, but for full batches */

int pmuk_rec_nodes_init(struct pmuk_rec_nodes *n, int query);
/* A sample's data address (phys 0: none). Answered at once from phys, else
 * queued for the next flush; a page seen before costs a hash lookup. */
int pmuk_rec_nodes_add(struct pmuk_rec_nodes *n, int32_t pid, uint64_t addr, uint64_t phys);
/* Whether pmuk_rec_nodes_add would use a phys for this address: its page is new,
 * under the cap, and the memory blocks are known. Lets the caller skip finding
 * PHYS_ADDR in the sample (a decode of all of it) for a page answered before. */
int pmuk_rec_nodes_wants_phys(const struct pmuk_rec_nodes *n, int32_t pid, uint64_t addr);
/* Queries the queued pages (force: now, else when a batch is full or the gap passed). */
int pmuk_rec_nodes_flush(struct pmuk_rec_nodes *n, int force);
void pmuk_rec_nodes_free(struct pmuk_rec_nodes *n);
/* CLOCK_MONOTONIC ns: the time stamp of each answer. */
uint64_t pmuk_rec_nodes_now(void);

struct pmuk_pw_buf;
/* The PMUK_FEAT_NODES body. */
void pmuk_rec_nodes_body(const struct pmuk_rec_nodes *n, struct pmuk_pw_buf *b);
/* HEADER_NUMA_TOPOLOGY as perf writes it, from sysfs under pmu_sysroot():
 * u32 nr, then per node {u32 id, u64 total kB, u64 free kB, str cpulist}.
 * 0 with b empty when the kernel shows no nodes. */
int pmuk_numa_topology_body(struct pmuk_pw_buf *b);

#endif
