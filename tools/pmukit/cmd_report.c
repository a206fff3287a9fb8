/* SPDX-License-Identifier: MIT */
/* pmukit report -i FILE: perf report's view of a recording (rows by a sort key
 * set, Children/Self, call graphs, filters, a time window), its header, the
 * per-thread tables with CPU time and counters, collapsed stacks, perf-script
 * text, SVG flame graphs and pprof, from any recording pmu_trace reads. */
#include "cmd.h"
#include "report_header.h"
#include "core/cpulist.h"
#include "core/file.h"
#include "core/num.h"
#include "core/report_node.h"

#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <pmukit/error.h>
#include <pmukit/json.h>
#include <pmukit/report.h>
#include <pmukit/symbols.h>
#include <pmukit/trace.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

enum format { FMT_TEXT, FMT_TABLE, FMT_COLLAPSED, FMT_SCRIPT, FMT_SVG, FMT_PPROF };
static const char *const formats[] = { "text", "table", "collapsed", "perf-script", "svg",
				       "pprof" };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmukit report [-i] FILE [-s KEYS] [--children | --no-children]\n"
		"                     [-g caller|callee|none] [--percent-limit N] [--comm C]\n"
		"                     [--pid P] [--tid T] [-C CPUS] [--time A,B] [--json]\n"
		"                     [--header-only] [--format F] [-o FILE] [--limit N]\n"
		"                     [--no-symbols] [--no-demangle] [--symfs DIR] [--symbol-path PATH]\n"
		"                     [--stdio]\n"
		"\n  -i FILE             the recording: perf.data (file or pipe mode) or .etl;\n"
		"                      default ./perf.data, as perf report\n"
		"  -s, --sort KEYS     row keys, combined: comm,dso,sym (default), tid, pid,\n"
		"                      cpu, srcline; --format table: one of sym, module, tid,\n"
		"                      pid, cpu; node, data_object (record -d): the NUMA\n"
		"                      node of each sampled page and the variable, [heap],\n"
		"                      [stack], file or anon range it is in, with local vs\n"
		"                      remote; they combine with sym, tid and comm\n"
		"  --children          rows also count samples whose stack holds them (the\n"
		"                      default when samples carry stacks); --no-children: self\n"
		"  -g, --call-graph O  call graphs under the rows: caller, callee or none, and\n"
		"                      perf's threshold (caller,0.5: branches under 0.5%%)\n"
		"  --percent-limit N   hide rows (and graph branches) under N percent\n"
		"  --comm, --pid, --tid LIST   rows of these threads only (comma-separated);\n"
		"                      the others stay in the totals\n"
		"  -C, --cpu LIST      samples of these CPUs only (\"0-3,6\")\n"
		"  --time A,B          samples between A and B seconds only (either may be\n"
		"                      left out): times as perf script shows them, or since\n"
		"                      the recording's start\n"
		"  --json              the same as one JSON document\n"
		"  --header-only       what the recording says of itself, then stop\n"
		"  --format F          text (default), table (samples, CPU time and counters\n"
		"                      per sym/module/tid/pid/cpu), collapsed (folded stacks),\n"
		"                      perf-script (Firefox Profiler, speedscope), svg (a\n"
		"                      flame graph), pprof (gzip'd profile.proto)\n"
		"  -o, --output FILE   write there instead of standard output\n"
		"  --limit N           rows per event (0: all; table and JSON lists: 40)\n"
		"  --no-symbols        name frames module+offset, without the symbolizer\n"
		"  --no-demangle       keep C++ and Rust names as the binary spells them\n"
		"  --symfs DIR         look for the recorded files under DIR first (a copy of\n"
		"                      the recording machine's files)\n"
		"  --symbol-path PATH  where PE images' PDBs are searched, by GUID+Age\n"
		"                      (_NT_SYMBOL_PATH syntax; default $_NT_SYMBOL_PATH)\n"
		"  --stdio             accepted for perf's sake: output is always text\n");
}

