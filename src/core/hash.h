/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_HASH_H
#define PMUK_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The hashes of every table: FNV-1a over bytes, seeded so that tables keyed by
 * the same bytes spread differently, with a final shift as FNV's low bits (the
 * ones a power-of-two table uses) mix poorly. */
uint64_t pmuk_hash_bytes(const void *p, size_t n, uint64_t seed);

/* Integer keys (addresses, stack keys): a MurmurHash3-style fold. */
static inline uint64_t pmuk_hash_u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	return k ^ (k >> 33);
}

/* Arrays of 32-bit words (stacks, row keys): 8 bytes per step, several times
 * faster than pmuk_hash_bytes on the report's per-sample keys. */
uint64_t pmuk_hash_words(const uint32_t *w, size_t n, uint64_t seed);

#define PMUK_INDEX_NONE UINT32_MAX

/* The one hash table: an open-addressing index over a caller's dense array of
 * elements 0..n-1 (the caller keeps the elements, and their order). Each slot
 * holds an element's id + 1 in its low 32 bits and a 32-bit tag of its hash
 * (both halves folded) above: a probe rejects other keys, and the table
 * regrows, without reading another array or the caller's elements; eq runs
 * only on a tag match. Load stays under 1/2, so probes are short. */
struct pmuk_index {
	uint64_t *slot;
	size_t cap;              /* power of two (0: empty) */
	size_t n;
};

/* Whether element id is key. */
typedef int (*pmuk_index_eq_fn)(const void *key, uint32_t id, const void *ctx);

/* The slot's tag; the bucket is its low bits, so hashes that vary only in
 * their high or only in their low half both spread. */
static inline uint32_t pmuk_index_tag(uint64_t h)
{
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* The id of the element with hash h that eq says is key, or PMUK_INDEX_NONE.
 * Inline: a caller's eq (a static function, mostly) is then inlined too,
 * and lookups are the report's most frequent operation. */
static inline uint32_t pmuk_index_find(const struct pmuk_index *ix, uint64_t h,
				       pmuk_index_eq_fn eq, const void *key, const void *ctx)
{
	uint32_t tag = pmuk_index_tag(h);

	if (!ix->cap)
		return PMUK_INDEX_NONE;
	for (size_t i = tag & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
		uint64_t s = ix->slot[i];
		uint32_t id = (uint32_t)s - 1;
		if (!s)
			return PMUK_INDEX_NONE;
		if ((uint32_t)(s >> 32) == tag && eq(key, id, ctx))
			return id;
	}
}
/* Adds element id ix->n with hash h; returns it, or PMUK_INDEX_NONE without
 * memory (nothing changed then). The caller stores the element at that id. */
uint32_t pmuk_index_add(struct pmuk_index *ix, uint64_t h);
/* Adds element id with hash h, for a caller whose ids also count elements
 * it does not index (ids below PMUK_INDEX_NONE - 1, kept distinct by the
 * caller). 0, or PMU_ENOMEM with nothing changed. */
int pmuk_index_put(struct pmuk_index *ix, uint64_t h, uint32_t id);
void pmuk_index_free(struct pmuk_index *ix);

#endif
