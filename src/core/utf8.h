/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_UTF8_H
#define PMUK_CORE_UTF8_H

#include <stddef.h>

/* The length of s[0, n) without the UTF-8 sequence n cuts short, if any: a name
 * cut to a buffer's size must not end in part of a character. Bytes that are
 * not UTF-8 are left as they are. */
static inline size_t pmuk_utf8_whole(const char *s, size_t n)
{
	size_t i = n, tail = 0, need;
	unsigned char lead;

	while (i > 0 && tail < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
		i--, tail++;
	if (i == 0)
		return n;
	lead = (unsigned char)s[i - 1];
	need = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
	return tail < need ? i - 1 : n;
}

#endif
