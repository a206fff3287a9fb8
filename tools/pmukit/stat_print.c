/* SPDX-License-Identifier: MIT */
/* Output of `pmukit stat`: perf-like text, CSV (perf's -x field order) and JSON. */
#include "stat.h"

#include "core/json.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* errno of the first failed write of the counts (stat_output_errno). */
static int write_errno;

static int is_clock(const struct pmu_event *ev)
{
	return ev->generic == PMU_GENERIC_TASK_CLOCK || ev->generic == PMU_GENERIC_CPU_CLOCK;
}

/* The unit of the CSV field (perf's: clocks in msec, duration_time in ns). */
static const char *csv_unit(const struct pmu_event *ev)
{
	return is_clock(ev) ? "msec" : stat_is_duration(ev) ? "ns" : "";
}

/* Why a count has no value, or NULL when it has one. An event never enabled while
 * its task ran (time_enabled 0) counted nothing, which is not a count of 0: the task
 * slept throughout or exited before counting started (perf says <not counted> too).
 * On one CPU of a CPU target it means the event's PMU does not serve that CPU. */
static const char *not_counted(const struct stat_rows *rows, size_t i)
{
	const struct pmu_reading *r = &rows->r[i];

	if (rows->unsupported && rows->unsupported[i])
		return rows->unsupported[i];
	if (r->flags & PMU_READING_ERROR_STATE)
		return "lost its counter: pinned event evicted";
	if (r->flags & PMU_READING_NOT_COUNTED)
		return "never scheduled on a counter";
	if (r->time_enabled == 0)
		return rows->cpu >= 0 ? "its PMU does not serve this CPU"
				      : "the target did not run while counting";
	return NULL;
}

/* The host cannot count event i (a member left out only with its group can). */
static int unsupported(const struct stat_rows *rows, size_t i)
{
	return rows->unsupported && rows->unsupported[i] && !(rows->grouped && rows->grouped[i]);
}

/* perf's placeholder for a count without a value. */
static const char *no_value(const struct stat_rows *rows, size_t i)
{
	return unsupported(rows, i) ? "<not supported>" : "<not counted>";
}

const char *stat_note_unsupported(const struct pmu_counters *c, size_t i)
{
	const char *why = pmu_counters_unsupported(c, i);

	if (why)
		fprintf(stderr, "pmukit stat: not counting %s: %s\n", pmu_counters_event(c, i)->name,
			why);
	return why;
}

static const char *target_name(const struct stat_config *cfg)
{
	if (cfg->argv && cfg->target.kind != PMU_TARGET_CPUS)
		return "command";
	switch (cfg->target.kind) {
	case PMU_TARGET_PID: return "pid";
	case PMU_TARGET_TID: return "tid";
	case PMU_TARGET_CPUS: return "cpus";
	default: return "self";
	}
}

/* 1234567 -> "1,234,567" */
static void group_digits(char *buf, size_t size, unsigned long long v)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%llu", v), o = 0;

	for (int i = 0; i < len && (size_t)o + 2 < size; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

static void describe_target(const struct stat_config *cfg, char *buf, size_t size)
{
	size_t o = 0;

	/* perf stat -a -- CMD counts the system, not CMD: it says 'system wide' */
	if (cfg->argv && cfg->target.kind != PMU_TARGET_CPUS) {
		buf[0] = '\'';
		o = 1;
		for (int i = 0; i < cfg->argc && o + 2 < size; i++)
			o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? " " : "", cfg->argv[i]);
		if (o + 2 < size)
			snprintf(buf + o, size - o, "'");
		return;
	}
	switch (cfg->target.kind) {
	case PMU_TARGET_PID:
	case PMU_TARGET_TID:
		/* perf: process id '123,456' */
		o = (size_t)snprintf(buf, size, "%s id '%d", cfg->target.kind == PMU_TARGET_PID ?
				     "process" : "thread", cfg->target.pid);
		for (size_t i = 1; i < cfg->target.npids && o + 2 < size; i++)
			o += (size_t)snprintf(buf + o, size - o, ",%d", cfg->target.pids[i]);
		if (o + 2 < size)
			snprintf(buf + o, size - o, "'");
		break;
	default:
		/* as perf: -C 0-1 is 'CPU(s) 0-1' as typed; -a, with -C too, 'system wide' */
		if (cfg->cpu_list && !cfg->all_cpus)
			snprintf(buf, size, "'CPU(s) %s'", cfg->cpu_list);
		else
			snprintf(buf, size, "'system wide'");
	}
}

/* A --per-core / --per-socket row's name, perf's: "S0-D0-C1", "S0" (text, CSV and
 * JSON alike). */
