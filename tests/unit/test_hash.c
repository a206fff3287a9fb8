/* SPDX-License-Identifier: MIT */
/* core/hash.h: the hashes and the open-addressing index every table uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void test_hash_bytes(void **state)
{
	(void)state;
	/* FNV-1a of "a" is 0xaf63dc4c8601ec8c; then h ^ h >> 29 */
	uint64_t fnv = 0xaf63dc4c8601ec8cull;
	assert_true(pmuk_hash_bytes("a", 1, 0) == (fnv ^ fnv >> 29));
	assert_true(pmuk_hash_bytes("a", 1, 1) != pmuk_hash_bytes("a", 1, 2));
	assert_true(pmuk_hash_bytes("ab", 2, 0) != pmuk_hash_bytes("ba", 2, 0));
	assert_true(pmuk_hash_u64(1) != pmuk_hash_u64(2));
	assert_true(pmuk_hash_u64(0) == 0);
}

/* The word hash of the report's stacks and row keys: equal arrays hash equal;
 * order, length (a trailing 0 word too), seed and every bit of every word
 * count; 200,000 stack-like arrays give as many hashes, and their low bits
 * (what a table uses) spread. */
static void test_hash_words(void **state)
{
	static uint8_t seen[1 << 16];
	uint32_t a[] = { 1, 2, 3 }, b[] = { 1, 2, 3 }, c[] = { 3, 2, 1 }, z[] = { 1, 2, 3, 0 };
	size_t low = 0;

	(void)state;
	assert_true(pmuk_hash_words(a, 3, 5) == pmuk_hash_words(b, 3, 5));
	assert_true(pmuk_hash_words(a, 3, 5) != pmuk_hash_words(c, 3, 5));
	assert_true(pmuk_hash_words(a, 3, 5) != pmuk_hash_words(z, 4, 5));
	assert_true(pmuk_hash_words(a, 2, 5) != pmuk_hash_words(a, 3, 5));
	assert_true(pmuk_hash_words(a, 3, 5) != pmuk_hash_words(a, 3, 6));
	assert_true(pmuk_hash_words(NULL, 0, 5) != pmuk_hash_words(NULL, 0, 6));
	for (unsigned bit = 0; bit < 32; bit++) {
		uint32_t x[3] = { 1, 2, 3 };
		for (unsigned w = 0; w < 3; w++) {
			x[w] ^= 1u << bit;
			assert_true(pmuk_hash_words(x, 3, 5) != pmuk_hash_words(a, 3, 5));
			x[w] ^= 1u << bit;
		}
	}
	uint64_t *h = malloc(200000 * sizeof(*h));
	assert_non_null(h);
	for (uint32_t i = 0; i < 200000; i++) {
		uint32_t s[5] = { 7, 100 + i % 1000, 5000 + i / 1000, 9, i & 1 };
		h[i] = pmuk_hash_words(s, 5, 0);
		low += !seen[h[i] & 0xffff];
		seen[h[i] & 0xffff] = 1;
	}
	qsort(h, 200000, sizeof(*h), cmp_u64);
	for (uint32_t i = 1; i < 200000; i++)
		assert_true(h[i] != h[i - 1]);
	free(h);
	assert_true(low > 60000);	/* of 65,536 buckets: random fill leaves ~3% empty */
}

struct words {
	char w[2000][8];
};

static int word_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct words *t = ctx;

	return !strcmp(key, t->w[id]);
}

