/* SPDX-License-Identifier: MIT */
/* The record report on synthetic pmu_record streams: aggregation and
 * percentages, names, module+offset frames, a plugged-in resolver, collapsed
 * and perf-script text (exact), CPU time and counters from SWITCH, losses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/json.h>
#include <pmukit/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

static struct pmu_record rec(enum pmu_record_kind kind, int32_t pid, int32_t tid, uint64_t time)
{
	struct pmu_record r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.has = PMU_HAS_TID | PMU_HAS_TIME;
	r.pid = pid, r.tid = tid, r.time = time, r.cpu = -1, r.event = -1;
	return r;
}

static void add(struct pmu_report *rp, const struct pmu_record *r)
{
	assert_int_equal(pmu_report_record(r, rp), 0);
}

static void comm(struct pmu_report *rp, int32_t pid, int32_t tid, const char *name)
{
	struct pmu_record r = rec(PMU_RECORD_COMM, pid, tid, 1);

	snprintf(r.comm.name, sizeof(r.comm.name), "%s", name);
	if (strlen(name) >= sizeof(r.comm.name))
		r.comm.long_name = name;
	add(rp, &r);
}

static void mmap_rec(struct pmu_report *rp, int32_t pid, uint64_t start, uint64_t len,
		     const char *path, int pdb)
{
	struct pmu_record r = rec(PMU_RECORD_MMAP, pid, pid, 2);

	r.mmap.start = start, r.mmap.len = len, r.mmap.path = path;
	if (pdb) {
		for (int i = 0; i < 20; i++)
			r.mmap.build_id[i] = (uint8_t)(i + 1);
		r.mmap.build_id_size = 20;
		r.mmap.build_id_kind = PMU_BUILD_ID_PDB;
	}
	add(rp, &r);
}

static void sample(struct pmu_report *rp, int32_t pid, int32_t tid, int32_t cpu, uint64_t time,
		   const uint64_t *chain, uint32_t n, uint32_t nk)
{
	struct pmu_record r = rec(PMU_RECORD_SAMPLE, pid, tid, time);

	r.has |= PMU_HAS_CPU | PMU_HAS_IP | PMU_HAS_PERIOD | (n > 1 ? PMU_HAS_CALLCHAIN : 0);
	r.cpu = cpu;
	r.event = 0;
	r.sample.ip = chain[0];
	r.sample.period = 1000000;
	if (n > 1) {
		r.sample.callchain = chain;
		r.sample.nr_callchain = n;
		r.sample.nr_kernel_frames = nk;
	}
	add(rp, &r);
}

/* app (pid 10): libx.so at 0x1000, a kernel image for every process. */
static struct pmu_report *scenario(const struct pmu_report_opts *o)
{
	static const uint64_t a[] = { 0x1100, 0x1200 }, k[] = { 0xffff0010, 0x1300 },
		u[] = { 0x9999 };
	struct pmu_report *rp;

	assert_int_equal(pmu_report_new(o, &rp), 0);
	comm(rp, 10, 10, "app");
	comm(rp, 10, 11, "worker thread with a long name");
	mmap_rec(rp, 10, 0x1000, 0x1000, "/usr/lib/libx.so", 0);
	mmap_rec(rp, -1, 0xffff0000, 0x10000, "C:\\Windows\\ntoskrnl.exe", 1);
	for (int i = 0; i < 3; i++)
		sample(rp, 10, 11, i & 1, 1000000000ull + 1000 * i, a, 2, 0);
	sample(rp, 10, 10, 1, 1000005000ull, k, 2, 1);
	sample(rp, 10, 10, 0, 1000006000ull, u, 1, 0);
	return rp;
}

static const char *const events[] = { "cpu-clock" };

