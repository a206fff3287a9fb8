/* SPDX-License-Identifier: MIT */
/* The cpufreq collector. Linux: scaling_cur_freq and the cpufreq limits.
 * Windows: PDH Processor Frequency is the nominal clock; the actual one is
 * Processor Frequency x % Processor Performance / 100 (pdh-math.md). Parking
 * status where the OS says (Windows). */
#include "core/exporter_int.h"

#include <stdio.h>

enum { F_CUR, F_HW_MIN, F_HW_MAX, F_SC_MIN, F_SC_MAX, F_PARKED, F_MHZ, F_N };

struct fam_name {
	const char *name, *help, *unit;
};

static const struct fam_name native[F_N] = {
	{ "pmukit_cpu_frequency_hertz", "Current frequency of the CPU (Linux: "
	  "scaling_cur_freq; Windows: nominal x % Processor Performance).", "hertz" },
	{ "pmukit_cpu_frequency_min_hertz", "Lowest frequency the hardware allows.", "hertz" },
	{ "pmukit_cpu_frequency_max_hertz", "Highest frequency the hardware allows.", "hertz" },
	{ "pmukit_cpu_scaling_frequency_min_hertz", "Lowest frequency the governor may pick.", "hertz" },
	{ "pmukit_cpu_scaling_frequency_max_hertz", "Highest frequency the governor may pick.", "hertz" },
	{ "pmukit_cpu_parked", "1 when the OS parked the CPU (Windows core parking).", NULL },
	{ NULL, NULL, NULL },
};

static const struct fam_name node[F_N] = {
	{ "node_cpu_scaling_frequency_hertz", "Current scaled CPU thread frequency in hertz.", "hertz" },
	{ "node_cpu_frequency_min_hertz", "Minimum CPU thread frequency in hertz.", "hertz" },
	{ "node_cpu_frequency_max_hertz", "Maximum CPU thread frequency in hertz.", "hertz" },
	{ "node_cpu_scaling_frequency_min_hertz", "Minimum scaled CPU thread frequency in hertz.", "hertz" },
	{ "node_cpu_scaling_frequency_max_hertz", "Maximum scaled CPU thread frequency in hertz.", "hertz" },
	{ "pmukit_cpu_parked", "1 when the OS parked the CPU (Windows core parking).", NULL },
	{ NULL, NULL, NULL },
};

static const struct fam_name windows[F_N] = {
	{ "pmukit_cpu_frequency_hertz", "Current frequency of the CPU: nominal x "
	  "% Processor Performance / 100.", "hertz" },
	{ "pmukit_cpu_frequency_min_hertz", "Lowest frequency the hardware allows.", "hertz" },
	{ "pmukit_cpu_frequency_max_hertz", "Highest frequency the hardware allows.", "hertz" },
	{ "pmukit_cpu_scaling_frequency_min_hertz", "Lowest frequency the governor may pick.", "hertz" },
	{ "pmukit_cpu_scaling_frequency_max_hertz", "Highest frequency the governor may pick.", "hertz" },
	{ "windows_cpu_parking_status", "Parking Status represents whether a processor "
	  "is parked or not", NULL },
	{ "windows_cpu_core_frequency_mhz", "Core frequency in megahertz", NULL },
};

/* One gauge sample, the family made on first use so that an OS without the
 * value shows no family at all. */
static int put(struct pmu_exporter *e, const struct fam_name *n, struct pmu_mfamily **f,
	       const char *const *l, double v)
{
	int err = 0;

	if (!n->name)
		return 0;
	if (!*f)
		err = pmuk_expo_family(e, n->name, PMU_MTYPE_GAUGE, n->help, n->unit, f);
	return err ? err : pmuk_expo_gauge(e, *f, l, v);
}

int pmuk_expo_collect_cpufreq(struct pmu_exporter *e)
{
	const struct fam_name *names = e->o.compat == PMU_EXPORTER_COMPAT_NODE ? node :
		e->o.compat == PMU_EXPORTER_COMPAT_WINDOWS ? windows : native;
	int win = e->o.compat == PMU_EXPORTER_COMPAT_WINDOWS, err = 0;
	struct pmu_mfamily *f[F_N] = { 0 };

	for (size_t i = 0; !err && i < pmu_cpustat_cpu_count(e->cs); i++) {
		struct pmu_cpustat_cpu c;
		double hw[2], sc[2];
		char cpu[24];

		if ((err = pmu_cpustat_read(e->cs, i, &c)))
			break;
		pmuk_expo_cpu_label(e, c.cpu, cpu, sizeof(cpu));
		const char *l[] = { win ? "core" : "cpu", cpu, NULL };
		double cur = c.freq_mhz * 1e6;

		if (c.perf_percent > 0)
			cur *= c.perf_percent / 100;
		pmuk_expo_freq_limits(e->os, c.cpu, hw, sc);
		if (c.freq_mhz > 0)
			err = put(e, &names[F_CUR], &f[F_CUR], l, cur);
		if (!err && c.freq_mhz > 0)
			err = put(e, &names[F_MHZ], &f[F_MHZ], l, c.freq_mhz);
		if (!err && hw[0] > 0)
			err = put(e, &names[F_HW_MIN], &f[F_HW_MIN], l, hw[0]);
		if (!err && hw[1] > 0)
			err = put(e, &names[F_HW_MAX], &f[F_HW_MAX], l, hw[1]);
		if (!err && sc[0] > 0)
			err = put(e, &names[F_SC_MIN], &f[F_SC_MIN], l, sc[0]);
		if (!err && sc[1] > 0)
			err = put(e, &names[F_SC_MAX], &f[F_SC_MAX], l, sc[1]);
		if (!err && c.parked >= 0)
			err = put(e, &names[F_PARKED], &f[F_PARKED], l, c.parked);
	}
	return err ? err : pmuk_expo_collect_cpufreq_os(e);
}
