/* SPDX-License-Identifier: MIT */
/* pmukit stat: count events of a command, a process, a thread or CPUs, as perf stat does. */
#include "cmd.h"
#include "stat.h"

#include "core/cpulist.h"
#include "core/file.h"
#include "core/num.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _WIN32
/* Windows keeps no per-process context-switch or migration counts. */
#define SW_DEFAULTS "task-clock,page-faults"
#define SW_DEFAULTS_CPUS "cpu-clock"
#define NO_PMU_NOTE "software events only: no hardware counter source is usable here " \
	"(see 'pmukit caps')"
#else
#define SW_DEFAULTS "task-clock,context-switches,cpu-migrations,page-faults"
#define SW_DEFAULTS_CPUS "cpu-clock,context-switches,cpu-migrations,page-faults"
#define NO_PMU_NOTE "software events only: this host has no hardware PMU " \
	"(/sys/bus/event_source/devices lists no core PMU; see 'pmukit caps')"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmukit stat [-e LIST]... [-a | -C CPUS | -p PID | -t TID] [-I MS] [-r N]\n"
		"                   [--per-cpu | --per-core | --per-socket | --per-thread]\n"
		"                   [--json | --csv | -x SEP] [-o FILE] [--] [COMMAND [ARGS]]\n"
		"  -e, --event LIST   events, e.g. cycles,instructions or {cycles,instructions}:u;\n"
		"                     several -e add up\n"
		"  -a, --all-cpus     count on every online CPU (system wide)\n"
		"  -C, --cpu CPUS     count on these CPUs, e.g. 0,2-3\n"
		"  -p, --pid PID      count all threads of existing processes (PID or PID,PID...)\n"
		"  -t, --tid TID      count existing threads (TID or TID,TID...)\n"
		"  -I, --interval MS  print counts every MS milliseconds (1 or more; 0: off)\n"
		"      --interval-count N  with -I, stop after N intervals\n"
		"      --timeout MS   stop counting after MS ms (10 or more; the command gets SIGTERM)\n"
		"  -D, --delay MS     start counting MS ms after the command starts\n"
		"  -r, --repeat N     run the command N times and show the spread\n"
		"  -A, --per-cpu, --no-aggr   with -a/-C, one line per CPU\n"
		"      --per-core     with -a/-C, one line per core (its CPUs summed)\n"
		"      --per-socket   with -a/-C, one line per socket (package)\n"
		"      --per-thread   with -p/-t, one line per thread\n"
		"      --per-node, -M numa   read and write memory bandwidth per NUMA node from\n"
		"                     the memory-controller PMUs (uncore_imc_*, amd_umc_*), system\n"
		"                     wide, over the command or --timeout\n"
		"  -j, --json         one JSON object (JSON Lines with -I)\n"
		"      --csv          CSV, same fields as -x ,\n"
		"  -x, --field-separator SEP   perf-style separated values\n"
		"  -o, --output FILE  write counts to FILE (default: standard error, as perf does,\n"
		"                     leaving standard output to the command)\n"
		"Without -e: hardware events where the host has a PMU, software events otherwise.\n"
		"The command's exit status is passed through; Ctrl-C prints the counts so far.\n");
}

/* A whole decimal number in [min, max] (strtol alone would let "4294967297" through
 * as an int 1 once truncated: -p would attach to init). */
static int parse_num(const char *s, long min, long max, long *out)
{
	return pmuk_parse_long(s, 10, min, max, out);
}

/* -p/-t "A" or "A,B,...", as perf: every id a whole number > 0. */
static int parse_ids(const char *s, struct stat_config *cfg)
{
	const size_t max = sizeof(cfg->pids) / sizeof(cfg->pids[0]);
	char buf[32];
	size_t n = 0;
	long v;

	for (const char *p = s;; p++) {
		size_t len = strcspn(p, ",");

		if (n == max || len >= sizeof(buf))
			return -1;
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (parse_num(buf, 1, INT_MAX, &v))
			return -1;
		cfg->pids[n++] = (int)v;
		p += len;
		if (!*p)
			break;
	}
	cfg->target.pid = cfg->pids[0];
	cfg->target.pids = n > 1 ? cfg->pids : NULL;
	cfg->target.npids = n > 1 ? n : 0;
	return 0;
}

