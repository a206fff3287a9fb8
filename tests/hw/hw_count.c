/* SPDX-License-Identifier: MIT */
/* Counting through pmu_counters_*: exact counts of the known loop, group reads and
 * their times, multiplexing with more events than counters, the counter budget. */
#include "hwtest.h"

#include <stdio.h>
#include <string.h>

static const struct pmu_target self = { .kind = PMU_TARGET_SELF };

/* Counts n iterations of the known loop with the handle's events (disabled at open). */
static int count_loop(struct pmu_counters *c, uint64_t n, struct pmu_reading *r, size_t nr)
{
	int err;

	if ((err = pmu_counters_reset(c)) || (err = pmu_counters_enable(c)))
		return err;
	known_loop(n);
	if ((err = pmu_counters_disable(c)))
		return err;
	return pmu_counters_read(c, r, nr);
}

/* instructions:u of n iterations is 2n + K, K the fixed cost between the enable and
 * disable ioctls; in the guest (icount shift=0) cycles:u equals instructions:u. */
static void test_exact(void)
{
	static const uint64_t iters[] = { 0, 1000000, 10000000, 1000000, 0 };
	const char *name = "count_exact";
	PMU_OPTS(pmu_counters_opts, o, .start_disabled = 1);
	struct pmu_reading r[2];
	struct pmu_counters *c;
	uint64_t k = 0;
	int err;

	if (!hw_loop_exact)
		return (void)hw_skip(name, "no hand-written known loop for this architecture");
	if ((err = hw_counters("{cycles,instructions}:u", &self, &o, &c)))
		return (void)hw_fail(name, "opening {cycles,instructions}:u: %s: %s",
				     pmu_strerror(err), pmu_error_detail());
	for (size_t i = 0; i < sizeof(iters) / sizeof(iters[0]); i++) {
		uint64_t want;

		if ((err = count_loop(c, iters[i], r, 2))) {
			hw_fail(name, "counting %llu iterations: %s: %s",
				(unsigned long long)iters[i], pmu_strerror(err), pmu_error_detail());
			goto out;
		}
		if (i == 0) {
			k = r[1].value;
			hw_note("count_exact: instructions:u = 2N + %llu, cycles:u(N=0) = %llu",
				(unsigned long long)k, (unsigned long long)r[0].value);
			if (k == 0 || k > 1000) {
				hw_fail(name, "an empty loop counted %llu instructions:u (expected a "
					"small fixed cost, 1..1000)", (unsigned long long)k);
				goto out;
			}
		}
		want = 2 * iters[i] + k;
		/* Exact in the guest (icount); a real core adds a little noise. */
		if (hw.exact ? r[1].value != want : !hw_near(r[1].value, want, 1e-4, 100)) {
			hw_fail(name, "N=%llu: instructions:u = %llu, expected 2N+%llu = %llu",
				(unsigned long long)iters[i], (unsigned long long)r[1].value,
				(unsigned long long)k, (unsigned long long)want);
			goto out;
		}
		if (hw.exact && r[0].value != r[1].value) {
			hw_fail(name, "N=%llu: cycles:u = %llu differs from instructions:u = %llu "
				"(with -icount shift=0 one instruction is one cycle)",
				(unsigned long long)iters[i], (unsigned long long)r[0].value,
				(unsigned long long)r[1].value);
			goto out;
		}
		if (r[0].value == 0 || r[0].flags || r[1].flags) {
			hw_fail(name, "N=%llu: cycles:u = %llu, flags %#x/%#x (expected counting, "
				"not multiplexed)", (unsigned long long)iters[i],
				(unsigned long long)r[0].value, r[0].flags, r[1].flags);
			goto out;
		}
	}
	hw_ok(name);
out:
	pmu_counters_close(c);
}

/* A group is read at once: every member has the same enabled and running times,
 * running == enabled (it fits), and the times grow with the work. */
