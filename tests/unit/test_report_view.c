/* SPDX-License-Identifier: MIT */
/* perf report's view over a known set of stacks: self and children math,
 * sort key combinations, call graph text in both orientations, the filters,
 * the time window and the percent limit, JSON, and a symbolizer that cannot
 * name a frame (or says its module is missing) falling back as documented.
 *
 * The stacks (innermost first), period 1 each, pid 10:
 *   5 x  leaf foo main        tid 10 "app",    cpu 0, times 100..104
 *   3 x  leaf bar main        tid 10,          cpu 0, times 105..107
 *   2 x  bar main             tid 10,          cpu 0, times 108..109
 *   1 x  kfunc leaf foo main  tid 11 "worker", cpu 1, time 110 (kfunc: kernel)
 *   1 x  foo foo main         tid 10,          cpu 0, time 111 (recursion)
 * Self: leaf 8, bar 2, kfunc 1, foo 1 (of 12). Children: main 12, leaf 9,
 * foo 7 (the recursion once), bar 5, kfunc 1. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/report.h>
#include <pmukit/symbols.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAIN = 0x1010, FOO = 0x2010, BAR = 0x3010, LEAF = 0x4010, KFUNC = 0xffff0010 };

static const char *resolve(const struct pmu_report_module *m, uint64_t addr, void *ctx)
{
	static const char *const names[] = { "main", "foo", "bar", "leaf" };

	(void)ctx;
	if (!m)
		return NULL;
	if (addr >= 0xffff0000)
		return "kfunc";
	return addr >= 0x1000 && addr < 0x5000 ? names[addr / 0x1000 - 1] : NULL;
}

static struct pmu_record rec(enum pmu_record_kind kind, int32_t pid, int32_t tid, uint64_t time)
{
	struct pmu_record r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.has = PMU_HAS_TID | PMU_HAS_TIME;
	r.pid = pid, r.tid = tid, r.time = time, r.cpu = -1, r.event = 0;
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
	add(rp, &r);
}

static void mmap_rec(struct pmu_report *rp, int32_t pid, uint64_t start, uint64_t len,
		     const char *path)
{
	struct pmu_record r = rec(PMU_RECORD_MMAP, pid, pid, 2);

	r.mmap.start = start, r.mmap.len = len, r.mmap.path = path;
	add(rp, &r);
}

static void sample_in(struct pmu_report *rp, int32_t pid, int32_t tid, int32_t cpu,
		      uint64_t time, const uint64_t *chain, uint32_t n, uint32_t nk)
{
	struct pmu_record r = rec(PMU_RECORD_SAMPLE, pid, tid, time);

	r.has |= PMU_HAS_CPU | PMU_HAS_IP | PMU_HAS_PERIOD | PMU_HAS_CALLCHAIN;
	r.cpumode = nk ? PMU_CPUMODE_KERNEL : PMU_CPUMODE_USER;
	r.cpu = cpu;
	r.sample.ip = chain[0];
	r.sample.period = 1;
	r.sample.callchain = chain;
	r.sample.nr_callchain = n;
	r.sample.nr_kernel_frames = nk;
	add(rp, &r);
}

static void sample(struct pmu_report *rp, int32_t tid, int32_t cpu, uint64_t time,
		   const uint64_t *chain, uint32_t n, uint32_t nk)
{
	sample_in(rp, 10, tid, cpu, time, chain, n, nk);
}

static const char *const events[] = { "cpu-clock" };

static void feed(struct pmu_report *rp)
{
	static const uint64_t s1[] = { LEAF, FOO, MAIN }, s2[] = { LEAF, BAR, MAIN },
		s3[] = { BAR, MAIN }, s4[] = { KFUNC, LEAF, FOO, MAIN }, s5[] = { FOO, FOO, MAIN };
	uint64_t t = 100;

	comm(rp, 10, 10, "app");
	comm(rp, 10, 11, "worker");
	mmap_rec(rp, 10, 0x1000, 0x8000, "/opt/app/app");
	mmap_rec(rp, -1, 0xffff0000, 0x10000, "[kernel.kallsyms]_text");
	for (int i = 0; i < 5; i++)
		sample(rp, 10, 0, t++, s1, 3, 0);
	for (int i = 0; i < 3; i++)
		sample(rp, 10, 0, t++, s2, 3, 0);
	for (int i = 0; i < 2; i++)
		sample(rp, 10, 0, t++, s3, 2, 0);
	sample(rp, 11, 1, t++, s4, 4, 1);
	sample(rp, 10, 0, t++, s5, 3, 0);
}

static struct pmu_report *make(struct pmu_report_opts *o)
{
	struct pmu_report *rp;

	o->resolve = resolve;
	o->event_names = events;
	o->nr_events = 1;
	assert_int_equal(pmu_report_new(o, &rp), 0);
	feed(rp);
	return rp;
}

static char *view(struct pmu_report *rp, const struct pmu_report_view *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pmu_report_write_view(rp, f, v), 0);
	fclose(f);
	return buf;
}

/* The row line that ends with what (the last column), or NULL. */
static const char *row(const char *text, const char *what)
{
	static char line[512];

	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		size_t w = strlen(what);
		if (n >= w && n < sizeof(line) && !memcmp(p + n - w, what, w) && *p != '#') {
			memcpy(line, p, n);
			line[n] = '\0';
			return line;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return NULL;
}

static void test_children_and_self(void **state)
{
	PMU_OPTS(pmu_report_opts, o);
	struct pmu_report *rp = make(&o);
	PMU_OPTS(pmu_report_view, v, .sort = "sym", .graph = PMU_REPORT_GRAPH_NONE);
	(void)state;

	char *out = view(rp, &v);	/* children by default: the samples have stacks */
	assert_non_null(strstr(out, "# Samples: 12 of event 'cpu-clock'\n"
				    "# Event count (approx.): 12\n"));
	assert_non_null(strstr(out, "# Children      Self  Symbol\n"));
	assert_string_equal(row(out, "[.] main"), "   100.00%     0.00%  [.] main");
	assert_string_equal(row(out, "[.] leaf"), "    75.00%    66.67%  [.] leaf");
	assert_string_equal(row(out, "[.] foo"), "    58.33%     8.33%  [.] foo");
	assert_string_equal(row(out, "[.] bar"), "    41.67%    16.67%  [.] bar");
	assert_string_equal(row(out, "[k] kfunc"), "     8.33%     8.33%  [k] kfunc");
	/* sorted by Children */
	assert_true(strstr(out, "[.] main") < strstr(out, "[.] leaf"));
	assert_true(strstr(out, "[.] leaf") < strstr(out, "[.] foo"));
	assert_true(strstr(out, "[.] foo") < strstr(out, "[.] bar"));
	free(out);

	v.children = PMU_REPORT_NO_CHILDREN;
	out = view(rp, &v);
	assert_non_null(strstr(out, "# Overhead  Symbol\n"));
	assert_string_equal(row(out, "[.] leaf"), "    66.67%  [.] leaf");
	assert_string_equal(row(out, "[.] bar"), "    16.67%  [.] bar");
	assert_null(row(out, "[.] main"));	/* never sampled itself */
	assert_true(strstr(out, "[.] leaf") < strstr(out, "[.] bar"));
	free(out);
	pmu_report_free(rp);
}

static void test_sort_keys(void **state)
{
	PMU_OPTS(pmu_report_opts, o);
	struct pmu_report *rp = make(&o);
	PMU_OPTS(pmu_report_view, v, .sort = "comm,dso", .children = PMU_REPORT_NO_CHILDREN,
		 .graph = PMU_REPORT_GRAPH_NONE);
	(void)state;

	char *out = view(rp, &v);
	assert_non_null(strstr(out, "# Overhead  Command  Shared Object\n"));
	assert_string_equal(row(out, "app"), "    91.67%  app      app");
	assert_string_equal(row(out, "[kernel.kallsyms]"), "     8.33%  worker   [kernel.kallsyms]");
	free(out);

	v.sort = "tid,cpu";
	out = view(rp, &v);
	assert_non_null(strstr(out, "# Overhead  Tid:Command  CPU\n"));
	assert_string_equal(row(out, "000"), "    91.67%  10:app       000");
	assert_string_equal(row(out, "001"), "     8.33%  11:worker    001");
	free(out);

	v.sort = "pid";
	out = view(rp, &v);
	assert_string_equal(row(out, "10:app"), "   100.00%  10:app");
	free(out);

	/* children with a key set without sym: a row counts once per sample */
	v.sort = "comm,dso,sym";
	v.children = PMU_REPORT_CHILDREN;
	out = view(rp, &v);
	assert_string_equal(row(out, "[.] main"), "    91.67%     0.00%  app      app                [.] main");
	assert_string_equal(row(out, "[k] kfunc"),
			    "     8.33%     8.33%  worker   [kernel.kallsyms]  [k] kfunc");
	free(out);

	v.sort = "comm,bogus";
	assert_int_equal(pmu_report_view_check(&v), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "'bogus'"));
	assert_int_equal(pmu_report_write_view(rp, stdout, &v), PMU_EINVAL);
	v.sort = "symbol,module,srcline";
	assert_int_equal(pmu_report_view_check(&v), 0);
	pmu_report_free(rp);
}

