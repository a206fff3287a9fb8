/* SPDX-License-Identifier: MIT */
/* pmukit etl info|threads|dump FILE: read Windows .etl traces on any OS. */
#include "cmd.h"
#include "etl_print.h"
#include "core/num.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pmukit/etl.h>
#include <pmukit/error.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit etl info FILE [--json]   (options before or after FILE)\n"
		   "       pmukit etl threads FILE [--json]\n"
		   "       pmukit etl dump FILE [--json] [--provider GUID|NAME] [--opcode N] [--limit N]\n"
		   "\n  info     log-file header, events per provider/opcode/version, losses\n"
		   "  threads  every thread with its process, name and lifetime\n"
		   "  dump     decoded events in time order\n");
}

static void on_problem(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "pmukit etl: warning: %s\n", msg);
}

static int open_trace(const char *path, int order, struct pmu_etl **r)
{
	PMU_OPTS(pmu_etl_opts, o, .order = order, .on_problem = on_problem);
	int err = pmu_etl_open(path, &o, r);

	return err ? tool_error("etl", path, err) : 0;
}

/* Reads every event; returns 0 or the tool's exit status. */
static int drain(struct pmu_etl *r, const char *path)
{
	struct pmu_etl_event ev;
	int rc;

	while ((rc = pmu_etl_next(r, &ev)) > 0)
		;
	return rc < 0 ? tool_error("etl", path, rc) : 0;
}

static void summary_problems(struct pmu_etl *r)
{
	struct pmu_etl_stats st;

	pmu_etl_stats(r, &st, sizeof(st));
	if (st.problems)
		fprintf(stderr, "pmukit etl: %" PRIu64 " corrupt structure(s), %" PRIu64
			" bytes skipped\n", st.problems, st.bytes_skipped);
}

static double rel_s(const struct pmu_etl_header *h, int64_t ns)
{
	/* times of one sign cannot overflow; across 1970 (corrupt clocks that
	 * saturate at the ends of int64) the difference is taken in doubles */
	if ((ns < 0) == (h->start_ns < 0))
		return (double)(ns - h->start_ns) / 1e9;
	return ((double)ns - (double)h->start_ns) / 1e9;
}

/* The header and the counts of `etl info --json`; the table follows. */
static void info_json_header(struct pmuk_json *j, const char *path,
			     const struct pmu_etl_header *h, const struct pmu_etl_stats *st)
{
	char v[32];

	pmuk_json_str(j, "file", path);
	snprintf(v, sizeof(v), "%u.%u", h->os_major, h->os_minor);
	pmuk_json_str(j, "os_version", v);
	pmuk_json_uint(j, "os_build", h->os_build);
	pmuk_json_uint(j, "pointer_size", h->pointer_size);
	pmuk_json_uint(j, "cpus", h->cpus);
	pmuk_json_uint(j, "clock_type", h->clock_type);
	pmuk_json_uint(j, "tick_frequency", h->tick_freq);
	pmuk_json_uint(j, "timer_resolution_100ns", h->timer_resolution);
	pmuk_json_int(j, "start_ns", h->start_ns);
	pmuk_json_int(j, "end_ns", h->end_ns);
	pmuk_json_uint(j, "buffer_size", h->buffer_size);
	pmuk_json_uint(j, "buffers_written", h->buffers_written);
	pmuk_json_bool(j, "compressed", h->compressed);
	pmuk_json_str(j, "logger_name", h->logger_name);
	pmuk_json_uint(j, "events", st->events);
	pmuk_json_uint(j, "lost_events", h->events_lost);
	pmuk_json_uint(j, "lost_buffers", h->buffers_lost);
	pmuk_json_uint(j, "buffers_flagged_lost", st->events_lost_flagged);
	pmuk_json_uint(j, "buffers", st->buffers);
	pmuk_json_uint(j, "problems", st->problems);
	pmuk_json_uint(j, "bytes_skipped", st->bytes_skipped);
	pmuk_json_uint(j, "bytes_padding", st->bytes_padding);
}

