/* SPDX-License-Identifier: MIT */
/* The measurement loop of `pmukit stat` on Windows: the command is created suspended,
 * counted from its first instruction, and its exit code is passed through. Ctrl-C
 * reaches the child through the shared console; we print what was counted so far. */
#include "cmd.h"
#include "stat.h"

#include "core/scale.h"
#include "windows/win.h"

#include <stdlib.h>
#include <string.h>

static volatile LONG interrupted;

static BOOL WINAPI on_ctrl(DWORD type)
{
	if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT)
		return FALSE;
	InterlockedExchange(&interrupted, 1);
	return TRUE;
}

static double now_ns(void)
{
	LARGE_INTEGER t, f;

	QueryPerformanceCounter(&t);
	QueryPerformanceFrequency(&f);
	return (double)t.QuadPart * 1e9 / (double)f.QuadPart;
}

/* Why each event is not counted here (NULL: counted), for the rows; the strings
 * belong to the open counters. One measurement per process, as `interrupted`. */
static const char **why;

/* duration_time reads ns of wall-clock time (measured here, as perf does). */
static void set_duration(const struct pmu_event *ev, struct pmu_reading *r, size_t n, double ns)
{
	for (size_t i = 0; i < n; i++) {
		if (!stat_is_duration(&ev[i]))
			continue;
		r[i].flags = 0;
		pmuk_reading_set(&r[i], (uint64_t)ns, (uint64_t)ns, (uint64_t)ns);
	}
}

static void print(const struct stat_config *cfg, const struct pmu_event *ev,
		  const struct pmu_reading *r, size_t n, double interval_s, double elapsed,
		  int exit_status, const char *note)
{
	struct stat_rows rows = { .n = n, .events = ev, .r = r, .cpu = -1,
				  .unsupported = (const char *const *)why };
	struct stat_summary sum = {
		.elapsed_ns = elapsed, .interval_s = interval_s, .runs = 1,
		.exit_status = exit_status, .interrupted = interrupted, .note = note,
	};

	stat_print(cfg, &sum, &rows, 1);
}

/* The open counters of the run, their events, and the readings -I takes the
 * differences of. */
struct counts {
	struct pmu_counters *c;
	struct pmu_event *ev;
	struct pmu_reading *cur, *prev;
	size_t n;
};

/* -I: the previous reading's time and how many intervals were printed. */
static double tprev;
static long ticks;
static int timed_out; /* --timeout ended the command */

/* Prints the counts since the previous -I reading; cur ends up cumulative. */
static int interval_tick(struct stat_config *cfg, struct counts *k, double t0, int status,
			 const char *note)
{
	struct pmu_reading *cur = k->cur, *prev = k->prev;
	size_t n = k->n;
	struct pmu_reading *d = calloc(n, sizeof(*d));
	double t = now_ns();
	int err = d ? pmu_counters_read(k->c, cur, n) : PMU_ENOMEM;

	if (err) {
		free(d);
		return tool_error("stat", "reading counters", err);
	}
	for (size_t i = 0; i < n; i++) {
		pmuk_reading_set(&d[i], cur[i].value - prev[i].value,
				 cur[i].time_enabled - prev[i].time_enabled,
				 cur[i].time_running - prev[i].time_running);
		prev[i] = cur[i];
	}
	set_duration(k->ev, d, n, t - tprev);
	print(cfg, k->ev, d, n, (t - t0) / 1e9, t - tprev, status, note);
	free(d);
	tprev = t;
	ticks++;
	return 0;
}

/* --interval-count intervals were printed: no more, not even the last partial one. */
static int ticks_done(const struct stat_config *cfg)
{
	return cfg->interval_count > 0 && ticks >= cfg->interval_count;
}

/* Waits for the command (or, attached, until Ctrl-C or the process ends). */
static int wait_loop(struct stat_config *cfg, struct counts *k, HANDLE h, double t0,
		     const char *note)
{
	DWORD step = cfg->interval_ms > 0 ? (DWORD)cfg->interval_ms : cfg->timeout_ms > 0 ? 10 : 100;
	double next = t0 + (double)cfg->interval_ms * 1e6;
	double deadline = t0 + (double)cfg->timeout_ms * 1e6;

	for (;;) {
		DWORD r = h ? WaitForSingleObject(h, step) : (Sleep(step), WAIT_TIMEOUT);

		if (r == WAIT_OBJECT_0)
			return 0;
		if (r != WAIT_TIMEOUT)
			return tool_error("stat", "waiting", PMU_EIO);
		if (interrupted && !cfg->argv)
			return 0;
		/* --timeout: as perf, the command is ended and the counts printed */
		if (cfg->timeout_ms > 0 && !timed_out && now_ns() >= deadline) {
			if (!h)
				return 0;
			timed_out = 1;
			TerminateProcess(h, 1);
		}
		if (cfg->interval_ms <= 0 || ticks_done(cfg) || now_ns() < next)
			continue;
		next += (double)cfg->interval_ms * 1e6;
		if (interval_tick(cfg, k, t0, -1, note))
			return 1;
		/* as perf: the last interval printed, the command runs on to its end */
		if (ticks_done(cfg) && !h)
			return 0;
	}
}

/* Starts counting and the command: counting first (from its first instruction),
 * or with -D once the delay has passed, unless the command has ended by then. */
