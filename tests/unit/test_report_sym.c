/* SPDX-License-Identifier: MIT */
/* The report naming frames through a real symbolizer in recording mode, on
 * this very test binary: its mappings (from /proc/self/maps) as MMAP records,
 * a sample inside sym_inner(), inlined into sym_middle(), inlined into
 * sym_outer(): the inlined calls are frames of the stack, the row is the
 * function that holds the code (as perf report's sym), srcline the innermost
 * position. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/report.h>
#include <pmukit/symbols.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "linux/buildid.h"
#include "pb_read.h"
#include "sym_fixture.h"

static volatile uintptr_t probe_ra;

__attribute__((noinline)) void sym_probe(void)
{
	probe_ra = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) int sym_outer(int x)
{
	return sym_middle(x) * 2;
}

/* This process's executable mappings as MMAP records of process pid, moved
 * by shift (another process mapping the same files elsewhere), with their
 * build-ids when bid. */
static void feed_maps_at(struct pmu_report *rp, int32_t pid, uint64_t shift, int bid)
{
	char line[4200], path[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end, off;
		char perms[8];
		path[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095s", &start,
			   &end, perms, &off, path) < 4 || perms[2] != 'x' || path[0] != '/')
			continue;
		struct pmu_record r;
		memset(&r, 0, sizeof(r));
		r.kind = PMU_RECORD_MMAP;
		r.has = PMU_HAS_TID;
		r.pid = r.tid = pid;
		r.cpu = r.event = -1;
		r.mmap = (struct pmu_mmap){ .start = start + shift, .len = end - start,
					    .pgoff = off, .path = path };
		size_t n = 0;
		if (bid && !pmuk_build_id_of_file(path, r.mmap.build_id, &n)) {
			r.mmap.build_id_size = (uint8_t)n;
			r.mmap.build_id_kind = PMU_BUILD_ID_BYTES;
		}
		assert_int_equal(pmu_report_record(&r, rp), 0);   /* the symbolizer's too */
	}
	fclose(f);
}

static void feed_maps(struct pmu_report *rp, int32_t pid)
{
	feed_maps_at(rp, pid, 0, 0);
}

static char *text(struct pmu_report *rp, const char *sort)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	PMU_OPTS(pmu_report_view, v, .sort = sort, .children = PMU_REPORT_NO_CHILDREN,
		 .graph = PMU_REPORT_GRAPH_NONE);

	assert_non_null(f);
	if (sort)
		assert_int_equal(pmu_report_write_view(rp, f, &v), 0);
	else
		assert_int_equal(pmu_report_write_collapsed(rp, f), 0);
	fclose(f);
	return buf;
}

/* A user-mode sample of pid's thread tid at ip, event 0, no CPU. */
static void sample_rec(struct pmu_record *r, int32_t pid, int32_t tid, uint64_t ip)
{
	memset(r, 0, sizeof(*r));
	r->kind = PMU_RECORD_SAMPLE;
	r->has = PMU_HAS_TID | PMU_HAS_IP;
	r->pid = pid;
	r->tid = tid;
	r->cpu = -1;
	r->cpumode = PMU_CPUMODE_USER;
	r->sample.ip = ip;
}

static void test_inlined_frames(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_symbolizer *sym;
	struct pmu_report *rp;
	struct pmu_frame fr[8];
	size_t n = 0;
	int32_t pid = (int32_t)getpid();
	(void)state;

	assert_int_equal(sym_outer(1), 14);
	assert_int_equal(pmu_symbolizer_open(&so, &sym), 0);
	PMU_OPTS(pmu_report_opts, o, .symbolizer = sym);
	assert_int_equal(pmu_report_new(&o, &rp), 0);
	feed_maps(rp, pid);
	uint64_t ip = probe_ra - 1;	/* the call in sym_inner's body */
	assert_int_equal(pmu_symbolizer_resolve_pid(sym, pid, ip, fr, 8, &n), 0);
	uint64_t chain[] = { ip, (uint64_t)(uintptr_t)test_inlined_frames };
	struct pmu_record r;
	sample_rec(&r, pid, pid, ip);
	r.has |= PMU_HAS_CALLCHAIN;
	r.sample.callchain = chain;
	r.sample.nr_callchain = 1;	/* the sampled function only */
	assert_int_equal(pmu_report_record(&r, rp), 0);

	char *out = text(rp, NULL);	/* root first: outer, then what it inlined */
	assert_non_null(strstr(out, "!sym_outer;test_report_sym!sym_middle;"
				    "test_report_sym!sym_inner 1\n"));
	free(out);
	out = text(rp, "sym");	/* the row: the function holding the code */
	assert_non_null(strstr(out, "   100.00%  [.] sym_outer\n"));
	free(out);
	char want[64];
	snprintf(want, sizeof(want), "  sym_fixture.h:%u\n", marker_line("sym_fixture.h",
									"SYM-INNER-CALL"));
	out = text(rp, "srcline");
	assert_non_null(strstr(out, want));
	free(out);
	pmu_report_free(rp);
	pmu_symbolizer_close(sym);
}

