/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_KFILE_H
#define PMUK_LINUX_KFILE_H

/* sysfs and procfs files kept open between reads and re-read with pread: a
 * path lookup and open per value per scrape is what dominates reading a few
 * thousand counters. A kept fd whose file went away (sysfs answers ENODEV once
 * its node is removed: a CPU offline, a cpuidle driver change) is reopened from
 * the path, so values are never stale. */

#include "core/attr.h"

#include <stddef.h>
#include <stdint.h>

/* Reads the file from its start into buf (NUL-terminated, trailing newline and
 * blanks removed). *fd is the kept descriptor (-1: none yet); the path
 * (sysroot-prefixed by pmuk_path from fmt) is only formatted when it must be
 * opened, or under a sysroot, where a file replaced by another (mv, sed -i) is
 * noticed and reopened. Out of descriptors (EMFILE), the file is read and
 * closed again.
 * Returns the length or PMU_ENOENT, PMU_EPERM, PMU_EIO, PMU_ERANGE (errors are
 * not recorded with pmuk_fail: a missing file is an answer here). */
int pmuk_kfile_text(int *fd, char *buf, size_t size, const char *fmt, ...) PMUK_PRINTF(4, 5);
/* The same for a decimal number; PMU_EFORMAT when the file holds none. */
int pmuk_kfile_u64(int *fd, uint64_t *v, const char *fmt, ...) PMUK_PRINTF(3, 4);
/* Reads the whole file from its start into *buf (grown as needed with
 * pmuk_grow, NUL-terminated, kept by the caller for the next read); returns
 * the length or a negative PMU_E* code (PMU_ENOMEM). Under a sysroot, a file
 * replaced by another (mv, sed -i) is noticed and reopened, as by
 * pmuk_kfile_text. */
long pmuk_kfile_all(int *fd, char **buf, size_t *cap, const char *path);
/* pmuk_kfile_all for a /proc file that must be there: 0, or the error
 * recorded with pmuk_fail (out of memory, or cannot read path and why, naming
 * PMUKIT_SYSROOT when set). */
int pmuk_kfile_proc(int *fd, char **buf, size_t *cap, const char *path);
/* Closes a kept descriptor and sets it to -1 (no-op for -1). */
void pmuk_kfile_close(int *fd);

#endif
