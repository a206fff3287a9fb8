/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_GROW_H
#define PMUK_CORE_GROW_H

#include <stddef.h>

/* The one growable-array step: makes *v (of *cap elements of size bytes) hold at
 * least need elements, doubling so that appends stay amortised O(1). The new
 * elements are zeroed. Returns 0, or PMU_ENOMEM with *v and *cap untouched when
 * realloc fails or need * size does not fit a size_t; it records no detail, the
 * caller says what it was building. Inline where there is room already: most
 * calls (one per appended element) are that. */
int pmuk_grow_slow(void **v, size_t *cap, size_t need, size_t size);

static inline int pmuk_grow(void **v, size_t *cap, size_t need, size_t size)
{
	return need <= *cap ? 0 : pmuk_grow_slow(v, cap, need, size);
}

/* The same step with the new elements left uninitialised, for arrays whose
 * caller writes every element whole before it reads it: zeroing the unused
 * half of a doubled array touches (faults in) memory nothing else would. */
int pmuk_grow_raw_slow(void **v, size_t *cap, size_t need, size_t size);

static inline int pmuk_grow_raw(void **v, size_t *cap, size_t need, size_t size)
{
	return need <= *cap ? 0 : pmuk_grow_raw_slow(v, cap, need, size);
}

#endif
