/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_SCALE_H
#define PMUK_CORE_SCALE_H

#include <stdint.h>

#include <pmukit/counting.h>

/* value * enabled / running as a double, for a multiplexed reading (running > 0). */
double pmuk_scale_multiplexed(uint64_t value, uint64_t enabled, uint64_t running);

/* Fills r from a raw count and its enabled/running times: scaled, and the
 * MULTIPLEXED / NOT_COUNTED flags. Other flags already in r->flags are kept.
 * Inline: it runs once per event on every counter read. */
static inline void pmuk_reading_set(struct pmu_reading *r, uint64_t value, uint64_t enabled,
				    uint64_t running)
{
	r->value = value;
	r->time_enabled = enabled;
	r->time_running = running;
	r->flags &= ~(uint32_t)(PMU_READING_MULTIPLEXED | PMU_READING_NOT_COUNTED);
	if (running >= enabled) {
		r->scaled = (double)value;
	} else if (running == 0) {
		r->flags |= PMU_READING_NOT_COUNTED;
		r->scaled = 0.0;
	} else {
		r->flags |= PMU_READING_MULTIPLEXED;
		r->scaled = pmuk_scale_multiplexed(value, enabled, running);
	}
}

/* value * enabled / running without overflowing 64 bits (saturates at UINT64_MAX);
 * 0 when running is 0. */
uint64_t pmuk_scale_u64(uint64_t value, uint64_t enabled, uint64_t running);

#endif
