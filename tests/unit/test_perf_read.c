/* SPDX-License-Identifier: MIT */
/* The perf.data reader on files built byte by byte: file and pipe mode, ids to
 * events, time order (rounds, window, late records), features, names, and
 * every error path with the offset the detail names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/trace.h>

#include "perf_synth.h"

#define ST_BASIC (PERF_ST_IP | PERF_ST_TID | PERF_ST_TIME | PERF_ST_PERIOD)

static char path[64];

struct got {
	struct { int kind, event, pid, bid; uint64_t time; } r[64];
	size_t n;
	char warn[512];
	int warns;
};

static int collect(const struct pmu_record *rec, void *ctx)
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

static void on_warn(const char *msg, void *ctx)
{
	struct got *g = ctx;

	snprintf(g->warn, sizeof(g->warn), "%s", msg);
	g->warns++;
}

static void sample(struct pbuf *p, uint64_t ip, int pid, uint64_t time)
{
	uint64_t w[4] = { ip, (uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)pid << 32, time, 1000 };

	rec_words(p, PERF_REC_SAMPLE, PERF_REC_MISC_USER, w, 4);
}

/* {pid, tid, start, len, pgoff, filename} + the TID|TIME trailer */
static void mmap_rec(struct pbuf *p, uint16_t misc, int pid, const char *file, uint64_t time)
{
	uint64_t w[16] = { (uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)pid << 32, 0x400000,
			   0x1000, 0 };
	size_t n = 4 + (strlen(file) + 8) / 8;

	memcpy(&w[4], file, strlen(file));
	w[n++] = (uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)pid << 32;
	w[n++] = time;
	rec_words(p, PERF_REC_MMAP, misc, w, n);
}

static void round_rec(struct pbuf *p)
{
	rec_words(p, PERF_REC_FINISHED_ROUND, 0, NULL, 0);
}

/* PMUKIT_PERF_SEED_DIR=DIR: every file read goes there too (fuzz seeds). */
static void save_seed(const struct pbuf *file)
{
	static int n;
	const char *dir = getenv("PMUKIT_PERF_SEED_DIR");
	char p[512];

	if (!dir)
		return;
	snprintf(p, sizeof(p), "%s/synth%02d.data", dir, n++);
	assert_int_equal(pb_write(file, p), 0);
}

