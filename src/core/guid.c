/* SPDX-License-Identifier: MIT */
/* The GUID formatter and parser of <pmukit/guid.h>. */
#include "core/guid.h"
#include "core/error.h"

#include <stdio.h>
#include <string.h>

int pmu_guid_format(const struct pmu_guid *g, char *buf, size_t size)
{
	if (!g || !buf)
		return pmuk_fail(PMU_EINVAL, "pmu_guid_format needs a GUID and a buffer");
	if (size < PMU_GUID_STRLEN)
		return pmuk_fail(PMU_ERANGE, "a GUID string needs %d bytes, %zu given",
				 PMU_GUID_STRLEN, size);
	snprintf(buf, size, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", g->d1, g->d2, g->d3,
		 g->d4[0], g->d4[1], g->d4[2], g->d4[3], g->d4[4], g->d4[5], g->d4[6], g->d4[7]);
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int pmu_guid_parse(const char *s, struct pmu_guid *g)
{
	uint8_t b[16];
	int n = 0, brace = 0;

	if (!s || !g)
		return pmuk_fail(PMU_EINVAL, "pmu_guid_parse needs a string and a result");
	if (*s == '{') {
		brace = 1;
		s++;
	}
	for (int i = 0; n < 16; i++) {
		if ((i == 8 || i == 13 || i == 18 || i == 23) && *s == '-') {
			s++;
			continue;
		}
		int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);
		if (hi < 0 || lo < 0)
			return pmuk_fail(PMU_EPARSE, "'%s' is not a GUID (expected "
					 "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", s);
		b[n++] = (uint8_t)(hi << 4 | lo);
		s += 2;
		i++;
	}
	if (brace && *s == '}')
		s++;
	if (*s)
		return pmuk_fail(PMU_EPARSE, "trailing characters '%s' after a GUID", s);
	/* the text form is big-endian in its first three fields */
	g->d1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	g->d2 = (uint16_t)(b[4] << 8 | b[5]);
	g->d3 = (uint16_t)(b[6] << 8 | b[7]);
	memcpy(g->d4, b + 8, 8);
	return 0;
}