static void info_json(struct pmu_etl *r, const char *path, const struct pmu_etl_stats *st)
{
	size_t n = pmu_etl_stat_count(r);
	struct pmu_etl_stat s;
	struct pmuk_json j;
	char g[40];

	pmuk_json_init(&j, stdout, 1);
	pmuk_json_obj_begin(&j, NULL);
	info_json_header(&j, path, pmu_etl_header(r), st);
	pmuk_json_arr_begin(&j, "by_provider");
	for (size_t i = 0; i < n && !pmu_etl_stat_at(r, i, &s); i++) {
		const char *name = pmu_etl_provider_name(&s.provider);
		pmu_guid_format(&s.provider, g, sizeof(g));
		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_str(&j, "provider", g);
		pmuk_json_str(&j, "name", name);
		pmuk_json_str(&j, "kind", etl_kind_name(s.kind));
		pmuk_json_uint(&j, "id", s.id);
		pmuk_json_uint(&j, "opcode", s.opcode);
		pmuk_json_uint(&j, "version", s.version);
		pmuk_json_uint(&j, "count", s.count);
		pmuk_json_obj_end(&j);
	}
	pmuk_json_arr_end(&j);
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
}

static void info_text_header(const char *path, const struct pmu_etl_header *h,
			     const struct pmu_etl_stats *st)
{
	printf("file:            %s\n", path);
	printf("os:              %u.%u build %u (log layout %u.%u)\n", h->os_major, h->os_minor,
	       h->os_build, h->layout_major, h->layout_minor);
	printf("pointer size:    %u\n", h->pointer_size);
	printf("cpus:            %u\n", h->cpus);
	printf("clock:           type %u, %" PRIu64 " ticks/s, timer resolution %.4f ms\n",
	       h->clock_type, h->tick_freq, h->timer_resolution / 1e4);
	printf("logger:          %s\n", h->logger_name);
	printf("duration:        %.6f s\n", h->end_ns ? rel_s(h, h->end_ns) : 0.0);
	printf("buffers:         %" PRIu64 " of %u bytes%s\n", st->buffers, h->buffer_size,
	       h->compressed ? " (compressed)" : "");
	printf("events:          %" PRIu64 "\n", st->events);
	printf("lost:            %u events, %u buffers", h->events_lost, h->buffers_lost);
	if (st->events_lost_flagged)
		printf("; %" PRIu64 " buffers flagged as following lost events",
		       st->events_lost_flagged);
	printf("\n");
	if (st->problems)
		printf("corrupt:         %" PRIu64 " problems, %" PRIu64 " bytes skipped\n",
		       st->problems, st->bytes_skipped);
	if (st->bytes_padding)
		printf("padding:         %" PRIu64 " bytes of zeros after the last buffer "
		       "(a preallocated file)\n", st->bytes_padding);
}

static void info_text(struct pmu_etl *r, const char *path, const struct pmu_etl_stats *st)
{
	size_t n = pmu_etl_stat_count(r);
	struct pmu_etl_stat s;
	char g[40];

	info_text_header(path, pmu_etl_header(r), st);
	printf("\n%-38s %-20s %-8s %5s %6s %4s %9s\n", "provider", "name", "kind", "id",
	       "opcode", "ver", "count");
	for (size_t i = 0; i < n && !pmu_etl_stat_at(r, i, &s); i++) {
		const char *name = pmu_etl_provider_name(&s.provider);
		pmu_guid_format(&s.provider, g, sizeof(g));
		printf("%-38s %-20s %-8s %5u %6u %4u %9" PRIu64 "\n", g, name ? name : "",
		       etl_kind_name(s.kind), s.id, s.opcode, s.version, s.count);
	}
}

static int info(const char *path, int json)
{
	struct pmu_etl *r = NULL;
	struct pmu_etl_stats st;
	int rc;

	if ((rc = open_trace(path, PMU_ETL_ORDER_FILE, &r)) || (rc = drain(r, path)))
		goto out;
	pmu_etl_stats(r, &st, sizeof(st));
	if (json)
		info_json(r, path, &st);
	else
		info_text(r, path, &st);
out:
	if (r && !rc)
		summary_problems(r);
	pmu_etl_close(r);
	return rc;
}