static int run(const struct pbuf *file, const struct pmu_trace_opts *o, struct got *g,
	       struct pmu_trace **out)
{
	PMU_OPTS(pmu_trace_opts, def, .warn = on_warn, .warn_ctx = g);
	struct pmu_trace *t;
	int err;

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

static void one_attr(struct pfile *f, uint64_t st)
{
	memset(f, 0, sizeof(*f));
	attr_make(f->attrs[0], PERF_ATTR_SIZE_VER8 ? PERF_ATYPE_SW : 0, 0, st, PERF_AF_SAMPLE_ID_ALL);
	f->nr_attrs = 1;
	f->ids[0][0] = 7;
	f->nr_ids[0] = 1;
}

/* A file with rounds, a build-id table, a kernel mmap and features. */
static void test_file_mode(void **state)
{
	struct pfile f;
	struct pbuf out, *bt;
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	struct got g;
	uint8_t bid[36 + 64] = { 0 };
	struct perf_rec_header bh = { 0, PERF_REC_MISC_USER, sizeof(bid) };
	int32_t pidm1 = -1;

	(void)state;
	one_attr(&f, ST_BASIC);
	mmap_rec(&f.data, PERF_REC_MISC_USER, 10, "/bin/w", 0);
	mmap_rec(&f.data, PERF_REC_MISC_KERNEL, -1, "[kernel.kallsyms]_text", 0);
	sample(&f.data, 0x401000, 10, 30);
	sample(&f.data, 0x401000, 10, 10);
	round_rec(&f.data);
	sample(&f.data, 0x401000, 10, 20);     /* older than the round's last: still in time */
	sample(&f.data, 0x401000, 10, 40);
	round_rec(&f.data);
	sample(&f.data, 0x401000, 10, 35);
	f.has_feat[HEADER_HOSTNAME] = 1;
	feat_string(&f.feat[HEADER_HOSTNAME], "synth-host");
	f.has_feat[HEADER_OSRELEASE] = 1;
	feat_string(&f.feat[HEADER_OSRELEASE], "6.1.0-test");
	f.has_feat[HEADER_NRCPUS] = 1;
	pb_u32(&f.feat[HEADER_NRCPUS], 8);
	pb_u32(&f.feat[HEADER_NRCPUS], 4);
	f.has_feat[HEADER_CMDLINE] = 1;
	pb_u32(&f.feat[HEADER_CMDLINE], 2);
	feat_string(&f.feat[HEADER_CMDLINE], "perf");
	feat_string(&f.feat[HEADER_CMDLINE], "record");
	f.has_feat[HEADER_BUILD_ID] = 1;
	bt = &f.feat[HEADER_BUILD_ID];
	memcpy(bid, &bh, sizeof(bh));
	memcpy(bid + 8, &pidm1, 4);
	memset(bid + 12, 0xab, 20);
	strcpy((char *)bid + 36, "/bin/w");
	pb_put(bt, bid, sizeof(bid));
	bh.misc = PERF_REC_MISC_KERNEL | PERF_REC_MISC_BUILD_ID_SIZE;
	memcpy(bid, &bh, sizeof(bh));
	bid[32] = 8;
	memset(bid + 36, 0, 64);
	strcpy((char *)bid + 36, "[kernel.kallsyms]");
	pb_put(bt, bid, sizeof(bid));
	pfile_build(&f, &out);

	assert_int_equal(run(&out, NULL, &g, &t), 0);
	assert_int_equal(g.n, 7);
	assert_int_equal(g.r[0].kind, PMU_RECORD_MMAP);
	assert_int_equal(g.r[0].bid, 20);      /* from the table, by path */
	assert_int_equal(g.r[1].pid, -1);
	assert_int_equal(g.r[1].bid, 8);       /* the kernel's, by name */
	uint64_t want[] = { 10, 20, 30, 35, 40 };
	for (int i = 0; i < 5; i++) {
		assert_int_equal(g.r[2 + i].kind, PMU_RECORD_SAMPLE);
		assert_int_equal(g.r[2 + i].time, want[i]);
		assert_int_equal(g.r[2 + i].event, 0);
	}
	const struct pmu_trace_info *in = pmu_trace_info(t);
	assert_int_equal(in->format, PMU_TRACE_PERF_FILE);
	assert_string_equal(in->hostname, "synth-host");
	assert_string_equal(in->os_release, "6.1.0-test");
	assert_string_equal(in->cmdline, "perf record");
	assert_string_equal(in->arch, "");
	assert_int_equal(in->nr_cpus_avail, 8);
	assert_int_equal(in->nr_cpus_online, 4);
	assert_int_equal(pmu_trace_event_count(t), 1);
	assert_string_equal(pmu_trace_event(t, 0)->name, "cpu-clock");
	assert_int_equal(pmu_trace_event(t, 0)->nr_ids, 1);
	assert_int_equal(pmu_trace_event(t, 0)->ids[0], 7);
	assert_int_equal(pmu_trace_event(t, 0)->sample_type, ST_BASIC);
	assert_int_equal(pmu_trace_build_id_count(t), 2);
	assert_string_equal(pmu_trace_build_id(t, 1)->path, "[kernel.kallsyms]");
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.samples, 5);
	assert_int_equal(st.out_of_order, 0);
	assert_int_equal(st.bytes_skipped, 0);
	pmu_trace_close(t);
	free(out.b);
	pfile_free(&f);
}

/* Without rounds: the window; a record older than one delivered comes late. */
static void test_window(void **state)
{
	struct pfile f;
	struct pbuf out;
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	struct got g;

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&f.data, 1, 1, 1000);
	sample(&f.data, 1, 1, 2000);   /* 1000 goes out: older than 2000 - 100 */
	sample(&f.data, 1, 1, 1500);   /* in time: 1500 goes out too */
	sample(&f.data, 1, 1, 900);    /* older than 1500 delivered: late */
	pfile_build(&f, &out);
	PMU_OPTS(pmu_trace_opts, o, .reorder_window_ns = 100);
	assert_int_equal(run(&out, &o, &g, &t), 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.r[0].time, 1000);
	assert_int_equal(g.r[1].time, 1500);
	assert_int_equal(g.r[2].time, 900);
	assert_int_equal(g.r[3].time, 2000);
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.out_of_order, 1);
	pmu_trace_close(t);
	/* the default window (1 s) holds them all: time order, none late */
	assert_int_equal(run(&out, NULL, &g, NULL), 0);
	assert_int_equal(g.r[0].time, 900);
	assert_int_equal(g.r[3].time, 2000);
	free(out.b);
	pfile_free(&f);
}

