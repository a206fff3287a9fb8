/* SPDX-License-Identifier: MIT */
/* Writes the outputs of one report for the integration tests (test_flame.sh):
 *   report_write FILE OUTDIR             a recording read through pmu_trace_*
 *   report_write --synthetic N OUTDIR    N distinct stacks with C++-like names
 *   report_write --live MS OUTDIR        this process sampled (cpu-clock, call
 *                                        chains) for MS ms of hot_a/hot_b, names
 *                                        from the live symbolizer (exit 77: cannot)
 * OUTDIR gets flame.svg, profile.pb.gz, collapsed.txt, text.txt (every symbol
 * row) and report.json (every row), all from the same pmu_report. */
#include <pmukit/counting.h>
#include <pmukit/error.h>
#include <pmukit/events.h>
#include <pmukit/json.h>
#include <pmukit/report.h>
#include <pmukit/symbols.h>
#include <pmukit/trace.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what, int err)
{
	fprintf(stderr, "report_write: %s: %s: %s\n", what, pmu_strerror(err), pmu_error_detail());
	return 1;
}

static int write_one(struct pmu_report *rep, const char *dir, const char *name, const char *title)
{
	char path[4096];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "wb"))) {
		perror(path);
		return 1;
	}
	if (!strcmp(name, "flame.svg"))
		err = pmu_report_write_svg(rep, f, title);
	else if (!strcmp(name, "profile.pb.gz"))
		err = pmu_report_write_pprof(rep, f);
	else if (!strcmp(name, "collapsed.txt"))
		err = pmu_report_write_collapsed(rep, f);
	else if (!strcmp(name, "report.json"))
		err = pmu_report_write_json(rep, f, PMU_JSON_PRETTY);
	else
		err = pmu_report_write_text(rep, f, PMU_REPORT_SYM, 0);
	if (fclose(f) && !err)
		err = PMU_EIO;
	return err ? fail(path, err) : 0;
}

static int write_all(struct pmu_report *rep, const char *dir, const char *title)
{
	static const char *const names[] = { "flame.svg", "profile.pb.gz", "collapsed.txt",
					     "text.txt", "report.json" };

	int rc = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		rc |= write_one(rep, dir, names[i], title);
	return rc;
}

static int from_recording(const char *path, const char *dir)
{
	struct pmu_trace *t;
	struct pmu_report *rep = NULL;
	const char *events[64];
	int err, rc = 1;

	if ((err = pmu_trace_open(path, NULL, &t)))
		return fail(path, err);
	size_t ne = pmu_trace_event_count(t);
	if (ne > 64)
		ne = 64;
	for (size_t i = 0; i < ne; i++)
		events[i] = pmu_trace_event(t, i)->name;
	PMU_OPTS(pmu_report_opts, ro, .event_names = events, .nr_events = (uint32_t)ne);
	if ((err = pmu_report_new(&ro, &rep)))
		fail("pmu_report_new", err);
	else if ((err = pmu_trace_read(t, pmu_report_record, rep)))
		fail(path, err);
	else
		rc = write_all(rep, dir, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	pmu_report_free(rep);
	pmu_trace_close(t);
	return rc;
}

/* ---- synthetic: names with < > & " and a kernel ---- */

#define LIB 0x400000ull
#define KERN 0xffffffff81000000ull

static const char *resolve(const struct pmu_report_module *mod, uint64_t addr, void *ctx)
{
	char *buf = ctx;
	unsigned fn = (unsigned)((addr & 0xffffff) / 16);

	if (!mod)
		return NULL;
	if (addr >= KERN)
		snprintf(buf, 256, "kfunc_%u", fn);
	else if (fn % 3 == 0)
		snprintf(buf, 256, "ns::Box<std::pair<int, char>>::operator&&(\"%u\")", fn);
	else
		snprintf(buf, 256, "std::vector<T%u>::push_back(T&)", fn);
	return buf;
}

static void add(struct pmu_report *rep, struct pmu_record *r)
{
	if (pmu_report_record(r, rep))
		exit(fail("pmu_report_record", PMU_ENOMEM));
}

static void synth_maps(struct pmu_report *rep)
{
	struct pmu_record r = { .kind = PMU_RECORD_COMM, .pid = 100, .tid = 100, .cpu = -1 };

	snprintf(r.comm.name, sizeof(r.comm.name), "synth<&>");
	add(rep, &r);
	r = (struct pmu_record){ .kind = PMU_RECORD_MMAP, .pid = 100, .tid = 100, .cpu = -1 };
	r.mmap.start = LIB, r.mmap.len = 0x100000, r.mmap.path = "/opt/app/libtpl.so";
	add(rep, &r);
	r.pid = r.tid = -1;
	r.mmap.start = KERN, r.mmap.len = 0x100000, r.mmap.path = "[kernel.kallsyms]";
	add(rep, &r);
}

/* Stack i: main, then i's digits in base 40 (one function group per level),
 * then a kernel leaf on every fourth: n distinct stacks. */
static int synthetic(unsigned long n, const char *dir)
{
	static char buf[256];
	struct pmu_report *rep;
	const char *events[] = { "cpu-clock" };
	uint64_t chain[16];
	int err;

	PMU_OPTS(pmu_report_opts, ro, .event_names = events, .nr_events = 1, .resolve = resolve,
		 .resolve_ctx = buf);
	if ((err = pmu_report_new(&ro, &rep)))
		return fail("pmu_report_new", err);
	synth_maps(rep);
	for (unsigned long i = 0; i < n; i++) {
		uint32_t depth = 0, kern = i % 4 == 0;
		for (unsigned long v = i; v || !depth; v /= 40, depth++)
			chain[depth] = LIB + 16 * (40 * (depth + 1) + v % 40);
		if (kern)
			chain[depth++] = KERN + 16 * (i % 13);
		for (uint32_t a = 0, b = depth - 1; a < b; a++, b--) {	/* leaf first */
			uint64_t t = chain[a];
			chain[a] = chain[b], chain[b] = t;
		}
		chain[depth++] = LIB;	/* main */
		struct pmu_record r = { .kind = PMU_RECORD_SAMPLE, .pid = 100, .tid = 100,
			.cpu = 0, .has = PMU_HAS_IP | PMU_HAS_PERIOD | PMU_HAS_CALLCHAIN };
		r.sample.ip = chain[0];
		r.sample.callchain = chain;
		r.sample.nr_callchain = depth;
		r.sample.nr_kernel_frames = kern;
		for (unsigned long c = 0; c < 1 + i % 3; c++) {
			r.sample.period = 1000000;
			add(rep, &r);
		}
	}
	int rc = write_all(rep, dir, "synthetic <C++> & stacks");
	pmu_report_free(rep);
	return rc;
}

/* ---- live: this process, its modules from /proc/self/maps ---- */

static const char *resolve_live(const struct pmu_report_module *mod, uint64_t addr, void *ctx)
{
	struct pmu_frame fr[8];
	size_t n = 0;

	(void)mod;
	if (pmu_symbolizer_resolve(ctx, addr, fr, 8, &n) || !n)
		return NULL;
	return fr[n - 1].function;	/* the function holding the code, not its inlines */
}

static void live_maps(struct pmu_report *rep)
{
	char line[4096], path[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	struct pmu_record r = { .kind = PMU_RECORD_COMM, .pid = getpid(), .tid = getpid(), .cpu = -1 };

	snprintf(r.comm.name, sizeof(r.comm.name), "report_write");
	add(rep, &r);
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perm[8];
		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perm, &off, path) < 4 ||
		    perm[2] != 'x' || !path[0])
			continue;
		r = (struct pmu_record){ .kind = PMU_RECORD_MMAP, .pid = getpid(), .tid = getpid(),
					 .cpu = -1 };
		r.mmap.start = lo, r.mmap.len = hi - lo, r.mmap.pgoff = off, r.mmap.path = path;
		add(rep, &r);
	}
	if (f)
		fclose(f);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