static int start(struct stat_config *cfg, struct pmu_counters *c, struct pmu_command *cmd,
		 HANDLE h)
{
	int err;

	if (cfg->delay_ms <= 0 && (err = pmu_counters_enable(c)))
		return tool_error("stat", "enabling counters", err);
	if (cmd && (err = pmu_command_start(cmd)))
		return tool_error("stat", "starting the command", err);
	if (cfg->delay_ms <= 0)
		return 0;
	if (h ? WaitForSingleObject(h, (DWORD)cfg->delay_ms) == WAIT_OBJECT_0
	      : (Sleep((DWORD)cfg->delay_ms), 0))
		return 0;	/* ended during the delay: its rows say <not counted> */
	if ((err = pmu_counters_enable(c)))
		return tool_error("stat", "enabling counters", err);
	return 0;
}

/* The command created suspended; its process becomes the target. 0 or the exit
 * status. */
static int prepare(struct stat_config *cfg, struct pmu_target *target, struct pmu_command **cmd,
		   HANDLE *h)
{
	int err = pmu_command_prepare(cfg->argv, cmd);

	if (err) {
		/* the sentence names the command and why it cannot run */
		fprintf(stderr, "pmukit stat: %s\n", pmu_error_detail());
		return err == PMU_ENOENT ? 127 : 126;
	}
	target->kind = PMU_TARGET_PID;
	target->pid = pmu_command_pid(*cmd);
	*h = pmuk_command_handle(*cmd);
	return 0;
}

/* Opens the counters (disabled) and keeps their events, why each is not counted,
 * and room for the readings. 0 or the exit status. */
static int open_counts(const struct pmu_event_list *list, const struct pmu_target *target,
		       struct counts *k)
{
	/* as perf stat: what this host cannot count is shown <not supported>, even
	 * when that is every event */
	PMU_OPTS(pmu_counters_opts, opts, .start_disabled = 1,
		 .skip_unsupported = 1, .allow_empty = 1);
	int err = pmu_counters_open(list, target, &opts, &k->c);
	size_t n;

	if (err)
		return tool_error("stat", "opening counters", err);
	n = k->n = pmu_counters_event_count(k->c);
	k->ev = calloc(n, sizeof(*k->ev));
	k->cur = calloc(n, sizeof(*k->cur));
	k->prev = calloc(n, sizeof(*k->prev));
	why = calloc(n, sizeof(*why));
	if (!k->ev || !k->cur || !k->prev || !why)
		return tool_error("stat", "allocating", PMU_ENOMEM);
	for (size_t i = 0; i < n; i++)
		why[i] = stat_is_duration(pmu_counters_event(k->c, i)) ? NULL
			 : stat_note_unsupported(k->c, i);
	for (size_t i = 0; i < n; i++)
		k->ev[i] = *pmu_counters_event(k->c, i);
	return 0;
}

/* After the wait: the command's exit code, the last counts read and printed. The
 * exit status: the command's, or 130 after Ctrl-C with no command. */
static int finish(struct stat_config *cfg, struct counts *k, struct pmu_command *cmd,
		  double t0, const char *note)
{
	double elapsed = now_ns() - t0;
	int err, rc = 0, status = -1;

	if (cmd && (err = pmu_command_wait(cmd, &status)))
		rc = tool_error("stat", "waiting for the command", err);
	if (timed_out)
		status = 0;	/* stopped by --timeout, as asked: perf exits 0 then */
	/* a command that ignored Ctrl-C and ended on its own was counted whole */
	if (!rc && cmd && (DWORD)status != 0xC000013AUL) /* STATUS_CONTROL_C_EXIT */
		InterlockedExchange(&interrupted, 0);
	/* -I: the last, partial interval too, as on Linux */
	if (!rc && cfg->interval_ms > 0 && !ticks_done(cfg))
		rc = interval_tick(cfg, k, t0, status, note);
	else if (!rc && (err = pmu_counters_read(k->c, k->cur, k->n)))
		rc = tool_error("stat", "reading counters", err);
	set_duration(k->ev, k->cur, k->n, elapsed);
	if (!rc && cfg->interval_ms <= 0)
		print(cfg, k->ev, k->cur, k->n, -1, elapsed, status, note);
	/* Any non-zero exit code, NTSTATUS codes such as 0xC0000005 (negative as int)
	 * included, is the command's failure and passes through. */
	if (!rc && cmd && status != 0)
		rc = status;
	/* no command to pass a status on: 130 for Ctrl-C, as on Linux */
	if (!rc && !cmd && interrupted)
		rc = 130;
	return rc;
}

int stat_run(struct stat_config *cfg, const struct pmu_event_list *list, const char *note)
{
	struct pmu_target target = cfg->target;
	struct pmu_command *cmd = NULL;
	struct counts k = { 0 };
	HANDLE h = NULL;
	double t0;
	int rc;

	if (cfg->repeat > 1 || stat_per_cpu(cfg) || target.kind == PMU_TARGET_CPUS) {
		fprintf(stderr, "pmukit stat: -r, -a, -C and --per-cpu are not available on "
			"Windows (pmukit counts a process or thread there)\n");
		return 2;
	}
	SetConsoleCtrlHandler(on_ctrl, TRUE);
	if (cfg->argv && (rc = prepare(cfg, &target, &cmd, &h)))
		return rc;
	if ((rc = open_counts(list, &target, &k)) || (rc = start(cfg, k.c, cmd, h)))
		goto out;
	/* once the command runs: one that cannot start gets no -I header either */
	stat_print_header(cfg);
	t0 = tprev = now_ns();
	ticks = 0;
	timed_out = 0;
	if (!(rc = wait_loop(cfg, &k, h, t0, note)))
		rc = finish(cfg, &k, cmd, t0, note);
out:
	pmu_counters_close(k.c);
	pmu_command_free(cmd);
	free(k.ev);
	free(k.cur);
	free(k.prev);
	free(why);
	why = NULL;
	SetConsoleCtrlHandler(on_ctrl, FALSE);
	return rc;
}
