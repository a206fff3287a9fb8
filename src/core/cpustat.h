/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_CPUSTAT_H
#define PMUK_CORE_CPUSTAT_H

/* The portable part of pmukit/oscounters.h: samples, high-water marks and
 * percentages (core/cpustat.c); each OS supplies a backend that fills one
 * snapshot per sample (linux/cpustat_linux.c, windows/pdh_win.c + ntqsi_win.c). */

#include <pmukit/oscounters.h>
#include <stddef.h>
#include <stdint.h>

struct pmuk_idle_raw {
	char name[32];
	uint32_t exit_latency_us;
	int disabled;
	uint64_t entries, ns;            /* cumulative since boot */
};

/* What a backend reports for one CPU at one instant. */
struct pmuk_cpustat_raw {
	int cpu;
	uint32_t has;                    /* (1u << enum pmu_cputime) bits */
	uint64_t ns[PMU_CPUTIME_COUNT];  /* cumulative since boot */
	double freq_mhz;                 /* 0 unknown */
	double perf_percent;             /* 0 unknown */
	int parked;                      /* -1 unknown */
	uint32_t nidle;                  /* states filled in idle[], shallowest first */
	struct pmuk_idle_raw idle[PMU_IDLE_STATE_MAX];
};

struct pmuk_cpustat_snap {
	struct pmuk_cpustat_raw *cpu;    /* sorted by cpu id by cpustat.c */
	size_t n, cap;
	uint64_t wall_ns;                /* monotonic time of the sample */
};

/* Appends a zeroed CPU (parked -1) to the snapshot; NULL when out of memory. */
struct pmuk_cpustat_raw *pmuk_cpustat_add(struct pmuk_cpustat_snap *s, int cpu);

/* What a sample reads beyond the CPU times (which are always read): a caller
 * that shows no idle states or frequencies need not pay for them. */
enum {
	PMUK_CPUSTAT_FREQ = 1u << 0,     /* freq_mhz, perf_percent, parked */
	PMUK_CPUSTAT_IDLE = 1u << 1,     /* idle[] */
	PMUK_CPUSTAT_IDLE_KNOBS = 1u << 2, /* idle[].disabled (Linux: one file more per state) */
	PMUK_CPUSTAT_ALL = 7u,
};

/* One OS source. read fills snap (n = 0 on entry, wall_ns to set). */
struct pmuk_cpustat_backend {
	unsigned want;                   /* PMUK_CPUSTAT_* bits, set before the backend
					  * opens; a backend may read more */
	const char *source;
	void *state;
	int (*read)(void *state, struct pmuk_cpustat_snap *snap);
	void (*close)(void *state);
};

/* Per OS: picks and opens the backend. opts is the library's full copy, never
 * NULL. */
int pmuk_cpustat_backend_open(const struct pmu_cpustat_opts *opts,
			      struct pmuk_cpustat_backend *b);

/* pmu_cpustat_open reading only what want (PMUK_CPUSTAT_* bits) asks for; the
 * values left out read as unknown (0, parked -1, no idle states). */
int pmuk_cpustat_open_want(const struct pmu_cpustat_opts *opts, unsigned want,
			   struct pmu_cpustat **out);

/* Parses one line of /proc/stat into snap when it is a "cpuN" line (the "cpu"
 * total is skipped): fields user nice system idle iowait irq softirq steal in
 * USER_HZ ticks (hz per second); guest time is already inside user and nice.
 * Returns 1 for a cpuN line, 0 for any other line, PMU_EFORMAT for a cpuN line
 * with fewer than 4 numbers, PMU_ENOMEM. */
int pmuk_cpustat_parse_line(const char *line, long hz, struct pmuk_cpustat_snap *snap);

#endif
