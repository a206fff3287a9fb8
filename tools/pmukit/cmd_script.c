/* SPDX-License-Identifier: MIT */
/* pmukit script -i FILE [-F FIELDS]: every sample of a recording as text, in
 * perf script's layout and with its default fields, so the two agree line for
 * line on the same perf.data (script_sample.c does a sample). */
#include "cmd.h"
#include "report_header.h"
#include "script_run.h"
#include "formats/perf_file.h"

#include <getopt.h>
#include <pmukit/error.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit script [-i FILE] [-F FIELDS] [--ns] [--symbol-path PATH]\n"
		   "\n  -i FILE      the recording (default perf.data): perf.data (file or\n"
		   "               pipe mode, '-' reads standard input) or a Windows .etl\n"
		   "  -F FIELDS    what to print of each sample, perf script's names:\n"
		   "               comm,pid,tid,cpu,time,period,event,trace,addr,ip,sym,\n"
		   "               symoff,dso; +FIELD adds to the defaults, -FIELD removes\n"
		   "  --ns         times with nanoseconds\n"
		   "  --symbol-path PATH  where PE images' PDBs are searched (_NT_SYMBOL_PATH)\n"
		   "\nThe defaults are perf script's: comm, tid, cpu, time, period, event, then\n"
		   "ip sym+off (dso) (call chains one frame a line) or a tracepoint's fields\n"
		   "decoded by name (trace); fields a recording lacks are left out.\n");
}

enum f_mode { F_DEFAULT, F_SET, F_CHANGE };

struct fields {
	enum f_mode mode;
	unsigned set, add, remove;
};

/* perf script 6.1's fields that pmukit script does not print. */
static int perf_only(const char *p, size_t len)
{
	static const char *const names[] = {
		"iregs", "uregs", "brstack", "brstacksym", "flags", "bpf-output",
		"brstackinsn", "brstackoff", "callindent", "insn", "insnlen", "synth",
		"phys_addr", "metric", "misc", "srcline", "srccode", "ipc", "data_page_size",
		"code_page_size", "ins_lat", "machine_pid", "vcpu", "cgroup", "weight", "tod",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(names[i], p, len))
			return 1;
	return 0;
}

/* -F as perf takes it: a list, or +/- changes to the defaults (not mixed). */
static int parse_fields(const char *arg, struct fields *fl)
{
	const char *p = arg;

	while (*p) {
		size_t len = strcspn(p, ",");
		int sign = *p == '+' || *p == '-' ? *p : 0;

		if (!len) {	/* "ip,,sym": perf skips the empty item */
			p++;
			continue;
		}
		unsigned f = pmuk_script_field_parse(p + !!sign, len - !!sign);
		enum f_mode m = sign ? F_CHANGE : F_SET;

		if (memchr(p, ':', len)) {
			fprintf(stderr, "pmukit script: -F TYPE:FIELDS (fields per event type) "
				"is not supported; give the fields for every event\n");
			return 2;
		}
		if (!f && perf_only(p + !!sign, len - !!sign)) {
			fprintf(stderr, "pmukit script: perf's field '%.*s' is not supported by "
				"pmukit script; the fields are comm,pid,tid,cpu,time,period,event,"
				"trace,addr,ip,sym,symoff,dso\n", (int)(len - !!sign), p + !!sign);
			return 2;
		}
		if (!f) {
			fprintf(stderr, "pmukit script: unknown field '%.*s' in -F; the fields "
				"are comm,pid,tid,cpu,time,period,event,trace,addr,ip,sym,symoff,"
				"dso\n", (int)(len - !!sign), p + !!sign);
			return 2;
		}
		if (fl->mode != F_DEFAULT && fl->mode != m) {
			fprintf(stderr, "pmukit script: -F takes either a list of fields or "
				"+/- changes to the defaults, not both: '%s'\n", arg);
			return 2;
		}
		fl->mode = m;
		*(sign == '-' ? &fl->remove : sign ? &fl->add : &fl->set) |= f;
		p += len + (p[len] == ',');
	}
	if (fl->mode == F_DEFAULT) {
		fprintf(stderr, "pmukit script: -F needs fields\n");
		return 2;
	}
	return 0;
}

