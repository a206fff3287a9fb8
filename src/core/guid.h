/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_GUID_H
#define PMUK_CORE_GUID_H

#include "core/le.h"

#include <pmukit/guid.h>
#include <string.h>

/* A GUID from / to its 16 bytes as files store it (d1..d3 little-endian). */
static inline void pmuk_guid_load(struct pmu_guid *g, const uint8_t *p)
{
	g->d1 = pmuk_le32(p);
	g->d2 = pmuk_le16(p + 4);
	g->d3 = pmuk_le16(p + 6);
	memcpy(g->d4, p + 8, 8);
}

static inline void pmuk_guid_store(uint8_t *p, const struct pmu_guid *g)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(g->d1 >> (8 * i));
	p[4] = (uint8_t)g->d2, p[5] = (uint8_t)(g->d2 >> 8);
	p[6] = (uint8_t)g->d3, p[7] = (uint8_t)(g->d3 >> 8);
	memcpy(p + 8, g->d4, 8);
}

#endif
