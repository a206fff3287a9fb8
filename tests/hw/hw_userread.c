/* SPDX-License-Identifier: MIT */
/* The user-space read path (src/linux/userread.c: rdpmc / mrs under the mmap page's
 * seqlock) against read(): taken when the kernel allows it, exact, and replaced by
 * read() when user access is off (arm64: /proc/sys/kernel/perf_user_access=0). */
#include "hwtest.h"
#include "linux/counters.h"
#include "linux/userread.h"

#include <stdio.h>
#include <string.h>

#define USER_ACCESS "/proc/sys/kernel/perf_user_access"

static const struct pmu_target self = { .kind = PMU_TARGET_SELF };

struct uread_pair {
	uint64_t user, sys;   /* one pmu_counters_read through each path */
};

static int read_with(struct pmu_counters *c, const struct pmuk_uread_ops *ops, uint64_t *v)
{
	struct pmu_reading r;
	int err;

	pmuk_counters_set_uread_ops(c, ops);
	err = pmu_counters_read(c, &r, 1);
	*v = r.value;
	return err;
}

/* Both paths back to back, twice around a loop: the counts must be consistent to the
 * instruction (the only difference is the code between the two reads). */
static int sample_pairs(struct pmu_counters *c, struct uread_pair *p, int n, uint64_t iters)
{
	const struct pmuk_uread_ops *nat = pmuk_uread_native();
	int err = 0;

	for (int i = 0; i < n && !err; i++) {
		if ((err = read_with(c, nat, &p[i].user)) == 0)
			err = read_with(c, NULL, &p[i].sys);
		known_loop(iters);
	}
	pmuk_counters_set_uread_ops(c, nat);
	return err;
}

static void test_user_path(void)
{
	const char *name = "userread_exact";
	const struct pmuk_uread_ops *nat = pmuk_uread_native();
	const struct perf_event_mmap_page *pg;
	uint64_t cnt, ena, run;
	struct uread_pair p[3];
	struct pmu_counters *c;
	int err, ur, old = hw_sysctl_read(USER_ACCESS);

	if (!nat)
		return (void)hw_skip(name, "no user-space counter read on this architecture");
	if (old == 0 && hw_sysctl_write(USER_ACCESS, "1") < 0)
		return (void)hw_skip(name, "perf_user_access is 0 and cannot be changed here");
	if ((err = hw_counters("instructions:u", &self, NULL, &c))) {
		hw_fail(name, "opening instructions:u: %s: %s", pmu_strerror(err), pmu_error_detail());
		goto restore;
	}
	pg = c->page[0];
	if (!pg) {
		hw_fail(name, "pmu_counters_open mapped no user-read page for instructions:u");
		goto out;
	}
	known_loop(1000);
	ur = pmuk_uread(pg, nat, &cnt, &ena, &run);
	hw_note("userread: page index=%u cap_user_rdpmc=%d cap_user_time=%d pmc_width=%u "
		"pmuk_uread=%s", pg->index, (int)pg->cap_user_rdpmc, (int)pg->cap_user_time,
		pg->pmc_width, ur == PMUK_UREAD_OK ? "ok" : "fallback");
	if (ur != PMUK_UREAD_OK) {
		hw_fail(name, "the user-space read is not taken (index %u, cap_user_rdpmc %d, "
			"cap_user_time %d)%s", pg->index, (int)pg->cap_user_rdpmc,
			(int)pg->cap_user_time,
#if defined(__aarch64__)
			pg->index == 0 ? ": on arm64 the event needs config1 bit 1 (the rdpmc "
					 "format term) for the kernel to allow EL0 reads" :
#endif
			"");
		goto out;
	}
	if ((err = sample_pairs(c, p, 3, 100000))) {
		hw_fail(name, "%s: %s", pmu_strerror(err), pmu_error_detail());
		goto out;
	}
	hw_note("userread: user/read() %llu/%llu, %llu/%llu, %llu/%llu",
		(unsigned long long)p[0].user, (unsigned long long)p[0].sys,
		(unsigned long long)p[1].user, (unsigned long long)p[1].sys,
		(unsigned long long)p[2].user, (unsigned long long)p[2].sys);
	for (int i = 0; i < 3; i++) {
		uint64_t gap = p[i].sys - p[i].user;

		/* read() sees what the user read saw plus the code in between, never less. */
		if (p[i].sys < p[i].user || gap > 5000) {
			hw_fail(name, "read() says %llu right after the user-space read said %llu",
				(unsigned long long)p[i].sys, (unsigned long long)p[i].user);
			goto out;
		}
		if (i && hw.exact && gap != p[0].sys - p[0].user) {
			hw_fail(name, "the gap between the user-space read and read() is %llu, then "
				"%llu: one of them is not exact", (unsigned long long)(p[0].sys - p[0].user),
				(unsigned long long)gap);
			goto out;
		}
		if (i && !hw_near(p[i].user - p[i - 1].user, p[1].user - p[0].user, 1e-3, 200)) {
			hw_fail(name, "user-space deltas over the same loop differ: %llu vs %llu",
				(unsigned long long)(p[i].user - p[i - 1].user),
				(unsigned long long)(p[1].user - p[0].user));
			goto out;
		}
	}
	if (!hw_near(p[1].user - p[0].user, p[1].sys - p[0].sys, 1e-3, 200) ||
	    p[1].user - p[0].user < 200000) {
		hw_fail(name, "over 100000 iterations the user-space read counted %llu, read() %llu",
			(unsigned long long)(p[1].user - p[0].user),
			(unsigned long long)(p[1].sys - p[0].sys));
		goto out;
	}
	hw_ok(name);
out:
	pmu_counters_close(c);
restore:
	if (old == 0)
		hw_sysctl_write(USER_ACCESS, "0");
}