static void place_label(const struct stat_config *cfg, const struct stat_rows *rows,
			char *label, size_t size)
{
	if (cfg->aggr == STAT_AGGR_CORE)
		snprintf(label, size, "S%d-D%d-C%d", rows->socket, rows->die, rows->core);
	else
		snprintf(label, size, "S%d", rows->socket);
}

/* Which CPUs or thread a row counts, laid out as perf stat 6.1 does: "CPU0",
 * "S0-D0-C0" and "S0" with the number of CPUs summed, "comm-tid". sep is the CSV
 * separator, or NULL for aligned text. */
static void row_prefix(FILE *f, const struct stat_config *cfg, const struct stat_rows *rows,
		       const char *sep)
{
	char label[64];

	switch (cfg->aggr) {
	case STAT_AGGR_CPU:
		if (sep)
			fprintf(f, "CPU%d%s", rows->cpu, sep);
		else
			fprintf(f, "CPU%-4d", rows->cpu);
		break;
	case STAT_AGGR_CORE:
	case STAT_AGGR_SOCKET:
		place_label(cfg, rows, label, sizeof(label));
		if (sep)
			fprintf(f, "%s%s%d%s", label, sep, rows->ncpus, sep);
		else
			fprintf(f, "%-*s %4d ", cfg->aggr == STAT_AGGR_CORE ? 15 : 6, label,
				rows->ncpus);
		break;
	case STAT_AGGR_THREAD:
		if (sep)
			fprintf(f, "%s-%d%s", rows->comm, rows->tid, sep);
		else
			fprintf(f, "%16s-%-8d ", rows->comm, rows->tid);
		break;
	default:
		break;
	}
}

static void text_row(const struct stat_config *cfg, const struct stat_summary *sum,
		     const struct stat_rows *rows, size_t i)
{
	const struct pmu_event *ev = &rows->events[i];
	const struct pmu_reading *r = &rows->r[i];
	const char *why = not_counted(rows, i);
	struct pmu_metric m;
	FILE *f = cfg->out;
	char num[40];

	if (sum->interval_s >= 0)
		fprintf(f, "%16.9f ", sum->interval_s);
	row_prefix(f, cfg, rows, NULL);
	if (why && unsupported(rows, i)) {
		fprintf(f, "%18s      %s\n", no_value(rows, i), ev->name);
		return;
	}
	if (why) {
		fprintf(f, "%18s      %-30s  (%s)\n", no_value(rows, i), ev->name, why);
		return;
	}
	if (is_clock(ev)) {
		fprintf(f, "%18.2f msec %-30s", r->scaled / 1e6, ev->name);
	} else {
		group_digits(num, sizeof(num), (unsigned long long)llround(r->scaled));
		fprintf(f, "%18s      %-30s", num, ev->name);
	}
	if (pmu_metric_compute(rows->events, rows->r, rows->n, i, sum->elapsed_ns, &m) == 1)
		fprintf(f, " # %8.3f%s %s", m.value, m.percent ? "%" : "", m.unit);
	if (rows->stddev_pct)
		fprintf(f, "  ( +- %5.2f%% )", rows->stddev_pct[i]);
	if (r->flags & PMU_READING_MULTIPLEXED)
		fprintf(f, "  (%.2f%%)", pmu_reading_running_percent(r));
	fputc('\n', f);
}

static void csv_row(const struct stat_config *cfg, const struct stat_summary *sum,
		    const struct stat_rows *rows, size_t i)
{
	const struct pmu_event *ev = &rows->events[i];
	const struct pmu_reading *r = &rows->r[i];
	const char *s = cfg->sep;
	FILE *f = cfg->out;
	struct pmu_metric m;

	if (sum->interval_s >= 0)
		fprintf(f, "%.9f%s", sum->interval_s, s);
	row_prefix(f, cfg, rows, s);
	if (not_counted(rows, i))
		fprintf(f, "%s%s", no_value(rows, i), s);
	else if (is_clock(ev))
		fprintf(f, "%.2f%s", r->scaled / 1e6, s);
	else
		fprintf(f, "%.0f%s", r->scaled, s);
	fprintf(f, "%s%s%s%s", csv_unit(ev), s, ev->name, s);
	if (rows->stddev_pct)
		fprintf(f, "%.2f%%%s", rows->stddev_pct[i], s);
	fprintf(f, "%llu%s%.2f", (unsigned long long)r->time_running, s,
		pmu_reading_running_percent(r));
	if (!not_counted(rows, i) &&
	    pmu_metric_compute(rows->events, rows->r, rows->n, i, sum->elapsed_ns, &m) == 1)
		fprintf(f, "%s%.3f%s%s%s", s, m.value, s, m.percent ? "%" : "", m.unit);
	else
		fprintf(f, "%s%s", s, s);
	fputc('\n', f);
}

