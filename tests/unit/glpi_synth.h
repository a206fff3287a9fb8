/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TEST_GLPI_SYNTH_H
#define PMUKIT_TEST_GLPI_SYNTH_H

/* Builds GetLogicalProcessorInformationEx(RelationAll) buffers byte by byte, with the
 * layouts documented in src/core/glpi.c, for the tests. */
#include <stdint.h>
#include <string.h>

struct gbuf {
	uint8_t d[65536];
	size_t n;
};

static inline void g_put(struct gbuf *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b->d[b->n++] = (uint8_t)(v >> (8 * i));
}

static inline void g_zero(struct gbuf *b, size_t n)
{
	memset(b->d + b->n, 0, n);
	b->n += n;
}

/* Starts a record; returns its offset for g_end. */
static inline size_t g_begin(struct gbuf *b, uint32_t rel)
{
	size_t at = b->n;

	g_put(b, rel, 4);
	g_put(b, 0, 4);
	return at;
}

/* Pads to 8 bytes plus `extra` and writes Size. */
static inline void g_end(struct gbuf *b, size_t at, size_t extra)
{
	while ((b->n - at) % 8)
		g_put(b, 0, 1);
	g_zero(b, extra);
	b->d[at + 4] = (uint8_t)(b->n - at);
	b->d[at + 5] = (uint8_t)((b->n - at) >> 8);
}

static inline void g_affinity(struct gbuf *b, uint64_t mask, unsigned group)
{
	g_put(b, mask, 8);
	g_put(b, group, 2);
	g_zero(b, 6);
}

/* PROCESSOR_RELATIONSHIP (core 0, package 3, die 5, module 7) with one mask. */
static inline void g_proc(struct gbuf *b, uint32_t rel, int smt, int eff, uint64_t mask,
			  unsigned group)
{
	size_t at = g_begin(b, rel);

	g_put(b, smt ? 1 : 0, 1);
	g_put(b, (uint64_t)eff, 1);
	g_zero(b, 20);
	g_put(b, 1, 2);
	g_affinity(b, mask, group);
	g_end(b, at, 0);
}

/* CACHE_RELATIONSHIP; type 0 unified, 1 instruction, 2 data. group_count 0 writes the
 * pre-GroupCount form (a single GroupMask, count field 0). */
static inline void g_cache(struct gbuf *b, int level, int ways, unsigned line, uint32_t size,
			   int type, int group_count, uint64_t mask, unsigned group)
{
	size_t at = g_begin(b, 2);

	g_put(b, (uint64_t)level, 1);
	g_put(b, (uint64_t)ways, 1);
	g_put(b, line, 2);
	g_put(b, size, 4);
	g_put(b, (uint64_t)type, 4);
	g_zero(b, 18);
	g_put(b, (uint64_t)group_count, 2);
	g_affinity(b, mask, group);
	g_end(b, at, 8);   /* Windows pads records to the union's size; so do we */
}

/* NUMA_NODE_RELATIONSHIP with n masks (rel 1 or 6). */
static inline void g_node(struct gbuf *b, uint32_t rel, uint32_t node, int n,
			  const uint64_t *masks, const unsigned *groups)
{
	size_t at = g_begin(b, rel);

	g_put(b, node, 4);
	g_zero(b, 18);
	g_put(b, (uint64_t)n, 2);
	for (int i = 0; i < n; i++)
		g_affinity(b, masks[i], groups[i]);
	g_end(b, at, 0);
}

/* GROUP_RELATIONSHIP with n active groups. */
static inline void g_groups(struct gbuf *b, int n, const uint64_t *active)
{
	size_t at = g_begin(b, 4);

	g_put(b, (uint64_t)n, 2);
	g_put(b, (uint64_t)n, 2);
	g_zero(b, 20);
	for (int i = 0; i < n; i++) {
		g_put(b, 64, 1);
		g_put(b, (uint64_t)__builtin_popcountll(active[i]), 1);
		g_zero(b, 38);
		g_put(b, active[i], 8);
	}
	g_end(b, at, 0);
}

/* 2 packages x 32 cores x SMT2 = 128 CPUs; group p = package p; NUMA node per package;
 * L1d/L1i/L2 per core, L3 per package. */
static inline void g_two_group_machine(struct gbuf *b)
{
	uint64_t all[2] = { ~0ull, ~0ull };

	b->n = 0;
	for (unsigned p = 0; p < 2; p++) {
		for (int k = 0; k < 32; k++) {
			uint64_t m = 3ull << (2 * k);

			g_proc(b, 0, 1, 0, m, p);
			g_cache(b, 1, 12, 64, 48 << 10, 2, 1, m, p);
			g_cache(b, 1, 8, 64, 32 << 10, 1, 1, m, p);
			g_cache(b, 2, 16, 64, 2 << 20, 0, 1, m, p);
		}
		g_cache(b, 3, 15, 64, 60u << 20, 0, 1, ~0ull, p);
	}
	for (unsigned p = 0; p < 2; p++)
		g_proc(b, 3, 0, 0, ~0ull, p);
	for (unsigned p = 0; p < 2; p++)
		g_node(b, 1, p, 1, &all[p], &p);
	g_groups(b, 2, all);
}

/* A hybrid CPU: 6 P-cores with SMT (EfficiencyClass 1, CPUs 0-11), 8 E-cores (class 0,
 * CPUs 12-19) sharing an L2 per 4 (one module each), one die, one package, one node. */
static inline void g_hybrid(struct gbuf *b)
{
	uint64_t all = (1ull << 20) - 1;
	unsigned g0 = 0;

	b->n = 0;
	for (int k = 0; k < 6; k++) {
		uint64_t m = 3ull << (2 * k);

		g_proc(b, 0, 1, 1, m, 0);
		g_cache(b, 1, 12, 64, 48 << 10, 2, 1, m, 0);
		g_cache(b, 1, 8, 64, 32 << 10, 1, 1, m, 0);
		g_cache(b, 2, 10, 64, 1280 << 10, 0, 1, m, 0);
	}
	for (int k = 0; k < 8; k++) {
		uint64_t m = 1ull << (12 + k);

		g_proc(b, 0, 0, 0, m, 0);
		g_cache(b, 1, 8, 64, 32 << 10, 2, 1, m, 0);
		g_cache(b, 1, 8, 64, 64 << 10, 1, 1, m, 0);
	}
	for (int c = 0; c < 2; c++) {
		g_cache(b, 2, 16, 64, 2 << 20, 0, 1, 0xfull << (12 + 4 * c), 0);
		g_proc(b, 7, 0, 0, 0xfull << (12 + 4 * c), 0);
	}
	g_cache(b, 3, 12, 64, 24 << 20, 0, 0, all, 0);  /* pre-GroupCount form */
	g_proc(b, 3, 1, 0, all, 0);
	g_proc(b, 5, 0, 0, all, 0);
	g_node(b, 1, 0, 1, &all, &g0);
	g_groups(b, 1, &all);
}

#endif
