/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_CURSOR_H
#define PMUK_CORE_CURSOR_H

/* The one way to walk a byte buffer that may be short (file sections, records,
 * tracing data): every step checks what is left, and a step that does not fit
 * takes nothing. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pmuk_cursor {
	const uint8_t *p;
	size_t left;
};

/* The next n bytes (stepped over), or NULL when fewer are left. */
static inline const uint8_t *pmuk_cursor_span(struct pmuk_cursor *c, size_t n)
{
	const uint8_t *at = c->p;

	if (n > c->left)
		return NULL;
	c->p += n;
	c->left -= n;
	return at;
}

/* Copies the next n bytes into dst (NULL: skips them): 0, or -1 when fewer are left. */
static inline int pmuk_cursor_take(struct pmuk_cursor *c, void *dst, size_t n)
{
	const uint8_t *at = pmuk_cursor_span(c, n);

	if (!at)
		return -1;
	if (dst && n)
		memcpy(dst, at, n);
	return 0;
}

#endif
