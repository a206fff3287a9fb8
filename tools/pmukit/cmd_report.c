/* SPDX-License-Identifier: MIT */
/* pmukit report -i FILE: samples by symbol, module, thread, process or CPU,
 * CPU time and counters per thread, collapsed stacks, perf-script text, from
 * a recording read into the portable record model (today: .etl files). */
#include "cmd.h"
#include "core/num.h"

#include <getopt.h>
#include <pmukit/error.h>
#include <pmukit/report.h>
#include <pmukit/trace.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static void on_warn(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "pmukit report: warning: %s\n", msg);
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

/* The names the report prints for the recording's events and counters. */
static int names_of(const struct pmu_trace *t, const char ***events, const char ***pmcs)
{
	size_t ne = pmu_trace_event_count(t), np = pmu_trace_pmc_count(t);

	*events = calloc(ne + 1, sizeof(**events));
	*pmcs = calloc(np + 1, sizeof(**pmcs));
	if (!*events || !*pmcs)
		return PMU_ENOMEM;
	for (size_t i = 0; i < ne; i++)
		(*events)[i] = pmu_trace_event(t, i)->name;
	for (size_t i = 0; i < np; i++)
		(*pmcs)[i] = pmu_trace_pmc_name(t, i);
	return 0;
}

static int write_out(struct pmu_report *rep, enum pmu_report_sort sort, int json,
		     enum format fmt, size_t limit)
{
	if (fmt == FMT_COLLAPSED)
		return pmu_report_write_collapsed(rep, stdout);
	if (json)
		return pmu_report_write_json(rep, stdout, limit);
	if (fmt == FMT_TEXT)
		return pmu_report_write_text(rep, stdout, sort, limit);
	return 0;
}

static int run(const char *path, enum pmu_report_sort sort, int json, enum format fmt, size_t limit)
{
	PMU_OPTS(pmu_trace_opts, to, .warn = on_warn);
	const char **events = NULL, **pmcs = NULL;
	struct pmu_trace *t = NULL;
	struct pmu_report *rep = NULL;
	int err, rc = 1;

	if ((err = pmu_trace_open(path, &to, &t)))
		return tool_error("report", path, err);
	if ((err = names_of(t, &events, &pmcs))) {
		rc = tool_error("report", path, err);
		goto out;
	}
	PMU_OPTS(pmu_report_opts, ro, .script = fmt == FMT_SCRIPT ? stdout : NULL,
		 .event_names = events, .nr_events = (uint32_t)pmu_trace_event_count(t),
		 .pmc_names = pmcs, .nr_pmc = (uint32_t)pmu_trace_pmc_count(t),
		 .time_zero = pmu_trace_info(t)->time_zero);
	if ((err = pmu_report_new(&ro, &rep))) {
		rc = tool_error("report", "creating the report", err);
		goto out;
	}
	if ((err = pmu_trace_read(t, pmu_report_record, rep))) {
		rc = tool_error("report", path, err);
		goto out;
	}
	warn_no_samples(rep, path, json || fmt != FMT_TEXT);
	err = write_out(rep, sort, json, fmt, limit);
	rc = err ? tool_error("report", "writing the report", err) : 0;
out:
	pmu_report_free(rep);
	pmu_trace_close(t);
	free(events);
	free(pmcs);
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
	return run(path, a.sort, a.json, a.fmt, a.limit);
}