static void sample_at(struct pmu_report *rp, int32_t pid, uint64_t ip)
{
	struct pmu_record r;

	sample_rec(&r, pid, pid, ip);
	assert_int_equal(pmu_report_record(&r, rp), 0);
}

/* Two processes map this binary at different addresses (ASLR): the report
 * names an offset once (module + offset, build-id known) and the second
 * process's frame gets the same names, inlined calls and source line; a
 * third process maps it without build-ids (another module to the report)
 * and is symbolized on its own, to the same names. */
static void test_same_offset_two_processes(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_symbolizer *sym;
	struct pmu_report *rp;
	int32_t a = 0x3fff0001, b = 0x3fff0002, c = 0x3fff0003;
	const uint64_t shift = 0x100000000000ull;
	uint8_t id[20];
	size_t idn = 0;
	(void)state;

	if (pmuk_build_id_of_file("/proc/self/exe", id, &idn) || !idn)
		skip();	/* built without a build-id: nothing is shared */
	assert_int_equal(sym_outer(1), 14);
	assert_int_equal(pmu_symbolizer_open(&so, &sym), 0);
	PMU_OPTS(pmu_report_opts, o, .symbolizer = sym);
	assert_int_equal(pmu_report_new(&o, &rp), 0);
	feed_maps_at(rp, a, 0, 1);
	feed_maps_at(rp, b, shift, 1);
	feed_maps_at(rp, c, 2 * shift, 0);
	uint64_t ip = probe_ra - 1;
	sample_at(rp, a, ip);
	sample_at(rp, b, ip + shift);
	sample_at(rp, c, ip + 2 * shift);

	/* a, b: one stack (one module); c's module, without build-id, is another */
	char *out = text(rp, NULL);
	assert_non_null(strstr(out, "!sym_outer;test_report_sym!sym_middle;"
				    "test_report_sym!sym_inner 2\n"));
	assert_non_null(strstr(out, "!sym_outer;test_report_sym!sym_middle;"
				    "test_report_sym!sym_inner 1\n"));
	free(out);
	char want[64];
	snprintf(want, sizeof(want), "   100.00%%  sym_fixture.h:%u\n",
		 marker_line("sym_fixture.h", "SYM-INNER-CALL"));
	out = text(rp, "srcline");
	assert_non_null(strstr(out, want));
	free(out);
	pmu_report_free(rp);
	pmu_symbolizer_close(sym);
}

static void anon_map(struct pmu_report *rp, int32_t pid, uint64_t start, uint64_t len)
{
	struct pmu_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PMU_RECORD_MMAP;
	r.has = PMU_HAS_TID;
	r.pid = r.tid = pid;
	r.cpu = r.event = -1;
	r.mmap = (struct pmu_mmap){ .start = start, .len = len, .path = "//anon" };
	assert_int_equal(pmu_report_record(&r, rp), 0);
}

static void jit_symbol(struct pmu_report *rp, int32_t pid, uint64_t start, const char *name)
{
	struct pmu_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PMU_RECORD_SYMBOL;
	r.pid = r.tid = pid;
	r.cpu = r.event = -1;
	r.symbol = (struct pmu_symbol){ start, 0x100, name, NULL };
	assert_int_equal(pmu_report_record(&r, rp), 0);
}

/* JIT code has no build-id: two processes' code at one address is not the
 * same code (each has its own /tmp/perf-PID.map), and a method unloaded and
 * another loaded at its address is another function. Every sample must get
 * the name its own process gave that address at that time. */