/* The options of the run loop's timing: -I, --interval-count, --timeout, -D. */
static int take_timing(struct stat_config *cfg, int opt)
{
	switch (opt) {
	case 'I':
		/* as perf: down to 1 ms, 0 turns intervals off */
		if (!parse_num(optarg, 0, 86400000, &cfg->interval_ms))
			return 0;
		fprintf(stderr, "pmukit stat: -I takes milliseconds, from 1 to 86400000 "
			"(0: no intervals)\n");
		return 2;
	case 5:
		if (!parse_num(optarg, 0, LONG_MAX, &cfg->interval_count))
			return 0;
		fprintf(stderr, "pmukit stat: --interval-count takes a count of intervals, "
			"0 or more (0: no limit)\n");
		return 2;
	case 6:
		/* perf's floor: shorter runs measure mostly their own start */
		if (!parse_num(optarg, 10, 86400000, &cfg->timeout_ms))
			return 0;
		fprintf(stderr, "pmukit stat: --timeout takes milliseconds, from 10 to 86400000\n");
		return 2;
	default: /* 'D' */
		if (!strcmp(optarg, "-1")) {
			/* perf: start disabled until --control enables counting */
			fprintf(stderr, "pmukit stat: -D -1 (start disabled, enable through "
				"--control) needs --control, which pmukit stat does not have; "
				"give a delay in milliseconds\n");
			return 2;
		}
		if (!parse_num(optarg, 0, 86400000, &cfg->delay_ms))
			return 0;
		fprintf(stderr, "pmukit stat: -D takes milliseconds, from 0 to 86400000\n");
		return 2;
	}
}

/* Each -e adds to the list, as in perf stat (-e a -e b counts both). */
static int add_events(struct stat_config *cfg, const char *list)
{
	size_t have = cfg->events_buf ? strlen(cfg->events_buf) : 0;
	char *s = realloc(cfg->events_buf, have + strlen(list) + 2);

	if (!s) {
		fprintf(stderr, "pmukit stat: out of memory for the event list\n");
		return 2;
	}
	snprintf(s + have, strlen(list) + 2, "%s%s", have ? "," : "", list);
	cfg->events = cfg->events_buf = s;
	return 0;
}

/* One output format: two of --json, --csv and -x conflict rather than the last winning. */
static int set_format(struct stat_config *cfg, enum stat_format f, const char *sep,
		      const char **given, const char *opt)
{
	if (*given && strcmp(*given, opt)) {
		fprintf(stderr, "pmukit stat: %s and %s both choose the output format; "
			"give one\n", *given, opt);
		return 2;
	}
	if (sep && (!*sep || strlen(sep) >= sizeof(cfg->sep))) {
		fprintf(stderr, "pmukit stat: -x takes a short separator\n");
		return 2;
	}
	*given = opt;
	cfg->format = f;
	if (sep)
		strcpy(cfg->sep, sep);
	return 0;
}

static const char *aggr_option(enum stat_aggr_mode a)
{
	static const char *const names[] = { "", "--per-cpu", "--per-core", "--per-socket",
					     "--per-thread" };
	return names[a];
}

/* One aggregation mode (-A and --no-aggr are the same one). */
static int set_aggr(struct stat_config *cfg, enum stat_aggr_mode a)
{
	if (cfg->aggr != STAT_AGGR_GLOBAL && cfg->aggr != a) {
		fprintf(stderr, "pmukit stat: %s and %s both choose how counts are split; give one\n",
			aggr_option(cfg->aggr), aggr_option(a));
		return 2;
	}
	cfg->aggr = a;
	return 0;
}

