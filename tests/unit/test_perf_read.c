/* SPDX-License-Identifier: MIT */
/* The perf.data reader on files built byte by byte: file and pipe mode, ids to
 * events, time order (rounds, window, late records), features, names, every
 * side record, compressed records. Damage: test_perf_read_damage.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "formats/perf_read_int.h"
#include "perf_read_check.h"

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
	sample(&f.data, 1, 1, 0);      /* time 0 (perf synthesized it): keeps its place */
	pfile_build(&f, &out);
	PMU_OPTS(pmu_trace_opts, o, .reorder_window_ns = 100);
	assert_int_equal(run(&out, &o, &g, &t), 0);
	assert_int_equal(g.n, 5);
	assert_int_equal(g.r[0].time, 1000);
	assert_int_equal(g.r[1].time, 1500);
	assert_int_equal(g.r[2].time, 900);
	assert_int_equal(g.r[3].time, 2000);
	assert_int_equal(g.r[4].time, 0);
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.out_of_order, 1);
	pmu_trace_close(t);
	/* by default all are held until a round or the end: time order, none late */
	assert_int_equal(run(&out, NULL, &g, NULL), 0);
	assert_int_equal(g.r[0].time, 900);
	assert_int_equal(g.r[3].time, 2000);
	assert_int_equal(g.r[4].time, 0);
	free(out.b);
	pfile_free(&f);
}

/* perf record -z flushes a ring only when it holds enough, so the first round
 * can hold one ring's records over many seconds, then the other ring's older
 * ones: nothing may go out before the round ends, whatever the time span. */
static void test_long_first_round(void **state)
{
	const uint64_t s = 1000000000ull;
	struct pfile f;
	struct pbuf out;
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	struct got g;

	(void)state;
	one_attr(&f, ST_BASIC);
	for (uint64_t i = 0; i < 4; i++)       /* ring 0: pid 10 over 3 s */
		sample(&f.data, 0x401000, 10, 10 * s + i * s);
	mmap_rec(&f.data, PERF_REC_MISC_USER, 11, "/bin/w", 10 * s + 1);  /* ring 1 */
	for (uint64_t i = 0; i < 4; i++)
		sample(&f.data, 0x401000, 11, 10 * s + 2 + i * s);
	round_rec(&f.data);
	sample(&f.data, 0x401000, 10, 14 * s);
	round_rec(&f.data);
	pfile_build(&f, &out);
	assert_int_equal(run(&out, NULL, &g, &t), 0);
	assert_int_equal(g.n, 10);
	for (size_t i = 1; i < g.n; i++)
		assert_true(g.r[i].time >= g.r[i - 1].time);
	assert_int_equal(g.r[1].kind, PMU_RECORD_MMAP);
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.out_of_order, 0);
	pmu_trace_close(t);
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

/* Names as perf 6.1 gives them without EVENT_DESC: modifiers (checked
 * against perf script on stripped files: cpu-clock:u is named cpu-clock:uH),
 * dynamic PMUs by HEADER_PMU_MAPPINGS. */
