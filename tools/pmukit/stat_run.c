/* SPDX-License-Identifier: MIT */
/* The measurement loop of `pmukit stat`, one for every OS and target: it waits for
 * the command with pmu_command_wait_timeout (or sleeps, attached) until the next -I
 * tick, -D start or --timeout, so Ctrl-C, the command's exit, the attached task's
 * exit and the ticks are handled alike. What differs by OS is stat_os*.c's. */
#include "cmd.h"
#include "stat.h"

#include "core/scale.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The longest wait without a look at the stop signals: a signal that comes just
 * before a wait (or Ctrl-C on Windows, which does not end a wait) is seen by then. */
#define STOP_LOOK_MS 100

struct run {
	struct stat_config *cfg;
	struct pmu_counters *counters;
	struct pmu_command *cmd;
	size_t n, nrow;               /* events; rows of cfg->aggr (0: the aggregate only) */
	struct pmu_event *events;
	char **why;                   /* [n]: why an event is not counted here, NULL if it is */
	unsigned char *grouped;       /* [n]: left out only with its group */
	struct stat_aggr *aggr;       /* the rows: per CPU, core, socket or thread */
	struct pmu_reading *cur, *prev; /* [(nrow + 1) * n]: slot 0 aggregated, then per row */
	struct pmu_reading *delta;
	double t0, tprev;             /* start; the previous -I reading */
	long ticks;                   /* -I intervals printed */
	double enable_at;             /* -D: when counting starts, 0 once it has */
	double deadline;              /* --timeout: when counting ends, 0: none */
	int timed_out;                /* the command was stopped by --timeout */
	int exited;                   /* the command ended: exit_status is its */
	int exit_status;
	int interrupted;              /* the counts are partial: the run was cut short */
	int signo;                    /* SIGINT/SIGTERM received, 0 if none */
	const char *note;
	const char *os_note;          /* stat_os_note of the last run */
};

static double now_ns(void)
{
	return stat_os_now_ns();
}

/* duration_time reads ns of wall-clock time in every scope (aggregate, each CPU). */
static void set_duration(const struct run *r, struct pmu_reading *rd, double ns)
{
	for (size_t i = 0; i < r->n; i++) {
		if (!stat_is_duration(&r->events[i]))
			continue;
		for (size_t s = 0; s <= r->nrow; s++) {
			rd[s * r->n + i].flags = 0;
			pmuk_reading_set(&rd[s * r->n + i], (uint64_t)ns, (uint64_t)ns, (uint64_t)ns);
		}
	}
}

static int read_all(struct run *r, struct pmu_reading *into)
{
	int err = pmu_counters_read(r->counters, into, r->n);

	if (!err && r->aggr)
		err = stat_aggr_read(r->aggr, r->counters, into + r->n);
	return err;
}

/* Prints the scopes of readings rd: aggregated, or one row set per row of r->aggr;
 * stddev, when given, holds one value per reading of rd. */
static void print_readings(struct run *r, const struct pmu_reading *rd, double interval_s,
			   double elapsed_ns, int runs, const double *stddev)
{
	size_t nrows = r->aggr ? r->nrow : 1;
	struct stat_rows rows[nrows];
	struct stat_summary sum = {
		.elapsed_ns = elapsed_ns,
		.interval_s = interval_s,
		.runs = runs,
		.exit_status = r->cmd || r->cfg->argv ? r->exit_status : -1,
		.interrupted = r->interrupted,
		.note = r->note,
		.os_note = r->os_note,
	};

	for (size_t k = 0; k < nrows; k++) {
		size_t slot = r->aggr ? k + 1 : 0;

		rows[k] = (struct stat_rows){
			.n = r->n, .events = r->events, .r = rd + slot * r->n,
			.stddev_pct = stddev ? stddev + slot * r->n : NULL, .cpu = -1,
			.unsupported = (const char *const *)r->why, .grouped = r->grouped,
		};
		if (r->aggr)
			stat_aggr_label(r->aggr, k, &rows[k]);
	}
	stat_print(r->cfg, &sum, rows, nrows);
}