/* perf script's default fields for an event. */
static unsigned defaults(const struct pmu_trace_event *e, int tp_callchain)
{
	unsigned f = PMUK_SF_COMM | PMUK_SF_TID | PMUK_SF_CPU | PMUK_SF_TIME | PMUK_SF_EVENT;

	if (e->type == PERF_ATYPE_TP)
		return f | PMUK_SF_TRACE |
		       (tp_callchain ? PMUK_SF_IP | PMUK_SF_SYM | PMUK_SF_SYMOFF | PMUK_SF_DSO : 0);
	f |= PMUK_SF_IP | PMUK_SF_SYM | PMUK_SF_SYMOFF | PMUK_SF_DSO | PMUK_SF_PERIOD;
	return e->type == PERF_ATYPE_RAW ? f | PMUK_SF_ADDR : f;
}

/* Fields whose data the event's samples do not carry (perf.data: its attr). */
static unsigned missing(const struct pmu_trace *t, const struct pmu_trace_event *e)
{
	static const struct {
		unsigned field;
		uint64_t st;
	} need[] = {   /* a period is always there: the attr's when not sampled */
		{ PMUK_SF_TID | PMUK_SF_PID, PERF_ST_TID }, { PMUK_SF_TIME, PERF_ST_TIME },
		{ PMUK_SF_CPU, PERF_ST_CPU },               { PMUK_SF_ADDR, PERF_ST_ADDR },
		{ PMUK_SF_IP, PERF_ST_IP },
	};
	unsigned m = e->type == PERF_ATYPE_TP ? 0 : PMUK_SF_TRACE;

	if (pmu_trace_info(t)->format == PMU_TRACE_ETL)
		return m;   /* no attrs: each record says what it has */
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!(e->sample_type & need[i].st))
			m |= need[i].field;
	return m;
}

/* What perf refuses too: an offset without the symbol it is in. (sym or dso
 * without ip or addr print nothing, as in perf.) */
static int consistent(unsigned f)
{
	if (!(f & PMUK_SF_SYMOFF) || f & PMUK_SF_SYM)
		return 0;
	fprintf(stderr, "pmukit script: -F: symoff is an offset in sym: add sym\n");
	return 2;
}

/* One event's fields: the defaults less what its samples lack, or -F's. A
 * field asked for that the samples lack is refused, as perf does ('trace'
 * only applies to tracepoints and is dropped for the others). */
static int fields_of(const struct pmu_trace *t, const struct pmu_trace_event *e,
		     const struct fields *fl, int tp_callchain, unsigned *out)
{
	unsigned lack = missing(t, e);
	unsigned asked = fl->mode == F_SET ? fl->set & ~(lack & PMUK_SF_TRACE) : fl->add;
	unsigned want = fl->mode == F_SET ? asked : defaults(e, tp_callchain) & ~lack;

	for (unsigned f = 1; asked & lack; f <<= 1)
		if (asked & lack & f) {
			fprintf(stderr, "pmukit script: samples of '%s' do not carry what field "
				"'%s' prints; leave it out of -F\n", e->name,
				pmuk_script_field_name(f));
			return 2;
		}
	*out = (want | fl->add) & ~fl->remove;
	return fl->mode == F_DEFAULT ? 0 : consistent(*out);
}

static int event_fields(struct script_run *sr, const struct fields *fl)
{
	const struct pmu_trace_event sw = { .type = PERF_ATYPE_SW };
	int tp_callchain = 0, rc;

	for (size_t i = 0; i < sr->nr_ev; i++) {
		const struct pmu_trace_event *e = pmu_trace_event(sr->t, i);
		tp_callchain |= e->type == PERF_ATYPE_TP && e->sample_type & PERF_ST_CALLCHAIN;
	}
	for (size_t i = 0; i < sr->nr_ev; i++) {
		const struct pmu_trace_event *e = pmu_trace_event(sr->t, i);

		sr->ev[i] = (struct script_event){ .name = e->name, .period = e->period };
		if ((rc = fields_of(sr->t, e, fl, tp_callchain, &sr->ev[i].fields)))
			return rc;
		if ((int)strlen(e->name) > sr->event_width)
			sr->event_width = (int)strlen(e->name);
	}
	/* Samples of no event the recording lists: a software event's fields. */
	sr->unknown = (struct script_event){ .name = "[unknown]" };
	sr->unknown.fields = fl->mode == F_SET ? fl->set :
			     (defaults(&sw, 0) | fl->add) & ~fl->remove;
	return 0;
}