/* Rows name the thread as it was called when the sample was taken (perf's
 * comm at sample time): sh samples before its exec as cc stay sh, and a
 * child forked before the exec, which has no COMM of its own, is sh too;
 * the child's code is named through its parent's mappings. */
static void test_comm_at_sample_time(void **state)
{
	static const uint64_t s[] = { LEAF, MAIN };
	PMU_OPTS(pmu_report_opts, o, .resolve = resolve, .event_names = events, .nr_events = 1);
	PMU_OPTS(pmu_report_view, v, .sort = "comm", .children = PMU_REPORT_NO_CHILDREN,
		 .graph = PMU_REPORT_GRAPH_NONE);
	struct pmu_report *rp;
	struct pmu_record r;
	(void)state;

	assert_int_equal(pmu_report_new(&o, &rp), 0);
	comm(rp, 10, 10, "sh");
	mmap_rec(rp, 10, 0x1000, 0x8000, "/opt/app/app");
	for (uint64_t t = 100; t < 103; t++)
		sample(rp, 10, 0, t, s, 2, 0);
	r = rec(PMU_RECORD_FORK, 20, 20, 103);
	r.task.ppid = 10, r.task.ptid = 10;
	add(rp, &r);
	r = rec(PMU_RECORD_COMM, 10, 10, 104);
	snprintf(r.comm.name, sizeof(r.comm.name), "cc");
	r.comm.exec = 1;
	add(rp, &r);
	sample(rp, 10, 0, 105, s, 2, 0);
	sample_in(rp, 20, 20, 1, 106, s, 2, 0);
	sample_in(rp, 20, 20, 1, 107, s, 2, 0);

	char *out = view(rp, &v);
	assert_non_null(row(out, "sh"));
	assert_non_null(row(out, "cc"));
	assert_string_equal(row(out, "sh"), "    83.33%  sh");
	assert_string_equal(row(out, "cc"), "    16.67%  cc");
	free(out);
	/* the child runs its parent's code: the parent's mappings name it */
	v.sort = "dso";
	out = view(rp, &v);
	assert_non_null(row(out, "app"));
	assert_string_equal(row(out, "app"), "   100.00%  app");
	free(out);
	pmu_report_free(rp);
}