struct report_args {
	const char *path, *out, *sort, *comms, *time, *symfs, *symbol_path;
	enum format fmt;
	size_t limit;
	int limit_set, json, header_only, no_symbols, no_demangle;
	enum pmu_report_children children;
	enum pmu_report_graph graph;
	double percent_limit, graph_limit;
	int *cpus;
	size_t nr_cpus;
	int32_t *pids, *tids;
	uint32_t nr_pids, nr_tids;
};

static void on_warn(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "pmukit report: warning: %s\n", msg);
}

/* The text says so itself; other outputs are empty or numbers only. */
static void warn_no_samples(const struct pmu_report *rep, const char *path, int not_text)
{
	struct pmu_report_summary sum;

	pmu_report_summary(rep, &sum, sizeof(sum));
	if (!sum.samples && sum.filtered && not_text)
		fprintf(stderr, "pmukit report: no samples left: all %" PRIu64 " of %s were "
			"outside --cpu/--time\n", sum.filtered, path);
	else if (!sum.samples && not_text)
		fprintf(stderr, "pmukit report: %s holds no samples: nothing was sampled (a "
			"command shorter than one sampling period: raise -F; or a trace of "
			"other events only)\n", path);
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

/* "S[.fraction]" seconds into ns; -1 when it is not that. */
static int parse_secs(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000u;
	size_t i = 0;

	if (!len)
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > UINT64_MAX / 10 / 1000000000u)
			return -1;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (scale > 1)
				scale /= 10, frac += (uint64_t)(s[i] - '0') * scale;
	if (i != len)
		return -1;
	*ns = sec * 1000000000u + frac;
	return 0;
}

/* --time A,B into record times: perf's absolute times, or (when smaller than
 * the recording's first time) seconds since its start. perf script prints
 * times cut to microseconds, so the first record's own printed time is
 * absolute too. */
static int time_window(const char *arg, uint64_t zero, uint64_t *start, uint64_t *end)
{
	const char *comma = arg ? strchr(arg, ',') : NULL;

	zero -= zero % 1000;
	*start = *end = 0;
	if (!arg)
		return 0;
	if (!comma || (comma == arg && !comma[1]))
		return -1;
	if (comma > arg && parse_secs(arg, (size_t)(comma - arg), start))
		return -1;
	if (comma[1] && parse_secs(comma + 1, strlen(comma + 1), end))
		return -1;
	if (*start && *start < zero)
		*start += zero;
	if (*end && *end < zero)
		*end += zero;
	return *end && *end < *start ? -1 : 0;
}

static FILE *open_out(const struct report_args *a)
{
	FILE *f = stdout;

	if (!a->out && a->fmt == FMT_PPROF && isatty(fileno(stdout))) {
		fprintf(stderr, "pmukit report: pprof is binary (gzip'd protobuf): give "
			"-o FILE or redirect standard output to a file\n");
		return NULL;
	}
	if (a->out && !(f = pmuk_fopen(a->out, "wb")))
		fprintf(stderr, "pmukit report: cannot write %s: %s\n", a->out, strerror(errno));
	if (f)
		tool_single_writer(f);
	return f;
}

/* 0, or the exit status after saying what failed. */
static int close_out(FILE *f, const struct report_args *a)
{
	if (f == stdout)
		return tool_flush_stdout("report", "the report");
	if (fclose(f)) {
		fprintf(stderr, "pmukit report: writing %s failed: %s\n", a->out, strerror(errno));
		return 1;
	}
	return 0;
}

static int write_out(struct pmu_report *rep, FILE *f, const struct report_args *a)
{
	enum pmu_report_sort by = PMU_REPORT_SYM;
	size_t lim = a->limit_set ? a->limit : 40;
	int err;

	switch (a->fmt) {
	case FMT_COLLAPSED:
		return pmu_report_write_collapsed(rep, f);
	case FMT_SVG:
		return pmu_report_write_svg(rep, f, a->path);
	case FMT_PPROF:
		return pmu_report_write_pprof(rep, f);
	case FMT_SCRIPT:
		return 0;	/* written while reading */
	case FMT_TABLE:
		if (a->sort && (err = pmu_report_sort_parse(a->sort, &by)))
			return err;
		return a->json ? pmu_report_write_json(rep, f, PMU_JSON_PRETTY) :
		       pmu_report_write_text(rep, f, by, lim);
	default:
		break;
	}
	PMU_OPTS(pmu_report_view, v, .sort = a->sort, .children = a->children, .graph = a->graph,
		 .percent_limit = a->percent_limit, .limit = a->limit_set ? a->limit : 0,
		 .json = a->json, .graph_limit = a->graph_limit);
	return pmu_report_write_view(rep, f, &v);
}

