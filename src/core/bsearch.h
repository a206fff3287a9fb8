/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_BSEARCH_H
#define PMUK_CORE_BSEARCH_H

/* The one binary search of address tables (maps, symbols, JIT entries, function
 * ranges): tables sorted by a uint64_t start field. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How many of the n entries (stride bytes apart from base) have their key, the
 * uint64_t at byte key_off of each, <= v: the index just past the last entry that
 * starts at or below v (0: none does). The entry that may hold v is the one before. */
static inline size_t pmuk_bsearch_upper(const void *base, size_t n, size_t stride, size_t key_off,
					uint64_t v)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t key;

		memcpy(&key, b + mid * stride + key_off, sizeof(key));
		if (key <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* pmuk_bsearch_upper over an array of structs by one of their 8-byte unsigned
 * fields (a field of another size does not compile). */
#define PMUK_BSEARCH_UPPER(arr, n, field, v) \
	((void)sizeof(char[sizeof((arr)->field) == 8 ? 1 : -1]), \
	 pmuk_bsearch_upper((arr), (n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), (v)))

#endif
