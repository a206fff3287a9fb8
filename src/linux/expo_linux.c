/* SPDX-License-Identifier: MIT */
/* The exporter's Linux collectors: interrupts (/proc/interrupts summed per
 * CPU), contention (the NMI watchdog's counter), and the cpufreq limits, all
 * through the sysroot. The line buffer and the per-CPU sums are kept between
 * scrapes. */
#include "core/error.h"
#include "core/exporter_int.h"
#include "core/grow.h"
#include "core/sysroot.h"

#include <pmukit/error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pmuk_expo_os {
	char *line;
	size_t line_cap;
	int *cpu;                    /* the columns of /proc/interrupts: CPU ids */
	uint64_t *sum;
	size_t ncol, cap, sum_cap;
};

int pmuk_expo_os_open(struct pmuk_expo_os **out)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening the exporter");
	return 0;
}

void pmuk_expo_os_close(struct pmuk_expo_os *os)
{
	if (!os)
		return;
	free(os->line);
	free(os->cpu);
	free(os->sum);
	free(os);
}

static double khz_file(int cpu, const char *name)
{
	char path[512];
	uint64_t khz;

	if (pmuk_path(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/%s", cpu, name) ||
	    pmuk_read_u64(path, &khz))
		return 0;
	return (double)khz * 1000.0;
}

/* /proc/stat "btime": the boot time in epoch seconds. */
double pmuk_expo_boot_time(struct pmuk_expo_os *os)
{
	unsigned long long bt = 0;
	char path[512];
	FILE *f;

	if (pmuk_path(path, sizeof(path), "/proc/stat") || !(f = pmuk_fopen(path, "r"))) {
		pmuk_clear_detail();
		return 0;
	}
	while (getline(&os->line, &os->line_cap, f) > 0)
		if (sscanf(os->line, "btime %llu", &bt) == 1)
			break;
	fclose(f);
	return (double)bt;
}

void pmuk_expo_freq_limits(struct pmuk_expo_os *os, int cpu, double hw[2], double scaling[2])
{
	(void)os;
	hw[0] = khz_file(cpu, "cpuinfo_min_freq");
	hw[1] = khz_file(cpu, "cpuinfo_max_freq");
	scaling[0] = khz_file(cpu, "scaling_min_freq");
	scaling[1] = khz_file(cpu, "scaling_max_freq");
	pmuk_clear_detail();
}

/* The header "CPU0 CPU3 ..." names the columns (online CPUs only). */
static int header(struct pmuk_expo_os *os, const char *p)
{
	os->ncol = 0;
	while ((p = strstr(p, "CPU"))) {
		char *end;
		long id = strtol(p + 3, &end, 10);

		if (end == p + 3 || id < 0)
			return pmuk_fail(PMU_EFORMAT, "/proc/interrupts: header column \"%.8s\" "
					 "is not CPUn", p);
		if (pmuk_grow((void **)&os->cpu, &os->cap, os->ncol + 1, sizeof(*os->cpu)) ||
		    pmuk_grow((void **)&os->sum, &os->sum_cap, os->ncol + 1, sizeof(*os->sum)))
			return pmuk_fail(PMU_ENOMEM, "out of memory reading /proc/interrupts");
		os->cpu[os->ncol] = (int)id;
		os->sum[os->ncol++] = 0;
		p = end;
	}
	return 0;
}

/* "  9:  12  0  IO-APIC ..." : adds the leading numbers to the columns. Lines
 * such as "ERR: 0" have fewer numbers than columns; they add to the first. */
static void row(struct pmuk_expo_os *os, const char *p)
{
	if (!(p = strchr(p, ':')))
		return;
	p++;
	for (size_t k = 0; k < os->ncol; k++) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p)
			break;
		os->sum[k] += v;
		p = end;
	}
}

static int read_interrupts(struct pmuk_expo_os *os)
{
	char path[512];
	int err, first = 1;
	FILE *f;

	if ((err = pmuk_path(path, sizeof(path), "/proc/interrupts")))
		return err;
	if (!(f = pmuk_fopen(path, "r"))) {
		char why[600];

		return pmuk_fail(PMU_ENOENT, "cannot read %s: %s", path,
				 pmuk_sysroot_why(why, sizeof(why), "proc"));
	}
	while (!err && getline(&os->line, &os->line_cap, f) > 0) {
		if (first)
			err = header(os, os->line);
		else
			row(os, os->line);
		first = 0;
	}
	fclose(f);
	return err;
}

int pmuk_expo_collect_interrupts(struct pmu_exporter *e)
{
	int win = e->o.compat == PMU_EXPORTER_COMPAT_WINDOWS, err;
	struct pmuk_expo_os *os = e->os;
	struct pmu_mfamily *f;

	if ((err = read_interrupts(os)))
		return err;
	err = pmuk_expo_family(e, win ? "windows_cpu_interrupts" : "pmukit_cpu_interrupts",
			       PMU_MTYPE_COUNTER, win ? "Total number of received and serviced "
			       "hardware interrupts" : "Interrupts each CPU serviced "
			       "(/proc/interrupts, every source summed).", NULL, &f);
	for (size_t k = 0; k < os->ncol && !err; k++) {
		char cpu[24];

		pmuk_expo_cpu_label(e, os->cpu[k], cpu, sizeof(cpu));
		const char *l[] = { win ? "core" : "cpu", cpu, NULL };

		err = pmuk_expo_counter(e, f, l, (double)os->sum[k], e->boot);
	}
	return err;
}

int pmuk_expo_collect_cpufreq_os(struct pmu_exporter *e)
{
	(void)e;
	return 0;  /* Linux has it all in cpufreq sysfs */
}

/* The NMI watchdog keeps one hardware counter per CPU (cycles) busy for good.
 * Other perf_event holders are not listed: finding them means walking every
 * process's fds, too dear per scrape. */
int pmuk_expo_collect_contention(struct pmu_exporter *e)
{
	struct pmu_mfamily *f;
	char path[512];
	int on, err;

	if (pmuk_path(path, sizeof(path), "/proc/sys/kernel/nmi_watchdog") ||
	    pmuk_read_int(path, &on)) {
		pmuk_clear_detail();
		return 0;  /* no watchdog knob: nothing to say */
	}
	if ((err = pmuk_expo_family(e, "pmukit_pmu_nmi_watchdog", PMU_MTYPE_GAUGE,
				    "1 when the NMI watchdog holds a hardware counter on every "
				    "CPU (/proc/sys/kernel/nmi_watchdog).", NULL, &f)))
		return err;
	return pmuk_expo_gauge(e, f, NULL, on != 0);
}