static int threads(const char *path, int json)
{
	struct pmu_etl *r = NULL;
	struct pmu_etl_thread t;
	struct pmuk_json j;
	int rc;

	if ((rc = open_trace(path, PMU_ETL_ORDER_TIME, &r)) || (rc = drain(r, path)))
		goto out;
	const struct pmu_etl_header *h = pmu_etl_header(r);
	size_t n = pmu_etl_thread_count(r);
	if (json) {
		pmuk_json_init(&j, stdout, 1);
		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_arr_begin(&j, "threads");
	} else {
		printf("%7s %7s %-28s %-24s %12s %12s\n", "pid", "tid", "process", "thread name",
		       "start_s", "end_s");
	}
	for (size_t i = 0; i < n && !pmu_etl_thread_at(r, i, &t); i++) {
		if (json) {
			pmuk_json_obj_begin(&j, NULL);
			pmuk_json_uint(&j, "pid", t.pid);
			pmuk_json_uint(&j, "tid", t.tid);
			pmuk_json_str(&j, "name", t.name);
			pmuk_json_str(&j, "process", t.process);
			if (t.start_ns == INT64_MIN)
				pmuk_json_null(&j, "start_ns");
			else
				pmuk_json_int(&j, "start_ns", t.start_ns);
			if (t.end_ns == INT64_MAX)
				pmuk_json_null(&j, "end_ns");
			else
				pmuk_json_int(&j, "end_ns", t.end_ns);
			pmuk_json_bool(&j, "started", t.started);
			pmuk_json_bool(&j, "ended", t.ended);
			pmuk_json_obj_end(&j);
			continue;
		}
		char s[32] = "-", e[32] = "-";
		if (t.start_ns != INT64_MIN)
			snprintf(s, sizeof(s), "%.6f", rel_s(h, t.start_ns));
		if (t.end_ns != INT64_MAX)
			snprintf(e, sizeof(e), "%.6f", rel_s(h, t.end_ns));
		printf("%7u %7u %-28s %-24s %12s %12s\n", t.pid, t.tid, t.process, t.name, s, e);
	}
	if (json) {
		pmuk_json_arr_end(&j);
		pmuk_json_uint(&j, "processes", pmu_etl_process_count(r));
		pmuk_json_obj_end(&j);
		pmuk_json_finish(&j);
	}
out:
	if (r && !rc)
		summary_problems(r);
	pmu_etl_close(r);
	return rc;
}

struct dump_filter {
	int by_provider;
	struct pmu_guid provider;
	long opcode;             /* -1: any */
	unsigned long limit;     /* 0: all */
};

static void dump_event(struct etl_out *o, const struct pmu_etl_header *h,
		       const struct pmu_etl_event *ev)
{
	char g[40];
	const char *name = pmu_etl_provider_name(&ev->provider);

	pmu_guid_format(&ev->provider, g, sizeof(g));
	if (o->json) {
		pmuk_json_obj_begin(o->j, NULL);
		pmuk_json_int(o->j, "time_ns", ev->time_ns);
		pmuk_json_uint(o->j, "raw_time", ev->raw_time);
		pmuk_json_uint(o->j, "cpu", ev->cpu);
		if (ev->pid != PMU_ETL_NO_ID)
			pmuk_json_uint(o->j, "pid", ev->pid);
		if (ev->tid != PMU_ETL_NO_ID)
			pmuk_json_uint(o->j, "tid", ev->tid);
		pmuk_json_str(o->j, "provider", g);
		pmuk_json_str(o->j, "name", name);
		pmuk_json_str(o->j, "kind", etl_kind_name(ev->kind));
		pmuk_json_uint(o->j, "header_type", ev->header_type);
		pmuk_json_uint(o->j, "id", ev->id);
		pmuk_json_uint(o->j, "opcode", ev->opcode);
		pmuk_json_uint(o->j, "version", ev->version);
		pmuk_json_uint(o->j, "pointer_size", ev->pointer_size);
		pmuk_json_uint(o->j, "payload_size", ev->payload_size);
		etl_print_fields(o, ev);
		pmuk_json_obj_end(o->j);
		return;
	}
	printf("%12.6f cpu%-3u ", rel_s(h, ev->time_ns), ev->cpu);
	if (ev->tid != PMU_ETL_NO_ID)
		printf("%6u/%-6u ", ev->pid, ev->tid);
	else
		printf("%13s ", "-");
	printf("%s", name ? name : g);
	if (ev->kind == PMU_ETL_EVENT)
		printf(" id=%u", ev->id);
	printf(" op=%u v%u", ev->opcode, ev->version);
	etl_print_fields(o, ev);
	putchar('\n');
}