/* An offline symbolizer names frames unless --no-symbols; NULL when it cannot
 * open (frames are then module+offset, which is said). */
static struct pmu_symbolizer *symbolizer(const struct report_args *a,
					 const struct pmu_trace *t)
{
	/* .trace: only the images that got samples are read ahead */
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1, .no_demangle = a->no_demangle,
		 .symfs = a->symfs, .symbol_path = a->symbol_path, .trace = t);
	struct pmu_symbolizer *s = NULL;
	int err;

	if (a->no_symbols)
		return NULL;
	if ((err = pmu_symbolizer_open(&so, &s)))
		fprintf(stderr, "pmukit report: warning: no symbolizer (%s: %s): frames are "
			"module+offset\n", pmu_strerror(err), pmu_error_detail());
	return s;
}

static int report(struct pmu_trace *t, FILE *out, const struct report_args *a)
{
	const char **events = NULL, **pmcs = NULL;
	struct pmu_symbolizer *sym = NULL;
	struct pmu_report *rep = NULL;
	const struct pmu_trace_info *in = pmu_trace_info(t);
	uint64_t start, end;
	int err, rc = 1;

	if (time_window(a->time, in->time_zero, &start, &end)) {
		fprintf(stderr, "pmukit report: --time is START,END in seconds (either may be "
			"left out, END after START), not '%s'\n", a->time);
		return 2;
	}
	if ((err = names_of(t, &events, &pmcs))) {
		rc = tool_error("report", a->path, err);
		goto out;
	}
	sym = symbolizer(a, t);
	PMU_OPTS(pmu_report_opts, ro, .script = a->fmt == FMT_SCRIPT ? out : NULL,
		 .event_names = events, .nr_events = (uint32_t)pmu_trace_event_count(t),
		 .pmc_names = pmcs, .nr_pmc = (uint32_t)pmu_trace_pmc_count(t),
		 .time_zero = in->time_zero, .symbolizer = sym, .comms = a->comms,
		 .pids = a->pids, .nr_pids = a->nr_pids, .tids = a->tids, .nr_tids = a->nr_tids,
		 .cpus = a->cpus, .nr_cpus = (uint32_t)a->nr_cpus, .time_start = start,
		 .time_end = end, .trace = t, .limit = a->limit_set ? a->limit : 40);
	if ((err = pmu_report_new(&ro, &rep))) {
		rc = tool_error("report", "creating the report", err);
		goto out;
	}
	/* A corrupt or truncated recording: what came before is reported (its
	 * header says how much was skipped), and the exit status says it failed. */
	int damaged = (err = pmu_trace_read(t, pmu_report_record, rep)) == PMU_EFORMAT;
	if (err && !damaged) {
		rc = tool_error("report", a->path, err);
		goto out;
	}
	if (damaged)
		tool_error("report", a->path, err);
	warn_no_samples(rep, a->path, a->json || a->fmt != FMT_TEXT);
	if (!a->json && a->fmt != FMT_TEXT && a->fmt != FMT_TABLE)   /* no header to say it */
		report_warn_losses("report", a->path, t);
	err = write_out(rep, out, a);
	rc = err ? tool_error("report", "writing the report", err) : damaged;
out:
	pmu_report_free(rep);
	pmu_symbolizer_close(sym);
	free(events);
	free(pmcs);
	return rc;
}