static void test_jit_same_address(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_symbolizer *sym;
	struct pmu_report *rp;
	const int32_t a = 0x3ffe0001, b = 0x3ffe0002, c = 0x3ffe0003;
	const uint64_t at = 0x7f0000001000ull;
	char path[2][64];
	(void)state;

	for (int i = 0; i < 2; i++) {
		snprintf(path[i], sizeof(path[i]), "/tmp/perf-%d.map", (int)(i ? b : a));
		FILE *m = fopen(path[i], "w");
		assert_non_null(m);
		fprintf(m, "%" PRIx64 " 100 %s\n", at, i ? "jit_of_b" : "jit_of_a");
		fclose(m);
	}
	assert_int_equal(pmu_symbolizer_open(&so, &sym), 0);
	PMU_OPTS(pmu_report_opts, o, .symbolizer = sym);
	assert_int_equal(pmu_report_new(&o, &rp), 0);
	anon_map(rp, a, at - 0x1000, 0x10000);
	anon_map(rp, b, at - 0x1000, 0x10000);
	sample_at(rp, a, at + 0x10);
	sample_at(rp, b, at + 0x10);
	/* process c: the recording's own JIT records, a reload at one address */
	anon_map(rp, c, at - 0x1000, 0x10000);
	jit_symbol(rp, c, at, "jit_first");
	sample_at(rp, c, at + 0x10);
	jit_symbol(rp, c, at, NULL);	/* unloaded */
	jit_symbol(rp, c, at, "jit_second");
	sample_at(rp, c, at + 0x10);
	sample_at(rp, c, at + 0x10);

	char *out = text(rp, "sym");
	assert_non_null(strstr(out, "  [.] jit_of_a\n"));
	assert_non_null(strstr(out, "  [.] jit_of_b\n"));
	assert_non_null(strstr(out, "    20.00%  [.] jit_first\n"));
	assert_non_null(strstr(out, "    40.00%  [.] jit_second\n"));
	free(out);
	pmu_report_free(rp);
	pmu_symbolizer_close(sym);
	unlink(path[0]);
	unlink(path[1]);
}

/* Frames in no module of a process without JIT records are only listed
 * (report_jit.c): its first SYMBOL record must still find them. Here an
 * address in no mapping (a data word a frame-pointer walk took for a return
 * address) is sampled unnamed, a SYMBOL record elsewhere leaves it so, one
 * over it names the samples after it. */
static void test_jit_unknown_then_named(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_symbolizer *sym;
	struct pmu_report *rp;
	const int32_t d = 0x3ffe0004;
	const uint64_t at = 0x7f0000201000ull;
	(void)state;

	assert_int_equal(pmu_symbolizer_open(&so, &sym), 0);
	PMU_OPTS(pmu_report_opts, o, .symbolizer = sym);
	assert_int_equal(pmu_report_new(&o, &rp), 0);
	for (int i = 0; i < 40; i++)	/* other unnamed addresses: a list to search */
		sample_at(rp, d, at + 0x10000 + 0x40 * (uint64_t)i);
	sample_at(rp, d, at + 0x10);
	jit_symbol(rp, d, at + 0x8000, "jit_elsewhere");
	sample_at(rp, d, at + 0x10);
	jit_symbol(rp, d, at, "jit_late");
	sample_at(rp, d, at + 0x10);
	sample_at(rp, d, at + 0x10);

	char *out = text(rp, "sym");
	assert_non_null(strstr(out, "     4.55%  [.] 0x00007f0000201010\n"));
	assert_non_null(strstr(out, "     4.55%  [.] jit_late\n"));
	assert_null(strstr(out, "jit_elsewhere"));
	free(out);
	pmu_report_free(rp);
	pmu_symbolizer_close(sym);
}

/* Any output of r as a string: the view (sort given) as text or JSON, the
 * table by symbol, folded stacks or its JSON document. */
/* noinline: gcc -O3 takes the returned text for a pointer to the local buf */
__attribute__((noinline)) static char *written(struct pmu_report *rp, int what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	PMU_OPTS(pmu_report_view, v, .sort = "sym", .children = PMU_REPORT_CHILDREN,
		 .graph = PMU_REPORT_GRAPH_CALLER, .graph_limit = -1, .json = what == 1);

	assert_non_null(f);
	if (what <= 1)
		assert_int_equal(pmu_report_write_view(rp, f, &v), 0);
	else if (what == 2)
		assert_int_equal(pmu_report_write_text(rp, f, PMU_REPORT_SYM, 0), 0);
	else if (what == 3)
		assert_int_equal(pmu_report_write_collapsed(rp, f), 0);
	else
		assert_int_equal(pmu_report_write_json(rp, f, 0), 0);
	fclose(f);
	return buf;
}

