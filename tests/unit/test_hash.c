/* SPDX-License-Identifier: MIT */
/* core/hash.h: the hashes and the open-addressing index every table uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/hash.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_bytes),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_index_collisions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