static void test_index(void **state)
{
	static struct words t;
	struct pmuk_index ix = { 0 };
	char k[8];

	(void)state;
	assert_int_equal(pmuk_index_find(&ix, 1, word_eq, "x", &t), PMUK_INDEX_NONE);
	for (uint32_t i = 0; i < 2000; i++) {
		snprintf(t.w[i], sizeof(t.w[i]), "w%u", i);
		uint64_t h = pmuk_hash_bytes(t.w[i], strlen(t.w[i]), 7);
		assert_int_equal(pmuk_index_find(&ix, h, word_eq, t.w[i], &t), PMUK_INDEX_NONE);
		assert_int_equal(pmuk_index_add(&ix, h), i);	/* ids are dense, in order */
	}
	assert_int_equal(ix.n, 2000);
	assert_true(ix.cap >= 2 * ix.n);	/* grown past half full */
	for (uint32_t i = 0; i < 2000; i++) {
		snprintf(k, sizeof(k), "w%u", i);
		assert_int_equal(pmuk_index_find(&ix, pmuk_hash_bytes(k, strlen(k), 7), word_eq, k, &t),
				 i);
	}
	assert_int_equal(pmuk_index_find(&ix, pmuk_hash_bytes("w2000", 5, 7), word_eq, "w2000", &t),
			 PMUK_INDEX_NONE);
	pmuk_index_free(&ix);
	assert_int_equal(ix.n, 0);
	assert_null(ix.slot);
}

/* pmuk_index_put: ids chosen by the caller (with gaps, out of order), found
 * again through growth; the largest ids refused with nothing changed. */
static void test_index_put(void **state)
{
	static struct words t;
	struct pmuk_index ix = { 0 };

	(void)state;
	for (uint32_t i = 0; i < 700; i++) {
		uint32_t id = (i * 7) % 2000;   /* spread over 0..1999, every third-ish left out */
		snprintf(t.w[id], sizeof(t.w[id]), "p%u", id);
		assert_int_equal(pmuk_index_put(&ix, pmuk_hash_bytes(t.w[id], strlen(t.w[id]), 3), id),
				 0);
	}
	assert_int_equal(ix.n, 700);
	assert_true(ix.cap >= 2 * ix.n);
	for (uint32_t id = 0; id < 2000; id++) {
		char k[8];
		snprintf(k, sizeof(k), "p%u", id);
		int put = 0;
		for (uint32_t i = 0; i < 700 && !put; i++)
			put = (i * 7) % 2000 == id;
		assert_int_equal(pmuk_index_find(&ix, pmuk_hash_bytes(k, strlen(k), 3), word_eq, k, &t),
				 put ? id : PMUK_INDEX_NONE);
	}
	size_t cap = ix.cap;
	assert_int_not_equal(pmuk_index_put(&ix, 5, PMUK_INDEX_NONE - 1), 0);
	assert_int_not_equal(pmuk_index_put(&ix, 5, PMUK_INDEX_NONE), 0);
	assert_int_equal(ix.n, 700);
	assert_int_equal(ix.cap, cap);
	pmuk_index_free(&ix);
}

/* Every key in one bucket: found all the same, by probing. */
static void test_index_collisions(void **state)
{
	static struct words t;
	struct pmuk_index ix = { 0 };

	(void)state;
	for (uint32_t i = 0; i < 100; i++) {
		snprintf(t.w[i], sizeof(t.w[i]), "c%u", i);
		assert_int_equal(pmuk_index_add(&ix, 42), i);
	}
	for (uint32_t i = 0; i < 100; i++)
		assert_int_equal(pmuk_index_find(&ix, 42, word_eq, t.w[i], &t), i);
	assert_int_equal(pmuk_index_find(&ix, 42, word_eq, "none", &t), PMUK_INDEX_NONE);
	pmuk_index_free(&ix);
}

static unsigned eq_calls;

static int id_eq(const void *key, uint32_t id, const void *ctx)
{
	(void)ctx;
	eq_calls++;
	return *(const uint32_t *)key == id;
}

/* Keys in one bucket (of a table of 512, grown through 64..256) whose hashes
 * differ in their high half or only in their low half: each is found with one
 * call of eq (the slot's tag rejects the others without it), and a hash nobody
 * has calls eq never. */