static void test_aggregation(void **state)
{
	PMU_OPTS(pmu_report_opts, o, .event_names = events, .nr_events = 1);
	struct pmu_report *rp = scenario(&o);
	struct pmu_report_summary s;
	struct pmu_report_row w;
	(void)state;

	pmu_report_summary(rp, &s, sizeof(s));
	assert_int_equal(s.samples, 5);
	assert_int_equal(s.period, 5000000);
	assert_int_equal(s.with_callchain, 4);
	assert_int_equal(s.threads, 2);
	assert_int_equal(s.processes, 1);

	assert_int_equal(pmu_report_count(rp, PMU_REPORT_SYM), 3);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_SYM, 0, &w), 0);
	assert_string_equal(w.name, "libx.so!+0x100");
	assert_string_equal(w.module, "/usr/lib/libx.so");
	assert_int_equal(w.samples, 3);
	assert_true(w.percent > 59.99 && w.percent < 60.01);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_SYM, 1, &w), 0);
	assert_string_equal(w.name, "ntoskrnl.exe!+0x10");
	assert_string_equal(w.build_id, "0403020106050807090A0B0C0D0E0F1014131211");
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_SYM, 2, &w), 0);
	assert_string_equal(w.name, "0x9999");
	assert_string_equal(w.module, "");
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_SYM, 3, &w), PMU_ERANGE);

	assert_int_equal(pmu_report_count(rp, PMU_REPORT_MODULE), 3);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_MODULE, 2, &w), 0);
	assert_string_equal(w.name, "[unknown]");
	assert_int_equal(w.samples, 1);

	assert_int_equal(pmu_report_count(rp, PMU_REPORT_TID), 2);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_TID, 0, &w), 0);
	assert_int_equal(w.tid, 11);
	assert_string_equal(w.name, "worker thread with a long name");
	assert_string_equal(w.process, "app");
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_TID, 1, &w), 0);
	assert_string_equal(w.name, "app");
	assert_true(w.percent > 39.99 && w.percent < 40.01);

	assert_int_equal(pmu_report_count(rp, PMU_REPORT_CPU), 2);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_CPU, 0, &w), 0);
	assert_int_equal(w.cpu, 0);
	assert_int_equal(w.samples, 3);
	assert_string_equal(w.name, "cpu0");

	enum pmu_report_sort by;
	assert_int_equal(pmu_report_sort_parse("pid", &by), 0);
	assert_int_equal(by, PMU_REPORT_PID);
	assert_int_equal(pmu_report_sort_parse("dso", &by), PMU_EINVAL);
	pmu_report_free(rp);
}

/* Linux cuts comm at 15 bytes, in the middle of a character if need be: the
 * report names the thread with the whole characters only. */
static void test_comm_cut_mid_character(void **state)
{
	static const uint64_t ip[] = { 0x1100 };
	PMU_OPTS(pmu_report_opts, o);
	struct pmu_report *rp;
	struct pmu_report_row w;
	(void)state;

	assert_int_equal(pmu_report_new(&o, &rp), 0);
	comm(rp, 10, 10, "abcdefghijkl\xe2\x82");	/* 12 + 2 of U+20AC's 3 bytes */
	comm(rp, 10, 11, "abcdefghijklm\xc3\xa9");	/* 15 bytes, whole */
	sample(rp, 10, 10, 0, 1000, ip, 1, 0);
	sample(rp, 10, 11, 0, 2000, ip, 1, 0);
	sample(rp, 10, 11, 0, 3000, ip, 1, 0);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_TID, 1, &w), 0);
	assert_string_equal(w.name, "abcdefghijkl");
	assert_string_equal(w.process, "abcdefghijkl");
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_TID, 0, &w), 0);
	assert_string_equal(w.name, "abcdefghijklm\xc3\xa9");
	pmu_report_free(rp);
}

/* The cut every name truncation goes through (report, .etl records and
 * TraceLogging names and values). */
static void test_utf8_whole(void **state)
{
	const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";	/* a, U+E9, U+20AC, U+1F600 */
	(void)state;

	assert_int_equal(pmuk_utf8_whole(s, 0), 0);
	assert_int_equal(pmuk_utf8_whole(s, 1), 1);
	assert_int_equal(pmuk_utf8_whole(s, 2), 1);
	assert_int_equal(pmuk_utf8_whole(s, 3), 3);
	assert_int_equal(pmuk_utf8_whole(s, 4), 3);
	assert_int_equal(pmuk_utf8_whole(s, 5), 3);
	assert_int_equal(pmuk_utf8_whole(s, 6), 6);
	for (size_t n = 7; n < 10; n++)
		assert_int_equal(pmuk_utf8_whole(s, n), 6);
	assert_int_equal(pmuk_utf8_whole(s, 10), 10);
	assert_int_equal(pmuk_utf8_whole("ab\x80\x80", 4), 4);	/* not UTF-8: kept */
	assert_int_equal(pmuk_utf8_whole("\x80\x80", 2), 2);
}

static char *capture(struct pmu_report *rp, int what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (what == 0)
		assert_int_equal(pmu_report_write_collapsed(rp, f), 0);
	else if (what == 1)
		assert_int_equal(pmu_report_write_text(rp, f, PMU_REPORT_SYM, 0), 0);
	else
		assert_int_equal(pmu_report_write_json(rp, f, PMU_JSON_PRETTY), 0);
	fclose(f);
	return buf;
}

/* pmu_report_write_json follows pmukit/json.h: flags choose the layout, an
 * unknown bit is refused, the row limit is the report's (opts.limit). */
