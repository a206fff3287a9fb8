/* SPDX-License-Identifier: MIT */
/* pmukit record: samples to a file in the OS's native format (pmukit/recording.h):
 * perf.data on Linux, with perf record's options and meanings; .etl on Windows. */
#include "cmd.h"
#include "core/cpulist.h"
#include "core/num.h"
#include "core/sysroot.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pmukit/pmukit.h>
#include <pmukit/recording.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include "linux/kallsyms.h"

#include <sys/stat.h>
#include <unistd.h>
#endif

#define MAX_IDS 64

struct rec_cfg {
	struct pmu_recording_opts o;
	struct pmu_target target;
	int ids[MAX_IDS];
	int *cpus;
	const char *spec;
	const char *path;
	unsigned pages;        /* -m, 0: the library's default */
	int no_kallsyms_copy;  /* -N: keep no copy of /proc/kallsyms */
	int cmd;               /* argv index of the command, 0: none */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit record [-e EVENTS] [-F HZ | -c PERIOD] [-g | --call-graph fp|dwarf[,SIZE]]\n"
		   "                     [-b] [-d] [--switch-events] [--wait-stacks] [-m PAGES]\n"
		   "                     [-a | -C CPUS | -p PID | -t TID] [-o FILE] [--] [COMMAND [ARGS...]]\n\n"
		   "Records samples of COMMAND (or of running processes, threads or CPUs until\n"
		   "Ctrl-C) to FILE, then passes COMMAND's exit status through. Linux writes\n"
		   "perf.data (perf report/script read it; an existing FILE becomes FILE.old);\n"
		   "Windows writes .etl from an ETW kernel session (the whole machine, -o required).\n"
		   "Read the file with 'pmukit report' (or perf).\n\n"
		   "  -e EVENTS      events to sample (default: cycles, or cpu-clock without a\n"
		   "                 hardware PMU); tracepoints (sched:sched_switch) too\n"
		   "  -F HZ          samples per second (default 1000; max: the kernel's highest)\n"
		   "  -c PERIOD      sample every PERIOD events instead\n"
		   "  -g             frame-pointer call stacks (--call-graph fp)\n"
		   "  --call-graph fp|dwarf[,SIZE]  dwarf: copy SIZE bytes of user stack and the\n"
		   "                 user registers with each sample (default 8192), unwound later\n"
		   "  -b, --lbr      taken-branch stacks (LBR, BRBE) where the PMU has them\n"
		   "  -d             data addresses, data source and weight of each sample, and\n"
		   "                 the NUMA node of each sampled page (from the physical\n"
		   "                 address, else asked of the live process: report --sort node)\n"
		   "  --no-node-query  with -d: node answers from physical addresses only\n"
		   "  --switch-events  also record context switches (--switch)\n"
		   "  --wait-stacks  Windows: call stacks on context switches and ReadyThread too,\n"
		   "                 for wait analysis (implies -g --switch-events)\n"
		   "  -m PAGES       data pages of each ring buffer, a power of two\n"
		   "  -a             every CPU (the whole system)\n"
		   "  -C CPUS        these CPUs (0,2-3)\n"
		   "  -p PID[,PID]   running processes   -t TID[,TID]  running threads\n"
		   "  -o FILE        the output (default perf.data on Linux)\n"
		   "  -N, --no-buildid-cache  keep no copy of /proc/kallsyms in ~/.debug (as perf,\n"
		   "                 a copy is kept once per boot: reports read it, and it names\n"
		   "                 the kernel's addresses after a reboot)\n"
		   "  --help         this text\n");
}

/* -F and -c: a decimal number above 0 (core/num.h: no sign, blank or overflow). */
static int positive(const char *opt, const char *s, uint64_t *v)
{
	if (!pmuk_parse_u64(s, 10, v) && *v)
		return 0;
	fprintf(stderr, "pmukit record: %s needs a number above 0, not '%s'\n", opt, s);
	return 2;
}

/* -F max: the kernel's highest rate (kernel.perf_event_max_sample_rate), as perf. */
static int max_freq(uint64_t *v)
{
#ifndef _WIN32
	char path[PATH_MAX];

	if (!pmuk_path(path, sizeof(path), "/proc/sys/kernel/perf_event_max_sample_rate") &&
	    !pmuk_read_u64(path, v) && *v)
		return 0;
	fprintf(stderr, "pmukit record: -F max: cannot read "
		"/proc/sys/kernel/perf_event_max_sample_rate; give a number\n");
#else
	(void)v;
	fprintf(stderr, "pmukit record: -F max is the Linux perf_event_max_sample_rate; give "
		"a number\n");
#endif
	return 2;
}

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "pmukit record: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

