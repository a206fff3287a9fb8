/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_SCALE_H
#define PMUK_CORE_SCALE_H

#include <stdint.h>

#include <pmukit/counting.h>

/* Fills r from a raw count and its enabled/running times: scaled, and the
 * MULTIPLEXED / NOT_COUNTED flags. Other flags already in r->flags are kept. */
void pmuk_reading_set(struct pmu_reading *r, uint64_t value, uint64_t enabled, uint64_t running);

/* value * enabled / running without overflowing 64 bits (saturates at UINT64_MAX);
 * 0 when running is 0. */
uint64_t pmuk_scale_u64(uint64_t value, uint64_t enabled, uint64_t running);

#endif