static void test_json_flags_and_limit(void **state)
{
	PMU_OPTS(pmu_report_opts, o, .event_names = events, .nr_events = 1, .limit = 1);
	struct pmu_report *rp = scenario(&o);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;

	assert_non_null(f);
	assert_int_equal(pmu_report_write_json(rp, f, 0), 0);
	fflush(f);
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	assert_true(len > 10 && lines <= 1);	/* 0: one line (JSON Lines) */
	assert_int_equal(pmu_report_write_json(rp, f, 0x80), PMU_EINVAL);
	fclose(f);
	/* one row of "top" (libx.so!+0x100), though three symbols were sampled */
	assert_non_null(strstr(buf, "libx.so!+0x100"));
	assert_null(strstr(buf, "0x9999"));
	free(buf);
	pmu_report_free(rp);
	rp = scenario(NULL);	/* opts.limit 0: every row */
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(pmu_report_write_json(rp, f, PMU_JSON_PRETTY), 0);
	fclose(f);
	assert_non_null(strstr(buf, "0x9999"));
	free(buf);
	pmu_report_free(rp);
}

static void test_collapsed(void **state)
{
	struct pmu_report *rp = scenario(NULL);
	(void)state;

	char *out = capture(rp, 0);
	assert_string_equal(out,
		"app;0x9999 1\n"
		"app;libx.so!+0x200;libx.so!+0x100 3\n"
		"app;libx.so!+0x300;ntoskrnl.exe!+0x10 1\n");
	free(out);
	out = capture(rp, 1);
	assert_non_null(strstr(out, "# samples: 5, period: 5000000, lost: 0, with stacks: 4\n"));
	assert_non_null(strstr(out, "    60.00%         3  libx.so                  libx.so!+0x100\n"));
	free(out);
	out = capture(rp, 2);
	assert_non_null(strstr(out, "\"top\": ["));
	assert_non_null(strstr(out, "\"symbol\": \"libx.so!+0x100\""));
	assert_non_null(strstr(out, "\"percent\": 60"));
	free(out);
	pmu_report_free(rp);
}

static const char *resolve(const struct pmu_report_module *m, uint64_t addr, void *ctx)
{
	(void)ctx;
	if (m && !strcmp(m->path, "/usr/lib/libx.so") && addr >= 0x1100 && addr < 0x1180)
		return "func_a";
	return NULL;
}

static void test_script_and_resolver(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	PMU_OPTS(pmu_report_opts, o, .resolve = resolve, .script = f,
		 .event_names = events, .nr_events = 1, .time_zero = 500000000);
	(void)state;

	struct pmu_report *rp = scenario(&o);
	fclose(f);
	/* the first and the last two samples */
	const char *first =
		"worker thread with a long name    10/11    [000]     0.500000:    1000000 cpu-clock: \n"
		"\t            1100 func_a (/usr/lib/libx.so)\n"
		"\t            1200 [unknown] (/usr/lib/libx.so)\n"
		"\n";
	const char *last =
		"app    10/10    [001]     0.500005:    1000000 cpu-clock: \n"
		"\t        ffff0010 [unknown] (C:\\Windows\\ntoskrnl.exe)\n"
		"\t            1300 [unknown] (/usr/lib/libx.so)\n"
		"\n"
		"app    10/10    [000]     0.500006:    1000000 cpu-clock: \n"
		"\t            9999 [unknown] ([unknown])\n"
		"\n";
	assert_memory_equal(buf, first, strlen(first));
	assert_string_equal(buf + strlen(buf) - strlen(last), last);
	free(buf);
	char *out = capture(rp, 0);
	assert_non_null(strstr(out, "app;libx.so!+0x200;libx.so!func_a 3\n"));
	free(out);
	pmu_report_free(rp);
}

static void sw(struct pmu_report *rp, int out, int32_t tid, int32_t cpu, uint64_t t,
	       uint64_t p0, uint64_t p1)
{
	uint64_t pmc[2] = { p0, p1 };
	struct pmu_record r = rec(PMU_RECORD_SWITCH, 10, tid, t);

	r.has |= PMU_HAS_CPU;
	r.cpu = cpu;
	r.sw.out = out;
	r.sw.other_pid = r.sw.other_tid = -1;
	r.sw.pmc = pmc;
	r.sw.nr_pmc = 2;
	add(rp, &r);
}