static int run(const struct report_args *a)
{
	PMU_OPTS(pmu_trace_opts, to, .warn = on_warn);
	struct pmu_trace *t = NULL;
	FILE *out;
	int err, rc;

	if ((err = pmu_trace_open(a->path, &to, &t)))
		return tool_error("report", a->path, err);
	if (!(out = open_out(a))) {
		pmu_trace_close(t);
		return a->out ? 1 : 2;
	}
	rc = a->header_only ? report_write_header(t, out, a->json) != 0 : report(t, out, a);
	if (close_out(out, a) && !rc)
		rc = 1;
	pmu_trace_close(t);
	return rc;
}

enum {
	OPT_CHILDREN = 256, OPT_NO_CHILDREN, OPT_PERCENT, OPT_COMM, OPT_PID, OPT_TID, OPT_TIME,
	OPT_JSON, OPT_HEADER, OPT_STDIO, OPT_FORMAT, OPT_LIMIT, OPT_NO_SYMBOLS, OPT_NO_DEMANGLE,
	OPT_SYMFS, OPT_SYMBOL_PATH,
};

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "sort", required_argument, NULL, 's' },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "call-graph", required_argument, NULL, 'g' },
	{ "percent-limit", required_argument, NULL, OPT_PERCENT },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "comms", required_argument, NULL, OPT_COMM },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "cpu", required_argument, NULL, 'C' },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "header-only", no_argument, NULL, OPT_HEADER },
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "symbol-path", required_argument, NULL, OPT_SYMBOL_PATH },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* "1,2,3" into a malloc'ed array; -1 when it is not a list of ids. */
static int parse_ids(const char *s, int32_t **out, uint32_t *n)
{
	size_t cap = 1;

	for (const char *p = s; *p; p++)
		cap += *p == ',';
	free(*out);
	if (!(*out = malloc(cap * sizeof(**out))))
		return -1;
	*n = 0;
	for (const char *p = s;;) {
		const char *e = strchr(p, ',');
		char buf[24];
		long v;
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!len || len >= sizeof(buf))
			return -1;
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (pmuk_parse_long(buf, 10, -1, INT32_MAX, &v))
			return -1;
		(*out)[(*n)++] = (int32_t)v;
		if (!e)
			return 0;
		p = e + 1;
	}
}

static int bad_value(const char *opt, const char *what, const char *v)
{
	fprintf(stderr, "pmukit report: %s %s, not '%s'\n", opt, what, v);
	return 2;
}

/* -g as perf takes it: caller, callee or none, perf's print types graph,
 * fractal and flat (drawn as graph), a threshold in percent, and the
 * function/address keys (frames are functions here). */
static int graph_option(const char *v, struct report_args *a)
{
	char buf[64], *end;

	if (strlen(v) >= sizeof(buf))
		return bad_value("-g", "is caller, callee or none, with perf's threshold", v);
	strcpy(buf, v);
	for (char *w = strtok(buf, ","); w; w = strtok(NULL, ",")) {
		double t = strtod(w, &end);
		if (!strcmp(w, "caller"))
			a->graph = PMU_REPORT_GRAPH_CALLER;
		else if (!strcmp(w, "callee"))
			a->graph = PMU_REPORT_GRAPH_CALLEE;
		else if (!strcmp(w, "none"))
			a->graph = PMU_REPORT_GRAPH_NONE;
		else if (w[0] >= '0' && w[0] <= '9' && !*end && t <= 100)
			a->graph_limit = t > 0 ? t : -1;	/* 0: every branch */
		else if (strcmp(w, "graph") && strcmp(w, "fractal") && strcmp(w, "flat") &&
			 strcmp(w, "function"))
			return bad_value("-g", "is caller, callee or none, with perf's threshold "
					 "(\"caller,0.5\")", v);
	}
	return 0;
}