/* Addresses in no module (report_str.c names them only when written): the
 * public rows' names, the view's text, JSON and call graph, the table and
 * the folded stacks give "0x<addr>" and "0x<16 digits>", the same before and
 * after the rows make their texts; rows that tie keep the order of the
 * symbols' first samples (the ids interning gave). */
static void test_unmapped_names(void **state)
{
	struct pmu_report *rp;
	/* short, 16 digits (name is label), 12 digits, zero */
	const uint64_t a[] = { 0x40, 0x9876543210fedcbaull, 0x7f0000201010ull, 0 };
	const size_t na = sizeof(a) / sizeof(a[0]);
	char want[64], *before[5];
	(void)state;

	assert_int_equal(pmu_report_new(NULL, &rp), 0);
	for (size_t i = 0; i < na; i++) {   /* each leaf once, called from the next */
		uint64_t chain[] = { a[i], a[(i + 1) % na] };
		struct pmu_record r;
		sample_rec(&r, 4242, 4242, a[i]);
		r.has |= PMU_HAS_CALLCHAIN;
		r.sample.callchain = chain;
		r.sample.nr_callchain = 2;
		assert_int_equal(pmu_report_record(&r, rp), 0);
	}
	for (int w = 0; w < 5; w++)
		before[w] = written(rp, w);
	/* the view's rows tie (one sample, two stacks each): first sampled first */
	const char *at = before[0];
	for (size_t i = 0; i < na; i++) {
		snprintf(want, sizeof(want), "[.] 0x%016" PRIx64 "\n", a[i]);
		const char *p = strstr(at, want);
		assert_non_null(p);
		at = p + 1;
	}
	snprintf(want, sizeof(want), "\"symbol\": \"0x%" PRIx64 "\"", a[2]);
	assert_non_null(strstr(before[1], want));
	snprintf(want, sizeof(want), ";0x%" PRIx64 ";0x%" PRIx64 " 1\n", a[1], a[0]);
	assert_non_null(strstr(before[3], want));
	assert_int_equal(pmu_report_count(rp, PMU_REPORT_SYM), na);
	for (size_t i = 0; i < na; i++) {
		struct pmu_report_row row;
		assert_int_equal(pmu_report_row(rp, PMU_REPORT_SYM, i, &row), 0);
		snprintf(want, sizeof(want), "0x%" PRIx64, a[i]);
		assert_string_equal(row.name, want);
		assert_int_equal(row.samples, 1);
	}
	for (int w = 0; w < 5; w++) {   /* texts made now: the same outputs */
		char *after = written(rp, w);
		assert_string_equal(after, before[w]);
		free(after);
		free(before[w]);
	}
	pmu_report_free(rp);
}

static void sample_period(struct pmu_report *rp, int32_t event, uint64_t ip, uint64_t period)
{
	struct pmu_record r;

	sample_rec(&r, 4243, 4243, ip);
	r.has |= PMU_HAS_PERIOD;
	r.event = event;
	r.sample.period = period;
	assert_int_equal(pmu_report_record(&r, rp), 0);
}

/* The text's percentages are kept by period (report_vout.c): one period in
 * sections of other totals gets each section's own percentage, and the
 * largest period prints whole. */
static void test_percent_per_section(void **state)
{
	struct pmu_report *rp;
	char want[96];
	(void)state;

	assert_int_equal(pmu_report_new(NULL, &rp), 0);
	sample_period(rp, 0, 0x1000, 10);   /* section 0: 10 of 40 */
	sample_period(rp, 0, 0x2000, 30);
	sample_period(rp, 1, 0x1000, 10);   /* section 1: 10 of 20 */
	sample_period(rp, 1, 0x3000, 10);
	sample_period(rp, 2, 0x4000, UINT64_MAX);   /* section 2: all of it */
	char *out = written(rp, 0);
	const char *s0 = strstr(out, "# Event count (approx.): 40\n");
	const char *s1 = strstr(out, "# Event count (approx.): 20\n");
	snprintf(want, sizeof(want), "# Event count (approx.): %" PRIu64 "\n", UINT64_MAX);
	const char *s2 = strstr(out, want);
	assert_non_null(s0);
	assert_non_null(s1);
	assert_non_null(s2);
	assert_true(s0 < s1 && s1 < s2);
	const char *a = strstr(s0, "    25.00%    25.00%  [.] 0x0000000000001000\n");
	const char *b = strstr(s1, "    50.00%    50.00%  [.] 0x0000000000001000\n");
	const char *c = strstr(s2, "   100.00%   100.00%  [.] 0x0000000000004000\n");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_true(a < s1 && b < s2);
	free(out);
	pmu_report_free(rp);
}