static int dump(const char *path, int json, const struct dump_filter *flt)
{
	struct pmu_etl *r = NULL;
	struct pmu_etl_event ev;
	struct pmuk_json j;
	struct etl_out o = { .json = json, .f = stdout, .j = &j };
	unsigned long shown = 0;
	int rc;

	if ((rc = open_trace(path, PMU_ETL_ORDER_TIME, &r)))
		goto out;
	const struct pmu_etl_header *h = pmu_etl_header(r);
	if (json) {
		pmuk_json_init(&j, stdout, 0);
		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_arr_begin(&j, "events");
	}
	while ((rc = pmu_etl_next(r, &ev)) > 0) {
		if (flt->by_provider && memcmp(&ev.provider, &flt->provider, sizeof(ev.provider)))
			continue;
		if (flt->opcode >= 0 && ev.opcode != (unsigned long)flt->opcode)
			continue;
		dump_event(&o, h, &ev);
		if (flt->limit && ++shown >= flt->limit)
			break;
	}
	if (json) {
		pmuk_json_arr_end(&j);
		pmuk_json_obj_end(&j);
		pmuk_json_finish(&j);
	}
	rc = rc < 0 ? tool_error("etl", path, rc) : 0;
out:
	if (r && !rc)
		summary_problems(r);
	pmu_etl_close(r);
	return rc;
}

struct etl_args {
	const char *sub, *path;
	int json;
	struct dump_filter flt;
};

/* --provider ('P'), --opcode ('O') or --limit ('L') with its value v; 0 or the
 * exit status. */
static int filter_option(int opt, const char *v, struct dump_filter *flt)
{
	uint64_t n;
	long op;

	if (opt == 'P') {
		if (pmu_guid_parse(v, &flt->provider) && pmu_etl_provider_lookup(v, &flt->provider))
			return tool_error("etl", v, PMU_ENOENT);
		flt->by_provider = 1;
	} else if (opt == 'O') {
		if (pmuk_parse_long(v, 0, 0, 255, &op)) {
			fprintf(stderr, "pmukit etl: --opcode is a number from 0 to 255, not '%s'\n", v);
			return 2;
		}
		flt->opcode = op;
	} else {
		if (pmuk_parse_u64(v, 0, &n) || n > ULONG_MAX) {
			fprintf(stderr, "pmukit etl: --limit is a number of events (0: all), not "
				"'%s'\n", v);
			return 2;
		}
		flt->limit = (unsigned long)n;
	}
	return 0;
}

static const struct option longopts[] = {
	{ "provider", required_argument, NULL, 'P' },
	{ "opcode", required_argument, NULL, 'O' },
	{ "limit", required_argument, NULL, 'L' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Options go before or after the subcommand and FILE (getopt_long permutes);
 * -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct etl_args *o)
{
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		} else if (opt == 'j') {
			o->json = 1;
		} else if (opt == 'P' || opt == 'O' || opt == 'L') {
			if ((rc = filter_option(opt, optarg, &o->flt)))
				return rc;
		} else {
			tool_bad_option(argv, opt, longopts);
			if (opt == '?')	/* a missing value needs no usage text */
				usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		o->sub = argv[optind++];
	if (optind < argc)
		o->path = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "pmukit etl: one FILE only ('%s' is extra)\n", argv[optind]);
		return 2;
	}
	return -1;
}

int cmd_etl(int argc, char **argv)
{
	struct etl_args o = { .flt = { .opcode = -1 } };
	int rc = parse_args(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (!o.sub) {
		usage(stderr);
		return 2;
	}
	if (strcmp(o.sub, "info") && strcmp(o.sub, "threads") && strcmp(o.sub, "dump")) {
		fprintf(stderr, "pmukit etl: unknown subcommand '%s'\n", o.sub);
		usage(stderr);
		return 2;
	}
	if (!o.path) {
		fprintf(stderr, "pmukit etl %s: which .etl FILE?\n", o.sub);
		usage(stderr);
		return 2;
	}
	if (!strcmp(o.sub, "info"))
		return info(o.path, o.json);
	if (!strcmp(o.sub, "threads"))
		return threads(o.path, o.json);
	return dump(o.path, o.json, &o.flt);
}