/* Two attrs told apart by PERF_SAMPLE_IDENTIFIER, in samples and trailers. */
static void test_identifier(void **state)
{
	const uint64_t st_id = PERF_ST_IDENTIFIER | PERF_ST_IP | PERF_ST_TIME;
	struct pfile f;
	struct pbuf out;
	struct got g;

	(void)state;
	memset(&f, 0, sizeof(f));
	attr_make(f.attrs[0], PERF_ATYPE_SW, 2, st_id, PERF_AF_SAMPLE_ID_ALL);
	attr_make(f.attrs[1], PERF_ATYPE_HW_CACHE, 0x10000, st_id, PERF_AF_SAMPLE_ID_ALL);
	f.nr_attrs = 2;
	f.ids[0][0] = 100;
	f.ids[1][0] = 200;
	f.ids[1][1] = 201;
	f.nr_ids[0] = 1;
	f.nr_ids[1] = 2;
	uint64_t s1[] = { 201, 0x1000, 5 }, s0[] = { 100, 0x1000, 6 }, s9[] = { 999, 0x1, 7 };
	rec_words(&f.data, PERF_REC_SAMPLE, PERF_REC_MISC_USER, s1, 3);
	rec_words(&f.data, PERF_REC_SAMPLE, PERF_REC_MISC_USER, s0, 3);
	rec_words(&f.data, PERF_REC_SAMPLE, PERF_REC_MISC_USER, s9, 3);
	/* COMM {pid, tid, "w"} then the trailer TIME, IDENTIFIER */
	uint64_t comm[] = { 5 | 5ull << 32, 'w', 8, 200 };
	rec_words(&f.data, PERF_REC_COMM, PERF_REC_MISC_COMM_EXEC, comm, 4);
	pfile_build(&f, &out);
	struct pmu_trace *t;
	assert_int_equal(run(&out, NULL, &g, &t), 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.r[0].event, 1);     /* time 5 */
	assert_int_equal(g.r[1].event, 0);
	assert_int_equal(g.r[2].event, -1);    /* an id no attr has */
	assert_int_equal(g.r[3].kind, PMU_RECORD_COMM);
	assert_int_equal(g.r[3].event, 1);
	assert_string_equal(pmu_trace_event(t, 0)->name, "page-faults");
	assert_string_equal(pmu_trace_event(t, 1)->name, "L1-dcache-load-misses");
	pmu_trace_close(t);
	free(out.b);
	pfile_free(&f);
}

/* Tracepoints named by their id through the tracing data's format files. */
static void test_tracepoint_names(void **state)
{
	struct pfile f;
	struct pbuf out, *td;
	struct pmu_trace *t;
	struct got g;
	const char *fmt = "name: sched_switch\nID: 316\nformat:\n\tfield:int x;\n";

	(void)state;
	memset(&f, 0, sizeof(f));
	attr_make(f.attrs[0], PERF_ATYPE_TP, 316, ST_BASIC, 0);
	attr_make(f.attrs[1], PERF_ATYPE_TP, 999, ST_BASIC, 0);
	f.nr_attrs = 2;
	f.has_feat[HEADER_TRACING_DATA] = 1;
	td = &f.feat[HEADER_TRACING_DATA];
	pb_put(td, "\027\010\104tracing0.6", 14);
	pb_put(td, "\0\010", 2);               /* little endian, long size 8 */
	pb_u32(td, 4096);
	pb_put(td, "header_page", 12);
	pb_u64(td, 0);
	pb_put(td, "header_event", 13);
	pb_u64(td, 0);
	pb_u32(td, 0);                          /* ftrace formats */
	pb_u32(td, 1);                          /* systems */
	pb_put(td, "sched", 6);
	pb_u32(td, 1);
	pb_u64(td, strlen(fmt));
	pb_put(td, fmt, strlen(fmt));
	pfile_build(&f, &out);
	assert_int_equal(run(&out, NULL, &g, &t), 0);
	assert_string_equal(pmu_trace_event(t, 0)->name, "sched:sched_switch");
	assert_string_equal(pmu_trace_event(t, 1)->name, "tracepoint:999");
	assert_int_equal(pmu_trace_info(t)->tracing_data_size, td->n);
	pmu_trace_close(t);
	free(out.b);
	pfile_free(&f);
}