static void test_group_times(void)
{
	const char *name = "group_times";
	PMU_OPTS(pmu_counters_opts, o, .start_disabled = 1);
	struct pmu_reading a[3], b[3];
	struct pmu_counters *c;
	int err;

	if ((err = hw_counters("{cycles:u,instructions:u,instructions:k}", &self, &o, &c)))
		return (void)hw_fail(name, "opening {cycles:u,instructions:u,instructions:k}: %s: %s",
				     pmu_strerror(err), pmu_error_detail());
	if ((err = count_loop(c, 1000000, a, 3)) || (err = count_loop(c, 10000000, b, 3))) {
		hw_fail(name, "%s: %s", pmu_strerror(err), pmu_error_detail());
		goto out;
	}
	hw_note("group_times: N=1e6 enabled=%llu running=%llu; N=1e7 enabled=%llu running=%llu "
		"cycles:u=%llu instructions:k=%llu", (unsigned long long)a[0].time_enabled,
		(unsigned long long)a[0].time_running, (unsigned long long)b[0].time_enabled,
		(unsigned long long)b[0].time_running, (unsigned long long)b[0].value,
		(unsigned long long)b[2].value);
	for (int i = 1; i < 3; i++)
		if (a[i].time_enabled != a[0].time_enabled || a[i].time_running != a[0].time_running ||
		    b[i].time_enabled != b[0].time_enabled || b[i].time_running != b[0].time_running) {
			hw_fail(name, "member %d has other times than the leader (%llu/%llu vs "
				"%llu/%llu): the group was not read at once", i,
				(unsigned long long)b[i].time_enabled,
				(unsigned long long)b[i].time_running,
				(unsigned long long)b[0].time_enabled,
				(unsigned long long)b[0].time_running);
			goto out;
		}
	if (a[0].time_enabled == 0 || a[0].time_running != a[0].time_enabled ||
	    b[0].time_running != b[0].time_enabled) {
		hw_fail(name, "times enabled/running %llu/%llu and %llu/%llu: expected equal and "
			"non-zero for a group that fits", (unsigned long long)a[0].time_enabled,
			(unsigned long long)a[0].time_running, (unsigned long long)b[0].time_enabled,
			(unsigned long long)b[0].time_running);
		goto out;
	}
	if (b[0].time_enabled <= a[0].time_enabled || b[1].value <= 9 * a[1].value) {
		hw_fail(name, "ten times the work did not take longer (enabled %llu -> %llu ns, "
			"instructions:u %llu -> %llu)", (unsigned long long)a[0].time_enabled,
			(unsigned long long)b[0].time_enabled, (unsigned long long)a[1].value,
			(unsigned long long)b[1].value);
		goto out;
	}
	/* With icount shift=0 the guest clock advances 1 ns per instruction. */
	if (hw.exact && (double)b[0].time_enabled < 0.95 * (double)b[0].value) {
		hw_fail(name, "enabled for %llu ns but counted %llu cycles:u at 1 GHz",
			(unsigned long long)b[0].time_enabled, (unsigned long long)b[0].value);
		goto out;
	}
	if (b[2].value == 0) {
		hw_fail(name, "instructions:k counted nothing across two ioctls");
		goto out;
	}
	hw_ok(name);
out:
	pmu_counters_close(c);
}

/* More single-event groups than counters: the kernel rotates them, every reading says
 * so, and the scaled values estimate the true count within 1%. */
static void test_multiplex(void)
{
	const char *name = "multiplex";
	const uint64_t n = 25000000;
	PMU_OPTS(pmu_counters_opts, o, .start_disabled = 1);
	size_t nev = hw.counters > 0 ? (size_t)hw.counters + 3 : 10, muxed = 0;
	struct pmu_reading r[64], k0[2];
	struct pmu_counters *c;
	char spec[1024];
	uint64_t k = 0;
	int err;

	if (nev < 10)
		nev = 10;
	if (nev > 64)
		nev = 64;
	/* The fixed cost of an empty window, to know the exact count. */
	if ((err = hw_counters("{instructions:u,cycles:u}", &self, &o, &c)) == 0) {
		if (count_loop(c, 0, k0, 2) == 0)
			k = k0[0].value;
		pmu_counters_close(c);
	}
	hw_spec_repeat(spec, sizeof(spec), nev, "instructions:u", "cycles:u", 0);
	if ((err = hw_counters(spec, &self, &o, &c)))
		return (void)hw_fail(name, "opening %zu events: %s: %s", nev, pmu_strerror(err),
				     pmu_error_detail());
	if ((err = count_loop(c, n, r, nev))) {
		hw_fail(name, "%s: %s", pmu_strerror(err), pmu_error_detail());
		goto out;
	}
	for (size_t i = 0; i < nev; i++) {
		int is_insn = i % 2 == 0;
		double want = (double)(2 * n + k), dev = r[i].scaled / want - 1;

		if (r[i].flags & PMU_READING_MULTIPLEXED)
			muxed++;
		if ((r[i].time_running < r[i].time_enabled) != !!(r[i].flags & PMU_READING_MULTIPLEXED)) {
			hw_fail(name, "event %zu: running %llu of %llu ns but flags %#x", i,
				(unsigned long long)r[i].time_running,
				(unsigned long long)r[i].time_enabled, r[i].flags);
			goto out;
		}
		if (r[i].time_running == 0) {
			hw_fail(name, "event %zu never ran in %llu ns (rotation did not reach it)", i,
				(unsigned long long)r[i].time_enabled);
			goto out;
		}
		if ((is_insn || hw.exact) && (dev > 0.01 || dev < -0.01)) {
			hw_fail(name, "event %zu (%s) scaled to %.0f from %llu at %.1f%% running: "
				"%.2f%% off the exact %.0f", i, is_insn ? "instructions:u" : "cycles:u",
				r[i].scaled, (unsigned long long)r[i].value,
				pmu_reading_running_percent(&r[i]), dev * 100, want);
			goto out;
		}
	}
	hw_note("multiplex: %zu events, %zu multiplexed; event 0 %.1f%% running, scaled %.0f "
		"for %llu", nev, muxed, pmu_reading_running_percent(&r[0]), r[0].scaled,
		(unsigned long long)(2 * n + k));
	if (muxed == 0) {
		hw_fail(name, "%zu events and none multiplexed: the PMU has more counters than "
			"this test assumed (%d)", nev, hw.counters);
		goto out;
	}
	hw_ok(name);
out:
	pmu_counters_close(c);
}