static void test_index_tags(void **state)
{
	struct pmuk_index ix = { 0 };
	uint64_t h[200];

	(void)state;
	for (uint32_t i = 0; i < 200; i++) {
		uint64_t t = (uint64_t)(i + 1) << 9 | 5;
		h[i] = i < 100 ? t << 32 : t;
		assert_int_equal(pmuk_index_add(&ix, h[i]), i);
	}
	assert_int_equal(ix.cap, 512);
	for (uint32_t i = 0; i < 200; i++) {
		eq_calls = 0;
		assert_int_equal(pmuk_index_find(&ix, h[i], id_eq, &i, NULL), i);
		assert_int_equal(eq_calls, 1);
	}
	eq_calls = 0;
	uint32_t none = 7;
	assert_int_equal(pmuk_index_find(&ix, (uint64_t)4000 << 9 | 5, id_eq, &none, NULL),
			 PMUK_INDEX_NONE);
	assert_int_equal(eq_calls, 0);
	pmuk_index_free(&ix);
}

static uint64_t mix_state;

static uint64_t next_rand(void)	/* splitmix64: reproducible keys */
{
	uint64_t z = (mix_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ z >> 27) * 0x94d049bb133111ebull;
	return z ^ z >> 31;
}

/* A hash whose tag (the slot's bucket bits) is t: high half 0. */
static uint64_t tag_hash(uint32_t t)
{
	return t;
}

/* The key set of each growth test: 0 random; 1 every tag within 64 of the top
 * (one run of full slots that wraps around the table's end at every size);
 * 2 tags with their low 0..11 bits set (runs ending at the same buckets for
 * every size, the last ones wrapping); 3 consecutive multiples of 64 (all in
 * bucket 0 of the first table, spread by the later ones). */
static uint64_t key_hash(int kind, uint32_t i)
{
	uint32_t r = (uint32_t)next_rand();

	switch (kind) {
	case 0:
		return next_rand();
	case 1:
		return tag_hash(UINT32_MAX - r % 64);
	case 2:
		return tag_hash(r | ((1u << (next_rand() % 12)) - 1));
	default:
		return tag_hash(i * 64);
	}
}

/* The in-place doubling: keys added one by one up to n; after every growth
 * (and at the end) every key added so far is found with its id, and keys
 * not added are not. */
static void grow_check(int kind, uint32_t n)
{
	struct pmuk_index ix = { 0 };
	uint64_t *h = malloc(n * sizeof(*h));
	size_t cap = 0;

	assert_non_null(h);
	mix_state = 12345 + (uint64_t)kind;
	for (uint32_t i = 0; i < n; i++) {
		h[i] = key_hash(kind, i);
		assert_int_equal(pmuk_index_add(&ix, h[i]), i);
		if (ix.cap == cap && i + 1 < n)
			continue;
		assert_true(ix.cap >= 2 * ix.n);
		cap = ix.cap;
		for (uint32_t j = 0; j <= i; j++)
			assert_int_equal(pmuk_index_find(&ix, h[j], id_eq, &j, NULL), j);
		uint32_t none = i + 1;
		assert_int_equal(pmuk_index_find(&ix, h[i], id_eq, &none, NULL), PMUK_INDEX_NONE);
	}
	size_t full = 0;
	for (size_t k = 0; k < ix.cap; k++)
		full += ix.slot[k] != 0;
	assert_int_equal(full, n);	/* each entry once: none lost, none doubled */
	pmuk_index_free(&ix);
	free(h);
}

static void test_index_grow_random(void **state)
{
	(void)state;
	grow_check(0, 100000);
	for (uint32_t n = 1; n <= 300; n++)	/* every size through the first growths */
		grow_check(0, n);
}

static void test_index_grow_wrapping(void **state)
{
	(void)state;
	grow_check(1, 3000);
	grow_check(2, 100000);
	grow_check(3, 20000);
	for (uint32_t n = 1; n <= 300; n++) {
		grow_check(1, n);
		grow_check(2, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_bytes),
		cmocka_unit_test(test_hash_words),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_index_put),
		cmocka_unit_test(test_index_collisions),
		cmocka_unit_test(test_index_tags),
		cmocka_unit_test(test_index_grow_random),
		cmocka_unit_test(test_index_grow_wrapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
