/* SPDX-License-Identifier: MIT */
/* .etl files padded with zeros, as ETW preallocates them to their maximum size:
 * copies of a fixture are padded in a temp dir, sparse (truncate: holes the
 * reader can skip with SEEK_DATA) and dense (zeros written: every byte read
 * and checked), and read side by side with the original and with
 * `cat PADDED >/dev/null` (the floor: reading the padding from the page cache),
 * in one run. The target: padded costs no more than 2x unpadded + the floor.
 * usage: bench_etl_padding [FILE [PAD_MIB]]
 * (default: the airbus fixture, 1024 MiB sparse; the dense pad is a quarter) */
#include "core/num.h"

#include <pmukit/etl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* n MiB of written zeros after the copy. */
static int append_zeros(const char *path, long mib)
{
	static const char zero[1 << 20];
	FILE *f = fopen(path, "ab");
	int rc = f ? 0 : -1;

	for (long i = 0; !rc && i < mib; i++)
		rc = fwrite(zero, 1, sizeof(zero), f) == sizeof(zero) ? 0 : -1;
	if (f && fclose(f))
		rc = -1;
	return rc;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;
	int rc = in && out ? 0 : -1;

	while (!rc && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc;
}

/* Every event in time order (what report and dump do); -1 on failure. */
static long read_all(const char *path, unsigned long long *padding)
{
	PMU_OPTS(pmu_etl_opts, o, .order = PMU_ETL_ORDER_TIME);
	struct pmu_etl_event ev;
	struct pmu_etl_stats st;
	struct pmu_etl *r;
	long n = 0;
	int rc;

	if (pmu_etl_open(path, &o, &r))
		return -1;
	while ((rc = pmu_etl_next(r, &ev)) > 0)
		n++;
	pmu_etl_stats(r, &st, sizeof(st));
	*padding = st.bytes_padding;
	pmu_etl_close(r);
	return rc < 0 ? -1 : n;
}

/* CPU seconds of this process and its waited-for children (cat). */
static double cpu_now(void)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	return (double)(s.ru_utime.tv_sec + s.ru_stime.tv_sec + c.ru_utime.tv_sec +
			c.ru_stime.tv_sec) + (s.ru_utime.tv_usec + s.ru_stime.tv_usec +
			c.ru_utime.tv_usec + c.ru_stime.tv_usec) / 1e6;
}

/* Wall and CPU time: a VM's stolen time shows in the first, not the second. */
struct cost {
	double wall, cpu;
};

/* Best of at least 5 runs and ~0.5 s: cmd == NULL reads with pmukit, else runs
 * cmd; -1 in wall on failure. */
static struct cost best(const char *path, const char *cmd, long *events,
			unsigned long long *pad)
{
	struct cost b = { 1e30, 1e30 }, fail = { -1, -1 };
	double start = now();

	for (int i = 0; i < 50 && (i < 5 || now() - start < 0.5); i++) {
		double t0 = now(), c0 = cpu_now();
		if (cmd ? system(cmd) != 0 : (*events = read_all(path, pad)) < 0)
			return fail;
		double t = now() - t0, c = cpu_now() - c0;
		b.wall = t < b.wall ? t : b.wall;
		b.cpu = c < b.cpu ? c : b.cpu;
	}
	return b;
}

static void row(const char *what, double padded, double unpadded, double cat)
{
	double target = 2 * unpadded + cat;

	printf("  %-4s unpadded %8.3f ms, padded %8.3f ms (%.2fx unpadded), cat floor %8.3f ms "
	       "(padded %.2fx): padded <= 2x unpadded + floor (%.3f ms) %s\n", what,
	       unpadded * 1e3, padded * 1e3, padded / unpadded, cat * 1e3, padded / cat,
	       target * 1e3, padded <= target ? "met" : "MISSED");
}

static int bench(const char *orig, const char *padded, const char *how, long mib)
{
	char cmd[4200];
	long ev_u = 0, ev_p = 0;
	unsigned long long pad_u = 0, pad_p = 0;

	snprintf(cmd, sizeof(cmd), "cat '%s' >/dev/null", padded);
	if (system(cmd) != 0)	/* the first read of a hole fills the page cache */
		return 1;
	struct cost cat = best(padded, cmd, NULL, NULL);
	struct cost unp = best(orig, NULL, &ev_u, &pad_u);
	struct cost pad = best(padded, NULL, &ev_p, &pad_p);
	if (cat.wall < 0 || unp.wall < 0 || pad.wall < 0 || ev_u != ev_p) {
		fprintf(stderr, "bench_etl_padding: a run failed or the events differ (%ld, %ld)\n",
			ev_u, ev_p);
		return 1;
	}
	printf("%s + %ld MiB of %s zeros (%llu bytes counted as padding), %ld events\n", orig,
	       mib, how, pad_p, ev_p);
	row("wall", pad.wall, unp.wall, cat.wall);
	row("cpu", pad.cpu, unp.cpu, cat.cpu);
	return 0;
}

int main(int argc, char **argv)
{
	char root[4096], orig[4400], dir[] = "/tmp/pmukit_bench_pad.XXXXXX", padded[64];
	long mib = 1024;
	int rc;

	if (argc > 2 && pmuk_parse_long(argv[2], 10, 1, 1L << 20, &mib)) {
		fprintf(stderr, "bench_etl_padding: PAD_MIB is 1 to 1048576, not '%s'\n", argv[2]);
		return 2;
	}
	if (argc > 1) {
		snprintf(orig, sizeof(orig), "%s", argv[1]);
	} else {	/* the repo root from this file's path, so the bench runs from anywhere */
		snprintf(root, sizeof(root), "%s", __FILE__);
		char *slash = strstr(root, "bench/etl_padding.c");
		if (slash)
			*slash = '\0';
		else
			snprintf(root, sizeof(root), "./");
		snprintf(orig, sizeof(orig), "%s../shared/fixtures/etl/"
			 "airbus-ShutdownPerfDiagLogger.etl", root);
	}
	if (access(orig, R_OK)) {
		printf("bench_etl_padding: %s absent; skipped\n", orig);
		return 0;
	}
	if (!mkdtemp(dir)) {
		fprintf(stderr, "bench_etl_padding: cannot make a temp dir\n");
		return 1;
	}
	snprintf(padded, sizeof(padded), "%s/padded.etl", dir);
	rc = copy_file(orig, padded) || truncate(padded, (off_t)mib << 20);
	if (!rc)
		rc = bench(orig, padded, "sparse (holes)", mib);
	if (!rc && !(rc = copy_file(orig, padded) || append_zeros(padded, mib / 4 + 1)))
		rc = bench(orig, padded, "dense (written)", mib / 4 + 1);
	if (rc)
		fprintf(stderr, "bench_etl_padding: failed with %s\n", padded);
	unlink(padded);
	rmdir(dir);
	return rc;
}
