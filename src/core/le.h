/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_LE_H
#define PMUK_CORE_LE_H

#include <stdint.h>

/* The one set of little-endian loads (.etl records, PE images, GLPI and ETW
 * buffers): byte by byte, as their fields are not aligned and the host may be
 * big-endian. */
static inline uint16_t pmuk_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t pmuk_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t pmuk_le64(const uint8_t *p)
{
	return (uint64_t)pmuk_le32(p) | (uint64_t)pmuk_le32(p + 4) << 32;
}

#endif
