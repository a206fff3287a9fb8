/* SPDX-License-Identifier: MIT */
/* pmukit report -i FILE: samples by symbol, module, thread, process or CPU,
 * CPU time and counters per thread, collapsed stacks, perf-script text, from
 * a recording read into the portable record model (today: .etl files). */
#include "cmd.h"
#include "core/num.h"
#include "formats/etl_records.h"

#include <getopt.h>
#include <pmukit/error.h>
#include <pmukit/report.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum format { FMT_TEXT, FMT_COLLAPSED, FMT_SCRIPT };

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit report [-i] FILE.etl [--sort sym|module|tid|pid|cpu] [--json]\n"
		   "                     [--format text|collapsed|perf-script] [--limit N]\n"
		   "\n  -i FILE      the recording: a Windows .etl trace\n"
		   "  --sort KEY   rows of the text table (default sym)\n"
		   "  --json       one JSON document: samples, lost, top, modules, processes,\n"
		   "               threads (with CPU time and counters), cpus\n"
		   "  --format F   text (default), collapsed (folded stacks for flame graphs) or\n"
		   "               perf-script (for Firefox Profiler, speedscope)\n"
		   "  --limit N    rows of the table and of JSON top/modules (default 40, 0: all)\n");
}

static void on_problem(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "pmukit report: warning: %s\n", msg);
}

/* An .etl starts with a WMI_BUFFER_HEADER (BufferType 4: header) whose first
 * record is a SYSTEM32/64 trace header: 0 = it is, 1 = perf.data, -1 = other,
 * -2 = not a readable regular file. */
static int sniff(const char *path)
{
	unsigned char b[0x50];
	struct stat st;
	FILE *f;
	size_t n;

	/* the reader says why it cannot open it, or what it is when not a file */
	if (stat(path, &st) || !S_ISREG(st.st_mode) || !(f = fopen(path, "rb")))
		return -2;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	if (n >= 8 && (!memcmp(b, "PERFILE2", 8) || !memcmp(b, "PERFFILE", 8)))
		return 1;
	if (n == sizeof(b) && (b[0x36] | b[0x37] << 8) == 4 && (b[0x4A] == 1 || b[0x4A] == 2) &&
	    b[0x4B] == 0xC0)
		return 0;
	return -1;
}

/* The text table says so itself; other outputs are empty or numbers only. */
static void warn_no_samples(const struct pmu_report *rep, const char *path, int not_text)
{
	struct pmu_report_summary sum;

	pmu_report_summary(rep, &sum, sizeof(sum));
	if (!sum.samples && not_text)
		fprintf(stderr, "pmukit report: %s holds no samples (a trace of other events "
			"only)\n", path);
}

static int run(const char *path, enum pmu_report_sort sort, int json, enum format fmt, size_t limit)
{
	PMU_OPTS(pmuk_etl_records_opts, ao, .on_problem = on_problem);
	struct pmuk_etl_records *a = NULL;
	struct pmu_report *rep = NULL;
	int err, rc = 1;

	if ((err = pmuk_etl_records_open(path, &ao, &a)))
		return tool_error("report", path, err);
	PMU_OPTS(pmu_report_opts, ro, .script = fmt == FMT_SCRIPT ? stdout : NULL);
	pmuk_etl_records_report_opts(a, &ro);
	if ((err = pmu_report_new(&ro, &rep))) {
		rc = tool_error("report", "creating the report", err);
		goto out;
	}
	if ((err = pmuk_etl_records_read(a, pmu_report_record, rep))) {
		rc = tool_error("report", path, err);
		goto out;
	}
	warn_no_samples(rep, path, json || fmt != FMT_TEXT);
	if (fmt == FMT_COLLAPSED)
		err = pmu_report_write_collapsed(rep, stdout);
	else if (json)
		err = pmu_report_write_json(rep, stdout, limit);
	else if (fmt == FMT_TEXT)
		err = pmu_report_write_text(rep, stdout, sort, limit);
	rc = err ? tool_error("report", "writing the report", err) : 0;
out:
	pmu_report_free(rep);
	pmuk_etl_records_close(a);
	return rc;
}

struct report_args {
	const char *path;
	enum pmu_report_sort sort;
	enum format fmt;
	size_t limit;
	int json;
};

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "sort", required_argument, NULL, 'S' },
	{ "format", required_argument, NULL, 'F' },
	{ "limit", required_argument, NULL, 'L' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --sort, --format or --limit with its value v; 0 or the exit status. */
static int value_option(int opt, const char *v, struct report_args *a)
{
	uint64_t n;

	if (opt == 'S') {
		if (pmu_report_sort_parse(v, &a->sort))
			return tool_error("report", "--sort", PMU_EINVAL), 2;
	} else if (opt == 'F') {
		if (!strcmp(v, "text"))
			a->fmt = FMT_TEXT;
		else if (!strcmp(v, "collapsed"))
			a->fmt = FMT_COLLAPSED;
		else if (!strcmp(v, "perf-script"))
			a->fmt = FMT_SCRIPT;
		else {
			fprintf(stderr, "pmukit report: --format is text, collapsed or "
					"perf-script, not '%s'\n", v);
			return 2;
		}
	} else {
		if (pmuk_parse_u64(v, 10, &n) || n > SIZE_MAX) {
			fprintf(stderr, "pmukit report: --limit is a number of rows (0: all), "
				"not '%s'\n", v);
			return 2;
		}
		a->limit = (size_t)n;
	}
	return 0;
}

/* The recording comes with -i or, as perf report takes it, alone; -1 to go on,
 * else the exit status. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		} else if (opt == 'j') {
			a->json = 1;
		} else if (opt == 'i') {
			a->path = optarg;
		} else if (opt == 'S' || opt == 'F' || opt == 'L') {
			if ((rc = value_option(opt, optarg, a)))
				return rc;
		} else {
			tool_bad_option(argv, opt, longopts);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc && !a->path && strcmp(argv[optind], "-"))
		a->path = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "pmukit report: %s '%s'\n", strcmp(argv[optind], "-") ?
			"one recording only: extra" : "unknown option", argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .sort = PMU_REPORT_SYM, .fmt = FMT_TEXT, .limit = 40 };
	int rc = parse_args(argc, argv, &a);
	const char *path = a.path;

	if (rc >= 0)
		return rc;
	if (!path) {
		fprintf(stderr, "pmukit report: which recording? (-i FILE)\n");
		usage(stderr);
		return 2;
	}
	if (a.json && a.fmt != FMT_TEXT) {
		fprintf(stderr, "pmukit report: --json goes with --format text only\n");
		return 2;
	}
	switch (sniff(path)) {
	case 0:
		return run(path, a.sort, a.json, a.fmt, a.limit);
	case 1:
		fprintf(stderr, "pmukit report: %s: a perf.data file; pmukit reads only .etl "
				"recordings so far (perf.data reading comes later)\n", path);
		return 1;
	case -2:
		return run(path, a.sort, a.json, a.fmt, a.limit);	/* says why it cannot be opened */
	default:
		fprintf(stderr, "pmukit report: %s: not an .etl file (perf.data reading comes "
				"later)\n", path);
		return 1;
	}
}
