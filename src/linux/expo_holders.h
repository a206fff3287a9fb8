/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_EXPO_HOLDERS_H
#define PMUK_LINUX_EXPO_HOLDERS_H

/* Other processes holding perf_event fds (the contention collector): found by
 * reading every /proc/PID/fd link, which costs one readlink per open fd on the
 * host, so the scan is kept for HOLDERS_TTL_S seconds rather than redone per
 * scrape, and at most HOLDERS_MAX processes (most fds first) are kept. */

#include <stddef.h>

#define HOLDERS_MAX 32
#define HOLDERS_TTL_S 30

struct pmuk_holder {
	int pid;
	unsigned fds;                  /* perf_event fds it holds */
	char comm[16];
};

struct pmuk_holders {
	double at;                     /* monotonic seconds of the last scan; 0 none */
	size_t n;
	size_t omitted;                /* holders past HOLDERS_MAX */
	struct pmuk_holder h[HOLDERS_MAX];
};

/* Rescans when the last scan is older than HOLDERS_TTL_S (or there is none).
 * The exporter's own process is left out. Unreadable processes (gone, or
 * another user's without CAP_SYS_PTRACE) are skipped. */
void pmuk_holders_update(struct pmuk_holders *h);

#endif