static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "interval", required_argument, NULL, 'I' },
	{ "interval-print", required_argument, NULL, 'I' },
	{ "interval-count", required_argument, NULL, 5 },
	{ "timeout", required_argument, NULL, 6 },
	{ "delay", required_argument, NULL, 'D' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "per-cpu", no_argument, NULL, 'A' },
	{ "no-aggr", no_argument, NULL, 'A' },
	{ "per-core", no_argument, NULL, 2 },
	{ "per-socket", no_argument, NULL, 3 },
	{ "per-thread", no_argument, NULL, 4 },
	{ "per-node", no_argument, NULL, 7 },
	{ "metrics", required_argument, NULL, 'M' },
	{ "json", no_argument, NULL, 'j' },
	{ "csv", no_argument, NULL, 1 },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The verb's words for a bad option, then where to look. */
static int bad_option(char **argv, int opt)
{
	tool_bad_option(argv, opt, longopts);
	fprintf(stderr, "pmukit stat: 'pmukit stat --help' lists the options\n");
	return 2;
}

/* -a or -C: the CPUs are the target; as perf, -a with -C counts the CPUs of -C
 * (one target, counted once in *targets). */
static void cpu_target(struct stat_config *cfg, int *targets)
{
	if (cfg->target.kind != PMU_TARGET_CPUS || !*targets)
		(*targets)++;
	cfg->target.kind = PMU_TARGET_CPUS;
}

/* -a, -C, -p and -t: what is counted; *targets counts them (-a with -C is one). */
static int take_target(struct stat_config *cfg, int opt, int *targets)
{
	size_t ncpus;

	switch (opt) {
	case 'a':
		cpu_target(cfg, targets);
		cfg->all_cpus = 1;
		return 0;
	case 'C':
		free(cfg->cpus);
		if (pmuk_cpulist_parse(optarg, &cfg->cpus, &ncpus) || ncpus == 0) {
			fprintf(stderr, "pmukit stat: bad CPU list '%s' (expected e.g. 0,2-3)\n", optarg);
			return 2;
		}
		cpu_target(cfg, targets);
		cfg->target.cpus = cfg->cpus;
		cfg->target.ncpus = ncpus;
		cfg->cpu_list = optarg;
		return 0;
	default:	/* -p, -t */
		cfg->target.kind = opt == 'p' ? PMU_TARGET_PID : PMU_TARGET_TID;
		if (parse_ids(optarg, cfg) < 0) {
			fprintf(stderr, "pmukit stat: bad %s list '%s' (expected e.g. 123 or "
				"123,456; at most %zu)\n", opt == 'p' ? "pid" : "tid", optarg,
				sizeof(cfg->pids) / sizeof(cfg->pids[0]));
			return 2;
		}
		(*targets)++;
		return 0;
	}
}

/* One option of the command line; 0 to go on, else parse_args' result. */
static int take_option(struct stat_config *cfg, int opt, char **argv, int *targets,
		       const char **output, const char **format)
{
	long v;

	switch (opt) {
	case 'e': return add_events(cfg, optarg);
	case 'a':
	case 'C':
	case 'p':
	case 't':
		return take_target(cfg, opt, targets);
	case 'I':
	case 5:
	case 6:
	case 'D':
		return take_timing(cfg, opt);
	case 'r':
		if (parse_num(optarg, 1, 1000000, &v)) {
			fprintf(stderr, "pmukit stat: -r takes a count from 1 to 1000000\n");
			return 2;
		}
		cfg->repeat = (int)v;
		return 0;
	case 'A': return set_aggr(cfg, STAT_AGGR_CPU);
	case 2: return set_aggr(cfg, STAT_AGGR_CORE);
	case 3: return set_aggr(cfg, STAT_AGGR_SOCKET);
	case 4: return set_aggr(cfg, STAT_AGGR_THREAD);
	case 7:
		cfg->per_node = 1;
		return 0;
	case 'M':
		if (strcmp(optarg, "numa")) {
			fprintf(stderr, "pmukit stat: -M %s: unknown metric group (known: numa, "
				"the memory bandwidth per node)\n", optarg);
			return 2;
		}
		cfg->per_node = 1;
		return 0;
	case 'j': return set_format(cfg, STAT_JSON, NULL, format, "--json");
	case 1: return set_format(cfg, STAT_CSV, ",", format, "--csv");
	case 'x': return set_format(cfg, STAT_CSV, optarg, format, "-x");
	case 'o':
		*output = optarg;
		return 0;
	case 'h':
		usage(stdout);
		return -1;
	default:
		return bad_option(argv, opt);
	}
}

