/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_SYSROOT_H
#define PMUK_CORE_SYSROOT_H

#include "core/attr.h"
#include "core/file.h"  /* pmuk_fopen */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* All /sys and /proc access goes through these, prefixed by pmu_sysroot(). */

/* Writes sysroot + formatted path into buf; returns 0 or PMU_ERANGE. */
int pmuk_path(char *buf, size_t size, const char *fmt, ...) PMUK_PRINTF(3, 4);
/* Reads a whole small file (NUL-terminated, trailing newline removed).
 * Returns the length, or a negative PMU_E* code (PMU_ENOENT when absent). */
int pmuk_read_text(const char *path, char *buf, size_t size);
int pmuk_read_u64(const char *path, uint64_t *out);
int pmuk_read_int(const char *path, int *out);
int pmuk_exists(const char *path);
/* Why a file under /tree ("sys" or "proc") is missing, as a clause for a message:
 * names PMUKIT_SYSROOT and what is wrong with it when set, else asks for the mount. */
const char *pmuk_sysroot_why(char *buf, size_t n, const char *tree);

#endif
