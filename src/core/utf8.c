/* SPDX-License-Identifier: MIT */
/* UTF-16LE and code points to UTF-8: .etl strings and ETW buffers; strict
 * conversions both ways for the command line and file names on Windows. */
#include "core/utf8.h"
#include "core/error.h"
#include "core/le.h"

#include <stdio.h>
#include <stdlib.h>
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

/* The code point at w[*i] (a surrogate pair taken whole); -1 for a lone surrogate. */
static int32_t utf16_next(const uint16_t *w, size_t *i)
{
	uint32_t c = w[(*i)++];

	if (c >= 0xDC00 && c < 0xE000)
		return -1;
	if (c >= 0xD800 && c < 0xDC00) {
		if (w[*i] < 0xDC00 || w[*i] >= 0xE000)
			return -1;
		c = 0x10000 + ((c - 0xD800) << 10) + (w[(*i)++] - 0xDC00);
	}
	return (int32_t)c;
}

int pmuk_utf16_to_utf8_strict(const uint16_t *w, char **out)
{
	size_t n = 0, i = 0, o = 0;
	int full = 0;

	*out = NULL;
	while (w[n])
		n++;
	/* 3 bytes per unit covers every case: a pair (2 units) takes 4. */
	if (!(*out = malloc(3 * n + 1)))
		return pmuk_fail(PMU_ENOMEM, "out of memory converting a UTF-16 string");
	while (i < n) {
		int32_t c = utf16_next(w, &i);

		if (c < 0) {
			free(*out);
			*out = NULL;
			return pmuk_fail(PMU_EINVAL, "a lone UTF-16 surrogate (0x%04x) at unit %zu: "
					 "the text is not valid UTF-16", w[i - 1], i - 1);
		}
		pmuk_utf8_put(*out, 3 * n + 1, &o, (uint32_t)c, &full);
	}
	(*out)[o] = '\0';
	return 0;
}

/* The code point of the UTF-8 sequence at s[*i]; -1 when it is not one (bad lead or
 * continuation byte, overlong form, surrogate, beyond U+10FFFF). */
static int32_t utf8_next(const unsigned char *s, size_t *i)
{
	static const uint32_t min[] = { 0, 0x80, 0x800, 0x10000 };
	uint32_t c = s[(*i)++];
	int more = c < 0x80 ? 0 : c >= 0xC0 && c < 0xE0 ? 1 : c >= 0xE0 && c < 0xF0 ? 2 :
		   c >= 0xF0 && c < 0xF8 ? 3 : -1;

	if (more < 0)
		return -1;
	c &= 0x7F >> more;
	for (int k = 0; k < more; k++) {
		if ((s[*i] & 0xC0) != 0x80)
			return -1;
		c = c << 6 | (s[(*i)++] & 0x3F);
	}
	if (c < min[more] || c > 0x10FFFF || (c >= 0xD800 && c < 0xE000))
		return -1;
	return (int32_t)c;
}

int pmuk_utf8_to_utf16(const char *s, uint16_t **out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;

	/* never more units than bytes */
	if (!(*out = malloc((n + 1) * sizeof(**out))))
		return pmuk_fail(PMU_ENOMEM, "out of memory converting a UTF-8 string");
	while (i < n) {
		size_t at = i;
		int32_t c = utf8_next(u, &i);

		if (c < 0) {
			free(*out);
			*out = NULL;
			return pmuk_fail(PMU_EINVAL, "byte %zu of '%s' (0x%02x) does not start "
					 "valid UTF-8: pass names as UTF-8", at, s, u[at]);
		}
		if (c >= 0x10000) {
			(*out)[o++] = (uint16_t)(0xD800 + ((uint32_t)(c - 0x10000) >> 10));
			(*out)[o++] = (uint16_t)(0xDC00 + ((uint32_t)c & 0x3FF));
		} else {
			(*out)[o++] = (uint16_t)c;
		}
	}
	(*out)[o] = 0;
	return 0;
}

int pmuk_argv_from_utf16(int argc, const uint16_t *const *wargv, char ***out)
{
	char **v = NULL, *p;
	size_t total = 0;
	int err = 0;

	*out = NULL;
	if (argc < 0)
		return pmuk_fail(PMU_EINVAL, "a negative argument count (%d)", argc);
	/* Convert each once to learn the sizes, then lay them out in one block. */
	char **tmp = calloc((size_t)argc + 1, sizeof(*tmp));

	if (!tmp)
		return pmuk_fail(PMU_ENOMEM, "out of memory converting the command line");
	for (int a = 0; a < argc && !err; a++) {
		if ((err = pmuk_utf16_to_utf8_strict(wargv[a], &tmp[a])) == PMU_EINVAL) {
			char why[160];

			snprintf(why, sizeof(why), "%s", pmu_error_detail());
			err = pmuk_fail(PMU_EINVAL, "argument %d of the command line: %s", a, why);
		} else if (!err) {
			total += strlen(tmp[a]) + 1;
		}
	}
	if (!err && !(v = malloc(((size_t)argc + 1) * sizeof(*v) + total)))
		err = pmuk_fail(PMU_ENOMEM, "out of memory converting the command line");
	if (!err) {
		p = (char *)(v + argc + 1);
		for (int a = 0; a < argc; a++) {
			size_t len = strlen(tmp[a]) + 1;

			v[a] = memcpy(p, tmp[a], len);
			p += len;
		}
		v[argc] = NULL;
		*out = v;
	}
	for (int a = 0; a < argc; a++)
		free(tmp[a]);
	free(tmp);
	return err;
}