/* Pipe mode: header records, EVENT_DESC naming, ID_INDEX, FINISHED_INIT. */
static void test_pipe_mode(void **state)
{
	struct pbuf p = { 0 }, rec = { 0 };
	uint8_t a[PERF_ATTR_SIZE_VER8];
	struct pmu_trace *t;
	struct got g;
	uint64_t hdr[2] = { PERF_FILE_MAGIC, PERF_PIPE_HEADER_SIZE };

	(void)state;
	pb_put(&p, hdr, 16);
	for (int i = 0; i < 2; i++) {
		attr_make(a, PERF_ATYPE_SW, (uint64_t)i, ST_BASIC | PERF_ST_ID, 0);
		rec_bytes(&p, PERF_REC_HEADER_ATTR, 0, a, sizeof(a));   /* no ids */
	}
	/* HEADER_FEATURE hostname, then EVENT_DESC naming the second event */
	pb_u64(&rec, HEADER_HOSTNAME);
	feat_string(&rec, "piped");
	rec_bytes(&p, PERF_REC_HEADER_FEATURE, 0, rec.b, rec.n);
	rec.n = 0;
	pb_u64(&rec, HEADER_EVENT_DESC);
	pb_u32(&rec, 2);
	pb_u32(&rec, sizeof(a));
	for (int i = 0; i < 2; i++) {
		pb_put(&rec, a, sizeof(a));
		pb_u32(&rec, 0);
		feat_string(&rec, i ? "my-second" : "my-first");
	}
	rec_bytes(&p, PERF_REC_HEADER_FEATURE, 0, rec.b, rec.n);
	uint64_t idx[] = { 2, 50, 0, 0, 0, 51, 1, 0, 0 };
	rec_words(&p, PERF_REC_ID_INDEX, 0, idx, 9);
	rec_words(&p, PERF_REC_FINISHED_INIT, 0, NULL, 0);
	uint64_t s[] = { 0x1, 1 | 1ull << 32, 20, 51, 1 }, s2[] = { 0x1, 1 | 1ull << 32, 10, 50, 1 };
	rec_words(&p, PERF_REC_SAMPLE, PERF_REC_MISC_USER, s, 5);
	rec_words(&p, PERF_REC_SAMPLE, PERF_REC_MISC_USER, s2, 5);
	assert_int_equal(run(&p, NULL, &g, &t), 0);
	assert_int_equal(pmu_trace_info(t)->format, PMU_TRACE_PERF_PIPE);
	assert_string_equal(pmu_trace_info(t)->hostname, "piped");
	assert_int_equal(pmu_trace_event_count(t), 2);
	assert_string_equal(pmu_trace_event(t, 1)->name, "my-second");
	assert_int_equal(g.n, 2);
	assert_int_equal(g.r[0].time, 10);
	assert_int_equal(g.r[0].event, 0);
	assert_int_equal(g.r[1].event, 1);
	pmu_trace_close(t);

	/* cut inside the last record: the first sample still comes, then the offset */
	struct pbuf cut = { p.b, p.n - 12, p.cap };
	char want[64];
	size_t last = p.n - 48;
	assert_int_equal(run(&cut, NULL, &g, NULL), PMU_EFORMAT);
	snprintf(want, sizeof(want), "offset %zu:", last);
	assert_non_null(strstr(pmu_error_detail(), want));
	assert_int_equal(g.n, 1);
	free(p.b);
	free(rec.b);
}

/* The detail names the offset of the damage; what came before is delivered. */
static void expect_damage(const struct pbuf *file, size_t off, size_t before, uint64_t skipped)
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

static void test_data_damage(void **state)
{
	struct pfile f;
	struct pbuf out;
	size_t data_at, rec2;

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&f.data, 1, 1, 10);
	sample(&f.data, 1, 1, 11);
	sample(&f.data, 1, 1, 12);
	pfile_build(&f, &out);
	data_at = out.n - f.data.n;
	rec2 = data_at + 40;

	/* a zero size */
	struct pbuf z = { malloc(out.n), out.n, out.n };
	memcpy(z.b, out.b, out.n);
	memset(z.b + rec2 + 6, 0, 2);
	expect_damage(&z, rec2, 1, f.data.n - 40);
	/* a size past the data section */
	memcpy(z.b, out.b, out.n);
	z.b[rec2 + 7] = 0x10;
	expect_damage(&z, rec2, 1, f.data.n - 40);
	/* the file cut inside the third record */
	memcpy(z.b, out.b, out.n);
	z.n = data_at + 80 + 12;
	expect_damage(&z, data_at + 80, 2, 12);
	/* cut exactly after the second: the data section said more */
	z.n = data_at + 80;
	expect_damage(&z, data_at + 80, 2, 0);
	free(z.b);
	free(out.b);
	pfile_free(&f);
}

/* A sample whose size disagrees with sample_type: skipped with a warning
 * naming its offset, counted; the read goes on. */
