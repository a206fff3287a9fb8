/* SPDX-License-Identifier: MIT */
#include "core/num.h"

#include <errno.h>
#include <stdlib.h>

/* strtol's own leading blanks and signs are what this refuses */
static int starts_with_digit(const char *s, int base)
{
	if (!s)
		return 0;
	if (base == 16 && ((*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
		return 1;
	return *s >= '0' && *s <= '9';
}

/* base 0: hex after 0x, else decimal. Not strtol's octal: "010" is ten and "08"
 * eight, as a user writing an opcode or a count means them (and as perf reads
 * event terms). */
static int base_of(const char *digits, int base)
{
	if (base)
		return base;
	return digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
}

int pmuk_parse_u64(const char *s, int base, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!starts_with_digit(s, base))
		return -1;
	errno = 0;
	v = strtoull(s, &end, base_of(s, base));
	if (*end || errno)
		return -1;
	*out = v;
	return 0;
}

int pmuk_parse_long(const char *s, int base, long min, long max, long *out)
{
	const char *digits = s && *s == '-' ? s + 1 : s;
	long v;
	char *end;

	if (!starts_with_digit(digits, base))
		return -1;
	errno = 0;
	v = strtol(s, &end, base_of(digits, base));
	if (*end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