/* The idle task (pid 0) has no COMM record: perf calls it swapper. */
static void test_idle_is_swapper(void **state)
{
	static const uint64_t s[] = { KFUNC };
	PMU_OPTS(pmu_report_opts, o, .resolve = resolve, .event_names = events, .nr_events = 1);
	PMU_OPTS(pmu_report_view, v, .sort = "pid", .children = PMU_REPORT_NO_CHILDREN,
		 .graph = PMU_REPORT_GRAPH_NONE);
	struct pmu_report *rp;
	(void)state;

	assert_int_equal(pmu_report_new(&o, &rp), 0);
	mmap_rec(rp, -1, 0xffff0000, 0x10000, "[kernel.kallsyms]_text");
	sample_in(rp, 0, 0, 0, 100, s, 1, 1);
	char *out = view(rp, &v);
	assert_non_null(row(out, "0:swapper"));
	free(out);
	v.sort = "comm";
	out = view(rp, &v);
	assert_non_null(row(out, "  swapper"));
	free(out);
	pmu_report_free(rp);
}

/* A recording without samples says why that may be and what to do. */
static void test_no_samples(void **state)
{
	PMU_OPTS(pmu_report_opts, o, .resolve = resolve, .event_names = events, .nr_events = 1);
	PMU_OPTS(pmu_report_view, v);
	struct pmu_report *rp;
	(void)state;

	assert_int_equal(pmu_report_new(&o, &rp), 0);
	comm(rp, 10, 10, "true");
	char *out = view(rp, &v);
	assert_non_null(strstr(out, "# no samples: nothing was sampled (a command shorter than "
				    "one sampling period: raise -F; or a trace of other events only)"));
	free(out);
	pmu_report_free(rp);
}

