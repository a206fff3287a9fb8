/* SPDX-License-Identifier: MIT */
/* The exporter's Linux collectors: interrupts (/proc/interrupts summed per
 * CPU), contention (the NMI watchdog's counter), and the cpufreq limits, all
 * through the sysroot. The files stay open between scrapes, re-read with
 * pread, and the line buffer and the per-CPU sums are kept. */
#include "core/error.h"
#include "core/exporter_int.h"
#include "core/grow.h"
#include "core/sysroot.h"
#include "linux/expo_holders.h"
#include "linux/kfile.h"

#include <pmukit/error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cpufreq limits of one CPU: kept open (linux/kfile.h); a missing file is
 * looked for again every PROBE_EVERY scrapes, not on each. */
#define PROBE_EVERY 64
enum { HW_MIN, HW_MAX, SC_MIN, SC_MAX, NLIMIT };

struct freq_files {
	int fd[NLIMIT];
	unsigned missing;            /* 1u << limit */
	unsigned calls;
};

struct pmuk_expo_os {
	char *line;                  /* /proc/interrupts' text, kept between scrapes */
	size_t line_cap;
	int irq_fd, nmi_fd;
	int *cpu;                    /* the columns of /proc/interrupts: CPU ids */
	uint64_t *sum;
	size_t ncol, cap, sum_cap;
	struct freq_files *freq;     /* by CPU id */
	size_t nfreq;
	struct pmuk_holders holders;
};

int pmuk_expo_os_open(struct pmuk_expo_os **out)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening the exporter");
	(*out)->irq_fd = (*out)->nmi_fd = -1;
	return 0;
}

void pmuk_expo_os_close(struct pmuk_expo_os *os)
{
	if (!os)
		return;
	pmuk_kfile_close(&os->irq_fd);
	pmuk_kfile_close(&os->nmi_fd);
	for (size_t i = 0; i < os->nfreq; i++)
		for (int k = 0; k < NLIMIT; k++)
			pmuk_kfile_close(&os->freq[i].fd[k]);
	free(os->freq);
	free(os->line);
	free(os->cpu);
	free(os->sum);
	free(os);
}

/* /proc/stat "btime": the boot time in epoch seconds. */
double pmuk_expo_boot_time(struct pmuk_expo_os *os)
{
	unsigned long long bt = 0;
	char path[512];
	const char *p;
	int fd = -1;
	long n;

	if (pmuk_path(path, sizeof(path), "/proc/stat")) {
		pmuk_clear_detail();
		return 0;
	}
	n = pmuk_kfile_all(&fd, &os->line, &os->line_cap, path);
	pmuk_kfile_close(&fd);
	if (n > 0 && (p = strstr(os->line, "\nbtime ")))
		sscanf(p + 1, "btime %llu", &bt);
	return (double)bt;
}

static struct freq_files *freq_files(struct pmuk_expo_os *os, int cpu)
{
	size_t was = os->nfreq;

	if (cpu < 0 || pmuk_grow((void **)&os->freq, &os->nfreq, (size_t)cpu + 1,
				 sizeof(*os->freq)))
		return NULL;
	for (size_t i = was; i < os->nfreq; i++)
		for (int k = 0; k < NLIMIT; k++)
			os->freq[i].fd[k] = -1;
	return &os->freq[cpu];
}

void pmuk_expo_freq_limits(struct pmuk_expo_os *os, int cpu, double hw[2], double scaling[2])
{
	static const char *const name[NLIMIT] = {
		"cpuinfo_min_freq", "cpuinfo_max_freq", "scaling_min_freq", "scaling_max_freq",
	};
	struct freq_files *f = freq_files(os, cpu);
	double v[NLIMIT] = { 0 };
	int probe;

	if (f) {
		probe = f->calls++ % PROBE_EVERY == 0;
		for (int k = 0; k < NLIMIT; k++) {
			uint64_t khz;

			if ((f->missing & (1u << k)) && !probe)
				continue;
			f->missing &= ~(1u << k);
			if (pmuk_kfile_u64(&f->fd[k], &khz, "/sys/devices/system/cpu/cpu%d/"
					   "cpufreq/%s", cpu, name[k]))
				f->missing |= 1u << k;
			else
				v[k] = (double)khz * 1000.0;
		}
	}
	hw[0] = v[HW_MIN];
	hw[1] = v[HW_MAX];
	scaling[0] = v[SC_MIN];
	scaling[1] = v[SC_MAX];
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
	int err;

	if ((err = pmuk_path(path, sizeof(path), "/proc/interrupts")))
		return err;
	if ((err = pmuk_kfile_proc(&os->irq_fd, &os->line, &os->line_cap, path)))
		return err;
	for (char *line = os->line, *nl; !err && *line; line = nl + 1) {
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if (line == os->line)
			err = header(os, line);
		else
			row(os, line);
		if (!nl)
			break;
	}
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

/* Other processes holding perf_event fds: each may keep counters busy, so
 * ours get multiplexed. Scanned every HOLDERS_TTL_S seconds. */
static int holders(struct pmu_exporter *e)
{
	struct pmuk_holders *h = &e->os->holders;
	struct pmu_mfamily *f;
	int err;

	pmuk_holders_update(h);
	if (!h->n)
		return 0;
	if ((err = pmuk_expo_family(e, "pmukit_pmu_perf_event_holder_fds", PMU_MTYPE_GAUGE,
				    "perf_event file descriptors another process holds (its "
				    "counters compete with ours); /proc/PID/fd scanned every "
				    "30 s, the 32 processes with most.", NULL, &f)))
		return err;
	for (size_t i = 0; i < h->n && !err; i++) {
		char pid[16];
		const char *l[] = { "pid", pid, "comm", h->h[i].comm, NULL };

		snprintf(pid, sizeof(pid), "%d", h->h[i].pid);
		err = pmuk_expo_gauge(e, f, l, h->h[i].fds);
	}
	if (!err && h->omitted &&
	    !(err = pmuk_expo_family(e, "pmukit_pmu_perf_event_holders_omitted", PMU_MTYPE_GAUGE,
				     "Processes holding perf_event fds left out of "
				     "pmukit_pmu_perf_event_holder_fds (past the 32 with most).",
				     NULL, &f)))
		err = pmuk_expo_gauge(e, f, NULL, (double)h->omitted);
	return err;
}

/* The NMI watchdog keeps one hardware counter per CPU (cycles) busy for good;
 * other processes' perf_event fds may hold more. */
int pmuk_expo_collect_contention(struct pmu_exporter *e)
{
	struct pmu_mfamily *f;
	uint64_t on;
	int err;

	if (pmuk_kfile_u64(&e->os->nmi_fd, &on, "/proc/sys/kernel/nmi_watchdog")) {
		pmuk_clear_detail();  /* no watchdog knob: nothing to say about it */
	} else if ((err = pmuk_expo_family(e, "pmukit_pmu_nmi_watchdog", PMU_MTYPE_GAUGE,
					   "1 when the NMI watchdog holds a hardware counter on "
					   "every CPU (/proc/sys/kernel/nmi_watchdog).", NULL, &f)) ||
		   (err = pmuk_expo_gauge(e, f, NULL, on != 0))) {
		return err;
	}
	return holders(e);
}