static void test_switch_time_pmc_lost(void **state)
{
	static const char *const pmc[] = { "instructions", "llc-misses" };
	PMU_OPTS(pmu_report_opts, o, .pmc_names = pmc, .nr_pmc = 2);
	struct pmu_report *rp;
	struct pmu_report_row w;
	struct pmu_report_summary s;
	(void)state;

	assert_int_equal(pmu_report_new(&o, &rp), 0);
	comm(rp, 10, 10, "app");
	sw(rp, 0, 11, 0, 1000, 100, 10);
	sw(rp, 1, 11, 0, 1500, 160, 15);
	sw(rp, 0, 12, 0, 1500, 160, 15);
	sw(rp, 0, 11, 1, 2000, 200, 20);
	sw(rp, 1, 11, 1, 2600, 230, 22);
	sw(rp, 1, 12, 0, 1700, 170, 16);
	sw(rp, 1, 13, 2, 1800, 1, 1);	/* never seen switching in: no time */
	struct pmu_record l = rec(PMU_RECORD_LOST, -1, -1, 3000);
	l.lost.count = 5;
	add(rp, &l);
	l.lost.count = 0, l.lost.buffers = 2, l.lost.bytes = 100;
	add(rp, &l);

	pmu_report_summary(rp, &s, sizeof(s));
	assert_int_equal(s.lost, 5);
	assert_int_equal(s.lost_buffers, 2);
	assert_int_equal(s.lost_bytes, 100);
	assert_int_equal(s.switches, 3);
	assert_int_equal(pmu_report_count(rp, PMU_REPORT_TID), 2);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_TID, 0, &w), 0);
	assert_int_equal(w.tid, 11);
	assert_int_equal(w.cpu_time_ns, 1100);
	assert_int_equal(w.switches, 2);
	assert_int_equal(w.nr_pmc, 2);
	assert_int_equal(w.pmc[0], 90);
	assert_int_equal(w.pmc[1], 7);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_TID, 1, &w), 0);
	assert_int_equal(w.cpu_time_ns, 200);
	assert_int_equal(w.pmc[0], 10);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_PID, 0, &w), 0);
	assert_int_equal(w.cpu_time_ns, 1300);
	assert_int_equal(w.pmc[1], 8);
	assert_string_equal(w.name, "app");
	char *out = capture(rp, 2);
	assert_non_null(strstr(out, "\"lost\": 5"));
	assert_non_null(strstr(out, "\"cpu_time_ns\": 1100"));
	assert_non_null(strstr(out, "\"instructions\": 90"));
	free(out);
	pmu_report_free(rp);
}

/* A tid reused after EXIT is a new thread; the old one keeps its name. */
static void test_reuse(void **state)
{
	static const uint64_t ip[] = { 0x50 };
	struct pmu_report *rp;
	struct pmu_report_row w;
	(void)state;

	assert_int_equal(pmu_report_new(NULL, &rp), 0);
	comm(rp, 10, 11, "first");
	sample(rp, 10, 11, 0, 10, ip, 1, 0);
	sample(rp, 10, 11, 0, 11, ip, 1, 0);
	struct pmu_record r = rec(PMU_RECORD_EXIT, 10, 11, 12);
	add(rp, &r);
	r = rec(PMU_RECORD_FORK, 10, 11, 13);
	add(rp, &r);
	comm(rp, 10, 11, "second");
	sample(rp, 10, 11, 0, 14, ip, 1, 0);
	assert_int_equal(pmu_report_count(rp, PMU_REPORT_TID), 2);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_TID, 0, &w), 0);
	assert_string_equal(w.name, "first");
	assert_int_equal(w.samples, 2);
	assert_true(w.exited);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_TID, 1, &w), 0);
	assert_string_equal(w.name, "second");
	assert_int_equal(w.samples, 1);
	assert_false(w.exited);
	pmu_report_free(rp);
}

static const char *resolve_a(const struct pmu_report_module *m, uint64_t addr, void *ctx)
{
	(void)ctx;
	return m && addr >= 0x1100 && addr < 0x1180 ? "func_a" : NULL;
}

/* Rows and folded stacks are per symbol, not per address: two addresses of
 * one function, and one module offset mapped at two bases, are one row. */