static void test_graph_callee(void **state)
{
	PMU_OPTS(pmu_report_opts, o);
	struct pmu_report *rp = make(&o);
	PMU_OPTS(pmu_report_view, v, .sort = "dso,sym", .children = PMU_REPORT_NO_CHILDREN);
	(void)state;

	char *out = view(rp, &v);	/* no children: callee by default */
	assert_non_null(strstr(out,
		"[.] leaf\n"
		"            |\n"
		"            ---leaf\n"
		"               |          \n"
		"               |--41.67%--foo\n"
		"               |          main\n"
		"               |          \n"
		"                --25.00%--bar\n"
		"                          main\n"
		"\n"));
	assert_non_null(strstr(out,
		"[.] bar\n"
		"            |\n"
		"            ---bar\n"
		"               main\n"
		"\n"));
	free(out);
	/* a sort starting with sym: the row's own symbol heading its graph is
	 * left out, as perf does */
	v.sort = "sym";
	out = view(rp, &v);
	assert_non_null(strstr(out,
		"    66.67%  [.] leaf\n"
		"            |          \n"
		"            |--41.67%--foo\n"
		"            |          main\n"
		"            |          \n"
		"             --25.00%--bar\n"
		"                       main\n"
		"\n"));
	assert_non_null(strstr(out,
		"    16.67%  [.] bar\n"
		"            |\n"
		"            ---main\n"
		"\n"));
	/* kfunc: its callers, from leaf up */
	assert_non_null(strstr(out, "     8.33%  [k] kfunc\n            |\n            ---leaf\n"));
	free(out);
	pmu_report_free(rp);
}

static void test_graph_caller(void **state)
{
	PMU_OPTS(pmu_report_opts, o);
	struct pmu_report *rp = make(&o);
	PMU_OPTS(pmu_report_view, v, .sort = "sym", .children = PMU_REPORT_NO_CHILDREN,
		 .graph = PMU_REPORT_GRAPH_CALLER);
	(void)state;

	char *out = view(rp, &v);
	assert_non_null(strstr(out,
		"    66.67%  [.] leaf\n"
		"            |\n"
		"            ---main\n"
		"               |          \n"
		"               |--41.67%--foo\n"
		"               |          leaf\n"
		"               |          \n"
		"                --25.00%--bar\n"
		"                          leaf\n"
		"\n"));
	free(out);

	/* children, caller (perf's default): a row's graph runs from it down to
	 * the leaves; the recursion's second foo is a callee of the first */
	v.children = PMU_REPORT_CHILDREN;
	v.graph = PMU_REPORT_GRAPH_AUTO;
	v.percent_limit = 5;
	out = view(rp, &v);
	assert_non_null(strstr(out,
		"   100.00%     0.00%  [.] main\n"
		"            |          \n"
		"            |--58.33%--foo\n"
		"            |          |          \n"
		"            |          |--50.00%--leaf\n"
		"            |          |          |          \n"
		"            |          |           --8.33%--kfunc\n"
		"            |          |          \n"
		"            |           --8.33%--foo\n"
		"            |          \n"
		"             --41.67%--bar\n"
		"                       |          \n"
		"                        --25.00%--leaf\n"
		"\n"));
	/* callee: from the row up to the root */
	free(out);
	v.graph = PMU_REPORT_GRAPH_CALLEE;
	out = view(rp, &v);
	assert_non_null(strstr(out,
		"    58.33%     8.33%  [.] foo\n"
		"            |          \n"
		"            |--50.00%--main\n"
		"            |          \n"
		"             --8.33%--foo\n"
		"                       main\n"
		"\n"));
	free(out);
	pmu_report_free(rp);
}