static void test_modifier_names(void **state)
{
	static const struct { uint32_t type; uint64_t config, flags; const char *name; } c[] = {
		{ PERF_ATYPE_HW, 0, PERF_AF_EXCLUDE_KERNEL | PERF_AF_EXCLUDE_HV, "cycles:uH" },
		{ PERF_ATYPE_HW, 1, PERF_AF_EXCLUDE_USER, "instructions:khH" },
		{ PERF_ATYPE_HW, 0, 2ull << PERF_AF_PRECISE_SHIFT, "cycles:ppH" },
		{ PERF_ATYPE_SW, 9, PERF_AF_EXCLUDE_GUEST, "dummy:HG" },  /* guest not excluded */
		{ PERF_ATYPE_SW, 1, 0, "task-clock" },
		{ 9, 0x3, 0, "msr/config=0x3/" },
		{ 77, 0x1, 0, "type77/config=0x1/" },
	};
	const size_t n = sizeof(c) / sizeof(c[0]);
	struct pfile f;
	struct pbuf out;
	struct pmu_trace *t;
	struct got g;

	(void)state;
	memset(&f, 0, sizeof(f));
	for (size_t i = 0; i < n; i++)
		attr_make(f.attrs[i], c[i].type, c[i].config, ST_BASIC, c[i].flags);
	f.nr_attrs = n;
	f.has_feat[HEADER_PMU_MAPPINGS] = 1;
	pb_u32(&f.feat[HEADER_PMU_MAPPINGS], 1);
	pb_u32(&f.feat[HEADER_PMU_MAPPINGS], 9);
	feat_string(&f.feat[HEADER_PMU_MAPPINGS], "msr");
	pfile_build(&f, &out);
	assert_int_equal(run(&out, NULL, &g, &t), 0);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(pmu_trace_event(t, i)->name, c[i].name);
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

#define HEAP_N 3000

struct arrival {
	uint64_t time;
	int32_t pid;		/* the sample's place in the file */
};

struct arrivals {
	struct arrival a[HEAP_N];
	size_t n;
};

static int collect_arrival(const struct pmu_record *rec, void *ctx)
{
	struct arrivals *g = ctx;

	if (rec->kind == PMU_RECORD_SAMPLE && g->n < HEAP_N)
		g->a[g->n++] = (struct arrival){ rec->time, rec->pid };
	return 0;
}

static int cmp_arrival(const void *x, const void *y)
{
	const struct arrival *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* The time-order heap on thousands of records with many equal times: out in
 * time order, equal times in file order; with rounds (each round's times past
 * the one before's), the same order and none late. */
static void test_heap_order(void **state)
{
	static struct arrivals want, got;

	(void)state;
	for (int rounds = 0; rounds < 2; rounds++) {
		struct pfile f;
		struct pbuf out;
		struct pmu_trace *t;
		struct pmu_trace_stats st;
		uint64_t x = 88172645463325252ull;

		one_attr(&f, ST_BASIC);
		for (int32_t i = 0; i < HEAP_N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
			uint64_t time = 1 + x % 300 + (rounds ? 1000 * (uint64_t)(i / 250) : 0);
			sample(&f.data, 0x401000, i, time);
			want.a[i] = (struct arrival){ time, i };
			if (rounds && i % 250 == 249)
				round_rec(&f.data);
		}
		pfile_build(&f, &out);
		qsort(want.a, HEAP_N, sizeof(want.a[0]), cmp_arrival);
		assert_int_equal(pb_write(&out, path), 0);
		assert_int_equal(pmu_trace_open(path, NULL, &t), 0);
		got.n = 0;
		assert_int_equal(pmu_trace_read(t, collect_arrival, &got), 0);
		assert_int_equal(got.n, HEAP_N);
		for (size_t i = 0; i < HEAP_N; i++) {
			assert_int_equal(got.a[i].time, want.a[i].time);
			assert_int_equal(got.a[i].pid, want.a[i].pid);
		}
		assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
		assert_int_equal(st.out_of_order, 0);
		pmu_trace_close(t);
		free(out.b);
		pfile_free(&f);
	}
}

/* The reader's read-ahead block. */
#define BLOCK PERF_IBUF

/* A record of type PAD_TYPE (one the reader skips, counted) of size bytes. */
#define PAD_TYPE 120

static void pad_rec(struct pbuf *p, size_t size)
{
	struct perf_rec_header h = { PAD_TYPE, 0, (uint16_t)size };
	static const uint8_t zero[65536];

	pb_put(p, &h, sizeof(h));
	pb_put(p, zero, size - 8);
}

/* The data section of test_blocks: where each of its samples starts, and the
 * records the reader skips. */
struct block_file {
	struct pfile f;
	size_t at[HEAP_N];          /* sample i's offset in the data section */
	size_t aux_at, n_skip;
};

/* Samples through three read-ahead blocks and more: an AUXTRACE record whose
 * header straddles the first block's end and whose trace data (600000 bytes)
 * is longer than two blocks, a record of 12 bytes after which every record is
 * off the 8-byte grid, then one of 65524 bytes that puts them back, and
 * records of 65528 bytes (the largest a 16-bit size allows) among them. */
static void block_file(struct block_file *b)
{
	static const uint8_t trace[600000];
	struct pbuf *d = &b->f.data;
	uint64_t aux[] = { sizeof(trace), 0, 0, 0, 0 };
	struct perf_rec_header odd = { PAD_TYPE, 0, 12 };
	uint32_t four = 0;
	int32_t i = 0;

	one_attr(&b->f, ST_BASIC);
	b->n_skip = 0;
	b->at[i] = d->n;
	sample(d, 0x401000, i, (uint64_t)i + 1), i++;
	while (d->n + 65528 + 8 < BLOCK - 24)
		pad_rec(d, 65528), b->n_skip++;
	assert_in_range(BLOCK - 24 - d->n, 8, 65528);
	pad_rec(d, BLOCK - 24 - d->n), b->n_skip++;
	b->aux_at = d->n;	/* 24 bytes of its 48 in the first block */
	rec_words(d, PERF_REC_AUXTRACE, 0, aux, 5), b->n_skip++;
	pb_put(d, trace, sizeof(trace));
	b->at[i] = d->n;
	sample(d, 0x401000, i, (uint64_t)i + 1), i++;
	pb_put(d, &odd, sizeof(odd)), b->n_skip++;
	pb_put(d, &four, sizeof(four));
	for (; i < 1000; i++) {
		b->at[i] = d->n;
		sample(d, 0x401000, i, (uint64_t)i + 1);
		if (i % 300 == 0)
			pad_rec(d, 65528), b->n_skip++;
	}
	pad_rec(d, 65524), b->n_skip++;	/* back on the grid */
	for (; i < HEAP_N; i++) {
		b->at[i] = d->n;
		sample(d, 0x401000, i, (uint64_t)i + 1);
		if (i % 500 == 0)
			pad_rec(d, 65528), b->n_skip++;
	}
}

/* File mode reads the data section ahead in blocks: records across a block's
 * end, longer than what is left of it, trace data past several blocks and
 * records off the 8-byte grid all come out whole and in order; a file cut
 * inside the second or third block names the offset of the record it cut,
 * delivers the records before it and counts the bytes of the cut one. */
static void test_blocks(void **state)
{
	static struct block_file b;
	static struct arrivals got;
	struct pbuf out;
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	uint64_t data_off;

	(void)state;
	block_file(&b);
	pfile_build(&b.f, &out);
	memcpy(&data_off, out.b + 40, 8);
	assert_int_equal(pb_write(&out, path), 0);
	assert_int_equal(pmu_trace_open(path, NULL, &t), 0);
	got.n = 0;
	assert_int_equal(pmu_trace_read(t, collect_arrival, &got), 0);
	assert_int_equal(got.n, HEAP_N);
	for (size_t i = 0; i < HEAP_N; i++)
		assert_int_equal(got.a[i].pid, i);
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.samples, HEAP_N);
	assert_int_equal(st.skipped, b.n_skip);
	assert_int_equal(st.bytes_skipped, 0);
	pmu_trace_close(t);

	/* cuts: in the trace data, in a sample off the grid, in a late sample */
	size_t cut_rec[][2] = { { b.aux_at, b.aux_at + 400000 }, { b.at[500], b.at[500] + 20 },
				{ b.at[2900], b.at[2900] + 3 } };
	size_t before[] = { 1, 500, 2900 };
	size_t full = out.n;
	for (size_t c = 0; c < 3; c++) {
		char want[64];

		out.n = (size_t)data_off + cut_rec[c][1];
		assert_int_equal(pb_write(&out, path), 0);
		assert_int_equal(pmu_trace_open(path, NULL, &t), 0);
		got.n = 0;
		assert_int_equal(pmu_trace_read(t, collect_arrival, &got), PMU_EFORMAT);
		snprintf(want, sizeof(want), "offset %llu:",
			 (unsigned long long)(data_off + cut_rec[c][0]));
		if (!strstr(pmu_error_detail(), want))
			fail_msg("expected \"%s\" in: %s", want, pmu_error_detail());
		assert_int_equal(got.n, before[c]);
		assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
		assert_int_equal(st.bytes_skipped, cut_rec[c][1] - cut_rec[c][0]);
		pmu_trace_close(t);
	}
	out.n = full;
	free(out.b);
	pfile_free(&b.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_mode),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_long_first_round),
		cmocka_unit_test(test_heap_order),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_identifier),
		cmocka_unit_test(test_tracepoint_names),
		cmocka_unit_test(test_modifier_names),
		cmocka_unit_test(test_pipe_mode),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_side_records),
		cmocka_unit_test(test_pipe_build_id),
	};
	int ret;

	snprintf(path, sizeof(path), "/tmp/test_perf_read_%d.data", (int)getpid());
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return ret;
}