static int interval_tick(struct run *r)
{
	size_t total = (r->nrow + 1) * r->n;
	int err = read_all(r, r->cur);
	double t = now_ns();

	if (err)
		return tool_error("stat", "reading counters", err);
	for (size_t i = 0; i < total; i++) {
		const struct pmu_reading *c = &r->cur[i], *p = &r->prev[i];

		r->delta[i].flags = c->flags & PMU_READING_ERROR_STATE;
		if (r->delta[i].flags) /* it reads as zeros: nothing to subtract */
			pmuk_reading_set(&r->delta[i], 0, 0, 0);
		else
			pmuk_reading_set(&r->delta[i], c->value - p->value,
					 c->time_enabled - p->time_enabled,
					 c->time_running - p->time_running);
	}
	memcpy(r->prev, r->cur, total * sizeof(*r->cur));
	set_duration(r, r->delta, t - r->tprev);
	/* Rates over the time this interval really took (a late tick is longer). */
	print_readings(r, r->delta, (t - r->t0) / 1e9, t - r->tprev, 1, NULL);
	r->tprev = t;
	r->ticks++;
	return 0;
}

/* --interval-count intervals were printed: no more, not even the last partial one. */
static int ticks_done(const struct run *r)
{
	return r->cfg->interval_count > 0 && r->ticks >= r->cfg->interval_count;
}

/* An attached task counts until it is gone. */
static int target_gone(const struct run *r)
{
	const struct pmu_target *t = &r->cfg->target;

	if (r->cmd || (t->kind != PMU_TARGET_PID && t->kind != PMU_TARGET_TID))
		return 0;
	return stat_os_target_gone(t);
}

/* Counting has started: at once (measure() took the clock before releasing the
 * command, which may be over by now), or now, enabled after -D. The clocks of
 * -I and --timeout start with it. */
static int start_counting(struct run *r, int enable)
{
	/* a command gone during -D counted nothing: its rows say <not counted> */
	int err = enable ? pmu_counters_enable(r->counters) : 0;

	if (err && err != PMU_ESRCH)
		return tool_error("stat", "enabling counters", err);
	r->enable_at = 0;
	/* without -D the clock started before the command was let go: a command as
	 * short as true may be gone by now */
	if (enable)
		r->t0 = r->tprev = now_ns();
	r->deadline = r->cfg->timeout_ms > 0 ? r->t0 + (double)r->cfg->timeout_ms * 1e6 : 0;
	return 0;
}

static void earliest(double *t, double v)
{
	if (*t < 0 || v < *t)
		*t = v;
}

/* When the loop must wake (< 0: no time set): the -D start, the next -I tick, the
 * --timeout, or the next look at an attached task. It waits STOP_LOOK_MS at most. */
static double wake_at(const struct run *r, long period_ns, double next)
{
	double t = -1;

	if (r->enable_at > 0)
		earliest(&t, r->enable_at);
	else if (period_ns)
		earliest(&t, next);
	if (r->deadline > 0 && !r->timed_out)
		earliest(&t, r->deadline);
	return t;
}

/* At every wake: starts counting (-D), prints a tick, applies --timeout, looks at
 * an attached task. 0 goes on waiting, 1 is an error, 2 ends the measurement. */
static int on_time(struct run *r, long *period_ns, double *next)
{
	double t = now_ns();

	if (r->enable_at > 0) {
		if (t < r->enable_at)
			return 0;
		*next = now_ns() + (double)*period_ns;
		return start_counting(r, 1);
	}
	if (*period_ns && t >= *next) {
		if (interval_tick(r))
			return 1;
		/* A tick more than half a period late (a loaded host, a stopped process)
		 * moves the grid: catching up would print a burst of intervals a few
		 * microseconds long, each <not counted>. */
		*next += (double)*period_ns;
		t = now_ns();	/* after the tick: printing may have taken a while */
		if (*next - t < (double)*period_ns / 2)
			*next = t + (double)*period_ns;
		/* as perf: the last interval printed, the command runs on to its end
		 * (an attached target is left) */
		if (ticks_done(r)) {
			if (!r->cmd)
				return 2;
			*period_ns = 0;
		}
	}
	if (r->deadline > 0 && !r->timed_out && t >= r->deadline) {
		if (!r->cmd)
			return 2;
		r->timed_out = 1;	/* as perf: the command is ended */
		stat_os_terminate(r->cmd);
	}
	return target_gone(r) ? 2 : 0;
}

/* The command exited with wait status status. */
static void exited(struct run *r, int status)
{
	r->exited = 1;
	r->exit_status = tool_exit_status(status);
	/* a command that ignored the signal and ended on its own was counted whole */
	if (stat_os_exited(status))
		r->interrupted = 0;
	/* stopped by --timeout, as asked: perf exits 0 then */
	if (r->timed_out && stat_os_terminated(status))
		r->exit_status = 0;
}