static void test_filters(void **state)
{
	PMU_OPTS(pmu_report_opts, o, .comms = "worker");
	struct pmu_report *rp = make(&o);
	PMU_OPTS(pmu_report_view, v, .sort = "sym", .children = PMU_REPORT_NO_CHILDREN,
		 .graph = PMU_REPORT_GRAPH_NONE);
	struct pmu_report_summary s;
	(void)state;

	/* --comm: the others stay in the totals, percentages are of all */
	char *out = view(rp, &v);
	assert_string_equal(row(out, "[k] kfunc"), "     8.33%  [k] kfunc");
	assert_null(row(out, "[.] leaf"));
	assert_non_null(strstr(out, "# Samples: 12 of event"));
	pmu_report_summary(rp, &s, sizeof(s));
	assert_int_equal(s.hidden, 11);
	assert_int_equal(s.filtered, 0);
	free(out);
	pmu_report_free(rp);

	static const int32_t tid11[] = { 11 }, tid10[] = { 10 }, cpu1[] = { 1 };
	PMU_OPTS(pmu_report_opts, o2, .tids = tid11, .nr_tids = 1);
	rp = make(&o2);
	out = view(rp, &v);
	assert_string_equal(row(out, "[k] kfunc"), "     8.33%  [k] kfunc");
	assert_null(row(out, "[.] bar"));
	free(out);
	pmu_report_free(rp);

	PMU_OPTS(pmu_report_opts, o3, .pids = tid10, .nr_pids = 1);
	rp = make(&o3);
	out = view(rp, &v);
	assert_string_equal(row(out, "[.] leaf"), "    66.67%  [.] leaf");
	assert_string_equal(row(out, "[k] kfunc"), "     8.33%  [k] kfunc");	/* same process */
	free(out);
	pmu_report_free(rp);

	/* --cpu drops the others from every total */
	PMU_OPTS(pmu_report_opts, o4, .cpus = cpu1, .nr_cpus = 1);
	rp = make(&o4);
	out = view(rp, &v);
	assert_non_null(strstr(out, "# Samples: 1 of event"));
	assert_string_equal(row(out, "[k] kfunc"), "   100.00%  [k] kfunc");
	pmu_report_summary(rp, &s, sizeof(s));
	assert_int_equal(s.filtered, 11);
	assert_int_equal(s.samples, 1);
	free(out);
	pmu_report_free(rp);
}

static void test_time_window(void **state)
{
	/* times 100..111: [105, 109] holds the three leaf<-bar and two bar samples */
	PMU_OPTS(pmu_report_opts, o, .time_start = 105, .time_end = 109);
	struct pmu_report *rp = make(&o);
	PMU_OPTS(pmu_report_view, v, .sort = "sym", .children = PMU_REPORT_NO_CHILDREN,
		 .graph = PMU_REPORT_GRAPH_NONE);
	(void)state;

	char *out = view(rp, &v);
	assert_non_null(strstr(out, "# Samples: 5 of event"));
	assert_string_equal(row(out, "[.] leaf"), "    60.00%  [.] leaf");
	assert_string_equal(row(out, "[.] bar"), "    40.00%  [.] bar");
	assert_null(row(out, "[k] kfunc"));
	free(out);
	pmu_report_free(rp);

	PMU_OPTS(pmu_report_opts, o2, .time_start = 110);	/* open end */
	rp = make(&o2);
	out = view(rp, &v);
	assert_non_null(strstr(out, "# Samples: 2 of event"));
	assert_string_equal(row(out, "[k] kfunc"), "    50.00%  [k] kfunc");
	free(out);
	pmu_report_free(rp);
}

static void test_percent_limit(void **state)
{
	PMU_OPTS(pmu_report_opts, o);
	struct pmu_report *rp = make(&o);
	PMU_OPTS(pmu_report_view, v, .sort = "sym", .children = PMU_REPORT_NO_CHILDREN,
		 .percent_limit = 10);
	(void)state;

	char *out = view(rp, &v);
	assert_non_null(row(out, "[.] leaf"));
	assert_non_null(row(out, "[.] bar"));
	assert_null(row(out, "[.] foo"));
	assert_null(row(out, "[k] kfunc"));
	/* graph branches under the limit go too: leaf<-bar is 25%, kept */
	assert_non_null(strstr(out, "--25.00%--bar"));
	free(out);
	v.percent_limit = 30;
	out = view(rp, &v);
	assert_null(strstr(out, "--25.00%--bar"));
	assert_non_null(strstr(out, "--41.67%--foo"));
	free(out);
	v.limit = 1;
	v.percent_limit = 0;
	out = view(rp, &v);
	assert_non_null(row(out, "[.] leaf"));
	assert_null(row(out, "[.] bar"));
	free(out);
	v.percent_limit = 101;
	assert_int_equal(pmu_report_view_check(&v), PMU_EINVAL);
	pmu_report_free(rp);
}

