/* SPDX-License-Identifier: MIT */
#ifndef PMUK_TEST_PERF_READ_CHECK_H
#define PMUK_TEST_PERF_READ_CHECK_H

/* What the perf.data reader's tests share: records to put in crafted files,
 * a run through pmu_trace collecting what comes out, and the checks of a
 * damaged file (the offset the detail names). Include after cmocka.h. */

#include <errno.h>   /* program_invocation_short_name */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/error.h>
#include <pmukit/trace.h>

#include "perf_synth.h"

#if defined(__has_include)
#if __has_include(<zstd.h>)
#include <zstd.h>
#define HAVE_ZSTD_H 1
#endif
#endif

#define ST_BASIC (PERF_ST_IP | PERF_ST_TID | PERF_ST_TIME | PERF_ST_PERIOD)

/* The file each test writes and reads (main sets it). */
static char path[64];

struct got {
	struct { int kind, event, pid, bid; uint64_t time; } r[64];
	size_t n;
	char warn[512];
	int warns;
};

static inline int collect(const struct pmu_record *rec, void *ctx)
{
	struct got *g = ctx;

	if (g->n < 64) {
		g->r[g->n].kind = rec->kind;
		g->r[g->n].event = rec->event;
		g->r[g->n].pid = rec->pid;
		g->r[g->n].time = rec->time;
		g->r[g->n].bid = rec->kind == PMU_RECORD_MMAP ? rec->mmap.build_id_size : 0;
	}
	g->n++;
	return 0;
}

static inline void on_warn(const char *msg, void *ctx)
{
	struct got *g = ctx;

	snprintf(g->warn, sizeof(g->warn), "%s", msg);
	g->warns++;
}

static inline void sample(struct pbuf *p, uint64_t ip, int pid, uint64_t time)
{
	uint64_t w[4] = { ip, (uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)pid << 32, time, 1000 };

	rec_words(p, PERF_REC_SAMPLE, PERF_REC_MISC_USER, w, 4);
}

/* {pid, tid, start, len, pgoff, filename} + the TID|TIME trailer */
static inline void mmap_rec(struct pbuf *p, uint16_t misc, int pid, const char *file, uint64_t time)
{
	uint64_t w[16] = { (uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)pid << 32, 0x400000,
			   0x1000, 0 };
	size_t n = 4 + (strlen(file) + 8) / 8;

	memcpy(&w[4], file, strlen(file));
	w[n++] = (uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)pid << 32;
	w[n++] = time;
	rec_words(p, PERF_REC_MMAP, misc, w, n);
}

static inline void round_rec(struct pbuf *p)
{
	rec_words(p, PERF_REC_FINISHED_ROUND, 0, NULL, 0);
}

/* PMUKIT_PERF_SEED_DIR=DIR: every file read goes there too (fuzz seeds). */
static inline void save_seed(const struct pbuf *file)
{
	static int n;
	const char *dir = getenv("PMUKIT_PERF_SEED_DIR");
	char p[512];

	if (!dir)
		return;
	snprintf(p, sizeof(p), "%s/%s%02d.data", dir, program_invocation_short_name, n++);
	assert_int_equal(pb_write(file, p), 0);
}

static inline int run(const struct pbuf *file, const struct pmu_trace_opts *o, struct got *g,
	       struct pmu_trace **out)
{
	PMU_OPTS(pmu_trace_opts, def, .warn = on_warn, .warn_ctx = g);
	struct pmu_trace *t;
	int err;

	if (out)
		*out = NULL;
	assert_int_equal(pb_write(file, path), 0);
	save_seed(file);
	memset(g, 0, sizeof(*g));
	if ((err = pmu_trace_open(path, o ? o : &def, &t)))
		return err;
	err = pmu_trace_read(t, collect, g);
	if (out)
		*out = t;
	else
		pmu_trace_close(t);
	return err;
}

static inline void one_attr(struct pfile *f, uint64_t st)
{
	memset(f, 0, sizeof(*f));
	attr_make(f->attrs[0], PERF_ATTR_SIZE_VER8 ? PERF_ATYPE_SW : 0, 0, st, PERF_AF_SAMPLE_ID_ALL);
	f->nr_attrs = 1;
	f->ids[0][0] = 7;
	f->nr_ids[0] = 1;
}


/* The detail names the offset of the damage; what came before is delivered. */
static inline void expect_damage(const struct pbuf *file, size_t off, size_t before, uint64_t skipped)
{
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	struct got g;
	char want[64];

	assert_int_equal(run(file, NULL, &g, &t), PMU_EFORMAT);
	snprintf(want, sizeof(want), "offset %zu:", off);
	if (!strstr(pmu_error_detail(), want))
		fail_msg("expected \"%s\" in: %s", want, pmu_error_detail());
	assert_int_equal(g.n, before);
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.bytes_skipped, skipped);
	pmu_trace_close(t);
}


/* Header damage: open fails naming the offset. */
static inline void expect_open(const struct pbuf *file, int err, const char *want)
{
	struct pmu_trace *t;

	assert_int_equal(pb_write(file, path), 0);
	assert_int_equal(pmu_trace_open(path, NULL, &t), err);
	if (!strstr(pmu_error_detail(), want))
		fail_msg("expected \"%s\" in: %s", want, pmu_error_detail());
}


/* A pipe with one attr and a sample, then what the caller appends. */
static inline void pipe_start(struct pbuf *p)
{
	uint64_t hdr[2] = { PERF_FILE_MAGIC, PERF_PIPE_HEADER_SIZE };
	uint8_t a[PERF_ATTR_SIZE_VER8];

	memset(p, 0, sizeof(*p));
	pb_put(p, hdr, 16);
	attr_make(a, PERF_ATYPE_SW, 0, ST_BASIC, 0);
	rec_bytes(p, PERF_REC_HEADER_ATTR, 0, a, sizeof(a));
	sample(p, 1, 1, 10);
}


#endif