/* How long to wait, in ms, until wake (ns, < 0: no time set). */
static int wait_ms(double wake)
{
	double ms = wake < 0 ? STOP_LOOK_MS : ceil((wake - now_ns()) / 1e6);

	return ms < 0 ? 0 : ms > STOP_LOOK_MS ? STOP_LOOK_MS : (int)ms;
}

/* A stop signal: the counts are partial. 1 ends the wait (nothing runs that we
 * started), 0 waits on for the command, which was given the signal. */
static int on_stop(struct run *r, int sig, int aimed)
{
	r->interrupted = 1;
	r->signo = sig;
	if (!r->cmd)
		return 1;
	if (aimed)
		stat_os_signal(r->cmd, sig);
	return 0;
}

/* Waits for the end of the measurement: the command's exit, SIGINT/SIGTERM, the
 * attached task's exit or --timeout, printing -I intervals on the way. */
static int wait_loop(struct run *r)
{
	long period_ns = r->cfg->interval_ms > 0 ? r->cfg->interval_ms * 1000000L : 0;
	double next = r->t0 + (double)period_ns;

	for (;;) {
		int ms = wait_ms(wake_at(r, period_ns, next)), sig, aimed, end;

		if (r->cmd) {
			int status, got = pmu_command_wait_timeout(r->cmd, ms, &status);

			if (got == 1) {
				exited(r, status);
				return 0;
			}
			/* a signal cuts the wait short: it is taken below */
			if (got < 0 && !stat_os_stop_pending())
				return tool_error("stat", "waiting for the command", got);
		} else {
			stat_os_sleep(ms);
		}
		if ((sig = stat_os_take_stop(&aimed)) && on_stop(r, sig, aimed))
			return 0;
		if ((end = on_time(r, &period_ns, &next)) != 0)
			return end == 2 ? 0 : 1;
	}
}

/* Says once that perf_event_paranoid made events count user mode only (perf does
 * it silently; the counts would otherwise look low for no visible reason). */
static void note_user_fallback(const struct run *r, const struct pmu_event_list *list)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct pmu_event *ev = pmu_counters_event(r->counters, i);

		/* duration_time is wall-clock time: kernel mode or not, it is whole */
		if (!ev->exclude_kernel || pmu_event_list_get(list, i)->exclude_kernel ||
		    stat_is_duration(ev))
			continue;
		fprintf(stderr, "pmukit stat: perf_event_paranoid=%d forbids counting kernel mode "
			"without CAP_PERFMON: counting user mode only (the events marked :u)\n",
			stat_os_paranoid());
		return;
	}
}

/* The first run's reasons, kept past its counters for printing. */
static int keep_reasons(struct run *r)
{
	r->why = calloc(r->n, sizeof(*r->why));
	r->grouped = calloc(r->n, 1);
	if (!r->why || !r->grouped)
		return PMU_ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		const char *why = stat_is_duration(pmu_counters_event(r->counters, i)) ? NULL
				  : stat_note_unsupported(r->counters, i);

		if (why && !(r->why[i] = strdup(why)))
			return PMU_ENOMEM;
		r->grouped[i] = (unsigned char)pmu_counters_left_with_group(r->counters, i);
	}
	return 0;
}

/* The command cannot run: the sentence names it and the cause ("command not
 * found"), as shells say it, and the exit status is theirs (127 not found, 126
 * not runnable). Windows finds out at prepare (CreateProcess), POSIX at start. */
static int command_failed(int err)
{
	fprintf(stderr, "pmukit stat: %s\n", pmu_error_detail());
	return err == PMU_ENOENT ? 127 : 126;
}

/* The command prepared (its pid the target) and the counters' options for one run;
 * 0 or the exit status. */