/* Which CPUs or thread a row counts; the keys perf stat -j uses ("core", "socket",
 * "thread") with their parts as numbers beside. */
static void json_row_id(struct pmuk_json *j, const struct stat_config *cfg,
			const struct stat_rows *rows)
{
	char label[64];

	switch (cfg->aggr) {
	case STAT_AGGR_CPU:
		pmuk_json_int(j, "cpu", rows->cpu);
		break;
	case STAT_AGGR_CORE:
		place_label(cfg, rows, label, sizeof(label));
		pmuk_json_str(j, "core", label);
		pmuk_json_int(j, "socket_id", rows->socket);
		pmuk_json_int(j, "die_id", rows->die);
		pmuk_json_int(j, "core_id", rows->core);
		pmuk_json_int(j, "cpus", rows->ncpus);
		break;
	case STAT_AGGR_SOCKET:
		place_label(cfg, rows, label, sizeof(label));
		pmuk_json_str(j, "socket", label);
		pmuk_json_int(j, "socket_id", rows->socket);
		pmuk_json_int(j, "cpus", rows->ncpus);
		break;
	case STAT_AGGR_THREAD:
		snprintf(label, sizeof(label), "%s-%d", rows->comm, rows->tid);
		pmuk_json_str(j, "thread", label);
		pmuk_json_int(j, "tid", rows->tid);
		pmuk_json_str(j, "comm", rows->comm);
		break;
	default:
		break;
	}
}

static void json_counter(struct pmuk_json *j, const struct stat_config *cfg,
			 const struct stat_summary *sum,
			 const struct stat_rows *rows, size_t i)
{
	const struct pmu_event *ev = &rows->events[i];
	const struct pmu_reading *r = &rows->r[i];
	const char *why = not_counted(rows, i);
	struct pmu_metric m;

	pmuk_json_obj_begin(j, NULL);
	pmuk_json_str(j, "event", ev->name);
	pmuk_json_str(j, "pmu", ev->pmu);
	json_row_id(j, cfg, rows);
	if (!why)
		pmuk_json_double(j, "value", round(r->scaled));
	else
		pmuk_json_null(j, "value");
	pmuk_json_uint(j, "raw_value", r->value);
	pmuk_json_str(j, "unit", is_clock(ev) || stat_is_duration(ev) ? "ns" : "");
	pmuk_json_uint(j, "time_enabled", r->time_enabled);
	pmuk_json_uint(j, "time_running", r->time_running);
	pmuk_json_double(j, "scaled_from_percent", pmu_reading_running_percent(r));
	pmuk_json_bool(j, "multiplexed", !!(r->flags & PMU_READING_MULTIPLEXED));
	pmuk_json_bool(j, "counted", !why);
	pmuk_json_bool(j, "supported", !unsupported(rows, i));
	if (why)
		pmuk_json_str(j, "not_counted", why);
	if (r->flags & PMU_READING_ERROR_STATE)
		pmuk_json_str(j, "error", "pinned event lost its counter");
	if (rows->stddev_pct)
		pmuk_json_double(j, "stddev_percent", rows->stddev_pct[i]);
	if (!why && pmu_metric_compute(rows->events, rows->r, rows->n, i, sum->elapsed_ns, &m) == 1) {
		pmuk_json_obj_begin(j, "metric");
		pmuk_json_double(j, "value", m.value);
		pmuk_json_str(j, "unit", m.percent ? "%" : m.unit);
		if (m.percent)
			pmuk_json_str(j, "of", m.unit);
		pmuk_json_obj_end(j);
	}
	pmuk_json_obj_end(j);
}