static void test_bad_sample_skipped(void **state)
{
	struct pfile f;
	struct pbuf out;
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	struct got g;
	uint64_t w[3] = { 1, 1, 1 };
	char want[64];

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&f.data, 1, 1, 10);
	rec_words(&f.data, PERF_REC_SAMPLE, 0, w, 3);
	sample(&f.data, 1, 1, 12);
	rec_words(&f.data, 200, 0, w, 1);      /* unknown kind: skipped, counted */
	pfile_build(&f, &out);
	PMU_OPTS(pmu_trace_opts, o, .warn = on_warn, .warn_ctx = &g);
	assert_int_equal(pb_write(&out, path), 0);
	memset(&g, 0, sizeof(g));
	assert_int_equal(pmu_trace_open(path, &o, &t), 0);
	assert_int_equal(pmu_trace_read(t, collect, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.warns, 1);
	snprintf(want, sizeof(want), "offset %zu:", out.n - f.data.n + 40);
	assert_non_null(strstr(g.warn, want));
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.bytes_skipped, 32);
	assert_int_equal(st.skipped, 1);
	pmu_trace_close(t);
	free(out.b);
	pfile_free(&f);
}

/* Header damage: open fails naming the offset. */
static void expect_open(const struct pbuf *file, int err, const char *want)
{
	struct pmu_trace *t;

	assert_int_equal(pb_write(file, path), 0);
	assert_int_equal(pmu_trace_open(path, NULL, &t), err);
	if (!strstr(pmu_error_detail(), want))
		fail_msg("expected \"%s\" in: %s", want, pmu_error_detail());
}

static void test_header_damage(void **state)
{
	struct pfile f;
	struct pbuf out, z;
	struct perf_file_header h;

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&f.data, 1, 1, 10);
	pfile_build(&f, &out);
	z = (struct pbuf){ malloc(out.n), out.n, out.n };

	memcpy(z.b, out.b, out.n);
	memcpy(&h, z.b, sizeof(h));
	h.attr_size = 7;
	memcpy(z.b, &h, sizeof(h));
	expect_open(&z, PMU_EFORMAT, "offset 16: attr_size 7");
	h.attr_size = 1ull << 40;
	memcpy(z.b, &h, sizeof(h));
	expect_open(&z, PMU_EFORMAT, "offset 16:");
	memcpy(&h, out.b, sizeof(h));
	h.attrs.size = h.attr_size * 1000000;
	memcpy(z.b, &h, sizeof(h));
	expect_open(&z, PMU_EFORMAT, "offset 24: the attrs section");
	/* the ids section of the attr points past the end */
	memcpy(z.b, out.b, out.n);
	pb_set64(&z, h.attrs.offset + PERF_ATTR_SIZE_VER8, out.n + 8);
	expect_open(&z, PMU_EFORMAT, "the ids section");
	/* the data section starts past the end */
	memcpy(z.b, out.b, out.n);
	memcpy(&h, out.b, sizeof(h));
	h.data.offset = out.n + 100;
	memcpy(z.b, &h, sizeof(h));
	expect_open(&z, PMU_EFORMAT, "offset 40: the data section");
	/* too short, and the other byte order */
	z.n = 50;
	memcpy(z.b, out.b, 50);
	expect_open(&z, PMU_EFORMAT, "offset 0: a 104-byte perf.data header");
	z.n = out.n;
	memcpy(z.b, out.b, out.n);
	memcpy(z.b, "2ELIFREP", 8);
	expect_open(&z, PMU_ENOTSUP, "other byte order");
	free(z.b);
	free(out.b);
	pfile_free(&f);
}

/* Feature damage is worked around: huge counts, sections outside the file. */
static void test_feature_damage(void **state)
{
	struct pfile f;
	struct pbuf out;
	struct pmu_trace *t;
	struct got g;

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&f.data, 1, 1, 10);
	f.has_feat[HEADER_CMDLINE] = 1;
	pb_u32(&f.feat[HEADER_CMDLINE], 0xffffffff);   /* a count no section holds */
	f.has_feat[HEADER_EVENT_DESC] = 1;
	pb_u32(&f.feat[HEADER_EVENT_DESC], 0xffffffff);
	pb_u32(&f.feat[HEADER_EVENT_DESC], 136);
	f.has_feat[HEADER_HOSTNAME] = 1;
	pb_u32(&f.feat[HEADER_HOSTNAME], 0x7fffffff);   /* a length past the section */
	f.has_feat[HEADER_BUILD_ID] = 1;
	uint64_t bogus[2] = { 0xffff000000000000ull, 0 };  /* an entry claiming 64 KiB */
	pb_put(&f.feat[HEADER_BUILD_ID], bogus, sizeof(bogus));
	pfile_build(&f, &out);
	assert_int_equal(run(&out, NULL, &g, &t), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.warns, 4);
	assert_non_null(strstr(g.warn, "offset "));
	assert_string_equal(pmu_trace_info(t)->hostname, "");
	assert_string_equal(pmu_trace_info(t)->cmdline, "");
	assert_string_equal(pmu_trace_event(t, 0)->name, "cpu-clock");
	pmu_trace_close(t);

	/* the feature table cut off: the records are still read */
	struct pbuf z = { out.b, out.n - 20, out.cap };
	assert_int_equal(run(&z, NULL, &g, NULL), 0);
	assert_int_equal(g.n, 1);
	assert_true(g.warns >= 1);
	free(out.b);
	pfile_free(&f);
}