/* perf_user_access=0: the page offers no counter index, the library falls back to
 * read() and still counts right. */
static void test_fallback(void)
{
	const char *name = "userread_fallback";
	const struct pmuk_uread_ops *nat = pmuk_uread_native();
	const struct perf_event_mmap_page *pg;
	uint64_t cnt, ena, run;
	struct uread_pair p[2];
	struct pmu_counters *c;
	int err, old = hw_sysctl_read(USER_ACCESS);
	char v[16];

	if (!nat)
		return (void)hw_skip(name, "no user-space counter read on this architecture");
	if (old < 0 || hw_sysctl_write(USER_ACCESS, "0") < 0)
		return (void)hw_skip(name, "%s is absent or read-only (arm64 only, needs root)",
				     USER_ACCESS);
	err = hw_counters("instructions:u", &self, NULL, &c);
	if (err) {
		hw_fail(name, "opening instructions:u: %s: %s", pmu_strerror(err), pmu_error_detail());
		goto restore;
	}
	pg = c->page[0];
	known_loop(1000);
	if (pg && pmuk_uread(pg, nat, &cnt, &ena, &run) != PMUK_UREAD_FALLBACK) {
		hw_fail(name, "perf_user_access=0 but the user-space read was taken (index %u)",
			pg->index);
		goto out;
	}
	if ((err = sample_pairs(c, p, 2, 1000000))) {
		hw_fail(name, "%s: %s", pmu_strerror(err), pmu_error_detail());
		goto out;
	}
	/* Both reads are read() now: the same code between them, the same deltas. */
	if (p[1].user - p[0].user != p[1].sys - p[0].sys ||
	    p[1].user - p[0].user < 2000000 || p[1].user - p[0].user > 2005000) {
		hw_fail(name, "falling back to read(): 1000000 iterations counted %llu (read() %llu)",
			(unsigned long long)(p[1].user - p[0].user),
			(unsigned long long)(p[1].sys - p[0].sys));
		goto out;
	}
	hw_ok(name);
out:
	pmu_counters_close(c);
restore:
	snprintf(v, sizeof(v), "%d", old);
	hw_sysctl_write(USER_ACCESS, v);
}

void hw_test_userread(void)
{
	test_user_path();
	test_fallback();
}
