/* SPDX-License-Identifier: MIT */
/* UTF-16LE and code points to UTF-8: .etl strings and ETW buffers. */
#include "core/utf8.h"
#include "core/le.h"

#include <string.h>

void pmuk_utf8_put(char *out, size_t outsz, size_t *o, uint32_t c, int *full)
{
	char t[4];
	size_t n;

	if (c < 0x80) {
		t[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		t[0] = (char)(0xC0 | c >> 6);
		t[1] = (char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		t[0] = (char)(0xE0 | c >> 12);
		t[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		t[2] = (char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		t[0] = (char)(0xF0 | c >> 18);
		t[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		t[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		t[3] = (char)(0x80 | (c & 0x3F));
		n = 4;
	}
	if (!*full && *o + n < outsz) {	/* never split a character when truncating */
		memcpy(out + *o, t, n);
		*o += n;
	} else {
		*full = 1;
	}
}

size_t pmuk_utf16_to_utf8(const uint8_t *p, size_t n, char *out, size_t outsz)
{
	size_t i = 0, o = 0, used = 0;
	int full = 0;

	while (i + 2 <= n) {
		uint32_t c = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8;
		i += 2;
		if (c - 1 < 0x7F) {	/* ASCII: the common case of paths and names */
			if (!full && o + 1 < outsz)
				out[o++] = (char)c;
			else
				full = 1;
			continue;
		}
		if (!c) {
			used = i;
			break;
		}
		if (c >= 0xD800 && c < 0xDC00 && i + 2 <= n) {
			uint32_t d = pmuk_le16(p + i);
			if (d >= 0xDC00 && d < 0xE000) {
				c = 0x10000 + ((c - 0xD800) << 10) + (d - 0xDC00);
				i += 2;
			} else {
				c = 0xFFFD;
			}
		} else if (c >= 0xD800 && c < 0xE000) {
			c = 0xFFFD;
		}
		if (outsz)
			pmuk_utf8_put(out, outsz, &o, c, &full);
	}
	if (outsz)
		out[o] = '\0';
	return used;
}
