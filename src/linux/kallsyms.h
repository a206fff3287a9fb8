/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_KALLSYMS_H
#define PMUK_LINUX_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

/* The head of the kallsyms file at path: the first text symbol's address (0
 * when addresses are hidden) and, when ref is not "", that symbol's (*found).
 * The kernel lists _text among its first lines: only those are read, so
 * /proc/kallsyms is not formatted whole. 0, or PMU_ENOENT when unreadable. */
int pmuk_kallsyms_head(const char *path, const char *ref, uint64_t *first, uint64_t *at,
		       int *found);

/* 1 when the kallsyms file at path has symbol ref at ref_addr (a copy of that
 * boot) and is whole (ends with a newline; a regular file), else 0. */
int pmuk_kallsyms_fits(const char *path, const char *ref, uint64_t ref_addr);

/* perf's build-id cache copy of kernel hexid's kallsyms: DIR/[kernel.kallsyms]/
 * HEXID/kallsyms, DIR being dir or else $HOME/.debug (written by perf record,
 * perf buildid-cache and pmukit record). */
void pmuk_kallsyms_cache_path(const char *dir, const char *hexid, char *out, size_t size);

/* Keeps a copy of the running kernel's /proc/kallsyms there (dir NULL: under
 * $HOME) unless one of this boot is there already (its _text where the running
 * kernel's is), as perf record does: reports read it instead of formatting
 * /proc/kallsyms, and after a reboot (KASLR) it still names the recording's
 * addresses. 0 also when there is nothing to keep (no build-id, addresses
 * hidden); else PMU_EIO/PMU_ENOMEM with the reason. */
int pmuk_kallsyms_keep(const char *dir);

#endif