/* What the options cannot mean together. */
static int check_args(const struct stat_config *cfg, int targets)
{
	int task = cfg->target.kind == PMU_TARGET_PID || cfg->target.kind == PMU_TARGET_TID;

	if (cfg->per_node && ((task && targets) || cfg->events || cfg->aggr != STAT_AGGR_GLOBAL ||
			      cfg->interval_ms > 0 || cfg->repeat > 1)) {
		fprintf(stderr, "pmukit stat: --per-node counts the memory controllers system "
			"wide: give a command or -a with --timeout, without -e, -p, -t, -I, -r "
			"or another --per-*\n");
		return 2;
	}
	if (targets > 1) {
		fprintf(stderr, "pmukit stat: choose one target: -a (or -a -C), -C, -p or -t\n");
		return 2;
	}
	if (!targets && !cfg->argv) {
		fprintf(stderr, "pmukit stat: give a command to run, or a target (-a, -C, -p, -t)\n");
		usage(stderr);
		return 2;
	}
	if (cfg->argv && task && targets) {
		fprintf(stderr, "pmukit stat: -p/-t attach to a running task; do not give a command too\n");
		return 2;
	}
	if (cfg->timeout_ms > 0 && cfg->interval_ms > 0) {
		fprintf(stderr, "pmukit stat: --timeout cannot be combined with -I (as in perf); "
			"use --interval-count N to stop after N intervals\n");
		return 2;
	}
	if (cfg->interval_count > 0 && cfg->interval_ms <= 0) {
		fprintf(stderr, "pmukit stat: --interval-count needs -I MS: it counts intervals\n");
		return 2;
	}
	if (cfg->repeat > 1 && !cfg->argv) {
		fprintf(stderr, "pmukit stat: -r repeats a command; give one\n");
		return 2;
	}
	if (stat_per_cpu(cfg) && cfg->target.kind != PMU_TARGET_CPUS) {
		fprintf(stderr, "pmukit stat: %s needs -a or -C (it splits CPU-wide counts)\n",
			aggr_option(cfg->aggr));
		return 2;
	}
	if (cfg->aggr == STAT_AGGR_THREAD && !(task && targets)) {
		/* a command's threads come and go while it runs: perf refuses this too */
		fprintf(stderr, "pmukit stat: --per-thread needs -p or -t (the threads of a "
			"running task)\n");
		return 2;
	}
#ifdef _WIN32
	if (cfg->aggr == STAT_AGGR_THREAD) {
		fprintf(stderr, "pmukit stat: --per-thread is not available on Windows: its "
			"counters are kept per process, not per thread\n");
		return 2;
	}
#endif
	return 0;
}

static int parse_args(int argc, char **argv, struct stat_config *cfg)
{
	const char *output = NULL, *format = NULL;
	int opt, targets = 0, rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->target.kind = PMU_TARGET_PID;
	cfg->repeat = 1;
	cfg->format = STAT_TEXT;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:e:aC:p:t:I:D:r:AM:jx:o:h", longopts, NULL)) != -1)
		if ((rc = take_option(cfg, opt, argv, &targets, &output, &format)))
			return rc;
	if (cfg->interval_ms > 0 && cfg->interval_ms < 10)
		fprintf(stderr, "pmukit stat: warning: -I %ld: intervals under 10 ms cost much "
			"overhead and can skew the counts\n", cfg->interval_ms);
	if (optind < argc) {
		cfg->argv = argv + optind;
		cfg->argc = argc - optind;
	}
	if ((rc = check_args(cfg, targets)))
		return rc;
	/* As perf stat: counts go to stderr, so the command's stdout stays its own. */
	cfg->out = stderr;
	cfg->out_name = output;
	if (output && !(cfg->out = pmuk_fopen(output, "w"))) {
		fprintf(stderr, "pmukit stat: cannot write '%s': %s\n", output, strerror(errno));
		return 1;
	}
	return 0;
}