static int value_option(int opt, const char *v, struct report_args *a)
{
	uint64_t n;
	char *end;

	switch (opt) {
	case 'i': a->path = v; return 0;
	case 's': a->sort = v; return 0;
	case 'o': a->out = v; return 0;
	case OPT_SYMFS: a->symfs = v; return 0;
	case OPT_SYMBOL_PATH: a->symbol_path = v; return 0;
	case 'g': return graph_option(v, a);
	case OPT_COMM: a->comms = v; return 0;
	case OPT_TIME: a->time = v; return 0;
	case OPT_PID:
		return parse_ids(v, &a->pids, &a->nr_pids) ? bad_value("--pid", "is a list of "
			"process ids", v) : 0;
	case OPT_TID:
		return parse_ids(v, &a->tids, &a->nr_tids) ? bad_value("--tid", "is a list of "
			"thread ids", v) : 0;
	case 'C':
		free(a->cpus);
		a->cpus = NULL;
		return pmuk_cpulist_parse(v, &a->cpus, &a->nr_cpus) ?
		       bad_value("--cpu", "is a CPU list such as 0-3,6", v) : 0;
	case OPT_PERCENT:
		a->percent_limit = strtod(v, &end);
		return *end || end == v || !(a->percent_limit >= 0 && a->percent_limit <= 100) ?
		       bad_value("--percent-limit", "is a percentage (0 to 100)", v) : 0;
	case OPT_FORMAT:
		for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
			if (!strcmp(v, formats[i]))
				return a->fmt = (enum format)i, 0;
		return bad_value("--format", "is text, table, collapsed, perf-script, svg or "
				 "pprof", v);
	default:	/* OPT_LIMIT */
		if (pmuk_parse_u64(v, 10, &n) || n > SIZE_MAX)
			return bad_value("--limit", "is a number of rows (0: all)", v);
		a->limit = (size_t)n;
		a->limit_set = 1;
		return 0;
	}
}

static int flag_option(int opt, struct report_args *a)
{
	switch (opt) {
	case OPT_CHILDREN: a->children = PMU_REPORT_CHILDREN; break;
	case OPT_NO_CHILDREN: a->children = PMU_REPORT_NO_CHILDREN; break;
	case OPT_JSON: a->json = 1; break;
	case OPT_HEADER: a->header_only = 1; break;
	case OPT_NO_SYMBOLS: a->no_symbols = 1; break;
	case OPT_NO_DEMANGLE: a->no_demangle = 1; break;
	case OPT_STDIO: break;
	default: return 0;
	}
	return 1;
}

/* The recording comes with -i or, as perf report takes it, alone; -1 to go on,
 * else the exit status. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:s:g:o:C:h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		} else if (flag_option(opt, a)) {
			continue;
		} else if (opt != '?' && opt != ':') {
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

/* Option combinations that cannot be honoured; 0 or the exit status. */
static int check_args(const struct report_args *a)
{
	PMU_OPTS(pmu_report_view, v, .sort = a->sort, .percent_limit = a->percent_limit);
	enum pmu_report_sort by;
	if (a->fmt == FMT_TABLE ? a->sort && pmu_report_sort_parse(a->sort, &by) :
	    pmu_report_view_check(&v) != 0) {
		fprintf(stderr, "pmukit report: --sort: %s\n", pmu_error_detail());
		return 2;
	}
	if (a->json && a->fmt != FMT_TEXT && a->fmt != FMT_TABLE) {
		fprintf(stderr, "pmukit report: --json goes with --format text or table only\n");
		return 2;
	}
	return 0;
}

/* --sort node / data_object: the node report (core/report_node.h). */
static int node_report(const struct report_args *a)
{
	struct pmuk_node_report_args na = { a->path, a->sort, a->json, a->no_symbols,
					    a->limit_set ? a->limit : 0, NULL, a->symfs };
	int err, rc;

	if (!(na.f = open_out(a)))
		return 1;
	err = pmuk_node_report(&na);
	rc = close_out(na.f, a);
	if (err < 0) {
		fprintf(stderr, "pmukit report: %s\n", pmu_error_detail());
		return err == PMU_EINVAL ? 2 : 1;
	}
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .fmt = FMT_TEXT };
	int rc = parse_args(argc, argv, &a);

	if (!a.path)	/* as perf report (and pmukit script) */
		a.path = "perf.data";

	if (rc < 0 && pmuk_sort_wants_node(a.sort))
		rc = node_report(&a);
	if (rc < 0 && !(rc = check_args(&a)))
		rc = run(&a);
	free(a.cpus);
	free(a.pids);
	free(a.tids);
	return rc;
}