static int prepare(struct run *r, struct pmu_target *target, struct pmu_counters_opts *opts)
{
	struct stat_config *cfg = r->cfg;
	int err;

	if (cfg->argv) {
		err = pmu_command_prepare(cfg->argv, &r->cmd);
		if (err)
			return err == PMU_ENOENT || err == PMU_EPERM ? command_failed(err)
				: tool_error("stat", "preparing the command", err);
		if (target->kind != PMU_TARGET_CPUS) {
			target->kind = PMU_TARGET_PID;
			target->pid = pmu_command_pid(r->cmd);
			opts->inherit = 1;
			opts->enable_on_exec = STAT_OS_ENABLE_ON_EXEC;
		}
	} else if (target->kind == PMU_TARGET_PID) {
		opts->inherit = 1;
	}
	/* -D: opened disabled, enabled once the delay has passed. Else counting starts
	 * with the clock (below), not at open: the time taken to set up the rows
	 * (--per-core reads the topology) is not the command's. */
	if (cfg->delay_ms > 0) {
		opts->enable_on_exec = 0;
		opts->start_disabled = 1;
	} else {
		opts->start_disabled = !opts->enable_on_exec;
	}
	return 0;
}

/* Opens the counters and their rows; the first run also allocates the readings and
 * keeps the events. 0 or the exit status. */
static int open_counters(struct run *r, const struct pmu_event_list *list,
			 const struct pmu_target *target, const struct pmu_counters_opts *opts)
{
	int err = pmu_counters_open(list, target, opts, &r->counters);

	if (err)
		return tool_error("stat", "opening counters", err);
	stat_aggr_free(r->aggr);
	if (stat_aggr_open(r->cfg, r->counters, &r->aggr))
		return 1;
	if (r->events && stat_aggr_rows(r->aggr) != r->nrow) {
		fprintf(stderr, "pmukit stat: the CPUs counted changed between runs\n");
		return 1;
	}
	r->nrow = stat_aggr_rows(r->aggr);
	r->n = pmu_counters_event_count(r->counters);
	if (!r->events) {
		size_t slots = (r->nrow + 1) * r->n;

		r->events = calloc(r->n, sizeof(*r->events));
		r->cur = calloc(slots, sizeof(*r->cur));
		r->prev = calloc(slots, sizeof(*r->prev));
		r->delta = calloc(slots, sizeof(*r->delta));
		if (!r->events || !r->cur || !r->prev || !r->delta ||
		    keep_reasons(r))
			return tool_error("stat", "allocating", PMU_ENOMEM);
		note_user_fallback(r, list);
		for (size_t i = 0; i < r->n; i++)
			r->events[i] = *pmu_counters_event(r->counters, i);
	}
	memset(r->prev, 0, (r->nrow + 1) * r->n * sizeof(*r->prev));
	return 0;
}

/* Starts the clock, the command and (without -D) the counting; 0 or the exit status. */
static int start(struct run *r, const struct pmu_counters_opts *opts)
{
	struct stat_config *cfg = r->cfg;
	int err;

	if (opts->start_disabled && cfg->delay_ms <= 0 &&
	    (err = pmu_counters_enable(r->counters)))
		return tool_error("stat", "enabling counters", err);
	r->t0 = r->tprev = now_ns();
	if (r->cmd) {
		err = pmu_command_start(r->cmd);
		if (err)
			return command_failed(err);
	}
	/* once the command runs: one that cannot start gets no -I header either */
	stat_print_header(cfg);
	r->ticks = 0;
	r->timed_out = 0;
	r->deadline = 0;
	r->enable_at = cfg->delay_ms > 0 ? now_ns() + (double)cfg->delay_ms * 1e6 : 0;
	return r->enable_at ? 0 : start_counting(r, 0);
}

/* Waits for the end of the run, stops the counting and reads the counts; 0 or the
 * exit status. */
static int finish(struct run *r, double *elapsed)
{
	int err, rc = wait_loop(r);

	*elapsed = now_ns() - r->t0;
	/* stopped with the clock: every row is read over the same time as the total */
	if (!rc && (err = pmu_counters_disable(r->counters)))
		rc = tool_error("stat", "disabling counters", err);
	/* -I: the last, partial interval too (perf prints it; a command shorter than
	 * one interval would show nothing), in every format */
	if (!rc && r->cfg->interval_ms > 0 && !ticks_done(r))
		rc = interval_tick(r);
	else if (!rc && (err = read_all(r, r->cur)))
		rc = tool_error("stat", "reading counters", err);
	set_duration(r, r->cur, *elapsed);
	return rc;
}

