/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TOOL_STAT_H
#define PMUKIT_TOOL_STAT_H

#include <pmukit/pmukit.h>
#include <stdio.h>
#include <string.h>

enum stat_format { STAT_TEXT, STAT_CSV, STAT_JSON };

/* perf stat's aggregation modes: one row set for all, or one per CPU (-A,
 * --no-aggr), core, socket (summed over the topology) or thread (-p/-t). */
enum stat_aggr_mode { STAT_AGGR_GLOBAL, STAT_AGGR_CPU, STAT_AGGR_CORE, STAT_AGGR_SOCKET,
		 STAT_AGGR_THREAD };

struct stat_config {
	const char *events;      /* -e, NULL: defaults */
	int default_kind;        /* 0 user events, 1 hardware defaults, 2 software defaults */
	struct pmu_target target;
	int *cpus;               /* -C, ascending, no duplicates (freed by cmd_stat) */
	const char *cpu_list;    /* -C as typed (perf heads the counts with it), else NULL */
	int all_cpus;            /* -a given (with -C too: perf says 'system wide') */
	int pids[64];            /* -p/-t A,B: the tasks (target.pids) */
	enum stat_aggr_mode aggr;
	long interval_ms;
	long interval_count;     /* --interval-count: stop printing after this many, 0: no limit */
	long timeout_ms;         /* --timeout: stop counting (and the command) after this, 0: none */
	long delay_ms;           /* -D: start counting this long after the command starts */
	int repeat;
	enum stat_format format;
	char sep[16];
	FILE *out;               /* stderr unless -o */
	const char *out_name;    /* -o FILE, else NULL */
	char **argv;             /* the command, NULL when attaching */
	int argc;
	char *events_buf;        /* the -e lists joined (events points here) */
	int per_node;            /* --per-node / -M numa: memory bandwidth per NUMA node */
};

/* One line set to print: per-event readings of one scope (all, or one CPU). */
struct stat_rows {
	size_t n;
	const struct pmu_event *events; /* n events, contiguous copy */
	const struct pmu_reading *r;    /* n readings */
	const double *stddev_pct;       /* n values when repeat > 1, else NULL */
	const char *const *unsupported; /* n reasons (NULL: counted), or NULL: all counted */
	const unsigned char *grouped;   /* n flags, or NULL: 1 when left out only with its
					 * group (it is <not counted>, not <not supported>) */
	int cpu;                        /* -1: aggregated */
	/* --per-core / --per-socket: where these CPUs are and how many were summed */
	int socket, die, core, ncpus;
	int tid;                        /* --per-thread: the thread and its name */
	const char *comm;
};

struct stat_summary {
	double elapsed_ns;
	double interval_s;       /* -I: end of this interval since start, else < 0 */
	int runs;
	int exit_status;         /* -1 when no command ran */
	int interrupted;
	const char *note;        /* why these events (software defaults on a host without PMU) */
	const char *os_note;     /* what the OS's sources mean (stat_os_note), or NULL */
};

/* The aggregation mode needs per-CPU readings: CPU, core or socket. */
static inline int stat_per_cpu(const struct stat_config *cfg)
{
	return cfg->aggr == STAT_AGGR_CPU || cfg->aggr == STAT_AGGR_CORE ||
	       cfg->aggr == STAT_AGGR_SOCKET;
}

/* The row sets of cfg->aggr over the units of c (stat_aggr.c): one per CPU, core
 * or socket of a CPU target, or per thread of a task target. *out stays NULL for
 * STAT_AGGR_GLOBAL. Returns 0, or 1 having said why on stderr. */
struct stat_aggr;
int stat_aggr_open(const struct stat_config *cfg, struct pmu_counters *c,
		   struct stat_aggr **out);
size_t stat_aggr_rows(const struct stat_aggr *a);
/* Fills row k's identity fields (cpu, socket, die, core, ncpus, tid, comm). */
void stat_aggr_label(const struct stat_aggr *a, size_t k, struct stat_rows *row);
/* Reads every row: out[k * n ... k * n + n) for row k, n the event count of c. */
int stat_aggr_read(struct stat_aggr *a, struct pmu_counters *c, struct pmu_reading *out);
void stat_aggr_free(struct stat_aggr *a);
/* perf's tool event duration_time: the wall-clock ns of the run, which stat measures
 * itself (the library opens it as the software dummy event, which counts nothing). */
static inline int stat_is_duration(const struct pmu_event *ev)
{
	return !strncmp(ev->name, "duration_time", 13) && (!ev->name[13] || ev->name[13] == ':');
}

/* --per-node (stat_node.c): read and write bandwidth per NUMA node from the memory
 * controller PMUs, system wide, over the command or --timeout; the exit status. */
int stat_per_node(struct stat_config *cfg);

/* Runs the measurement described by cfg and prints it; returns the exit status. */
int stat_run(struct stat_config *cfg, const struct pmu_event_list *list, const char *note);

/* The OS under the run loop: stat_os.c (POSIX signals, kill) and stat_os_win.c (the
 * console's Ctrl-C, process handles); the loop itself (stat_run.c) is written once
 * over pmu_command_wait_timeout. */
#ifdef _WIN32
#define STAT_OS_ENABLE_ON_EXEC 0 /* the command starts suspended: enabled before it runs */
#else
#define STAT_OS_ENABLE_ON_EXEC 1 /* counted from its exec on */
#endif
double stat_os_now_ns(void);         /* a monotonic clock */
/* Catches SIGINT and SIGTERM (Ctrl-C, Ctrl-Break on Windows) for the whole run,
 * except where the caller ignores one; release puts back what was there. */
void stat_os_catch(void);
void stat_os_release(void);
/* The stop signal caught and not yet taken (SIGINT or SIGTERM), else 0. */
int stat_os_stop_pending(void);
/* Takes it: *aimed is 1 when it was sent to pmukit alone (kill), so the command
 * should have it passed on; 0 for a terminal's or console's Ctrl-C, which the
 * command got too. */
int stat_os_take_stop(int *aimed);
void stat_os_signal(struct pmu_command *cmd, int sig);
/* --timeout: ends the command (SIGTERM, as perf; TerminateProcess on Windows). */
void stat_os_terminate(struct pmu_command *cmd);
/* 1 when no task of an attached -p/-t target is left. */
int stat_os_target_gone(const struct pmu_target *t);
/* Sleeps ms, or less when a stop signal comes. */
void stat_os_sleep(int ms);
/* Of a command's wait status: it ended on its own (not killed by a signal or
 * Ctrl-C); it ended by stat_os_terminate. */
int stat_os_exited(int wait_status);
int stat_os_terminated(int wait_status);
/* perf_event_paranoid (-1 where there is none). */
int stat_os_paranoid(void);
/* 0 when this OS can run cfg, else 2 having said why. */
int stat_os_check(const struct stat_config *cfg);
/* Taken before the counters and the command are freed: what the counts cover and how
 * fine they are where the OS differs from perf (Windows: tick-granular CPU times, the
 * processes of the command's job); NULL when nothing needs saying. */
const char *stat_os_note(const struct pmu_counters *c, const struct pmu_command *cmd);

void stat_print_header(const struct stat_config *cfg);
/* Why this host cannot count event i of c (said once on stderr), NULL when it
 * counts; the string stays c's. */
const char *stat_note_unsupported(const struct pmu_counters *c, size_t i);
void stat_print(const struct stat_config *cfg, const struct stat_summary *sum,
		const struct stat_rows *rows, size_t nrows);
/* errno of the first failed write of the counts, 0 when every write succeeded. */
int stat_output_errno(void);

#endif
