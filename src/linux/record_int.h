/* SPDX-License-Identifier: MIT */
/* The perf.data recorder (pmukit/recording.h on Linux), in parts:
 *   recording_linux.c  start/stop/close, the thread that drains the rings
 *   record_attr.c      the events' attrs (sample types, call graphs, -d, -b, tracepoints)
 *   record_data.c      each ring record: written verbatim, counted, mmaps tracked
 *   record_maps.c      the mmap table: which module each sampled address is in
 *   record_header.c    the header features (host, CPUs, events, build-ids ...)
 *   record_synth.c     synthesized COMM/MMAP records (linux/synth.h) with their trailer
 *   record_node*.c     -d: the node of each sampled data page (linux/record_node.h) */
#ifndef PMUK_LINUX_RECORD_INT_H
#define PMUK_LINUX_RECORD_INT_H

#include <pthread.h>
#include <stdint.h>

#include <pmukit/recording.h>

#include "core/hash.h"
#include "core/recording_int.h"
#include "formats/perf_write.h"
#include "linux/record_node.h"
#include "linux/sample_decode.h"
#include "linux/sampler.h"

/* A module that mappings name (a file, [kernel.kallsyms], a kernel module). */
struct rec_dso {
	char *path;
	uint8_t build_id[20];
	uint8_t build_id_size;
	int kernel;            /* a kernel-space module (misc KERNEL in HEADER_BUILD_ID) */
	int hit;               /* a sample (or a frame of its stack) fell in it */
};

struct rec_map {
	uint64_t start, end;
	uint32_t dso;
};

/* The mappings of one process (pid -1: the kernel's). */
struct rec_proc {
	int32_t pid;
	struct rec_map *maps;
	size_t n, cap;
};

struct rec_maps {
	struct rec_dso *dso;
	size_t ndso, capdso;
	struct pmuk_index dso_ix;
	struct rec_proc *proc;
	size_t nproc, capproc;
	struct pmuk_index proc_ix;
};

int pmuk_rec_maps_add(struct rec_maps *m, int32_t pid, uint64_t start, uint64_t len,
		      const char *path, const uint8_t *build_id, size_t bid_len, int kernel);
/* A new process pid forked from ppid: it has its parent's mappings. */
int pmuk_rec_maps_fork(struct rec_maps *m, int32_t pid, int32_t ppid);
/* Marks the module holding addr in pid's (kernel: the kernel's) mappings. */
void pmuk_rec_maps_hit(struct rec_maps *m, int32_t pid, uint64_t addr, int kernel);
void pmuk_rec_maps_free(struct rec_maps *m);

/* id -> event index */
struct rec_id {
	uint64_t id;
	uint32_t event;
};

struct pmu_recording {
	PMUK_RECORDING_HEAD /* first: path, notes (core/recording_int.h) */
	struct pmu_recording_opts o;
	struct pmu_event *ev;  /* [nev] as opened */
	size_t nev;
	struct pmu_sampler *s;
	struct pmuk_perf_writer *w;
	struct pmuk_sample_fmt *fmt; /* [nev] */
	struct rec_id *ids;
	size_t nids;
	struct pmuk_index id_ix;
	uint64_t trailer_id;   /* the id synthesized records carry (event 0's first) */
	struct rec_maps maps;
	struct pmu_recording_stats st;
	uint64_t first_time, last_time;
	uint64_t lost_records; /* sum of the kernel's LOST records */
	int has_tracepoints;
	struct pmuk_rec_nodes nodes; /* -d: page -> node answers */
	/* the draining thread */
	pthread_t thread;
	int running;
	volatile int stopping;
	int err;               /* the thread's first error, its detail in err_detail */
	char err_detail[512];
	int finished;
	uint64_t drains;       /* drains that wrote records (buffers_written) */
	uint64_t scratch[8192]; /* 64 KiB: a record copied for the decoder */
};

/* record_attr.c */
int pmuk_rec_events(struct pmu_recording *r, const struct pmu_event_list *events);
void pmuk_rec_tune(struct perf_event_attr *a, size_t e, int first, void *ctx);
void pmuk_rec_note(struct pmu_recording *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* After the open: the :p levels lowered, and a -b the PMU refused explained. */
void pmuk_rec_opened(struct pmu_recording *r);

/* record_data.c: the rings' records (pmuk_sampler_drain): each one counted and
 * tracked, then their bytes written. */
int pmuk_rec_peek(const void *rec, size_t size, void *ctx);
int pmuk_rec_span(const void *p, size_t size, void *ctx);
/* A record built here (header first): written, counted and tracked as the kernel's. */
int pmuk_rec_on_record(const void *rec, size_t size, void *ctx);
int pmuk_rec_finished_round(struct pmu_recording *r);
/* LOST_SAMPLES of each event at the end. */
int pmuk_rec_lost_samples(struct pmu_recording *r);

/* record_synth.c: the synthesized records of the target, the kernel and modules. */
int pmuk_rec_synth(struct pmu_recording *r, const struct pmu_target *t);
/* A record of type/misc with body (padded to 8) and the sample_id trailer (id 0:
 * the first event's), written and tracked as a ring's record. */
int pmuk_rec_emit(struct pmu_recording *r, uint32_t type, uint16_t misc, const void *body,
		  size_t size, int32_t pid, int32_t tid, uint64_t time, uint64_t id);

/* record_data.c: a sample's data address (and PHYS_ADDR) to the node answers. */
int pmuk_rec_node_sample(struct pmu_recording *r, const uint8_t *rec, size_t size, int e);

/* record_header.c: every feature but the tracing data, before finishing. */
int pmuk_rec_features(struct pmu_recording *r);
/* HEADER_TRACING_DATA: the format files of the recorded tracepoints (at the start,
 * so a tracefs problem stops the recording before it runs). */
int pmuk_rec_tracing(struct pmu_recording *r);

#endif
