/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_RECORDING_H
#define PMUKIT_RECORDING_H

/* Concerns 2 and 3 to a file: a recording of samples (with stacks and branch
 * records where asked) and of the thread, process and module events around
 * them, written by the OS in its native format. `pmukit report` reads it back.
 *
 *   OS       file       backend today
 *   Windows  .etl       an ETW system-logger session (NT Kernel Logger before
 *                       Windows 8): timer samples (SampledProfile, interval
 *                       TraceSampledProfileIntervalInfo), PMC-overflow samples
 *                       (PERF_PMC_PROFILE, TraceProfileSourceConfigInfo), stack
 *                       walks on both (TraceStackTracingInfo), LBR on both
 *                       (TraceLbrConfigurationInfo, Windows 10 1903+), process,
 *                       thread and image events; read with pmu_etl_* (etl.h).
 *                       Needs an elevated administrator (or Performance Log Users)
 *                       and SeSystemProfilePrivilege; not under Wine.
 *   Linux    perf.data  PERFILE2 (what perf 6.x reads) written from the perf
 *                       rings by a thread of the library: the kernel's records
 *                       verbatim, the names (COMM, MMAP2) of what ran before the
 *                       start synthesized from /proc, the kernel and its modules,
 *                       LOST_SAMPLES at the end, and the header features perf
 *                       report shows (build-ids of the modules that got samples,
 *                       host, OS release, CPUs, memory, command line, events,
 *                       sample times, clock; tracepoint formats). Per-thread
 *                       targets get one ring per thread, CPU targets one per CPU.
 *
 * ETW kernel sessions see the whole machine: on Windows the target only says
 * which CPUs (all of them) and which process the caller cares about; every
 * process is recorded and `pmukit report` filters. Precise data-source sampling
 * (data addresses, PEBS) is not public on Windows: see `pmukit caps`. */

#include <stddef.h>
#include <stdint.h>

#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <pmukit/opts.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pmu_recording_opts {
	size_t sz;             /* sizeof(struct pmu_recording_opts) */
	const char *path;      /* the file to write (replaced if it exists) */
	uint64_t period;       /* hardware events: events between samples; 0: 1000003.
				  Linux: set, every event samples every period events
				  (perf -c); else at freq (perf -F); not both */
	uint64_t freq;         /* cpu-clock/task-clock: samples per second per CPU; 0: 1000
				  (Linux: every event but tracepoints, which sample every hit) */
	int callchain;         /* a call stack with every sample */
	int branches;          /* the last taken branches (LBR) with every sample */
	int context_switch;    /* also record context switches */
	unsigned buffer_kb;    /* size of one trace buffer; 0: 1024 (Windows), 512 (Linux:
				  the perf ring of each thread or CPU, a power of two pages) */
	/* Linux (Windows answers PMU_ENOTSUP to a field below that it cannot honour). */
	uint32_t stack_user;   /* bytes of user stack copied with each sample, with the
				  user registers (perf's --call-graph dwarf); 0: none */
	int data_addr;         /* data address, data source and weight of each sample
				  (perf -d; physical address too where allowed) */
	int inherit;           /* also record the threads and children the target creates
				  (Linux: task targets; each thread on every CPU) */
	int enable_on_exec;    /* start when the target execs: a pmu_command prepared
				  and not yet started, recorded from its first instruction */
	int lower_precise;     /* a :p level the PMU refuses is lowered until the event
				  opens, as perf record does (said in pmu_recording_notes) */
	/* Linux, with data_addr: the node of each sampled page is stored in the file,
	 * from PHYS_ADDR or by querying the live process (move_pages); set this to
	 * skip the queries (PHYS_ADDR answers only). */
	int no_node_query;
};
#define pmu_recording_opts__last_field no_node_query /* see pmukit/opts.h */

/* Grows by appending; filled by the caller's size (pmukit/opts.h). */
struct pmu_recording_stats {
	uint64_t events_lost;  /* events the OS dropped (buffers full) */
	uint64_t buffers_written;
	uint64_t buffers_lost;
	uint64_t bytes;        /* size of the file written */
	/* Linux (0 on Windows, where only the reader knows) */
	uint64_t samples;      /* samples written */
	uint64_t lost_samples; /* samples the kernel dropped at full rings (its counters;
				  events_lost sums its LOST records, which tell the same
				  drops as they happen) */
	uint64_t throttles;    /* times the kernel throttled an event (too many samples) */
	uint64_t records;      /* records written, every kind, synthesized ones included
				  (perf's FINISHED_ROUND markers aside) */
};
#define pmu_recording_stats__last_field records

struct pmu_recording;

/* Starts recording the events of the list (NULL: timer samples, cpu-clock; on
 * Linux cycles where a core PMU exists, else cpu-clock, said in the notes).
 * Software clock events sample on the timer, hardware events on counter
 * overflow. PMU_EBUDGET when the hardware events exceed the PMCs the OS lends
 * a session; PMU_EPERM without the privileges; PMU_ENOTSUP where the OS (or
 * pmukit on this OS) cannot record, with the reason in pmu_error_detail(). */
int pmu_recording_start(const struct pmu_event_list *events, const struct pmu_target *target,
			const struct pmu_recording_opts *opts, struct pmu_recording **out);
/* Stops, finishes the file and fills st (may be NULL), size bytes of it: pass
 * sizeof(*st) (see pmukit/opts.h). */
int pmu_recording_stop(struct pmu_recording *r, struct pmu_recording_stats *st, size_t size);
/* The file being written. */
const char *pmu_recording_path(const struct pmu_recording *r);
/* What the backend chose or changed to open the events, one sentence a line
 * ("" when nothing): the default event, a :p level lowered. Valid until close. */
const char *pmu_recording_notes(const struct pmu_recording *r);
/* Stops if still running (the file is kept) and frees. */
void pmu_recording_close(struct pmu_recording *r);

#ifdef __cplusplus
}
#endif
#endif
