/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_ERROR_H
#define PMUK_CORE_ERROR_H

#include "core/attr.h"

#include <pmukit/error.h>
#include <stddef.h>

/* Records the sentence behind a failure for pmu_error_detail() and returns err,
 * so a failing path reads: return pmuk_fail(PMU_EPERM, "... because ..."); */
int pmuk_fail(int err, const char *fmt, ...) PMUK_PRINTF(2, 3);
void pmuk_clear_detail(void);
/* pmuk_fail with the reasons why[0..n) joined by "; ", each distinct one once
 * (NULL entries skipped). */
int pmuk_fail_reasons(int err, const char *const *why, size_t n);
void pmuk_log(enum pmu_log_level level, const char *fmt, ...) PMUK_PRINTF(2, 3);

#endif