/* True when the event opens on the calling thread: a default the PMU lacks (arm64
 * has no branches event in QEMU, say) is left out rather than failing the run. */
static int opens_here(const char *name)
{
	struct pmu_target self = { .kind = PMU_TARGET_SELF };
	/* unprivileged, it is counted in user mode (stat falls back as perf does) */
	PMU_OPTS(pmu_counters_opts, o, .user_fallback = 1);
	struct pmu_event_list *l;
	struct pmu_counters *c;
	int ok;

	if (pmu_event_parse(name, &l))
		return 0;
	ok = pmu_counters_open(l, &self, &o, &c) == 0;
	if (ok)
		pmu_counters_close(c);
	pmu_event_list_free(l);
	return ok;
}

/* Picks the default event list and says why in *note. */
static const char *default_events(struct stat_config *cfg, const char **note)
{
	static const char *const hw[] = { "cycles", "instructions", "branches", "branch-misses" };
	static char spec[256], why[256];
	struct pmu_device core[8];
	int ncore = pmu_device_core_list(core, 8);
	size_t dropped = 0;

	snprintf(spec, sizeof(spec), "%s",
		 cfg->target.kind == PMU_TARGET_CPUS ? SW_DEFAULTS_CPUS : SW_DEFAULTS);
	if (ncore <= 0) {
		cfg->default_kind = 2;
		*note = NO_PMU_NOTE;
		return spec;
	}
	cfg->default_kind = 1;
	*note = NULL;
	snprintf(why, sizeof(why), "the %s PMU cannot count:", core[0].name);
	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		size_t len = strlen(spec), wl = strlen(why);

		if (opens_here(hw[i])) {
			snprintf(spec + len, sizeof(spec) - len, ",%s", hw[i]);
		} else {
			snprintf(why + wl, sizeof(why) - wl, " %s", hw[i]);
			dropped++;
		}
	}
	if (dropped)
		*note = why;
	return spec;
}

/* The counts must reach their reader: a failed write (a full disk, a closed pipe)
 * is an error, not a silent success. Returns rc, or 1 when rc was 0 and it failed. */
static int finish_output(struct stat_config *cfg, const char *output, int rc)
{
	int err = stat_output_errno();

#ifdef SIGPIPE
	/* the command has run: saying why on a closed stderr must not kill us either */
	signal(SIGPIPE, SIG_IGN);
#endif
	if (cfg->out && fflush(cfg->out) && !err)
		err = errno;
	if (cfg->out && ferror(cfg->out) && !err)
		err = EIO;
	if (cfg->out && cfg->out != stderr && fclose(cfg->out) && !err)
		err = errno;
	if (!err)
		return rc;
	fprintf(stderr, "pmukit stat: writing the counts to %s failed: %s\n",
		output ? output : "standard error", strerror(err));
	return rc ? rc : 1;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_config cfg;
	struct pmu_event_list *list = NULL;
	const char *note = NULL, *spec;
	int rc, err;

	rc = parse_args(argc, argv, &cfg);
	if (rc) {
		if (cfg.out && cfg.out != stderr)
			fclose(cfg.out);
		free(cfg.cpus);
		free(cfg.events_buf);
		return rc < 0 ? 0 : rc;
	}
	if (cfg.per_node) {
		rc = finish_output(&cfg, cfg.out_name, stat_per_node(&cfg));
		free(cfg.cpus);
		free(cfg.events_buf);
		return rc;
	}
	spec = cfg.events ? cfg.events : default_events(&cfg, &note);
	err = pmu_event_parse(spec, &list);
	if (err) {
		rc = tool_error("stat", "bad event list", err);
	} else {
		rc = stat_run(&cfg, list, note);
		pmu_event_list_free(list);
	}
	rc = finish_output(&cfg, cfg.out_name, rc);
	free(cfg.cpus);
	free(cfg.events_buf);
	return rc;
}
