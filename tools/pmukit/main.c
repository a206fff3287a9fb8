/* SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "core/suggest.h"

#include <pmukit/pmukit.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <stdio_ext.h>
#endif
#ifdef _WIN32
#include "core/utf8.h"
#include <wchar.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct verb verbs[] = {
	{ "stat", cmd_stat, "count events of a command, process, thread or CPUs" },
	{ "list", cmd_list, "list the events usable on this host" },
	{ "caps", cmd_caps, "what this host can and cannot measure, and why" },
	{ "topo", cmd_topo, "CPU topology: packages, cores, caches, NUMA nodes" },
	{ "numa", cmd_numa, "which NUMA node holds the pages of a process, per mapping" },
	{ "etl", cmd_etl, "read Windows .etl traces: info, threads, dump" },
	{ "addr2line", cmd_addr2line, "addresses to functions, source lines, inlined calls" },
	{ "report", cmd_report, "perf.data or .etl samples by symbol, with call graphs" },
	{ "cpustat", cmd_cpustat, "per-CPU user/system/idle/interrupt time over an interval" },
	{ "record", cmd_record, "record samples with stacks to perf.data (Windows: .etl)" },
	{ "script", cmd_script, "every sample of a recording as text, as perf script prints" },
	{ "exporter", cmd_exporter, "serve per-CPU metrics to Prometheus over HTTP" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit VERB [OPTIONS]\n\nverbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-9s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\n'pmukit VERB --help' shows a verb's options; 'pmukit version' (or -v, "
		"--version) the version.\n");
}

int tool_error(const char *verb, const char *what, int err)
{
	fprintf(stderr, "pmukit %s: %s: %s: %s\n", verb, what, pmu_strerror(err),
		pmu_error_detail());
	return 1;
}

void tool_single_writer(FILE *f)
{
#ifdef __GLIBC__
	__fsetlocking(f, FSETLOCKING_BYCALLER);
#else
	(void)f;
#endif
}

int tool_flush_stdout(const char *verb, const char *what)
{
	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return 0;
	fprintf(stderr, "pmukit%s%s: writing %s failed: %s\n", verb ? " " : "", verb ? verb : "",
		what, errno ? strerror(errno) : "an I/O error");
	return 1;
}

int tool_json_option(int argc, char **argv, void (*usage)(FILE *f), int *json)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	*json = 0;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'j') {
			*json = 1;
		} else {
			return tool_help_or_bad_option(argv, opt, longopts, usage);
		}
	}
	if (optind < argc) {	/* these verbs take no operands */
		tool_bad_operand(argv, argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

/* "pmukit stta": names the verb and the closest ones, then lists them all. */
static int unknown_verb(const char *word)
{
	struct pmuk_suggest s;
	char hint[512];

	pmuk_suggest_init(&s, word);
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		pmuk_suggest_add(&s, verbs[i].name);
	pmuk_suggest_add(&s, "help");
	pmuk_suggest_add(&s, "version");
	pmuk_suggest_format(&s, hint, sizeof(hint));
	fprintf(stderr, "pmukit: unknown verb '%s'%s\n", word, hint);
	usage(stderr);
	return 2;
}

/* A standard descriptor closed by the caller (2>&-) stays closed in effect, but
 * its number is taken: else the next open (stat -o FILE, a counter) would get it
 * and the command run under stat would write its stderr into the counts file.
 * /dev/null opened the other way round fails reads and writes as a closed one. */
static void hold_std_fds(void)
{
#ifndef _WIN32
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd ? O_RDONLY : O_WRONLY) != fd)
			break;
#endif
}

static int run(int argc, char **argv)
{
	hold_std_fds();
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	/* perf's three spellings: perf -v, perf --version, perf version. */
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v") ||
	    !strcmp(argv[1], "version")) {
		printf("pmukit %s\n", pmu_version());
		return tool_flush_stdout(NULL, "the version");
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			return verbs[i].run(argc - 1, argv + 1);
	return unknown_verb(argv[1]);
}

#ifdef _WIN32
/* main()'s argv is in the ANSI code page: a name outside it (C:\Users\Zoë on a
 * Japanese system, any emoji) arrives as '?'. pmukit takes the UTF-16 arguments
 * (wmain, -municode: the C runtime splits the command line, with no globbing) and
 * converts them once to UTF-8, the encoding of every string it handles; a lone
 * surrogate is an error, not a '?' naming another file. Not CommandLineToArgvW:
 * shell32 loads user32 and gdi32, and a console process that has those loaded is
 * no longer sent CTRL_LOGOFF_EVENT / CTRL_SHUTDOWN_EVENT (SetConsoleCtrlHandler),
 * which stop pmukit's ETW sessions and restore the machine-wide settings. */
int _dowildcard = 0;

int wmain(int argc, wchar_t **wargv)
{
	char **argv;
	int err = pmuk_argv_from_utf16(argc, (const uint16_t *const *)wargv, &argv);

	if (err) {
		fprintf(stderr, "pmukit: %s: %s\n", pmu_strerror(err), pmu_error_detail());
		return 2;
	}
	return run(argc, argv);  /* argv lives as long as the process */
}
#else
int main(int argc, char **argv)
{
	return run(argc, argv);
}
#endif