/* -p/-t "A" or "A,B,...": whole numbers > 0. */
static int take_ids(struct rec_cfg *c, int opt, const char *s)
{
	size_t n = 0;
	char buf[32];
	long v;

	for (const char *p = s;; p++) {
		size_t len = strcspn(p, ",");

		if (n == MAX_IDS || len >= sizeof(buf))
			return bad("-p/-t takes process or thread ids (123 or 123,456), not '%s'", s);
		memcpy(buf, p, len);
		buf[len] = 0;
		if (pmuk_parse_long(buf, 10, 1, INT_MAX, &v))
			return bad("-p/-t takes process or thread ids (123 or 123,456), not '%s'", s);
		c->ids[n++] = (int)v;
		p += len;
		if (!*p)
			break;
	}
	c->target.kind = opt == 'p' ? PMU_TARGET_PID : PMU_TARGET_TID;
	c->target.pid = c->ids[0];
	c->target.pids = n > 1 ? c->ids : NULL;
	c->target.npids = n > 1 ? n : 0;
	return 0;
}

/* --call-graph fp | dwarf[,SIZE] (SIZE a multiple of 8 up to 65528, as perf). */
static int take_call_graph(struct rec_cfg *c, const char *s)
{
	uint64_t size = 8192;

	if (!strcmp(s, "fp")) {
		c->o.callchain = 1;
		c->o.stack_user = 0;
		return 0;
	}
	if (strncmp(s, "dwarf", 5) || (s[5] && s[5] != ','))
		return bad("--call-graph takes fp or dwarf[,SIZE], not '%s'", s);
	if (s[5] && (pmuk_parse_u64(s + 6, 10, &size) || size == 0 || size > 65528 || size % 8))
		return bad("--call-graph dwarf,SIZE: SIZE is a multiple of 8 from 8 to 65528 bytes, "
			   "not '%s'", s + 6);
	c->o.callchain = 1;
	c->o.stack_user = (uint32_t)size;
	return 0;
}

static int take_pages(struct rec_cfg *c, const char *s)
{
	uint64_t v;

	if (pmuk_parse_u64(s, 10, &v) || v == 0 || (v & (v - 1)) || v > (1u << 20))
		return bad("-m takes a number of pages that is a power of two (1, 2, 4, ... "
			   "1048576), not '%s'", s);
	c->pages = (unsigned)v;
	return 0;
}

static int take_cpus(struct rec_cfg *c, const char *s)
{
	size_t n;

	free(c->cpus);
	c->cpus = NULL;
	if (pmuk_cpulist_parse(s, &c->cpus, &n) < 0 || n == 0)
		return bad("-C takes a CPU list (0,2-3), not '%s'", s);
	c->target = (struct pmu_target){ .kind = PMU_TARGET_CPUS, .cpus = c->cpus, .ncpus = n };
	return 0;
}

