/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_NUM_H
#define PMUK_CORE_NUM_H

#include <stdint.h>

/* The one strict number parser: the whole string must be the number, with no
 * leading blanks or signs (strtol takes both), no overflow and, for the signed
 * form, a value in [min, max]. base 0 takes a 0x prefix as hex and anything else as
 * decimal: "010" is ten, not strtoul's octal eight.
 * Each returns 0, or -1 leaving *out untouched. */
int pmuk_parse_long(const char *s, int base, long min, long max, long *out);
int pmuk_parse_u64(const char *s, int base, uint64_t *out);

#endif
