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
/* pmuk_fail for hot paths whose failure is an expected answer (an address in no
 * mapping): the sentence is written by fn(buf, size, args) only when
 * pmu_error_detail() asks for it. args (argsize <= PMUK_DETAIL_ARGS bytes) are
 * copied now. */
#define PMUK_DETAIL_ARGS 64
typedef void (*pmuk_detail_fn)(char *buf, size_t size, const void *args);
int pmuk_fail_later(int err, pmuk_detail_fn fn, const void *args, size_t argsize);
/* pmuk_fail with the reasons why[0..n) joined by "; ", each distinct one once
 * (NULL entries skipped). */
int pmuk_fail_reasons(int err, const char *const *why, size_t n);
void pmuk_log(enum pmu_log_level level, const char *fmt, ...) PMUK_PRINTF(2, 3);

#endif