static void test_json(void **state)
{
	PMU_OPTS(pmu_report_opts, o);
	struct pmu_report *rp = make(&o);
	PMU_OPTS(pmu_report_view, v, .sort = "sym", .json = 1);
	(void)state;

	char *out = view(rp, &v);
	assert_non_null(strstr(out, "\"sort\": [\n    \"sym\"\n  ],\n  \"children\": true,\n"));
	assert_non_null(strstr(out, "\"children\": true"));
	assert_non_null(strstr(out, "\"sections\": ["));
	assert_non_null(strstr(out, "\"event\": \"cpu-clock\""));
	assert_non_null(strstr(out, "          \"sym\": \"leaf\",\n"
				    "          \"symbol\": \"app!leaf\",\n"
				    "          \"kernel\": false,\n"
				    "          \"self\": 66.6666666666667,\n"
				    "          \"self_samples\": 8,\n"
				    "          \"self_period\": 8,\n"
				    "          \"children\": 75,\n"
				    "          \"children_samples\": 9,\n"));
	assert_non_null(strstr(out, "\"sym\": \"kfunc\",\n          \"symbol\": "
				    "\"[kernel.kallsyms]!kfunc\",\n          \"kernel\": true"));
	assert_non_null(strstr(out, "\"lost_samples\": 0"));
	assert_non_null(strstr(out, "\"skipped_bytes\": 0"));
	assert_non_null(strstr(out, "\"out_of_order\": 0"));
	assert_non_null(strstr(out, "\"top\": ["));	/* pmu_report_write_json's keys too */
	free(out);
	pmu_report_free(rp);
}

static void test_losses_in_header(void **state)
{
	PMU_OPTS(pmu_report_opts, o);
	struct pmu_report *rp = make(&o);
	PMU_OPTS(pmu_report_view, v);
	struct pmu_record l = rec(PMU_RECORD_LOST, -1, -1, 200);
	(void)state;

	l.lost.count = 7;
	l.lost.samples = 1;
	add(rp, &l);
	l.lost.count = 3;
	l.lost.samples = 0;
	l.lost.bytes = 64;
	add(rp, &l);
	char *out = view(rp, &v);
	assert_non_null(strstr(out, "# Total Lost Samples: 7\n# Lost records: 3\n"
				    "# Skipped bytes: 64\n# Out of order: 0\n"));
	free(out);
	pmu_report_free(rp);
}

/* A symbolizer that cannot name the frames (PMU_ENOTSUP today, or a module
 * file that is not there): the resolve callback names them, or they say
 * [missing]; never another name. */
static void test_symbolizer_fallback(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_symbolizer *sym;
	struct pmu_frame fr[4];
	size_t n = 0;
	(void)state;

	if (pmu_symbolizer_open(&so, &sym)) {
		print_message("skipped: no symbolizer: %s\n", pmu_error_detail());
		skip();
	}
	PMU_OPTS(pmu_report_opts, o, .symbolizer = sym);
	struct pmu_report *rp = make(&o);
	PMU_OPTS(pmu_report_view, v, .sort = "sym", .children = PMU_REPORT_NO_CHILDREN,
		 .graph = PMU_REPORT_GRAPH_NONE);
	char *out = view(rp, &v);
	int resolves = pmu_symbolizer_resolve_pid(sym, 10, LEAF, fr, 4, &n) != PMU_ENOTSUP;
	if (!resolves) {
		assert_string_equal(row(out, "[.] leaf"), "    66.67%  [.] leaf");
	} else {	/* /opt/app/app does not exist */
		assert_null(row(out, "[.] leaf"));
		assert_non_null(strstr(out, "[missing]"));
	}
	pmu_report_free(rp);
	free(out);
	pmu_symbolizer_close(sym);
}

/* A sample with user registers and stack: unwound by the symbolizer where it
 * can, else its call chain stands. */