static void comm(struct pmu_report *rp, int32_t pid, int32_t tid, const char *name)
{
	struct pmu_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PMU_RECORD_COMM;
	r.has = PMU_HAS_TID;
	r.pid = pid, r.tid = tid;
	r.cpu = r.event = -1;
	snprintf(r.comm.name, sizeof(r.comm.name), "%s", name);
	assert_int_equal(pmu_report_record(&r, rp), 0);
}

/* A thread named "" is unnamed (string 0): it shows its process's name, as
 * a thread without a COMM record does. */
static void test_empty_comm_unnamed(void **state)
{
	struct pmu_report *rp;
	PMU_OPTS(pmu_report_view, v, .sort = "tid", .children = PMU_REPORT_NO_CHILDREN,
		 .graph = PMU_REPORT_GRAPH_NONE);
	char *buf = NULL;
	size_t len = 0;
	(void)state;

	assert_int_equal(pmu_report_new(NULL, &rp), 0);
	comm(rp, 4244, 4244, "app");
	comm(rp, 4244, 4245, "");
	struct pmu_record r;
	sample_rec(&r, 4244, 4245, 0x5000);
	assert_int_equal(pmu_report_record(&r, rp), 0);
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(pmu_report_write_view(rp, f, &v), 0);
	fclose(f);
	assert_non_null(strstr(buf, "  4245:app\n"));
	free(buf);
	pmu_report_free(rp);
}

/* ---- the pprof writer's profile, decoded: which function holds the leaf
 * address of each sample (the last Line of its first Location, what
 * go tool pprof -noinlines counts), by sample count ---- */

/* The leaf holder's name of each Sample of the gzip'd profile gz[0, n),
 * with its count, into name[]/count[]: their number. */
static size_t pprof_leaves(const char *gz, size_t n, char name[][64], uint64_t *count, size_t max)
{
	static uint8_t pb[1 << 20];
	z_stream z = { 0 };
	const uint8_t *str[256];
	size_t len_of[256], nstr = 0, nleaf = 0;
	uint64_t fn_name[64][2], loc_fn[64][2];	/* (id, name string) and (id, last Line's function) */
	size_t nfn = 0, nloc = 0;
	struct pbm m, s, t, u;
	uint64_t v;

	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (uint8_t *)gz, z.avail_in = (uInt)n;
	z.next_out = pb, z.avail_out = sizeof(pb);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	size_t len = sizeof(pb) - z.avail_out;
	inflateEnd(&z);
	for (m = (struct pbm){ pb, pb + len }; m.p < m.end;) {
		uint32_t f = pb_field(&m, &v, &s);
		if (f == 6 && nstr < 256)
			str[nstr] = s.p, len_of[nstr++] = v;
		else if (f == 5 && nfn < 64) {
			fn_name[nfn][0] = fn_name[nfn][1] = 0;
			while (s.p < s.end) {
				uint32_t g = pb_field(&s, &v, &t);
				if (g == 1 || g == 2)
					fn_name[nfn][g - 1] = v;
			}
			nfn++;
		} else if (f == 4 && nloc < 64) {
			loc_fn[nloc][0] = loc_fn[nloc][1] = 0;
			while (s.p < s.end) {
				uint32_t g = pb_field(&s, &v, &t);
				if (g == 1)
					loc_fn[nloc][0] = v;
				while (g == 4 && t.p < t.end)	/* the last Line: the holder */
					if (pb_field(&t, &v, &u) == 1)
						loc_fn[nloc][1] = v;
			}
			nloc++;
		}
	}
	for (m = (struct pbm){ pb, pb + len }; m.p < m.end;) {
		if (pb_field(&m, &v, &s) != 2)
			continue;
		uint64_t leaf = 0, c = 0;
		while (s.p < s.end) {
			uint32_t g = pb_field(&s, &v, &t);
			if (g == 1 && t.p)
				leaf = pb_varint(&t);
			else if (g == 2 && t.p)
				c = pb_varint(&t);
		}
		assert_true(nleaf < max);
		strcpy(name[nleaf], "?");
		for (size_t i = 0; i < nloc; i++)
			for (size_t k = 0; k < nfn && loc_fn[i][0] == leaf; k++)
				if (fn_name[k][0] == loc_fn[i][1] && fn_name[k][1] < nstr)
					snprintf(name[nleaf], 64, "%.*s", (int)len_of[fn_name[k][1]],
						 (const char *)str[fn_name[k][1]]);
		count[nleaf++] = c;
	}
	return nleaf;
}

