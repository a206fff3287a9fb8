/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_OSCOUNTERS_H
#define PMUKIT_OSCOUNTERS_H

/* OS CPU-time counters: where each logical CPU's time went, by the OS's own
 * accounting (no PMU needed). One model on every OS:
 *
 *   Linux    /proc/stat "cpuN" lines (USER_HZ ticks), frequency from
 *            cpufreq scaling_cur_freq when present, idle states from cpuidle
 *            (cpuN/cpuidle/stateK: name, latency, usage, time)
 *   Windows  PDH "\Processor Information(*)" read raw, cooked by counter type, with
 *            frequency, parking, % Processor Performance and the C1-C3 idle states
 *            (% Cn Time, Cn Transitions/sec); where that object is
 *            missing (Wine, stripped hosts) NtQuerySystemInformation(
 *            SystemProcessorPerformanceInformation), times only
 *
 *   struct pmu_cpustat *s;
 *   pmu_cpustat_open(NULL, &s);      first sample
 *   sleep(1);
 *   pmu_cpustat_sample(s);           second sample: the interval ends here
 *   for (i = 0; i < pmu_cpustat_cpu_count(s); i++)
 *       pmu_cpustat_read(s, i, &cpu); cumulative ns and percent of the interval
 *       for (k = 0; k < pmu_cpustat_idle_count(s, i); k++)
 *           pmu_cpustat_idle_read(s, i, k, &st);   its idle states
 *   pmu_cpustat_close(s);
 *
 * Cumulative values never go backwards: a counter that steps back (hotplug, the
 * 1/64 s jitter of Windows timers) keeps its high-water mark. */

#include <pmukit/opts.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds of CPU time. Which ones an OS fills is in pmu_cpustat_cpu.has. */
enum pmu_cputime {
	PMU_CPUTIME_USER,     /* user mode. Linux: user (guest time included); Windows: % User Time */
	PMU_CPUTIME_NICE,     /* Linux: user mode at a positive nice value; Windows: none */
	PMU_CPUTIME_SYSTEM,   /* kernel mode less interrupts: Linux system; Windows
			       * % Privileged Time less % Interrupt and % DPC Time */
	PMU_CPUTIME_IDLE,
	PMU_CPUTIME_IOWAIT,   /* Linux: idle with I/O outstanding; Windows: none */
	PMU_CPUTIME_IRQ,      /* hardware interrupts. Windows: % Interrupt Time */
	PMU_CPUTIME_SOFTIRQ,  /* deferred interrupt work. Linux softirq; Windows % DPC Time */
	PMU_CPUTIME_STEAL,    /* Linux: taken by the hypervisor for other guests */
	PMU_CPUTIME_COUNT
};

/* "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"; NULL
 * out of range. */
const char *pmu_cputime_name(enum pmu_cputime k);

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
struct pmu_cpustat_cpu {
	int cpu;               /* OS logical CPU id (Windows: group * 64 + index); -1: all */
	uint32_t has;          /* bit (1u << enum pmu_cputime) for each kind the OS counts */
	uint64_t ns[PMU_CPUTIME_COUNT];  /* cumulative, since boot */
	/* Share of the last interval (between the last two samples) per kind, in
	 * percent of interval_ns; since boot after the first sample. Sums to 100. */
	double percent[PMU_CPUTIME_COUNT];
	double busy_percent;   /* 100 - idle - iowait */
	uint64_t interval_ns;  /* CPU time the percentages divide (sum of the deltas) */
	double freq_mhz;       /* current frequency; 0 when the OS does not say */
	double perf_percent;   /* Windows % Processor Performance of the interval (work
				* done vs. nominal frequency; can exceed 100); 0 unknown */
	int parked;            /* Windows core parking: 1 parked, 0 not, -1 unknown */
};

struct pmu_cpustat_opts {
	size_t sz;             /* sizeof(struct pmu_cpustat_opts) */
	/* Windows: skip PDH and read NtQuerySystemInformation (times only). */
	int windows_ntqsi;
};
#define pmu_cpustat_opts__last_field windows_ntqsi /* see pmukit/opts.h */

struct pmu_cpustat;

/* Opens the OS source and takes the first sample. opts may be NULL. */
int pmu_cpustat_open(const struct pmu_cpustat_opts *opts, struct pmu_cpustat **out);
/* Takes a sample; the previous one becomes the start of the interval. */
int pmu_cpustat_sample(struct pmu_cpustat *s);
/* CPUs of the last sample, ordered by CPU id. */
size_t pmu_cpustat_cpu_count(const struct pmu_cpustat *s);
int pmu_cpustat_read(const struct pmu_cpustat *s, size_t i, struct pmu_cpustat_cpu *out);
/* Idle states of a CPU (deepest last), as many as the OS exposes: Linux cpuidle
 * has up to 10; Windows PDH C1-C3; none without a cpuidle driver or under NtQSI. */
#define PMU_IDLE_STATE_MAX 10

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
struct pmu_idle_state {
	char name[32];           /* Linux cpuidle name ("POLL", "C1E", "haltpoll idle"),
				  * Windows "C1".."C3" */
	uint32_t exit_latency_us; /* Linux: the driver's exit latency; Windows: 0 unknown */
	int disabled;            /* Linux: turned off through cpuidle's disable knob */
	uint64_t entries;        /* times entered, since boot */
	uint64_t ns;             /* time resident, since boot */
	/* The last interval (since boot after the first sample): */
	uint64_t entries_delta;
	double percent;          /* residency, percent of the interval's wall-clock time;
				  * 0 after the first sample */
	int no_interval;         /* the previous sample lacked this state (it appeared or
				  * was renamed): entries_delta and percent are 0 */
};

/* Number of idle states of CPU index i of the last sample (0 when none). */
size_t pmu_cpustat_idle_count(const struct pmu_cpustat *s, size_t i);
/* Idle state k of CPU index i. Returns 0 or PMU_ERANGE. */
int pmu_cpustat_idle_read(const struct pmu_cpustat *s, size_t i, size_t k,
			  struct pmu_idle_state *out);
/* Every CPU summed (cpu -1; freq_mhz and perf_percent averaged, parked: count). */
int pmu_cpustat_total(const struct pmu_cpustat *s, struct pmu_cpustat_cpu *out);
/* Where the values come from: "/proc/stat", "pdh", "ntqsi". */
const char *pmu_cpustat_source(const struct pmu_cpustat *s);
/* Wall-clock ns between the last two samples (0 after the first). */
uint64_t pmu_cpustat_elapsed_ns(const struct pmu_cpustat *s);
void pmu_cpustat_close(struct pmu_cpustat *s);

#ifdef __cplusplus
}
#endif
#endif
