/* SPDX-License-Identifier: MIT */
/* .etl reading speed: events/s and MB/s of full kernel-event decoding against
 * `cat FILE >/dev/null` from the page cache (the floor), measured in the same
 * run, plus the peak RSS (which must not grow with the file).
 * usage: bench_etl [FILE...]   (default: the fixtures in ../shared/fixtures/etl) */
#include <pmukit/etl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n = -1;

	if (f && !fseek(f, 0, SEEK_END))
		n = ftell(f);
	if (f)
		fclose(f);
	return n;
}

/* Every decoder that accepts the event, as a report would use them. */
static unsigned long decode_all(const struct pmu_etl_event *ev)
{
	static union {
		struct pmu_etl_thread_ev t;
		struct pmu_etl_process_ev p;
		struct pmu_etl_image_ev i;
		struct pmu_etl_imageid_ev id;
		struct pmu_etl_cswitch_ev cs;
		struct pmu_etl_sample_ev s;
		struct pmu_etl_stack_ev sw;
		struct pmu_etl_stack_key_ev sk;
	} u;

	switch (ev->group) {
	case PMU_ETL_GROUP_THREAD:
		return !pmu_etl_decode_thread(ev, &u.t) || !pmu_etl_decode_cswitch(ev, &u.cs);
	case PMU_ETL_GROUP_PROCESS:
		return !pmu_etl_decode_process(ev, &u.p) || !pmu_etl_decode_image(ev, &u.i);
	case PMU_ETL_GROUP_IMAGE:
		return !pmu_etl_decode_image(ev, &u.i);
	case PMU_ETL_GROUP_PERFINFO:
		return !pmu_etl_decode_sampled_profile(ev, &u.s);
	case PMU_ETL_GROUP_STACKWALK:
		return !pmu_etl_decode_stackwalk(ev, &u.sw) || !pmu_etl_decode_stack_key(ev, &u.sk);
	default:
		return ev->kind == PMU_ETL_FULL && !pmu_etl_decode_imageid_rsds(ev, &u.id);
	}
}

static int read_all(const char *path, int order, unsigned long *events, unsigned long *decoded)
{
	PMU_OPTS(pmu_etl_opts, o, .order = order);
	struct pmu_etl *r;
	struct pmu_etl_event ev;
	int rc;

	if (pmu_etl_open(path, &o, &r))
		return -1;
	*events = *decoded = 0;
	while ((rc = pmu_etl_next(r, &ev)) > 0) {
		(*events)++;
		*decoded += decode_all(&ev);
	}
	pmu_etl_close(r);
	return rc;
}

/* Best of several runs of at least ~0.3 s in total. */
static double best(const char *path, int what, unsigned long *events, unsigned long *decoded)
{
	char cmd[4200];
	double b = 1e30, start = now();

	snprintf(cmd, sizeof(cmd), "cat '%s' >/dev/null", path);
	for (int i = 0; i < 50 && (i < 5 || now() - start < 0.3); i++) {
		double t0 = now();
		if (what == 0) {
			if (system(cmd) != 0)
				return -1;
		} else if (read_all(path, what == 1 ? PMU_ETL_ORDER_TIME : PMU_ETL_ORDER_FILE,
				    events, decoded) < 0) {
			return -1;
		}
		double t = now() - t0;
		if (t < b)
			b = t;
	}
	return b;
}

static int bench(const char *path)
{
	unsigned long ev = 0, dec = 0;
	long size = file_size(path);
	struct rusage ru;

	if (size <= 0) {
		fprintf(stderr, "bench_etl: cannot read %s\n", path);
		return 1;
	}
	double cat = best(path, 0, NULL, NULL);
	double tim = best(path, 1, &ev, &dec);
	double fil = best(path, 2, &ev, &dec);
	if (cat < 0 || tim < 0 || fil < 0) {
		fprintf(stderr, "bench_etl: %s: a run failed\n", path);
		return 1;
	}
	double mb = size / 1e6;
	getrusage(RUSAGE_SELF, &ru);
	printf("%s: %.1f MB, %lu events (%lu decoded)\n", path, mb, ev, dec);
	printf("  cat >/dev/null      %8.3f ms %9.1f MB/s  (floor, includes starting cat)\n",
	       cat * 1e3, mb / cat);
	printf("  etl time order      %8.3f ms %9.1f MB/s %12.0f events/s  %.2fx floor\n",
	       tim * 1e3, mb / tim, ev / tim, cat / tim);
	printf("  etl file order      %8.3f ms %9.1f MB/s %12.0f events/s  %.2fx floor\n",
	       fil * 1e3, mb / fil, ev / fil, cat / fil);
	printf("  max RSS so far      %ld KiB\n", ru.ru_maxrss);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = {
		"perfview-net452-x64-compressed.etl",   /* largest fixture */
		"airbus-ShutdownPerfDiagLogger.etl",    /* largest uncompressed */
	};
	char root[4096], path[4400];
	int rc = 0;

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			rc |= bench(argv[i]);
		return rc;
	}
	/* the repo root from this file's path, so the bench runs from anywhere */
	snprintf(root, sizeof(root), "%s", __FILE__);
	char *slash = strstr(root, "bench/etl.c");
	if (slash)
		*slash = '\0';
	else
		snprintf(root, sizeof(root), "./");
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		snprintf(path, sizeof(path), "%s../shared/fixtures/etl/%s", root, defaults[i]);
		if (file_size(path) <= 0) {
			printf("bench_etl: %s absent; skipped\n", path);
			continue;
		}
		rc |= bench(path);
	}
	return rc;
}
