/* SPDX-License-Identifier: MIT */
/* Overflow sampling through pmu_sampler_*: cycles:u every `period` cycles over the
 * known loop delivers count/period samples, each with an IP inside the loop. Cycles,
 * not instructions: in the guest the cycle counter is the one whose overflow QEMU
 * raises on time (see shared/docs/qemu-arm64-pmu.md, pitfall 6). */
#include "hwtest.h"

#include <pmukit/sampling.h>

#include <stdio.h>

struct tally {
	uint64_t samples, in_loop, user, other;
	uint64_t first_ip_out;
};

static int on_record(const struct pmu_record *rec, void *ctx)
{
	struct tally *t = ctx;
	uint64_t lo = (uint64_t)(uintptr_t)known_loop, hi = (uint64_t)(uintptr_t)known_loop_end;

	if (rec->kind != PMU_RECORD_SAMPLE) {
		t->other++;
		return 0;
	}
	t->samples++;
	if (rec->cpumode == PMU_CPUMODE_USER)
		t->user++;
	if ((rec->has & PMU_HAS_IP) && rec->sample.ip >= lo && rec->sample.ip < hi)
		t->in_loop++;
	else if (!t->first_ip_out)
		t->first_ip_out = rec->sample.ip ? rec->sample.ip : 1;
	return 0;
}

static void test_cycles(void)
{
	const char *name = "sample_cycles";
	const uint64_t period = 100000, iters = 5000000;
	static const struct pmu_target self = { .kind = PMU_TARGET_SELF };
	PMU_OPTS(pmu_sampler_opts, o, .period = period, .pages = 64, .exclude_kernel = 1,
		 .start_disabled = 1);
	struct pmu_event_list *list = NULL;
	struct pmu_sampler_stats st;
	struct pmu_sampler *s = NULL;
	struct tally t = { 0 };
	uint64_t want = 2 * iters / period;
	int err;

	if (!hw_loop_exact)
		return (void)hw_skip(name, "no hand-written known loop for this architecture");
	if ((err = pmu_event_parse("cycles:u", &list)) ||
	    (err = pmu_sampler_open(list, &self, &o, &s))) {
		hw_fail(name, "opening a cycles:u sampler: %s: %s", pmu_strerror(err),
			pmu_error_detail());
		goto out;
	}
	if ((err = pmu_sampler_enable(s)))
		goto fail;
	known_loop(iters);
	if ((err = pmu_sampler_disable(s)) || (err = pmu_sampler_read(s, on_record, &t)) ||
	    (err = pmu_sampler_stats(s, &st, sizeof(st))))
		goto fail;
	hw_note("sample_cycles: %llu samples (expected %llu), %llu in the loop, %llu user, "
		"%llu other records, lost %llu, throttles %llu",
		(unsigned long long)t.samples, (unsigned long long)want,
		(unsigned long long)t.in_loop, (unsigned long long)t.user,
		(unsigned long long)t.other, (unsigned long long)st.lost,
		(unsigned long long)st.throttles);
	/* Exact in the guest: 2N+K cycles:u, K small, one sample per full period. */
	if (hw.exact ? t.samples != want
		     : t.samples < want * 8 / 10 || t.samples > want * 12 / 10 + 2) {
		hw_fail(name, "%llu samples for %llu cycles:u at period %llu (expected %llu)",
			(unsigned long long)t.samples, (unsigned long long)(2 * iters),
			(unsigned long long)period, (unsigned long long)want);
		goto out;
	}
	if (hw.exact ? t.in_loop != t.samples : t.in_loop * 10 < t.samples * 9) {
		hw_fail(name, "%llu of %llu sample IPs inside the known loop [%p, %p) (first "
			"outside: %#llx)", (unsigned long long)t.in_loop,
			(unsigned long long)t.samples, (void *)known_loop, (const void *)known_loop_end,
			(unsigned long long)t.first_ip_out);
		goto out;
	}
	if (t.user != t.samples || st.lost || st.lost_samples || st.throttles) {
		hw_fail(name, "%llu of %llu samples in user mode, lost %llu+%llu, throttled %llu "
			"times", (unsigned long long)t.user, (unsigned long long)t.samples,
			(unsigned long long)st.lost, (unsigned long long)st.lost_samples,
			(unsigned long long)st.throttles);
		goto out;
	}
	hw_ok(name);
	goto out;
fail:
	hw_fail(name, "%s: %s", pmu_strerror(err), pmu_error_detail());
out:
	pmu_sampler_close(s);
	pmu_event_list_free(list);
}

void hw_test_sampling(void)
{
	test_cycles();
}
