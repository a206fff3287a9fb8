/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_UTF8_H
#define PMUK_CORE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* UTF-16LE p[0, n bytes) up to its first NUL unit -> UTF-8 in out (outsz bytes,
 * NUL-terminated; outsz 0 only measures). A character that does not fit ends
 * the string (a shorter one after it would make a name that never was); lone
 * surrogates become U+FFFD. Returns the bytes of p consumed, the NUL included,
 * or 0 when p[0, n) holds no NUL. */
size_t pmuk_utf16_to_utf8(const uint8_t *p, size_t n, char *out, size_t outsz);
/* Appends code point c at out + *o by the same rule: once one does not fit,
 * *full is set and nothing more is appended. out is not terminated. */
void pmuk_utf8_put(char *out, size_t outsz, size_t *o, uint32_t c, int *full);

/* Strict conversions for what crosses the Windows API: command-line arguments and
 * file names. Unlike the lenient one above (names inside traces), a lone surrogate
 * or a byte sequence that is not UTF-8 is an error, never a silent U+FFFD or '?'
 * that would name another file. Both allocate *out (free()); 0, PMU_ENOMEM, or
 * PMU_EINVAL with the offending position in pmu_error_detail(). */
int pmuk_utf16_to_utf8_strict(const uint16_t *w, char **out);  /* w NUL-terminated */
int pmuk_utf8_to_utf16(const char *s, uint16_t **out);         /* *out NUL-terminated */

/* argv[0, argc) of UTF-16 strings (CommandLineToArgvW) -> one allocation holding
 * argc + 1 pointers (the last NULL) and the UTF-8 strings; free(*out) frees all.
 * PMU_EINVAL names the argument that is not valid UTF-16. */
int pmuk_argv_from_utf16(int argc, const uint16_t *const *wargv, char ***out);

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
