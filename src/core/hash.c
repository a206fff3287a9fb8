/* SPDX-License-Identifier: MIT */
#include "core/hash.h"

#include <pmukit/error.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

uint64_t pmuk_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const uint8_t *b = p;
	uint64_t h = seed ^ 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static uint64_t rotl(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

uint64_t pmuk_hash_words(const uint32_t *w, size_t n, uint64_t seed)
{
	uint64_t h = seed ^ 0x9e3779b97f4a7c15ull ^ n * 0xc2b2ae3d27d4eb4full;
	size_t i = 0;

	/* MurmurHash3's 64-bit body over pairs of words, its finalizer at the end */
	for (; i + 2 <= n; i += 2) {
		uint64_t k = (uint64_t)w[i] | (uint64_t)w[i + 1] << 32;
		k = rotl(k * 0x87c37b91114253d5ull, 31) * 0x4cf5ad432745937full;
		h = rotl(h ^ k, 27) * 5 + 0x52dce729;
	}
	if (i < n)
		h = rotl(h ^ rotl(w[i] * 0x87c37b91114253d5ull, 31) * 0x4cf5ad432745937full, 27) *
			5 + 0x52dce729;
	return pmuk_hash_u64(pmuk_hash_u64(h));
}

static void place(uint64_t *slot, size_t cap, uint64_t s)
{
	size_t i = (uint32_t)(s >> 32) & (cap - 1);

	while (slot[i])
		i = (i + 1) & (cap - 1);
	slot[i] = s;
}

/* Makes the first table, or doubles it in place: realloc moves a large block
 * by remapping its pages (no copy, no new table faulted in beside the old
 * one), then every entry of the old half is taken out and placed again
 * (one at its new bucket stays). The walk starts just after an empty slot,
 * so each run of full slots is re-placed from its first slot on: an entry's
 * new probe path then crosses only slots already re-placed (or its own,
 * emptied), never one that will be emptied later, so every entry stays
 * reachable. */
static int grow(struct pmuk_index *ix)
{
	size_t old = ix->cap, e = 0;
	uint64_t *slot;

	if (!old) {
		if (!(ix->slot = calloc(64, sizeof(*ix->slot))))
			return -1;
		ix->cap = 64;
		return 0;
	}
	if (old > SIZE_MAX / 2 / sizeof(*slot) || !(slot = realloc(ix->slot, 2 * old * sizeof(*slot))))
		return -1;
	memset(slot + old, 0, old * sizeof(*slot));
	ix->slot = slot;
	ix->cap = 2 * old;
	while (slot[e])		/* one is empty: the load is at most 1/2 */
		e++;
	for (size_t k = 1; k <= old; k++) {
		size_t i = (e + k) & (old - 1);
		uint64_t s = slot[i];
		/* one at its bucket in the lower half would be placed back there */
		if (s && ((uint32_t)(s >> 32) & (2 * old - 1)) != i) {
			slot[i] = 0;
			place(slot, 2 * old, s);
		}
	}
	return 0;
}

/* Room for one more element: 0, or -1 without memory. Inline: it runs on
 * every add, and grows the table on few. */
static inline int reserve(struct pmuk_index *ix)
{
	return (ix->n + 1) * 2 <= ix->cap ? 0 : grow(ix);
}

uint32_t pmuk_index_add(struct pmuk_index *ix, uint64_t h)
{
	/* ids and ids + 1 are uint32_t, PMUK_INDEX_NONE excluded */
	if (ix->n >= UINT32_MAX - 1 || reserve(ix))
		return PMUK_INDEX_NONE;
	place(ix->slot, ix->cap, (uint64_t)pmuk_index_tag(h) << 32 | (ix->n + 1));
	return (uint32_t)ix->n++;
}

int pmuk_index_put(struct pmuk_index *ix, uint64_t h, uint32_t id)
{
	if (id >= UINT32_MAX - 1 || ix->n >= UINT32_MAX - 1 || reserve(ix))
		return PMU_ENOMEM;
	place(ix->slot, ix->cap, (uint64_t)pmuk_index_tag(h) << 32 | (id + 1));
	ix->n++;
	return 0;
}

void pmuk_index_free(struct pmuk_index *ix)
{
	free(ix->slot);
	memset(ix, 0, sizeof(*ix));
}
