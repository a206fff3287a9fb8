/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_EXPORTER_INT_H
#define PMUK_CORE_EXPORTER_INT_H

/* The exporter's insides shared by its collectors: core/exporter.c (open,
 * scrape, the monotonic clamp), core/expo_cpu.c (cpu, cpuidle, cpufreq),
 * core/expo_pmu.c (pmu), and per OS linux/expo_linux.c, windows/expo_win.c
 * (interrupts, contention, cpufreq limits). */

#include "core/expo.h"
#include "core/hash.h"

#include <pmukit/counting.h>
#include <pmukit/oscounters.h>
#include <stdint.h>

enum pmuk_collector {
	PMUK_COLL_CPU,
	PMUK_COLL_CPUIDLE,
	PMUK_COLL_CPUFREQ,
	PMUK_COLL_INTERRUPTS,
	PMUK_COLL_PMU,
	PMUK_COLL_CONTENTION,
	PMUK_COLL_COUNT
};

/* The last value of a counter series, for the clamp. 40 bytes a series
 * (thousands on a big host): the key is the family's index and the label text
 * alone, not the family name again in every key. */
struct pmuk_expo_series {
	uint32_t key_off, key_len;   /* label text, in keys[] */
	uint32_t reset_id;           /* index into resets[] (its family) */
	uint32_t gen;                /* the scrape that last saw it (low 32 bits) */
	double raw, out, offset;     /* the source's last value, what was written, added */
};

struct pmuk_expo_resets {
	char name[96];
	uint64_t n;
};

struct pmuk_expo_os;
struct pmuk_expo_pmu;

struct pmu_exporter {
	struct pmu_exporter_opts o;
	unsigned mask;               /* 1u << enum pmuk_collector */
	struct pmu_mset *set;
	struct pmu_cpustat *cs;
	struct pmuk_expo_os *os;
	struct pmuk_expo_pmu *pmu;
	double created;              /* epoch seconds at open: _created of what we count */
	double boot;                 /* epoch seconds at boot: _created of the OS's counters
				      * (0 unknown) */
	uint64_t gen;
	struct pmuk_index ix;
	struct pmuk_expo_series *ser;
	size_t nser, ser_cap;
	char *keys;
	size_t keys_len, keys_cap;
	struct pmuk_expo_resets *resets;
	size_t nresets, resets_cap;
};

/* A family in the set of this scrape (errors through pmuk_fail). */
int pmuk_expo_family(struct pmu_exporter *e, const char *name, enum pmu_mtype type,
		     const char *help, const char *unit, struct pmu_mfamily **out);
/* A counter sample, clamped so that the series never goes back: a small step
 * back keeps the last value; a drop below half of it is a reset, counted in
 * pmukit_source_resets_total and carried over by an offset. A series missing
 * from the previous scrape (a CPU back online) starts afresh. created: the
 * source's start in epoch seconds (OpenMetrics _created), 0 unknown. */
int pmuk_expo_counter(struct pmu_exporter *e, struct pmu_mfamily *f,
		      const char *const *labels, double value, double created);
int pmuk_expo_gauge(struct pmu_exporter *e, struct pmu_mfamily *f,
		    const char *const *labels, double value);

/* The "cpu" label value (or windows_exporter's "core", "group,index"). */
void pmuk_expo_cpu_label(const struct pmu_exporter *e, int cpu, char *buf, size_t size);

int pmuk_expo_collect_cpu(struct pmu_exporter *e);
int pmuk_expo_collect_cpuidle(struct pmu_exporter *e);
int pmuk_expo_collect_cpufreq(struct pmu_exporter *e);

int pmuk_expo_pmu_open(struct pmu_exporter *e);
int pmuk_expo_collect_pmu(struct pmu_exporter *e);
void pmuk_expo_pmu_close(struct pmu_exporter *e);

/* Per OS. */
int pmuk_expo_os_open(struct pmuk_expo_os **out);
void pmuk_expo_os_close(struct pmuk_expo_os *os);
int pmuk_expo_collect_interrupts(struct pmu_exporter *e);
int pmuk_expo_collect_contention(struct pmu_exporter *e);
/* What the OS adds to the cpufreq collector (Windows: % Processor Performance
 * and Utility with their bases). */
int pmuk_expo_collect_cpufreq_os(struct pmu_exporter *e);
/* cpufreq limits of cpu in hertz (0 when not exposed): the hardware's
 * (cpuinfo_min/max_freq) and the governor's (scaling_min/max_freq). */
/* When the OS booted, in epoch seconds; 0 when unknown. */
double pmuk_expo_boot_time(struct pmuk_expo_os *os);
void pmuk_expo_freq_limits(struct pmuk_expo_os *os, int cpu, double hw[2], double scaling[2]);

#endif
