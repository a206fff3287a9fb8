/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_CAPS_MODEL_H
#define PMUK_CORE_CAPS_MODEL_H

#include "core/attr.h"

#include <pmukit/caps.h>

/* Builders for the capability matrix, used by each OS's probe (src/linux/caps_*.c,
 * later src/windows/). Allocation failures are remembered and reported by
 * pmuk_caps_failed(), so a probe can fill the matrix without checking every call. */

/* A matrix with every concern available and an empty reason. NULL when out of memory. */
struct pmu_caps *pmuk_caps_new(const char *os);
/* Replaces status and reason. */
void pmuk_caps_set(struct pmu_caps *c, enum pmu_concern id, enum pmu_cap_status st,
		   const char *fmt, ...)
	PMUK_PRINTF(4, 5);
/* Appends a limit to the reason ("; "-joined): available becomes limited,
 * unavailable stays unavailable. */
void pmuk_caps_limit(struct pmu_caps *c, enum pmu_concern id, const char *fmt, ...)
	PMUK_PRINTF(3, 4);
/* Appends a remark to the reason, status unchanged (what works, said next to
 * what does not). */
void pmuk_caps_note(struct pmu_caps *c, enum pmu_concern id, const char *fmt, ...)
	PMUK_PRINTF(3, 4);
/* Appends a step to the remedy. */
void pmuk_caps_remedy(struct pmu_caps *c, enum pmu_concern id, const char *fmt, ...)
	PMUK_PRINTF(3, 4);
/* Records a fact; value is formatted. */
void pmuk_caps_fact(struct pmu_caps *c, enum pmu_concern concern, const char *key,
		    const char *explanation,
		    const char *value_fmt, ...) PMUK_PRINTF(5, 6);
void pmuk_caps_host_set(struct pmu_caps *c, const char *kernel, const char *arch, int vm,
			const char *hypervisor);
/* 0, or PMU_ENOMEM when a builder call could not allocate. */
int pmuk_caps_failed(const struct pmu_caps *c);

#endif