/* The smallest group larger than the counters fails at open with PMU_EBUDGET and a
 * sentence saying to split it (the counter count is probed: sysfs does not tell it
 * on every PMU). */
static void test_budget(void)
{
	const char *name = "group_budget";
	struct pmu_reading r[33];
	struct pmu_counters *c;
	char spec[1024];
	const char *why;
	size_t nev;
	int err = 0;

	for (nev = 2; nev <= 33; nev++) {
		hw_spec_repeat(spec, sizeof(spec), nev, "instructions:u", "cycles:u", 1);
		if ((err = hw_counters(spec, &self, NULL, &c)))
			break;
		pmu_counters_close(c);
	}
	if (err == 0)
		return (void)hw_fail(name, "a group of 33 hardware events opened");
	why = pmu_error_detail();
	hw_note("group_budget: a group of %zu fails: %s: %s", nev, pmu_strerror(err), why);
	if (err != PMU_EBUDGET)
		return (void)hw_fail(name, "a group of %zu: expected PMU_EBUDGET, got %s: %s", nev,
				     pmu_strerror(err), why);
	if (hw.counters > 0 && nev != (size_t)hw.counters + 1)
		return (void)hw_fail(name, "a group of %zu failed, but the PMU has %d counters", nev,
				     hw.counters);
	if (!strstr(why, "split"))
		return (void)hw_fail(name, "the reason does not say to split the group: %s", why);
	/* The largest group that opened must really count, or the budget let through a
	 * group that can never be scheduled. */
	hw_spec_repeat(spec, sizeof(spec), nev - 1, "instructions:u", "cycles:u", 1);
	if ((err = hw_counters(spec, &self, NULL, &c)))
		return (void)hw_fail(name, "a group of %zu opened once, then failed: %s", nev - 1,
				     pmu_error_detail());
	hw_note("group_budget: the group of %zu opened as type %u config %#llx, type %u config "
		"%#llx, ...", nev - 1, pmu_counters_event(c, 0)->type,
		(unsigned long long)pmu_counters_event(c, 0)->config, pmu_counters_event(c, 1)->type,
		(unsigned long long)pmu_counters_event(c, 1)->config);
	known_loop(100000);
	err = pmu_counters_read(c, r, nev - 1);
	pmu_counters_close(c);
	if (err)
		return (void)hw_fail(name, "reading the group of %zu: %s", nev - 1,
				     pmu_error_detail());
	if (r[0].time_running == 0 || r[0].value == 0)
		return (void)hw_fail(name, "a group of %zu opened but never counted (running %llu "
				     "of %llu ns): more members than counters passed the budget "
				     "check", nev - 1, (unsigned long long)r[0].time_running,
				     (unsigned long long)r[0].time_enabled);
	hw_ok(name);
}

void hw_test_count(void)
{
	test_exact();
	test_group_times();
	test_multiplex();
	test_budget();
}