static int stop_at_two(const struct pmu_record *rec, void *ctx)
{
	(void)rec;
	return ++*(int *)ctx == 2 ? 42 : 0;
}

static void test_callback_stops(void **state)
{
	struct pfile f;
	struct pbuf out;
	struct pmu_trace *t;
	int n = 0;

	(void)state;
	one_attr(&f, ST_BASIC);
	for (int i = 0; i < 5; i++)
		sample(&f.data, 1, 1, 10 + (uint64_t)i);
	pfile_build(&f, &out);
	assert_int_equal(pb_write(&out, path), 0);
	assert_int_equal(pmu_trace_open(path, NULL, &t), 0);
	assert_int_equal(pmu_trace_read(t, stop_at_two, &n), 42);
	assert_int_equal(n, 2);
	assert_int_equal(pmu_trace_read(t, stop_at_two, &n), PMU_EINVAL);
	pmu_trace_close(t);
	free(out.b);
	pfile_free(&f);
}

#if defined(__has_include)
#if __has_include(<zstd.h>)
#include <zstd.h>
#define HAVE_ZSTD_H 1
#endif
#endif

/* COMPRESSED records, one sample split across two of them. */
static void test_compressed(void **state)
{
#ifdef HAVE_ZSTD_H
	struct pfile f;
	struct pbuf plain = { 0 }, out;
	struct got g;
	uint8_t z[4096];

	(void)state;
	one_attr(&f, ST_BASIC);
	for (int i = 0; i < 3; i++)
		sample(&plain, 0x1000, 3, 100 + (uint64_t)i);
	size_t cut = 40 + 13;
	for (int part = 0; part < 2; part++) {
		const uint8_t *src = plain.b + (part ? cut : 0);
		size_t n = part ? plain.n - cut : cut;
		size_t zn = ZSTD_compress(z, sizeof(z), src, n, 1);
		assert_false(ZSTD_isError(zn));
		/* as perf writes it: the frame, no padding */
		struct perf_rec_header h = { PERF_REC_COMPRESSED, 0, (uint16_t)(8 + zn) };
		pb_put(&f.data, &h, sizeof(h));
		pb_put(&f.data, z, zn);
	}
	pfile_build(&f, &out);
	assert_int_equal(run(&out, NULL, &g, NULL), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.r[2].time, 102);
	free(plain.b);
	free(out.b);
	pfile_free(&f);
#else
	(void)state;
	skip();
#endif
}

/* Every side record of the model, with sample_id_all trailers (TID, TIME); an
 * AUXTRACE record's trailing data is stepped over. */
