/* SPDX-License-Identifier: MIT */
/* The cpu, cpuidle and cpufreq collectors, from pmu_cpustat (Linux /proc/stat
 * and sysfs, Windows PDH or NtQuerySystemInformation), named natively or as
 * node_exporter / windows_exporter name them. */
#include "core/exporter_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *const win_mode[PMU_CPUTIME_COUNT] = {
	[PMU_CPUTIME_USER] = "user", [PMU_CPUTIME_SYSTEM] = "privileged",
	[PMU_CPUTIME_IDLE] = "idle", [PMU_CPUTIME_IRQ] = "interrupt",
	[PMU_CPUTIME_SOFTIRQ] = "dpc",
};

/* windows_exporter's modes: its privileged time holds interrupt and DPC time
 * (% Privileged Time), user holds nice, idle holds iowait; steal has no name. */
static void windows_times(const struct pmu_cpustat_cpu *c, double t[PMU_CPUTIME_COUNT],
			  uint32_t *has)
{
	const uint64_t *ns = c->ns;

	memset(t, 0, sizeof(double) * PMU_CPUTIME_COUNT);
	t[PMU_CPUTIME_USER] = (double)(ns[PMU_CPUTIME_USER] + ns[PMU_CPUTIME_NICE]) / 1e9;
	t[PMU_CPUTIME_SYSTEM] = (double)(ns[PMU_CPUTIME_SYSTEM] + ns[PMU_CPUTIME_IRQ] +
					 ns[PMU_CPUTIME_SOFTIRQ]) / 1e9;
	t[PMU_CPUTIME_IDLE] = (double)(ns[PMU_CPUTIME_IDLE] + ns[PMU_CPUTIME_IOWAIT]) / 1e9;
	t[PMU_CPUTIME_IRQ] = (double)ns[PMU_CPUTIME_IRQ] / 1e9;
	t[PMU_CPUTIME_SOFTIRQ] = (double)ns[PMU_CPUTIME_SOFTIRQ] / 1e9;
	*has = (1u << PMU_CPUTIME_USER) | (1u << PMU_CPUTIME_SYSTEM) | (1u << PMU_CPUTIME_IDLE) |
	       (1u << PMU_CPUTIME_IRQ) | (1u << PMU_CPUTIME_SOFTIRQ);
}

int pmuk_expo_collect_cpu(struct pmu_exporter *e)
{
	enum pmu_exporter_compat m = e->o.compat;
	int win = m == PMU_EXPORTER_COMPAT_WINDOWS, err;
	struct pmu_mfamily *f;

	err = pmuk_expo_family(e, win ? "windows_cpu_time" : m == PMU_EXPORTER_COMPAT_NODE
			       ? "node_cpu_seconds" : "pmukit_cpu_seconds", PMU_MTYPE_COUNTER,
			       win ? "Time that processor spent in different modes (dpc, idle, "
			       "interrupt, privileged, user)" : "Seconds the CPUs spent in each mode.",
			       win ? NULL : "seconds", &f);
	for (size_t i = 0; !err && i < pmu_cpustat_cpu_count(e->cs); i++) {
		struct pmu_cpustat_cpu c;
		double t[PMU_CPUTIME_COUNT];
		uint32_t has;
		char cpu[24];

		if ((err = pmu_cpustat_read(e->cs, i, &c)))
			break;
		pmuk_expo_cpu_label(e, c.cpu, cpu, sizeof(cpu));
		has = c.has;
		for (int k = 0; k < PMU_CPUTIME_COUNT; k++)
			t[k] = (double)c.ns[k] / 1e9;
		if (win)
			windows_times(&c, t, &has);
		for (int k = 0; k < PMU_CPUTIME_COUNT && !err; k++) {
			const char *l[] = { win ? "core" : "cpu", cpu, "mode",
					    win ? win_mode[k] : pmu_cputime_name(k), NULL };

			if (has & (1u << k))
				err = pmuk_expo_counter(e, f, l, t[k], e->boot);
		}
	}
	return err;
}

int pmuk_expo_collect_cpuidle(struct pmu_exporter *e)
{
	int win = e->o.compat == PMU_EXPORTER_COMPAT_WINDOWS, err;
	struct pmu_mfamily *res, *ent;

	err = pmuk_expo_family(e, win ? "windows_cpu_cstate_seconds" :
			       "pmukit_cpuidle_residency_seconds", PMU_MTYPE_COUNTER,
			       win ? "Time spent in low-power idle state" :
			       "Seconds each CPU spent in each idle state (Linux cpuidle, "
			       "Windows % C1-C3 Time).", win ? NULL : "seconds", &res);
	if (!err)
		err = pmuk_expo_family(e, "pmukit_cpuidle_entries", PMU_MTYPE_COUNTER,
				       "Times each CPU entered each idle state.", NULL, &ent);
	for (size_t i = 0; !err && i < pmu_cpustat_cpu_count(e->cs); i++) {
		struct pmu_cpustat_cpu c;
		char cpu[24];

		if ((err = pmu_cpustat_read(e->cs, i, &c)))
			break;
		pmuk_expo_cpu_label(e, c.cpu, cpu, sizeof(cpu));
		for (size_t k = 0; !err && k < pmu_cpustat_idle_count(e->cs, i); k++) {
			struct pmu_idle_state st;
			char name[32];

			if ((err = pmu_cpustat_idle_read(e->cs, i, k, &st)))
				break;
			snprintf(name, sizeof(name), "%s", st.name);
			for (char *p = name; win && *p; p++)  /* windows_exporter: c1, c2, c3 */
				*p = (char)tolower((unsigned char)*p);
			const char *l[] = { win ? "core" : "cpu", cpu, "state", name, NULL };

			err = pmuk_expo_counter(e, res, l, (double)st.ns / 1e9, e->boot);
			if (!err)
				err = pmuk_expo_counter(e, ent, l, (double)st.entries, e->boot);
		}
	}
	return err;
}