volatile unsigned long sink;

__attribute__((noinline)) static void spin(double s)
{
	for (double end = now() + s; now() < end;)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i * 7;
}

/* (sink after the call: no tail call, so they stay on the stack; different
 * sums, so the compiler does not fold them into one) */
__attribute__((noinline)) static void hot_a(double s)
{
	spin(s);
	sink += 1;
}

__attribute__((noinline)) static void hot_b(double s)
{
	spin(s);
	sink += 2;
}

static int live(unsigned long ms, const char *dir)
{
	struct pmu_event_list *ev;
	struct pmu_target self = { .kind = PMU_TARGET_SELF };
	struct pmu_sampler *s;
	struct pmu_symbolizer *sym;
	struct pmu_report *rep;
	const char *names[] = { "cpu-clock" };
	int err;

	PMU_OPTS(pmu_sampler_opts, so, .freq = 1000, .use_freq = 1, .callchain = 1,
		 .exclude_kernel = 1);
	if ((err = pmu_event_parse("cpu-clock", &ev)))
		return fail("cpu-clock", err);
	if ((err = pmu_sampler_open(ev, &self, &so, &s))) {
		fprintf(stderr, "report_write: cannot sample here: %s\n", pmu_error_detail());
		return 77;
	}
	if ((err = pmu_symbolizer_open(NULL, &sym)))
		return fail("pmu_symbolizer_open", err);
	PMU_OPTS(pmu_report_opts, ro, .event_names = names, .nr_events = 1, .resolve = resolve_live,
		 .resolve_ctx = sym);
	if ((err = pmu_report_new(&ro, &rep)))
		return fail("pmu_report_new", err);
	live_maps(rep);
	for (unsigned long t = 0; t < ms && !err; t += 100) {	/* 3/4 in hot_a */
		hot_a(0.075);
		hot_b(0.025);
		err = pmu_sampler_read(s, pmu_report_record, rep);
	}
	int rc = err ? fail("pmu_sampler_read", err) : write_all(rep, dir, "report_write --live");
	pmu_report_free(rep);
	pmu_symbolizer_close(sym);
	pmu_sampler_close(s);
	pmu_event_list_free(ev);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--synthetic"))
		return synthetic(strtoul(argv[2], NULL, 10), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "--live"))
		return live(strtoul(argv[2], NULL, 10), argv[3]);
	if (argc != 3) {
		fprintf(stderr, "usage: report_write FILE OUTDIR | --synthetic N OUTDIR | "
			"--live MS OUTDIR\n");
		return 2;
	}
	return from_recording(argv[1], argv[2]);
}