static void test_side_records(void **state)
{
	struct pfile f;
	struct pbuf out;
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	struct got g;
	const uint64_t pt = 9 | 9ull << 32;

	(void)state;
	one_attr(&f, ST_BASIC);
	uint64_t lost[] = { 7, 5, pt, 1 }, lsamp[] = { 3, pt, 2 }, thr[] = { 3, 7, 0, pt, 3 };
	uint64_t fork[] = { 9 | 1ull << 32, 10 | 1ull << 32, 4, pt, 4 }, sw[] = { 12 | 13ull << 32, pt, 5 };
	rec_words(&f.data, PERF_REC_LOST, 0, lost, 4);
	rec_words(&f.data, PERF_REC_LOST_SAMPLES, 0, lsamp, 3);
	rec_words(&f.data, PERF_REC_THROTTLE, 0, thr, 5);
	rec_words(&f.data, PERF_REC_UNTHROTTLE, 0, thr, 5);
	rec_words(&f.data, PERF_REC_FORK, 0, fork, 5);
	rec_words(&f.data, PERF_REC_EXIT, 0, fork, 5);
	rec_words(&f.data, PERF_REC_SWITCH_CPU_WIDE, PERF_REC_MISC_SWITCH_OUT, sw, 3);
	/* AUXTRACE {size 16, offset, reference, idx|tid, cpu|res} + 16 bytes of trace */
	uint64_t aux[] = { 16, 0, 0, 0, 0, 0xdead, 0xbeef };
	rec_words(&f.data, PERF_REC_AUXTRACE, 0, aux, 5);
	pb_put(&f.data, &aux[5], 16);
	/* MMAP2 with a build-id: {pid|tid, start, len, pgoff, size+res, id[20], prot, flags, name} */
	uint64_t m2[14] = { pt, 0x400000, 0x1000, 0, 20 };
	memset((uint8_t *)&m2[4] + 4, 0xcd, 20);
	memcpy(&m2[8], "/bin/x", 7);
	m2[10] = pt;
	m2[11] = 6;
	rec_words(&f.data, PERF_REC_MMAP2, PERF_REC_MISC_USER | PERF_REC_MISC_MMAP_BUILD_ID, m2, 12);
	pfile_build(&f, &out);
	assert_int_equal(run(&out, NULL, &g, &t), 0);
	assert_int_equal(g.n, 8);
	int kinds[] = { PMU_RECORD_LOST, PMU_RECORD_LOST, PMU_RECORD_THROTTLE,
			PMU_RECORD_UNTHROTTLE, PMU_RECORD_FORK, PMU_RECORD_EXIT, PMU_RECORD_SWITCH,
			PMU_RECORD_MMAP };
	for (int i = 0; i < 8; i++)
		assert_int_equal(g.r[i].kind, kinds[i]);
	assert_int_equal(g.r[0].event, 0);     /* by the LOST record's id */
	assert_int_equal(g.r[7].bid, 20);
	assert_int_equal(g.r[7].pid, 9);
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.lost, 5);
	assert_int_equal(st.lost_samples, 3);
	assert_int_equal(st.throttles, 1);
	assert_int_equal(st.skipped, 1);
	assert_int_equal(st.bytes_skipped, 0);
	pmu_trace_close(t);
	free(out.b);
	pfile_free(&f);
}

/* Pipe mode: a HEADER_BUILD_ID record names the build-id of a later mmap;
 * EVENT_UPDATE names an event without EVENT_DESC. */
static void test_pipe_build_id(void **state)
{
	struct pbuf p = { 0 };
	uint8_t a[PERF_ATTR_SIZE_VER8], bid[36 + 64] = { 0 };
	struct perf_rec_header bh = { PERF_REC_HEADER_BUILD_ID, PERF_REC_MISC_USER, sizeof(bid) };
	uint64_t hdr[2] = { PERF_FILE_MAGIC, PERF_PIPE_HEADER_SIZE }, ids[] = { 77 };
	int32_t pid = 4;
	struct pmu_trace *t;
	struct got g;

	(void)state;
	pb_put(&p, hdr, 16);
	attr_make(a, PERF_ATYPE_RAW, 0x1234, ST_BASIC, PERF_AF_SAMPLE_ID_ALL);
	struct perf_rec_header ah = { PERF_REC_HEADER_ATTR, 0, sizeof(a) + 16 + 8 };
	pb_put(&p, &ah, 8);
	pb_put(&p, a, sizeof(a));
	pb_put(&p, ids, 8);
	pb_u64(&p, 0);                          /* a second id, 0 */
	memcpy(bid, &bh, sizeof(bh));
	memcpy(bid + 8, &pid, 4);
	memset(bid + 12, 0xee, 20);
	strcpy((char *)bid + 36, "/bin/y");
	pb_put(&p, bid, sizeof(bid));
	uint64_t upd[] = { 2, 77, 0 };
	memcpy(&upd[2], "renamed", 8);
	rec_words(&p, PERF_REC_EVENT_UPDATE, 0, upd, 3);
	mmap_rec(&p, PERF_REC_MISC_USER, 4, "/bin/y", 1);
	mmap_rec(&p, PERF_REC_MISC_USER, 5, "/bin/y", 2);   /* another pid: no match */
	assert_int_equal(run(&p, NULL, &g, &t), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.r[0].bid, 20);
	assert_int_equal(g.r[1].bid, 0);
	assert_string_equal(pmu_trace_event(t, 0)->name, "renamed");
	assert_int_equal(pmu_trace_build_id_count(t), 1);
	assert_int_equal(pmu_trace_build_id(t, 0)->pid, 4);
	pmu_trace_close(t);
	free(p.b);
}

/* A pipe with one attr and a sample, then what the caller appends. */
static void pipe_start(struct pbuf *p)
{
	uint64_t hdr[2] = { PERF_FILE_MAGIC, PERF_PIPE_HEADER_SIZE };
	uint8_t a[PERF_ATTR_SIZE_VER8];

	memset(p, 0, sizeof(*p));
	pb_put(p, hdr, 16);
	attr_make(a, PERF_ATYPE_SW, 0, ST_BASIC, 0);
	rec_bytes(p, PERF_REC_HEADER_ATTR, 0, a, sizeof(a));
	sample(p, 1, 1, 10);
}