static int measure(struct run *r, const struct pmu_event_list *list, double *elapsed)
{
	/* as perf stat: what this host cannot count is shown <not supported>, even
	 * when that is every event */
	PMU_OPTS(pmu_counters_opts, opts, .skip_unsupported = 1,
		 .allow_empty = 1, .user_fallback = 1);
	struct pmu_target target = r->cfg->target;
	int rc;

	r->exited = 0;
	r->exit_status = -1;
	if ((rc = prepare(r, &target, &opts)))
		return rc;
	/* ^C while the command was prepared: it is not started (-1: no run; stat_run
	 * takes the signal as one between runs) */
	if (stat_os_stop_pending())
		rc = -1;
	else if (!(rc = open_counters(r, list, &target, &opts)) && !(rc = start(r, &opts)))
		rc = finish(r, elapsed);
	r->os_note = r->counters ? stat_os_note(r->counters, r->cmd) : NULL;
	pmu_counters_close(r->counters);
	r->counters = NULL;
	pmu_command_free(r->cmd);
	r->cmd = NULL;
	return rc;
}

/* -r: every row's readings of the runs so far, for their mean and spread. */
struct repeat {
	struct pmuk_runs *runs_of;
	struct pmu_reading *mean;
	double *stderr_pct;
	size_t slots;
	int runs;
	double elapsed_sum;
};

/* Adds the run just measured; 0 or the exit status. */
static int repeat_add(struct repeat *rep, const struct run *r)
{
	if (!rep->runs_of) {
		/* every row's readings, not only the aggregate's */
		rep->slots = (r->nrow + 1) * r->n;
		rep->runs_of = calloc(rep->slots, sizeof(*rep->runs_of));
		rep->mean = calloc(rep->slots, sizeof(*rep->mean));
		rep->stderr_pct = calloc(rep->slots, sizeof(*rep->stderr_pct));
		if (!rep->runs_of || !rep->mean || !rep->stderr_pct)
			return tool_error("stat", "allocating", PMU_ENOMEM);
	}
	for (size_t i = 0; i < rep->slots; i++)
		pmuk_runs_add(&rep->runs_of[i], &r->cur[i]);
	return 0;
}

/* The runs' mean with its spread; or the one run's counts (-I printed its own). */
static void print_total(struct run *r, struct repeat *rep, double elapsed)
{
	if (rep->runs > 1) {
		for (size_t i = 0; i < rep->slots; i++)
			pmuk_runs_mean(&rep->runs_of[i], &rep->mean[i], &rep->stderr_pct[i]);
		print_readings(r, rep->mean, -1, rep->elapsed_sum / rep->runs, rep->runs,
			       rep->stderr_pct);
	} else if (rep->runs == 1 && r->cfg->interval_ms <= 0) {
		print_readings(r, r->cur, -1, elapsed, 1, NULL);
	}
}

static void free_run(struct run *r, struct repeat *rep)
{
	free(rep->runs_of);
	free(rep->mean);
	free(rep->stderr_pct);
	for (size_t i = 0; r->why && i < r->n; i++)
		free(r->why[i]);
	free(r->why);
	free(r->grouped);
	free(r->events);
	free(r->cur);
	free(r->prev);
	free(r->delta);
	stat_aggr_free(r->aggr);
}

int stat_run(struct stat_config *cfg, const struct pmu_event_list *list, const char *note)
{
	struct run r = { .cfg = cfg, .note = note };
	struct repeat rep = { 0 };
	double elapsed = 0;
	int rc, between, aimed;

	if ((rc = stat_os_check(cfg)))
		return rc;
	stat_os_catch();
	for (int k = 1; k <= cfg->repeat && !r.signo && !stat_os_stop_pending(); k++) {
		rc = measure(&r, list, &elapsed);
		if (rc < 0) {		/* stopped before this run started */
			rc = 0;
			break;
		}
		if (rc)
			break;
		rep.runs = k;
		rep.elapsed_sum += elapsed;
		if (cfg->repeat == 1 || (rc = repeat_add(&rep, &r)))
			break;
	}
	if (!rc)
		print_total(&r, &rep, elapsed);
	/* caught between runs: the runs so far were whole, but the repeat was cut */
	between = !r.signo && stat_os_stop_pending();
	if (between)
		r.signo = stat_os_take_stop(&aimed);
	stat_os_release();
	/* any non-zero status passes through: NTSTATUS codes such as 0xC0000005 are
	 * negative as int */
	if (!rc && r.exited && r.exit_status != 0)
		rc = r.exit_status;
	/* no command to pass a status on, or none to blame for the stop: end as perf
	 * does, by the signal (130 for ^C) */
	if (!rc && (!cfg->argv || !rep.runs || between) && r.signo)
		rc = 128 + r.signo;
	free_run(&r, &rep);
	return rc;
}