static void on_warn(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "pmukit script: warning: %s\n", msg);
}

static int on_record(const struct pmu_record *rec, void *ctx)
{
	struct script_run *sr = ctx;
	int err;

	if (rec->kind == PMU_RECORD_SAMPLE)
		return script_sample(sr, rec);
	/* a forked process runs its parent's code until it execs */
	if (rec->kind == PMU_RECORD_FORK && sr->sym &&
	    pmu_symbolizer_add_fork(sr->sym, rec) == PMU_ENOMEM)
		return PMU_ENOMEM;
	if (rec->kind == PMU_RECORD_SYMBOL && sr->sym &&
	    pmu_symbolizer_add_symbol(sr->sym, rec) == PMU_ENOMEM)
		return PMU_ENOMEM;
	/* data mappings hold no code: the symbolizer (and its unwinder) takes the
	 * code mappings only, as pmu_report hands it */
	if (rec->kind == PMU_RECORD_MMAP && !rec->mmap.data && sr->sym &&
	    (err = pmu_symbolizer_add_mmap(sr->sym, rec)) != 0) {
		if (err == PMU_ENOMEM)
			return err;
		/* no recording mode in this build (a PE image's ENOTSUP is its own) */
		if (err == PMU_ENOTSUP && rec->mmap.build_id_kind != PMU_BUILD_ID_PDB) {
			pmu_symbolizer_close(sr->sym);
			sr->sym = NULL;
		}
	}
	return sc_track(&sr->st, rec);
}

static int run(const char *path, const struct fields *fl, int nanosecs, const char *sympath)
{
	PMU_OPTS(pmu_trace_opts, to, .warn = on_warn);
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1, .symbol_path = sympath,
		 .no_lines = 1);   /* no field shows them */
	struct script_run sr = { .nanosecs = nanosecs };
	int err, rc = 1;

	if ((err = pmu_trace_open(path, &to, &sr.t)))
		return tool_error("script", path, err);
	sr.nr_ev = pmu_trace_event_count(sr.t);
	sr.st.process_names = pmu_trace_info(sr.t)->format == PMU_TRACE_ETL;
	sr.text_cap = 4096;
	if (!(sr.ev = calloc(sr.nr_ev + 1, sizeof(*sr.ev))) || !(sr.text = malloc(sr.text_cap))) {
		rc = tool_error("script", path, PMU_ENOMEM);
		goto out;
	}
	if ((rc = event_fields(&sr, fl)))
		goto out;
	so.trace = sr.t;   /* only the sampled images are read ahead */
	if (pmu_symbolizer_open(&so, &sr.sym))
		sr.sym = NULL;   /* frames print [unknown], as perf does without symbols */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	tool_single_writer(stdout);
	if ((err = pmu_trace_read(sr.t, on_record, &sr)))
		rc = tool_error("script", path, err);
	else
		rc = tool_flush_stdout("script", "the samples");
	report_warn_losses("script", path, sr.t);
out:
	pmu_symbolizer_close(sr.sym);
	sc_free(&sr.st);
	pmu_trace_close(sr.t);
	free(sr.ev);
	free(sr.frames);
	free(sr.names);
	pmuk_index_free(&sr.name_ix);
	free(sr.text);
	return rc;
}

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "fields", required_argument, NULL, 'F' },
	{ "ns", no_argument, NULL, 'N' },
	{ "symbol-path", required_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_script(int argc, char **argv)
{
	const char *path = "perf.data", *sympath = NULL;
	struct fields fl = { F_DEFAULT, 0, 0, 0 };
	int opt, nanosecs = 0, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:F:h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		} else if (opt == 'i') {
			path = optarg;
		} else if (opt == 'F') {
			fl = (struct fields){ F_DEFAULT, 0, 0, 0 };
			if ((rc = parse_fields(optarg, &fl)))
				return rc;
		} else if (opt == 'N') {
			nanosecs = 1;
		} else if (opt == 'S') {
			sympath = optarg;
		} else {
			tool_bad_option(argv, opt, longopts);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pmukit script: unexpected '%s' (the recording comes with -i)\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	return run(path, &fl, nanosecs, sympath);
}
