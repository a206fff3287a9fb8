/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_COUNTING_H
#define PMUKIT_COUNTING_H

/* Concern 1: scalar counting of event groups, with multiplexing made visible. */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pmukit/events.h>
#include <pmukit/json.h>
#include <pmukit/opts.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pmu_reading_flags {
	PMU_READING_MULTIPLEXED = 1u << 0, /* ran for only part of the enabled time: scaled */
	PMU_READING_NOT_COUNTED = 1u << 1, /* enabled but never scheduled: value is unknown */
	PMU_READING_ERROR_STATE = 1u << 2, /* a pinned event lost its counter: stopped counting */
	PMU_READING_UNSUPPORTED = 1u << 3, /* not opened: this host cannot count it (see
					    * pmu_counters_unsupported); value is 0 */
};

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
struct pmu_reading {
	uint64_t value;        /* raw count over time_running */
	uint64_t time_enabled; /* ns the event was enabled */
	uint64_t time_running; /* ns it actually had a counter */
	double scaled;         /* value * time_enabled / time_running (== value unless multiplexed) */
	uint32_t flags;        /* enum pmu_reading_flags */
};

/* Percentage of enabled time the event was counting (100 when not multiplexed). */
double pmu_reading_running_percent(const struct pmu_reading *r);

enum pmu_target_kind {
	PMU_TARGET_SELF,  /* the calling thread only */
	PMU_TARGET_PID,   /* every thread of a process (and, with inherit, what it spawns later) */
	PMU_TARGET_TID,   /* one thread */
	PMU_TARGET_CPUS,  /* system-wide on a set of CPUs */
};

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
struct pmu_target {
	enum pmu_target_kind kind;
	int pid;               /* PMU_TARGET_PID, PMU_TARGET_TID */
	const int *cpus;       /* PMU_TARGET_CPUS: CPU ids; NULL means every online CPU */
	size_t ncpus;
	const int *pids;       /* PMU_TARGET_PID/TID: several processes/threads counted as
				* one (pid is then ignored); NULL: pid. Linux only. */
	size_t npids;
};

struct pmu_counters_opts {
	size_t sz;             /* sizeof(struct pmu_counters_opts) */
	int inherit;           /* also count threads and children created after opening */
	int enable_on_exec;    /* start counting when the target execs (see pmu_command) */
	int start_disabled;    /* open disabled; pmu_counters_enable() starts counting */
	int pinned;            /* ask the kernel to keep each group on its counters */
	/* Leave out a group this host cannot count (PMU_ENOTSUP: no PMU for it, an
	 * event or modifier its PMU lacks) and count the rest, as perf stat does;
	 * its readings carry PMU_READING_UNSUPPORTED. Open still fails when no
	 * group can be counted, unless allow_empty. */
	int skip_unsupported;
	/* With skip_unsupported: open even when every group is left out (the handle
	 * counts nothing; each event still says why), so a tool can report them all. */
	int allow_empty;
	/* As perf stat: where perf_event_paranoid forbids kernel mode to this user, an
	 * event of a task that names no privilege level counts user mode only, and its
	 * name gets ":u" (pmu_counters_event shows it). Linux only. */
	int user_fallback;
};
#define pmu_counters_opts__last_field user_fallback /* see pmukit/opts.h */

struct pmu_counters;

int pmu_counters_open(const struct pmu_event_list *events, const struct pmu_target *target,
		      const struct pmu_counters_opts *opts, struct pmu_counters **out);
int pmu_counters_enable(struct pmu_counters *c);
int pmu_counters_disable(struct pmu_counters *c);
int pmu_counters_reset(struct pmu_counters *c);

size_t pmu_counters_event_count(const struct pmu_counters *c);
/* Why event i is not counted (left out by skip_unsupported), NULL when it is. */
const char *pmu_counters_unsupported(const struct pmu_counters *c, size_t i);
/* 1 when event i would count alone and was left out only with its group, because
 * another member cannot be counted here (perf shows it <not counted>); else 0. */
int pmu_counters_left_with_group(const struct pmu_counters *c, size_t i);
const struct pmu_event *pmu_counters_event(const struct pmu_counters *c, size_t i);
/* The CPUs of a PMU_TARGET_CPUS target (0 otherwise). */
size_t pmu_counters_cpu_count(const struct pmu_counters *c);
int pmu_counters_cpu(const struct pmu_counters *c, size_t i);

/* Fills out[0..n) (n >= event count), one reading per event, summed over all
 * threads/CPUs. Groups are read atomically. Never allocates. */
int pmu_counters_read(struct pmu_counters *c, struct pmu_reading *out, size_t n);
/* The same for one CPU of a CPU target (cpu_index < pmu_counters_cpu_count()). */
int pmu_counters_read_cpu(struct pmu_counters *c, size_t cpu_index, struct pmu_reading *out,
			  size_t n);
/* The threads of a PMU_TARGET_PID/TID/SELF target as opened, one counter set each
 * (0 for a CPU target; 0 on Windows, which counts a process as a whole). A thread
 * id of 0 is the calling thread (PMU_TARGET_SELF). With inherit, a thread's
 * readings include the threads it created after opening. */
size_t pmu_counters_thread_count(const struct pmu_counters *c);
int pmu_counters_thread(const struct pmu_counters *c, size_t i);
/* The readings of one thread (thread_index < pmu_counters_thread_count()). */
int pmu_counters_read_thread(struct pmu_counters *c, size_t thread_index,
			     struct pmu_reading *out, size_t n);
void pmu_counters_close(struct pmu_counters *c);

/* Region markers for harnesses (like LIKWID markers or PAPI's high-level API):
 * every thread that calls pmu_region_begin() counts the events of pmu_regions_init()
 * on itself; results are aggregated per region and thread. */
int pmu_regions_init(const char *event_spec); /* NULL: default events for this host */
int pmu_region_begin(const char *name);
int pmu_region_end(const char *name);
/* Writes the table as aligned text, or as one JSON object ("regions": [...];
 * flags: pmukit/json.h). */
int pmu_regions_write_text(FILE *f);
int pmu_regions_write_json(FILE *f, unsigned flags);
void pmu_regions_fini(void);

#ifdef __cplusplus
}
#endif
#endif