/* Pipe-mode damage: the offset in the detail, the sample before delivered. */
static void test_pipe_damage(void **state)
{
	struct pbuf p;
	size_t at;
	uint8_t junk[24];

	(void)state;
	/* tracing data that ends before its size */
	pipe_start(&p);
	at = p.n;
	struct perf_rec_header th = { PERF_REC_HEADER_TRACING_DATA, 0, 12 };
	pb_put(&p, &th, 8);
	pb_u32(&p, 100);
	pb_put(&p, "0123456789", 10);
	expect_damage(&p, at, 1, 12 + 10);
	assert_non_null(strstr(pmu_error_detail(), "tracing data ends"));
	free(p.b);

	/* AUX trace data that ends before its size */
	pipe_start(&p);
	at = p.n;
	uint64_t aux[] = { 64, 0, 0, 0, 0 };
	rec_words(&p, PERF_REC_AUXTRACE, 0, aux, 5);
	pb_put(&p, "abc", 3);
	expect_damage(&p, at, 1, 48 + 3);
	free(p.b);

	/* a header cut short */
	pipe_start(&p);
	at = p.n;
	pb_put(&p, "\x09\0\0", 3);
	expect_damage(&p, at, 1, 3);
	assert_non_null(strstr(pmu_error_detail(), "record header (8 bytes)"));
	free(p.b);

	/* garbage as a compressed record: skipped with a warning, the read goes on */
	pipe_start(&p);
	at = p.n;
	memset(junk, 0x5a, sizeof(junk));
	rec_bytes(&p, PERF_REC_COMPRESSED, 0, junk, sizeof(junk));
	sample(&p, 1, 1, 11);
	struct got g;
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	char want[64];
	int err = run(&p, NULL, &g, &t);
#ifdef HAVE_ZSTD_H
	assert_int_equal(err, 0);
	assert_int_equal(g.n, 2);
	snprintf(want, sizeof(want), "offset %zu:", at);
	assert_non_null(strstr(g.warn, want));
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.bytes_skipped, 8 + sizeof(junk));
#else
	assert_int_equal(err, PMU_ENOTSUP);
	(void)want;
	(void)st;
#endif
	pmu_trace_close(t);
	free(p.b);

	/* an attr record too short for an attr: the open names it */
	memset(&p, 0, sizeof(p));
	uint64_t hdr[2] = { PERF_FILE_MAGIC, PERF_PIPE_HEADER_SIZE }, w[2] = { 0 };
	pb_put(&p, hdr, 16);
	rec_words(&p, PERF_REC_HEADER_ATTR, 0, w, 2);
	expect_open(&p, PMU_EFORMAT, "offset 16: an attr record of 24 bytes");
	free(p.b);
}

#ifdef HAVE_ZSTD_H
/* A zero-size record inside the compressed stream. */
static void test_compressed_damage(void **state)
{
	struct pfile f;
	struct pbuf plain = { 0 }, out;
	uint8_t z[1024];
	size_t zn, at;

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&plain, 0x1000, 3, 100);
	pb_u64(&plain, PERF_REC_SAMPLE);        /* type 9, size 0 */
	zn = ZSTD_compress(z, sizeof(z), plain.b, plain.n, 1);
	assert_false(ZSTD_isError(zn));
	struct perf_rec_header h = { PERF_REC_COMPRESSED, 0, (uint16_t)(8 + zn) };
	pb_put(&f.data, &h, sizeof(h));
	pb_put(&f.data, z, zn);
	pfile_build(&f, &out);
	at = out.n - f.data.n;
	expect_damage(&out, at, 1, 8);
	assert_non_null(strstr(pmu_error_detail(), "compressed record holds"));
	free(plain.b);
	free(out.b);
	pfile_free(&f);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_mode),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_identifier),
		cmocka_unit_test(test_tracepoint_names),
		cmocka_unit_test(test_pipe_mode),
		cmocka_unit_test(test_data_damage),
		cmocka_unit_test(test_bad_sample_skipped),
		cmocka_unit_test(test_header_damage),
		cmocka_unit_test(test_feature_damage),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_side_records),
		cmocka_unit_test(test_pipe_build_id),
		cmocka_unit_test(test_pipe_damage),
#ifdef HAVE_ZSTD_H
		cmocka_unit_test(test_compressed_damage),
#endif
	};
	int ret;

	snprintf(path, sizeof(path), "/tmp/test_perf_read_%d.data", (int)getpid());
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return ret;
}