static const struct option longopts[] = {
	{ "call-graph", required_argument, NULL, 'G' },
	{ "lbr", no_argument, NULL, 'b' },
	{ "branch-any", no_argument, NULL, 'b' },
	{ "switch-events", no_argument, NULL, 'S' },
	{ "switch", no_argument, NULL, 'S' },
	{ "wait-stacks", no_argument, NULL, 'W' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "event", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "data", no_argument, NULL, 'd' },
	{ "no-node-query", no_argument, NULL, 1001 },
	{ "no-buildid-cache", no_argument, NULL, 'N' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One option; 0 to go on, else the exit status. */
static int take_option(int opt, char **argv, struct rec_cfg *c)
{
	switch (opt) {
	case 'o': c->path = optarg; return 0;
	case 'e': c->spec = optarg; return 0;
	case 'F': return !strcmp(optarg, "max") ? max_freq(&c->o.freq) :
			 positive("-F", optarg, &c->o.freq);
	case 'c': return positive("-c", optarg, &c->o.period);
	case 'g': c->o.callchain = 1; return 0;
	case 'G': return take_call_graph(c, optarg);
	case 'b': c->o.branches = 1; return 0;
	case 'd': c->o.data_addr = 1; return 0;
	case 1001: c->o.no_node_query = 1; return 0;
	case 'N': c->no_kallsyms_copy = 1; return 0;
	case 'S': c->o.context_switch = 1; return 0;
#ifdef _WIN32
	/* ETW walks stacks on CSwitch and ReadyThread when both are asked for
	 * (recording_win.c): who waited where, and who woke it. */
	case 'W': c->o.callchain = c->o.context_switch = 1; return 0;
#else
	case 'W': return bad("%s", "--wait-stacks is for ETW on Windows; on Linux sample the "
			     "switches with their stacks: -e sched:sched_switch -g");
#endif
	case 'm': return take_pages(c, optarg);
	case 'a': c->target = (struct pmu_target){ .kind = PMU_TARGET_CPUS }; return 0;
	case 'C': return take_cpus(c, optarg);
	case 'p': case 't': return take_ids(c, opt, optarg);
	default:  /* -h/--help, or a bad option */
		return tool_help_or_bad_option(argv, opt, longopts, usage);
	}
}

/* What the options say together. 0 or the exit status. */
static int check_cfg(struct rec_cfg *c, int argc, int optind_)
{
	int has_target = c->target.kind != PMU_TARGET_SELF;

	if (c->o.freq && c->o.period)
		return bad("%s", "-F and -c exclude each other: sample at a frequency or every "
			   "PERIOD events");
	if (optind_ >= argc && !has_target)
		return bad("%s", "nothing to record: give a command, or -p, -t, -a or -C");
#ifdef _WIN32
	if (!c->path)
		return bad("%s", "no output file (-o FILE.etl)");
	if (optind_ >= argc)
		return bad("%s", "no command after '--' (ETW records the whole machine while it runs)");
	c->target = (struct pmu_target){ .kind = PMU_TARGET_CPUS };
#else
	if (!c->path)
		c->path = "perf.data";
	if (!strcmp(c->path, "-"))
		return bad("%s", "-o -: pmukit writes perf.data to a file, not to stdout (perf's "
			   "pipe mode); give a file name ('pmukit report -i -' reads perf's pipe "
			   "mode)");
#endif
	c->cmd = optind_ < argc ? optind_ : 0;
	return 0;
}

/* Options, then the command: after '--' or from the first word that is not an
 * option (as perf and pmukit stat). -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct rec_cfg *c)
{
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:o:e:F:c:gbdm:aC:p:t:Nh", longopts, NULL)) != -1)
		if ((rc = take_option(opt, argv, c)) || opt == 'h')
			return rc;
	if ((rc = check_cfg(c, argc, optind))) {
		usage(stderr);
		return rc;
	}
	return -1;
}

#ifdef _WIN32
/* An ETW session outlives the process that started it: Ctrl-C reaches the command
 * through the console, and pmukit waits for it and stops the session. */
static BOOL WINAPI on_ctrl(DWORD type)
{
	return type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT;
}

static void catch_stop(void)
{
	SetConsoleCtrlHandler(on_ctrl, TRUE);
}

#else
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* SIGINT/SIGTERM end the recording (not pmukit): the file is finished. */
static void catch_stop(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int stop_asked(void)
{
	return stop_signal != 0;
}

/* As perf: an existing non-empty output becomes FILE.old. 1 when it moved. */
static int backup(const char *path)
{
	char old[4096];
	struct stat st;

	if (stat(path, &st) < 0 || st.st_size == 0 || !S_ISREG(st.st_mode) ||
	    snprintf(old, sizeof(old), "%s.old", path) >= (int)sizeof(old))
		return 0;
	if (rename(path, old) == 0)
		return 1;
	fprintf(stderr, "pmukit record: cannot rename %s to %s: %s\n", path, old,
		strerror(errno));
	return 0;
}

/* A recording that did not start leaves the previous output where it was. */
static void restore(const char *path)
{
	char old[4096];

	snprintf(old, sizeof(old), "%s.old", path);
	if (rename(old, path) < 0)
		fprintf(stderr, "pmukit record: the previous %s is now %s (cannot rename it "
			"back: %s)\n", path, old, strerror(errno));
}
#endif

/* Waits for the command, forwarding a stop request as SIGTERM (as perf does). */
static int wait_command(struct pmu_command *cmd, int *status)
{
#ifndef _WIN32
	int sent = 0;
#endif
	int err;

	for (;;) {
		err = pmu_command_wait_timeout(cmd, 100, status);
		if (err == 1)
			return 0;
		if (err < 0 && err != PMU_EIO)
			return err;
#ifndef _WIN32
		if (stop_asked() && !sent) {
			kill(pmu_command_pid(cmd), SIGTERM);
			sent = 1;
		}
#endif
	}
}

/* No command: until a stop signal, or until every -p process has exited. */
static void wait_targets(const struct pmu_target *t)
{
#ifndef _WIN32
	const int *ids = t->pids ? t->pids : &t->pid;
	size_t n = t->pids ? t->npids : 1;

	while (!stop_asked()) {
		size_t alive = 0;

		for (size_t i = 0; i < n; i++)
			alive += kill(ids[i], 0) == 0 || errno == EPERM;
		if (t->kind != PMU_TARGET_CPUS && alive == 0)
			return;
		usleep(100 * 1000);
	}
#else
	(void)t;
#endif
}

static void print_notes(const struct pmu_recording *r)
{
	const char *n = pmu_recording_notes(r);

	for (const char *l = n; l && *l;) {
		size_t len = strcspn(l, "\n");

		fprintf(stderr, "pmukit record: %.*s\n", (int)len, l);
		l += len + (l[len] == '\n');
	}
}

static void print_summary(const struct rec_cfg *c, const struct pmu_recording_stats *st)
{
#ifdef _WIN32
	fprintf(stderr, "pmukit record: wrote %s: %llu bytes, %llu buffers, %llu events lost\n",
		c->path, (unsigned long long)st->bytes, (unsigned long long)st->buffers_written,
		(unsigned long long)st->events_lost);
#else
	fprintf(stderr, "[ pmukit record: wrote %s: %llu samples, %llu records, %.3f MB ]\n",
		c->path, (unsigned long long)st->samples, (unsigned long long)st->records,
		(double)st->bytes / 1e6);
	/* The kernel's LOST records and its lost-sample counts tell the same drops. */
	if (st->events_lost || st->lost_samples)
		fprintf(stderr, "pmukit record: %llu samples lost at full ring buffers (written "
			"to the file as LOST and LOST_SAMPLES): give the rings more pages (-m %u or "
			"more), sample less often (a lower -F or a larger -c), or raise the "
			"locked-memory limit that bigger rings need (sysctl -w "
			"kernel.perf_event_mlock_kb=N, ulimit -l)\n",
			(unsigned long long)(st->lost_samples > st->events_lost ? st->lost_samples
					     : st->events_lost), c->pages ? c->pages * 2 : 256);
	if (st->throttles)
		fprintf(stderr, "pmukit record: the kernel throttled sampling %llu times (too many "
			"samples per second; kernel.perf_event_max_sample_rate): use a lower -F or a "
			"larger -c\n", (unsigned long long)st->throttles);
#endif
}

/* Starts the recording (of the prepared command when there is one). */
static int start(struct rec_cfg *c, char **argv, struct pmu_command **cmd,
		 struct pmu_recording **r)
{
	struct pmu_event_list *events = NULL;
	int err;
#ifndef _WIN32
	int moved;
#endif

	if (c->spec && (err = pmu_event_parse(c->spec, &events)))
		return tool_error("record", "parsing the events", err);
#ifdef _WIN32
	(void)argv;
	(void)cmd;
#else
	if (c->cmd && (err = pmu_command_prepare(argv + c->cmd, cmd))) {
		pmu_event_list_free(events);
		return tool_error("record", "preparing the command", err);
	}
	if (*cmd && c->target.kind == PMU_TARGET_SELF) {
		c->target = (struct pmu_target){ .kind = PMU_TARGET_PID,
						 .pid = pmu_command_pid(*cmd) };
		c->o.inherit = c->o.enable_on_exec = 1;
	} else if (c->target.kind == PMU_TARGET_PID) {
		c->o.inherit = 1;  /* as perf: the threads and children it creates too */
	}
	if (c->pages)
		c->o.buffer_kb = (unsigned)(c->pages * (unsigned long)sysconf(_SC_PAGESIZE) / 1024);
	moved = backup(c->path);
#endif
	c->o.path = c->path;
	c->o.lower_precise = 1;
	err = pmu_recording_start(events, &c->target, &c->o, r);
	pmu_event_list_free(events);
	if (err) {
		err = tool_error("record", "starting the recording", err);
#ifndef _WIN32
		if (moved)
			restore(c->path);
#endif
		return err;
	}
	print_notes(*r);
	return 0;
}

static int record(struct rec_cfg *c, char **argv)
{
	struct pmu_recording_stats st;
	struct pmu_command *cmd = NULL;
	struct pmu_recording *r = NULL;
	int err, status = 0, rc;

	catch_stop();
	if ((rc = start(c, argv, &cmd, &r)))
		goto out;
	if (c->cmd && !cmd)
		err = pmu_command_prepare(argv + c->cmd, &cmd);
	else
		err = 0;
	if (!err && cmd && !(err = pmu_command_start(cmd)))
		err = wait_command(cmd, &status);
	else if (!err)
		wait_targets(&c->target);
	if (err) {
		rc = tool_error("record", "running the command", err);
		goto out;
	}
	err = pmu_recording_stop(r, &st, sizeof(st));
	if (err) {
		rc = tool_error("record", "finishing the recording", err);
		goto out;
	}
	print_summary(c, &st);
#ifndef _WIN32
	if (!c->no_kallsyms_copy && pmuk_kallsyms_keep(NULL))
		fprintf(stderr, "pmukit record: %s\n", pmu_error_detail());
#endif
	rc = cmd ? tool_exit_status(status) : 0;
out:
	pmu_recording_close(r);
	pmu_command_free(cmd);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	struct rec_cfg c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.o.sz = sizeof(c.o);
	c.target.kind = PMU_TARGET_SELF;
	rc = parse_args(argc, argv, &c);
	if (rc < 0)
		rc = record(&c, argv);
	free(c.cpus);
	return rc;
}