static void test_unwind_fallback(void **state)
{
	static const uint64_t chain[] = { LEAF, FOO, MAIN }, regs[3] = { 1, 2, 3 };
	static const uint8_t stack[64];
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_symbolizer *sym;
	struct pmu_report_summary s;
	(void)state;

	if (pmu_symbolizer_open(&so, &sym)) {
		print_message("skipped: no symbolizer: %s\n", pmu_error_detail());
		skip();
	}
	PMU_OPTS(pmu_report_opts, o, .symbolizer = sym, .resolve = resolve);
	struct pmu_report *rp;
	assert_int_equal(pmu_report_new(&o, &rp), 0);
	mmap_rec(rp, 10, 0x1000, 0x8000, "/opt/app/app");
	struct pmu_sample_ext ext = { sizeof(ext), NULL, 0, 3, 2, 7, regs, stack, 64, 0, 0, 0 };
	struct pmu_record r = rec(PMU_RECORD_SAMPLE, 10, 10, 5);
	r.has |= PMU_HAS_IP | PMU_HAS_CALLCHAIN | PMU_HAS_REGS_USER | PMU_HAS_STACK_USER;
	r.sample.ip = LEAF;
	r.sample.callchain = chain;
	r.sample.nr_callchain = 3;
	r.sample.ext = &ext;
	add(rp, &r);
	pmu_report_summary(rp, &s, sizeof(s));
	assert_int_equal(s.samples, 1);
	assert_int_equal(s.stacks, 1);
	if (!s.unwound) {	/* the call chain stood, named by the callback or [missing] */
		struct pmu_frame fr[4];
		size_t n = 0;
		int named = pmu_symbolizer_resolve_pid(sym, 10, LEAF, fr, 4, &n) != PMU_ENOTSUP;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		assert_int_equal(pmu_report_write_collapsed(rp, f), 0);
		fclose(f);
		assert_string_equal(buf, named ? "[unknown];app!+0x10 [missing];app!+0x1010 [missing];"
						 "app!+0x3010 [missing] 1\n" :
					 "[unknown];app!main;app!foo;app!leaf 1\n");
		free(buf);
	}
	pmu_report_free(rp);
	pmu_symbolizer_close(sym);
}

/* A deep recursion (foo and bar alternating 2000 deep under main): each
 * symbol counts once per sample in Children, and the view stays quick. */
static void test_deep_recursion(void **state)
{
	enum { DEPTH = 2000 };
	static uint64_t chain[DEPTH + 2];
	struct pmu_report *rp;
	PMU_OPTS(pmu_report_opts, o, .resolve = resolve, .event_names = events, .nr_events = 1);
	PMU_OPTS(pmu_report_view, v, .sort = "sym", .graph = PMU_REPORT_GRAPH_NONE);
	(void)state;

	assert_int_equal(pmu_report_new(&o, &rp), 0);
	mmap_rec(rp, 10, 0x1000, 0x8000, "/opt/app/app");
	chain[0] = LEAF;
	for (int i = 1; i <= DEPTH; i++)
		chain[i] = i & 1 ? FOO : BAR;
	chain[DEPTH + 1] = MAIN;
	for (int s = 0; s < 200; s++) {	/* 200 distinct stacks: each one frame shorter */
		chain[DEPTH - s] = MAIN;
		sample(rp, 10, 0, (uint64_t)s, chain, DEPTH + 1 - (uint32_t)s, 0);
	}
	char *out = view(rp, &v);
	assert_string_equal(row(out, "[.] foo"), "   100.00%     0.00%  [.] foo");
	assert_string_equal(row(out, "[.] bar"), "   100.00%     0.00%  [.] bar");
	assert_string_equal(row(out, "[.] leaf"), "   100.00%   100.00%  [.] leaf");
	free(out);
	pmu_report_free(rp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_children_and_self),
		cmocka_unit_test(test_sort_keys),
		cmocka_unit_test(test_comm_at_sample_time),
		cmocka_unit_test(test_idle_is_swapper),
		cmocka_unit_test(test_no_samples),
		cmocka_unit_test(test_graph_callee),
		cmocka_unit_test(test_graph_caller),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_time_window),
		cmocka_unit_test(test_percent_limit),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_losses_in_header),
		cmocka_unit_test(test_symbolizer_fallback),
		cmocka_unit_test(test_unwind_fallback),
		cmocka_unit_test(test_deep_recursion),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