/* sym_twice is inlined into sym_leafy once and called out of line once, from
 * one line: a sample in each copy has the same (symbol, line) entries, but the
 * function holding the sampled code (the leaf) is sym_leafy in one and
 * sym_twice in the other. Each body sits on one line so the lines agree. */
static volatile uintptr_t twice_ra[2], twice_caller[2];
static volatile int twice_n;

__attribute__((noinline)) void twice_probe(uintptr_t caller)
{
	twice_caller[twice_n & 1] = caller;
	twice_ra[twice_n++ & 1] = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

/* clang-format off */
static inline __attribute__((always_inline)) int sym_twice(int x) { twice_probe((uintptr_t)__builtin_return_address(0)); return x + 1; }
static int (*volatile twice_ptr)(int) = sym_twice;
__attribute__((noinline)) int sym_leafy(int x) { int a = sym_twice(x); a += twice_ptr(a); return a; }
/* clang-format on */

static void test_same_entries_other_leaf(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_symbolizer *sym;
	struct pmu_report *rp;
	struct pmu_record r;
	int32_t pid = (int32_t)getpid();
	(void)state;

	twice_n = 0;
	assert_int_equal(sym_leafy(1), 5);
	assert_int_equal(pmu_symbolizer_open(&so, &sym), 0);
	PMU_OPTS(pmu_report_opts, o, .symbolizer = sym);
	assert_int_equal(pmu_report_new(&o, &rp), 0);
	feed_maps(rp, pid);
	uint64_t chains[2][2] = { { twice_ra[0] - 1, 0 }, { twice_ra[1] - 1, twice_caller[1] } };
	for (int i = 0; i < 2; i++) {
		sample_rec(&r, pid, pid, chains[i][0]);
		r.has |= PMU_HAS_CALLCHAIN;
		r.sample.callchain = chains[i];
		r.sample.nr_callchain = (uint64_t)i + 1;
		assert_int_equal(pmu_report_record(&r, rp), 0);
	}
	char *out = text(rp, NULL);	/* one stack: leafy calling twice, inlined or not */
	int one_stack = strstr(out, "!sym_leafy;test_report_sym!sym_twice 2\n") != NULL;
	free(out);
	if (!one_stack) {
		pmu_report_free(rp);
		pmu_symbolizer_close(sym);
		skip();	/* the compiler placed the copies' lines apart: no collision */
	}
	out = text(rp, "sym");
	assert_non_null(strstr(out, "    50.00%  [.] sym_leafy\n"));
	assert_non_null(strstr(out, "    50.00%  [.] sym_twice\n"));
	free(out);
	/* pprof: the same holders as the table (go tool pprof -noinlines), one
	 * sample each: the inlined copy's Location has the Lines sym_twice,
	 * sym_leafy, the other copy's only sym_twice */
	size_t gzn = 0;
	char *gz = NULL, leaf[8][64];
	uint64_t cnt[8], leafy = 0, twice = 0;
	FILE *f = open_memstream(&gz, &gzn);
	assert_non_null(f);
	assert_int_equal(pmu_report_write_pprof(rp, f), 0);
	fclose(f);
	size_t nl = pprof_leaves(gz, gzn, leaf, cnt, 8);
	for (size_t i = 0; i < nl; i++) {
		leafy += strcmp(leaf[i], "sym_leafy") ? 0 : cnt[i];
		twice += strcmp(leaf[i], "sym_twice") ? 0 : cnt[i];
	}
	assert_int_equal(leafy, 1);
	assert_int_equal(twice, 1);
	free(gz);
	pmu_report_free(rp);
	pmu_symbolizer_close(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inlined_frames),
		cmocka_unit_test(test_same_offset_two_processes),
		cmocka_unit_test(test_jit_same_address),
		cmocka_unit_test(test_jit_unknown_then_named),
		cmocka_unit_test(test_unmapped_names),
		cmocka_unit_test(test_percent_per_section),
		cmocka_unit_test(test_empty_comm_unnamed),
		cmocka_unit_test(test_same_entries_other_leaf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
