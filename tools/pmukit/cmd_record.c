/* SPDX-License-Identifier: MIT */
/* pmukit record: samples of a command to a file in the OS's native format
 * (pmukit/recording.h: .etl on Windows; Linux has no file writer yet and says so). */
#include "cmd.h"
#include "core/num.h"

#include <getopt.h>
#include <pmukit/pmukit.h>
#include <pmukit/recording.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <sys/wait.h>
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit record -o FILE [-e EVENTS] [-F HZ | -c PERIOD] [-g] [--lbr]\n"
		   "                     [--switch] -- COMMAND [ARGS...]\n\n"
		   "Records samples of the whole machine while COMMAND runs (Windows: an ETW\n"
		   "kernel session writing FILE as .etl), then passes COMMAND's exit status\n"
		   "through. Read the file with 'pmukit report' or 'pmukit etl'.\n\n"
		   "  -o FILE        the output file (required)\n"
		   "  -e EVENTS      cpu-clock samples on the timer (the default); hardware\n"
		   "                 events (instructions, cycles, ...) on counter overflow\n"
		   "  -F HZ          timer samples per second per CPU (default 1000)\n"
		   "  -c PERIOD      events between hardware-event samples (default 1000003)\n"
		   "  -g             a call stack with every sample\n"
		   "  --lbr          the last taken branches with every sample (LBR)\n"
		   "  --switch       also record context switches\n"
		   "  --help         this text\n\n"
		   "Windows needs an elevated prompt (SeSystemProfilePrivilege). Linux: no\n"
		   "perf.data writer yet; pmukit says so.\n");
}

/* -F and -c: a decimal number above 0 (core/num.h: no sign, blank or overflow). */
static int positive(const char *opt, const char *s, uint64_t *v)
{
	if (!pmuk_parse_u64(s, 10, v) && *v)
		return 0;
	fprintf(stderr, "pmukit record: %s needs a number above 0, not '%s'\n", opt, s);
	return -1;
}

static int exit_code(int status)
{
#ifdef _WIN32
	return status;
#else
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
#endif
}

#ifdef _WIN32
/* An ETW session outlives the process that started it: Ctrl-C reaches the command
 * through the console, and pmukit waits for it and stops the session. */
static BOOL WINAPI on_ctrl(DWORD type)
{
	return type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT;
}
#endif

/* Runs the command; on failure closes (stops) the recording too. */
static int run(char **argv, struct pmu_recording *r, int *status)
{
	struct pmu_command *cmd;
	int err = pmu_command_prepare(argv, &cmd);

	if (err) {
		pmu_recording_close(r);
		return tool_error("record", "preparing the command", err);
	}
	if (!(err = pmu_command_start(cmd)))
		err = pmu_command_wait(cmd, status);
	pmu_command_free(cmd);
	if (err) {
		pmu_recording_close(r);
		return tool_error("record", "running the command", err);
	}
	return 0;
}

static const struct option longopts[] = {
	{ "lbr", no_argument, NULL, 'L' },
	{ "switch", no_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One option; 0 to go on, else the exit status. */
static int take_option(int opt, char **argv, struct pmu_recording_opts *o, const char **spec)
{
	switch (opt) {
	case 'o':
		o->path = optarg;
		return 0;
	case 'e':
		*spec = optarg;
		return 0;
	case 'F':
	case 'c':
		return positive(opt == 'F' ? "-F" : "-c", optarg, opt == 'F' ? &o->freq :
				&o->period) ? 2 : 0;
	case 'g':
		o->callchain = 1;
		return 0;
	case 'L':
		o->branches = 1;
		return 0;
	case 'S':
		o->context_switch = 1;
		return 0;
	case 'h':
		usage(stdout);
		return 0;
	default:
		tool_bad_option(argv, opt, longopts);
		usage(stderr);
		return 2;
	}
}

/* Options up to '--', then the command: *cmd its index in argv. -1 to go on,
 * else the exit status. */
static int parse_args(int argc, char **argv, struct pmu_recording_opts *o,
		      const char **spec, int *cmd)
{
	const char *last_value = NULL;
	int opt, rc, dashes;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:o:e:F:c:gh", longopts, NULL)) != -1) {
		if ((rc = take_option(opt, argv, o, spec)) || opt == 'h')
			return rc;
		last_value = optarg;
	}
	/* getopt stops after '--' or at the first operand, which must not come before '--' */
	dashes = optind > 1 && !strcmp(argv[optind - 1], "--") && argv[optind - 1] != last_value;
	if (!dashes && optind < argc) {
		fprintf(stderr, "pmukit record: bad option '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!o->path || optind >= argc) {
		fprintf(stderr, "pmukit record: %s\n", o->path ? "no command after '--'"
			: "no output file (-o FILE)");
		usage(stderr);
		return 2;
	}
	*cmd = optind;
	return -1;
}

int cmd_record(int argc, char **argv)
{
	PMU_OPTS(pmu_recording_opts, o);
	struct pmu_target target = { .kind = PMU_TARGET_CPUS };
	struct pmu_recording_stats st;
	struct pmu_event_list *events = NULL;
	struct pmu_recording *r;
	const char *spec = NULL;
	int cmd, err, status = 0;

	if ((err = parse_args(argc, argv, &o, &spec, &cmd)) >= 0)
		return err;
	if (spec && (err = pmu_event_parse(spec, &events)))
		return tool_error("record", "parsing the events", err);
#ifdef _WIN32
	SetConsoleCtrlHandler(on_ctrl, TRUE);
#endif
	err = pmu_recording_start(events, &target, &o, &r);
	pmu_event_list_free(events);
	if (err)
		return tool_error("record", "starting the recording", err);
	if ((err = run(argv + cmd, r, &status)))
		return err;
	err = pmu_recording_stop(r, &st, sizeof(st));
	pmu_recording_close(r);
	if (err)
		return tool_error("record", "finishing the recording", err);
	fprintf(stderr, "pmukit record: wrote %s: %llu bytes, %llu buffers, %llu events lost\n",
		o.path, (unsigned long long)st.bytes, (unsigned long long)st.buffers_written,
		(unsigned long long)st.events_lost);
	return exit_code(status);
}
