/* SPDX-License-Identifier: MIT */
/* User-space counter reads (rdpmc on x86, PMEVCNTR/PMCCNTR on arm64), following the
 * seqlock protocol documented with struct perf_event_mmap_page. Only valid for
 * events counting the calling thread. */
#include "linux/userread.h"

#include <stddef.h>

#define barrier() __asm__ __volatile__("" ::: "memory")

/* perf_event_mmap_page.capabilities bits */
#define CAP_USER_RDPMC      (1ull << 2)
#define CAP_USER_TIME       (1ull << 3)
#define CAP_USER_TIME_SHORT (1ull << 5)

#if defined(__x86_64__) || defined(__i386__)
static uint64_t native_counter(uint32_t counter, void *ctx)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return lo | (uint64_t)hi << 32;
}

static uint64_t native_clock(void *ctx)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | (uint64_t)hi << 32;
}
#define HAVE_NATIVE 1
#elif defined(__aarch64__)
/* mrs takes the register name as an immediate: one case per counter. */
#define EVCNT(n)                                                                   \
	case n:                                                                    \
		__asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v));       \
		break;

static uint64_t native_counter(uint32_t counter, void *ctx)
{
	uint64_t v = 0;

	(void)ctx;
	switch (counter) {
	EVCNT(0) EVCNT(1) EVCNT(2) EVCNT(3) EVCNT(4) EVCNT(5) EVCNT(6) EVCNT(7)
	EVCNT(8) EVCNT(9) EVCNT(10) EVCNT(11) EVCNT(12) EVCNT(13) EVCNT(14) EVCNT(15)
	EVCNT(16) EVCNT(17) EVCNT(18) EVCNT(19) EVCNT(20) EVCNT(21) EVCNT(22) EVCNT(23)
	EVCNT(24) EVCNT(25) EVCNT(26) EVCNT(27) EVCNT(28) EVCNT(29) EVCNT(30)
	case 31: /* the kernel reports the cycle counter as index 32 */
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	default:
		break;
	}
	return v;
}

static uint64_t native_clock(void *ctx)
{
	uint64_t v;

	(void)ctx;
	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}
#define HAVE_NATIVE 1
#endif

#ifdef HAVE_NATIVE
static const struct pmuk_uread_ops native_ops = { native_counter, native_clock, NULL };
#endif

const struct pmuk_uread_ops *pmuk_uread_native(void)
{
#ifdef HAVE_NATIVE
	return &native_ops;
#else
	return NULL;
#endif
}

uint64_t pmuk_uread_sext(uint64_t pmc, unsigned width)
{
	unsigned s;

	if (width == 0 || width >= 64)
		return pmc;
	s = 64 - width;
	/* Shift as unsigned, then an arithmetic right shift of the two's complement. */
	return (uint64_t)((int64_t)(pmc << s) >> s);
}

uint64_t pmuk_uread_delta(uint64_t cyc, uint64_t time_offset, uint32_t time_mult,
			  uint16_t time_shift)
{
	uint64_t quot, rem;

	if (time_shift >= 64)
		return time_offset;
	quot = cyc >> time_shift;
	rem = cyc & (((uint64_t)1 << time_shift) - 1);
	return time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);
}

/* The leader's count and times extended to now, read inside the caller's seqlock. */
static int read_leader(const volatile struct perf_event_mmap_page *pc,
		       const struct pmuk_uread_ops *ops, uint64_t *count, uint64_t *enabled,
		       uint64_t *running)
{
	uint64_t caps = pc->capabilities, cyc, delta;
	uint32_t idx = pc->index;

	/* Without user time the page's enabled/running are stale: use read(). */
	if (!(caps & CAP_USER_RDPMC) || idx == 0 || !(caps & CAP_USER_TIME))
		return PMUK_UREAD_FALLBACK;
	cyc = ops->read_clock(ops->ctx);
	if (caps & CAP_USER_TIME_SHORT)
		cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
	delta = pmuk_uread_delta(cyc, pc->time_offset, pc->time_mult, pc->time_shift);
	*count = (uint64_t)pc->offset +
		 pmuk_uread_sext(ops->read_counter(idx - 1, ops->ctx), pc->pmc_width);
	*enabled = pc->time_enabled + delta;
	*running = pc->time_running + delta;
	return PMUK_UREAD_OK;
}

static int ops_usable(const struct pmuk_uread_ops *ops)
{
	return ops && ops->read_counter && ops->read_clock;
}

int pmuk_uread(const struct perf_event_mmap_page *page, const struct pmuk_uread_ops *ops,
	       uint64_t *count, uint64_t *enabled, uint64_t *running)
{
	const volatile struct perf_event_mmap_page *pc = page;
	uint64_t cnt, ena, run;
	uint32_t seq;

	if (!ops_usable(ops))
		return PMUK_UREAD_FALLBACK;
	do {
		seq = pc->lock;
		barrier();
		if (read_leader(pc, ops, &cnt, &ena, &run))
			return PMUK_UREAD_FALLBACK;
		barrier();
	} while (pc->lock != seq);
	*count = cnt;
	*enabled = ena;
	*running = run;
	return PMUK_UREAD_OK;
}

/* A sibling's count alone: its times are the leader's. */
static int uread_count(const struct perf_event_mmap_page *page, const struct pmuk_uread_ops *ops,
		       uint64_t *count)
{
	const volatile struct perf_event_mmap_page *pc = page;
	uint64_t cnt;
	uint32_t seq, idx;

	do {
		seq = pc->lock;
		barrier();
		idx = pc->index;
		if (!(pc->capabilities & CAP_USER_RDPMC) || idx == 0)
			return PMUK_UREAD_FALLBACK;
		cnt = (uint64_t)pc->offset +
		      pmuk_uread_sext(ops->read_counter(idx - 1, ops->ctx), pc->pmc_width);
		barrier();
	} while (pc->lock != seq);
	*count = cnt;
	return PMUK_UREAD_OK;
}

/* Each sibling page has its own seqlock, which keeps that member's count whole (an
 * overflow rewrites that page alone). The leader's lock around the whole pass keeps
 * the group whole: a group is scheduled out and in as a unit, which rewrites every
 * member's page, the leader's too, so an unchanged leader lock means no member
 * moved while the others were read. */
int pmuk_uread_group(void *const *pages, const size_t *members, size_t n,
		     const struct pmuk_uread_ops *ops, uint64_t *counts, uint64_t *enabled,
		     uint64_t *running)
{
	const volatile struct perf_event_mmap_page *lead;
	uint32_t seq;

	if (n == 0 || !ops_usable(ops))
		return PMUK_UREAD_FALLBACK;
	lead = pages[members[0]];
	do {
		seq = lead->lock;
		barrier();
		if (read_leader(lead, ops, &counts[0], enabled, running))
			return PMUK_UREAD_FALLBACK;
		for (size_t i = 1; i < n; i++)
			if (uread_count(pages[members[i]], ops, &counts[i]))
				return PMUK_UREAD_FALLBACK;
		barrier();
	} while (lead->lock != seq);
	return PMUK_UREAD_OK;
}
