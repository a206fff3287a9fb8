/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_USERREAD_H
#define PMUK_LINUX_USERREAD_H

#include <stdint.h>

#include <linux/perf_event.h>

/* Self-monitoring reads from the event's mmap page without a system call.
 * The instructions are reached through this table so tests can replay crafted pages. */
struct pmuk_uread_ops {
	/* The hardware counter numbered `counter` (= pc->index - 1). */
	uint64_t (*read_counter)(uint32_t counter, void *ctx);
	/* The clock behind time_offset/mult/shift (x86 TSC, arm64 CNTVCT). */
	uint64_t (*read_clock)(void *ctx);
	void *ctx;
};

/* The real instructions; NULL when this architecture has no user read. */
const struct pmuk_uread_ops *pmuk_uread_native(void);

enum {
	PMUK_UREAD_OK = 0,
	PMUK_UREAD_FALLBACK = 1, /* no rdpmc capability, not on a counter now, or no user
				  * time: read() instead */
};

/* Reads the count and the enabled/running times extended to now. Returns
 * PMUK_UREAD_OK or PMUK_UREAD_FALLBACK (outputs untouched then). */
int pmuk_uread(const struct perf_event_mmap_page *pc, const struct pmuk_uread_ops *ops,
	       uint64_t *count, uint64_t *enabled, uint64_t *running);

/* Reads a group (pages[members[0]] is the leader's page): every member's count, and
 * the leader's times extended to now, which all members share since a group is
 * scheduled as a unit; one clock read per group. All from one schedule of the group
 * (retried if it moved meanwhile), as a PERF_FORMAT_GROUP read() gives. Returns
 * PMUK_UREAD_FALLBACK when any member cannot be read from user space. */
int pmuk_uread_group(void *const *pages, const size_t *members, size_t n,
		     const struct pmuk_uread_ops *ops, uint64_t *counts, uint64_t *enabled,
		     uint64_t *running);

/* The time extension: ns elapsed since the page was last updated, from a clock value. */
uint64_t pmuk_uread_delta(uint64_t cyc, uint64_t time_offset, uint32_t time_mult,
			  uint16_t time_shift);

/* Sign-extends the low `width` bits of pmc (width 0 or >= 64: unchanged). */
uint64_t pmuk_uread_sext(uint64_t pmc, unsigned width);

#endif