static void test_symbol_rows(void **state)
{
	static const uint64_t a1[] = { 0x1100, 0x1200 }, a2[] = { 0x1140, 0x1200 },
		b1[] = { 0x5010 }, b2[] = { 0x7010 };
	PMU_OPTS(pmu_report_opts, o, .resolve = resolve_a);
	struct pmu_report *rp;
	struct pmu_report_row w;
	(void)state;

	assert_int_equal(pmu_report_new(&o, &rp), 0);
	comm(rp, 10, 10, "app");
	comm(rp, 20, 20, "app");
	mmap_rec(rp, 10, 0x1000, 0x1000, "/usr/lib/libx.so", 0);
	mmap_rec(rp, 10, 0x5000, 0x1000, "C:\\Windows\\y.dll", 1);
	mmap_rec(rp, 20, 0x7000, 0x1000, "C:\\Windows\\y.dll", 1);
	sample(rp, 10, 10, 0, 100, a1, 2, 0);
	sample(rp, 10, 10, 0, 200, a2, 2, 0);
	sample(rp, 10, 10, 0, 300, b1, 1, 0);
	sample(rp, 20, 20, 0, 400, b2, 1, 0);
	assert_int_equal(pmu_report_count(rp, PMU_REPORT_SYM), 2);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_SYM, 0, &w), 0);
	assert_string_equal(w.name, "libx.so!func_a");
	assert_int_equal(w.samples, 2);
	assert_true(w.percent > 49.99 && w.percent < 50.01);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_SYM, 1, &w), 0);
	assert_string_equal(w.name, "y.dll!+0x10");
	assert_int_equal(w.samples, 2);
	char *out = capture(rp, 0);
	assert_string_equal(out, "app;libx.so!+0x200;libx.so!func_a 2\n"
				 "app;y.dll!+0x10 2\n");
	free(out);
	pmu_report_free(rp);
}

/* One binary named by two paths (an NT device path at rundown, a plain one
 * at load) is one module when the build id says so; without one the path
 * decides. */
static void test_module_identity(void **state)
{
	static const uint64_t a[] = { 0x5010 }, b[] = { 0x7010 }, c[] = { 0x9010 };
	struct pmu_report *rp;
	struct pmu_report_row w;
	(void)state;

	assert_int_equal(pmu_report_new(NULL, &rp), 0);
	mmap_rec(rp, 10, 0x5000, 0x1000, "\\Device\\HarddiskVolume2\\Windows\\clr.dll", 1);
	mmap_rec(rp, 20, 0x7000, 0x1000, "\\Windows\\clr.dll", 1);
	mmap_rec(rp, 30, 0x9000, 0x1000, "\\Windows\\other\\clr.dll", 0);
	sample(rp, 10, 10, 0, 100, a, 1, 0);
	sample(rp, 20, 20, 0, 200, b, 1, 0);
	sample(rp, 30, 30, 0, 300, c, 1, 0);
	assert_int_equal(pmu_report_count(rp, PMU_REPORT_MODULE), 2);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_MODULE, 0, &w), 0);
	assert_string_equal(w.name, "clr.dll");
	assert_int_equal(w.samples, 2);
	assert_string_equal(w.build_id, "0403020106050807090A0B0C0D0E0F1014131211");
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_MODULE, 1, &w), 0);
	assert_int_equal(w.samples, 1);
	assert_string_equal(w.build_id, "");
	pmu_report_free(rp);
}

/* The kernel's map as perf records it, "[kernel.kallsyms]_text", is named
 * "[kernel.kallsyms]" as perf report names it: in rows, frames and folded stacks. */
static void test_kernel_map_name(void **state)
{
	static const uint64_t k[] = { 0xffffffff81000130ull, 0x401000 };
	struct pmu_report *rp;
	struct pmu_report_row w;
	(void)state;

	assert_int_equal(pmu_report_new(NULL, &rp), 0);
	comm(rp, 10, 10, "app");
	mmap_rec(rp, -1, 0xffffffff81000000ull, 0x1000000, "[kernel.kallsyms]_text", 0);
	mmap_rec(rp, 10, 0x400000, 0x2000, "/usr/bin/app", 0);
	sample(rp, 10, 10, 0, 100, k, 2, 1);
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_MODULE, 0, &w), 0);
	assert_string_equal(w.name, "[kernel.kallsyms]");
	assert_string_equal(w.module, "[kernel.kallsyms]");
	assert_int_equal(pmu_report_row(rp, PMU_REPORT_SYM, 0, &w), 0);
	assert_string_equal(w.name, "[kernel.kallsyms]!+0x130");
	char *out = capture(rp, 0);
	assert_string_equal(out, "app;app!+0x1000;[kernel.kallsyms]!+0x130 1\n");
	free(out);
	pmu_report_free(rp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregation),
		cmocka_unit_test(test_comm_cut_mid_character),
		cmocka_unit_test(test_utf8_whole),
		cmocka_unit_test(test_collapsed),
		cmocka_unit_test(test_json_flags_and_limit),
		cmocka_unit_test(test_script_and_resolver),
		cmocka_unit_test(test_switch_time_pmc_lost),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_symbol_rows),
		cmocka_unit_test(test_module_identity),
		cmocka_unit_test(test_kernel_map_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
