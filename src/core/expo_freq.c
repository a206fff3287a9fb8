/* SPDX-License-Identifier: MIT */
/* The cpufreq collector. Linux: scaling_cur_freq and the cpufreq limits.
 * Windows: PDH Processor Frequency is the nominal clock; the backend (pdh_win.c,
 * pmuk_pdh_current_mhz) makes freq_mhz the current one, nominal x % Processor
 * Performance / 100 (pdh-math.md). Parking
 * status where the OS says (Windows). */
#include "core/exporter_int.h"

#include <stdio.h>

/* in the order the families are made */
enum { F_CUR, F_MHZ, F_HW_MIN, F_HW_MAX, F_SC_MIN, F_SC_MAX, F_PARKED, F_N };

struct fam_name {
	const char *name, *help, *unit;
};

static const struct fam_name native[F_N] = {
	[F_CUR] = { "pmukit_cpu_frequency_hertz", "Current frequency of the CPU (Linux: "
	  "scaling_cur_freq; Windows: nominal x % Processor Performance).", "hertz" },
	[F_HW_MIN] = { "pmukit_cpu_frequency_min_hertz", "Lowest frequency the hardware allows.", "hertz" },
	[F_HW_MAX] = { "pmukit_cpu_frequency_max_hertz", "Highest frequency the hardware allows.", "hertz" },
	[F_SC_MIN] = { "pmukit_cpu_scaling_frequency_min_hertz", "Lowest frequency the governor may pick.", "hertz" },
	[F_SC_MAX] = { "pmukit_cpu_scaling_frequency_max_hertz", "Highest frequency the governor may pick.", "hertz" },
	[F_PARKED] = { "pmukit_cpu_parked", "1 when the OS parked the CPU (Windows core parking).", NULL },
};

/* The compat tables name only what differs: an entry left out is native's. */
static const struct fam_name node[F_N] = {
	[F_CUR] = { "node_cpu_scaling_frequency_hertz", "Current scaled CPU thread frequency in hertz.", "hertz" },
	[F_HW_MIN] = { "node_cpu_frequency_min_hertz", "Minimum CPU thread frequency in hertz.", "hertz" },
	[F_HW_MAX] = { "node_cpu_frequency_max_hertz", "Maximum CPU thread frequency in hertz.", "hertz" },
	[F_SC_MIN] = { "node_cpu_scaling_frequency_min_hertz", "Minimum scaled CPU thread frequency in hertz.", "hertz" },
	[F_SC_MAX] = { "node_cpu_scaling_frequency_max_hertz", "Maximum scaled CPU thread frequency in hertz.", "hertz" },
};

static const struct fam_name windows[F_N] = {
	[F_CUR] = { "pmukit_cpu_frequency_hertz", "Current frequency of the CPU: nominal x "
	  "% Processor Performance / 100.", "hertz" },
	[F_PARKED] = { "windows_cpu_parking_status", "Parking Status represents whether a processor "
	  "is parked or not", NULL },
	[F_MHZ] = { "windows_cpu_core_frequency_mhz", "Core frequency in megahertz", NULL },
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
		double cur = c.freq_mhz * 1e6;  /* current on both OSes (pdh_win.c) */
		/* windows_exporter's core_frequency_mhz is the nominal Processor Frequency */
		double mhz = c.perf_percent > 0 ? c.freq_mhz * 100 / c.perf_percent : c.freq_mhz;
		pmuk_expo_freq_limits(e->os, c.cpu, hw, sc);

		const struct { int have; double v; } s[F_N] = {
			[F_CUR] = { c.freq_mhz > 0, cur }, [F_MHZ] = { c.freq_mhz > 0, mhz },
			[F_HW_MIN] = { hw[0] > 0, hw[0] }, [F_HW_MAX] = { hw[1] > 0, hw[1] },
			[F_SC_MIN] = { sc[0] > 0, sc[0] }, [F_SC_MAX] = { sc[1] > 0, sc[1] },
			[F_PARKED] = { c.parked >= 0, c.parked },
		};

		for (int k = 0; !err && k < F_N; k++)
			if (s[k].have)
				err = put(e, names[k].name ? &names[k] : &native[k], &f[k], l,
					  s[k].v);
	}
	return err ? err : pmuk_expo_collect_cpufreq_os(e);
}