static void print_json(const struct stat_config *cfg, const struct stat_summary *sum,
		       const struct stat_rows *rows, size_t nrows)
{
	struct pmuk_json j;

	/* -I writes one object per line (JSON Lines); otherwise one pretty object. */
	pmuk_json_init(&j, cfg->out, cfg->interval_ms <= 0);
	pmuk_json_obj_begin(&j, NULL);
	if (cfg->argv) {
		pmuk_json_arr_begin(&j, "command");
		for (int i = 0; i < cfg->argc; i++)
			pmuk_json_str(&j, NULL, cfg->argv[i]);
		pmuk_json_arr_end(&j);
	} else {
		pmuk_json_null(&j, "command");
	}
	pmuk_json_str(&j, "target", target_name(cfg));
	if (!cfg->argv && (cfg->target.kind == PMU_TARGET_PID || cfg->target.kind == PMU_TARGET_TID))
	{
		pmuk_json_int(&j, "pid", cfg->target.pid);
		if (cfg->target.npids > 1) {	/* -p A,B: all of them, pid the first */
			pmuk_json_arr_begin(&j, "pids");
			for (size_t i = 0; i < cfg->target.npids; i++)
				pmuk_json_int(&j, NULL, cfg->target.pids[i]);
			pmuk_json_arr_end(&j);
		}
	}
	if (sum->interval_s >= 0)
		pmuk_json_double(&j, "interval_s", sum->interval_s);
	if (sum->exit_status >= 0)
		pmuk_json_int(&j, "exit_status", sum->exit_status);
	else
		pmuk_json_null(&j, "exit_status");
	pmuk_json_double(&j, "elapsed_ns", round(sum->elapsed_ns));
	pmuk_json_int(&j, "runs", sum->runs);
	pmuk_json_bool(&j, "interrupted", sum->interrupted);
	pmuk_json_str(&j, "default_events",
		      cfg->default_kind == 1 ? "hardware" : cfg->default_kind == 2 ? "software" : NULL);
	pmuk_json_str(&j, "note", sum->note);
	pmuk_json_arr_begin(&j, "counters");
	for (size_t k = 0; k < nrows; k++)
		for (size_t i = 0; i < rows[k].n; i++)
			json_counter(&j, cfg, sum, &rows[k], i);
	pmuk_json_arr_end(&j);
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
}

/* Writes are made with SIGPIPE ignored: a closed pipe (our stderr, or -o to a
 * FIFO nobody reads) then fails the write with EPIPE, which is reported, instead
 * of killing us before the command's status is passed on. The command, started
 * before, keeps the caller's disposition. */
struct pipe_guard {
#ifdef SIGPIPE
	struct sigaction old;
#endif
	int unused;
};

static void writes_begin(struct pipe_guard *g)
{
#ifdef SIGPIPE
	struct sigaction ign = { .sa_handler = SIG_IGN };

	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &g->old);
#endif
	(void)g;
}

/* Flushes f and remembers the first failure's errno. */
static void writes_end(struct pipe_guard *g, FILE *f)
{
	errno = 0;
	if ((fflush(f) || ferror(f)) && !write_errno)
		write_errno = errno ? errno : EIO;
#ifdef SIGPIPE
	sigaction(SIGPIPE, &g->old, NULL);
#endif
	(void)g;
}

int stat_output_errno(void)
{
	return write_errno;
}

void stat_print_header(const struct stat_config *cfg)
{
	static const char *const what[] = {
		[STAT_AGGR_GLOBAL] = "", [STAT_AGGR_CPU] = "CPU    ",
		[STAT_AGGR_CORE] = "core            cpus ", [STAT_AGGR_SOCKET] = "socket cpus ",
		[STAT_AGGR_THREAD] = "                 comm-tid ",
	};
	struct pipe_guard g;

	if (cfg->format != STAT_TEXT || cfg->interval_ms <= 0)
		return;
	writes_begin(&g);
	fprintf(cfg->out, "#%15s %s%18s      %s\n", "time", what[cfg->aggr], "counts", "event");
	writes_end(&g, cfg->out);
}

static void print_text(const struct stat_config *cfg, const struct stat_summary *sum,
		       const struct stat_rows *rows, size_t nrows)
{
	FILE *f = cfg->out;
	char what[512];

	if (sum->interval_s < 0) {
		describe_target(cfg, what, sizeof(what));
		fprintf(f, "\n Performance counter stats for %s%s", what, sum->runs > 1 ? "" : ":\n\n");
		if (sum->runs > 1)
			fprintf(f, " (%d runs):\n\n", sum->runs);
	}
	for (size_t k = 0; k < nrows; k++)
		for (size_t i = 0; i < rows[k].n; i++)
			text_row(cfg, sum, &rows[k], i);
	if (sum->interval_s < 0) {
		fprintf(f, "\n%18.9f seconds time elapsed\n", sum->elapsed_ns / 1e9);
		if (sum->note)
			fprintf(f, "\n note: %s\n", sum->note);
		if (sum->os_note)
			fprintf(f, "%s note: %s\n", sum->note ? "" : "\n", sum->os_note);
		if (sum->interrupted)
			fprintf(f, " note: interrupted; these are the counts so far\n");
		fputc('\n', f);
	}
}

void stat_print(const struct stat_config *cfg, const struct stat_summary *sum,
		const struct stat_rows *rows, size_t nrows)
{
	struct pipe_guard g;

	writes_begin(&g);
	if (cfg->format == STAT_JSON)
		print_json(cfg, sum, rows, nrows);
	else if (cfg->format == STAT_CSV)
		for (size_t k = 0; k < nrows; k++)
			for (size_t i = 0; i < rows[k].n; i++)
				csv_row(cfg, sum, &rows[k], i);
	else
		print_text(cfg, sum, rows, nrows);
	writes_end(&g, cfg->out);
}
