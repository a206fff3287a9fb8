/* SPDX-License-Identifier: MIT */
/* pmukit cpustat: where each CPU's time went over an interval, by the OS's own
 * accounting (/proc/stat on Linux, PDH or NtQuerySystemInformation on Windows). */
#include "cmd.h"

#include "core/json.h"

#include <pmukit/pmukit.h>
#include <pmukit/oscounters.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#include <unistd.h>
#endif

static volatile sig_atomic_t interrupted;

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit cpustat [-i SECONDS] [--json]\n\n"
		   "Samples the OS CPU-time counters twice, SECONDS apart (default 1), and\n"
		   "shows per CPU how the interval split into user, system, idle, interrupt\n"
		   "... time, with the busy share and the frequency where the OS gives it,\n"
		   "then each CPU's idle states: residency in percent of the interval and\n"
		   "entries per second (Linux cpuidle; Windows PDH C1-C3).\n\n"
		   "  -i, --interval SECONDS  the interval (0.001 to 3600; Ctrl-C ends it early\n"
		   "                          and prints the part that ran, exit status 130)\n"
		   "  --ntqsi                 Windows: read NtQuerySystemInformation, not PDH\n"
		   "  --json                  one JSON object: source, interval_s, cpus (each\n"
		   "                          with idle_states), total\n"
		   "  --help                  this text\n\n"
		   "Linux reads /proc/stat (PMUKIT_SYSROOT=DIR reads DIR/proc/stat).\n");
}

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Ctrl-C ends the interval early; the figures of the part that ran are then printed,
 * as perf stat prints its counts so far. */
static void catch_sigint(void)
{
#ifdef _WIN32
	signal(SIGINT, on_sigint);
#else
	struct sigaction sa = { .sa_handler = on_sigint }; /* no SA_RESTART: the sleep ends */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
#endif
}

static void pause_for(double s)
{
#ifdef _WIN32
	/* In slices: the CRT runs the SIGINT handler on another thread. */
	for (DWORD left = (DWORD)(s * 1000), d; left && !interrupted; left -= d) {
		d = left < 50 ? left : 50;
		Sleep(d);
	}
#else
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && !interrupted)
		;
#endif
}

/* /proc/stat counts whole ticks of 1/USER_HZ s: a shorter interval mostly reads 0. */
static void warn_below_tick(double interval)
{
#ifndef _WIN32
	long hz = sysconf(_SC_CLK_TCK);

	if (hz > 0 && interval < 1.0 / (double)hz)
		fprintf(stderr, "pmukit cpustat: warning: the interval (%g s) is shorter than the "
			"/proc/stat tick (1/%ld s): user/system/idle times move in whole ticks and "
			"will mostly read 0; use -i %g or more\n", interval, hz, 1.0 / (double)hz);
#else
	(void)interval;
#endif
}

static int json_idle(struct pmuk_json *j, const struct pmu_cpustat *s, size_t i)
{
	struct pmu_idle_state st;
	int err;

	pmuk_json_arr_begin(j, "idle_states");
	for (size_t k = 0; k < pmu_cpustat_idle_count(s, i); k++) {
		if ((err = pmu_cpustat_idle_read(s, i, k, &st)))
			return err;
		pmuk_json_obj_begin(j, NULL);
		pmuk_json_str(j, "name", st.name);
		pmuk_json_uint(j, "exit_latency_us", st.exit_latency_us);
		pmuk_json_bool(j, "disabled", st.disabled);
		pmuk_json_double(j, "percent", st.percent);
		pmuk_json_uint(j, "entries_delta", st.entries_delta);
		pmuk_json_bool(j, "no_interval", st.no_interval);
		pmuk_json_uint(j, "entries", st.entries);
		pmuk_json_uint(j, "ns", st.ns);
		pmuk_json_obj_end(j);
	}
	pmuk_json_arr_end(j);
	return 0;
}

/* s and i name the CPU whose idle states go with it; s NULL for the total. */
static int json_cpu(struct pmuk_json *j, const char *key, const struct pmu_cpustat_cpu *c,
		    const struct pmu_cpustat *s, size_t i)
{
	int err = 0;

	pmuk_json_obj_begin(j, key);
	if (c->cpu >= 0)
		pmuk_json_int(j, "cpu", c->cpu);
	pmuk_json_double(j, "busy_percent", c->busy_percent);
	pmuk_json_uint(j, "interval_ns", c->interval_ns);
	pmuk_json_obj_begin(j, "percent");
	for (int k = 0; k < PMU_CPUTIME_COUNT; k++)
		if (c->has & 1u << k)
			pmuk_json_double(j, pmu_cputime_name(k), c->percent[k]);
	pmuk_json_obj_end(j);
	pmuk_json_obj_begin(j, "ns");
	for (int k = 0; k < PMU_CPUTIME_COUNT; k++)
		if (c->has & 1u << k)
			pmuk_json_uint(j, pmu_cputime_name(k), c->ns[k]);
	pmuk_json_obj_end(j);
	if (c->freq_mhz > 0)
		pmuk_json_double(j, "freq_mhz", c->freq_mhz);
	else
		pmuk_json_null(j, "freq_mhz");
	if (c->perf_percent > 0)
		pmuk_json_double(j, "perf_percent", c->perf_percent);
	if (c->parked >= 0)
		pmuk_json_int(j, "parked", c->parked);
	if (s)
		err = json_idle(j, s, i);
	pmuk_json_obj_end(j);
	return err;
}

static void text_row(const struct pmu_cpustat_cpu *c, uint32_t has, int freq)
{
	if (c->cpu >= 0)
		printf("%5d %6.1f", c->cpu, c->busy_percent);
	else
		printf("%5s %6.1f", "all", c->busy_percent);
	for (int k = 0; k < PMU_CPUTIME_COUNT; k++)
		if (has & 1u << k)
			printf(" %*.1f", k == PMU_CPUTIME_SOFTIRQ ? 8 : 7, c->percent[k]);
	if (freq && c->freq_mhz > 0)
		printf(" %7.0f", c->freq_mhz);
	printf("\n");
}

/* True when CPU indexes a and b have the same idle state names. */
static int same_states(const struct pmu_cpustat *s, size_t a, size_t b)
{
	struct pmu_idle_state x, y;
	size_t n = pmu_cpustat_idle_count(s, a);

	if (n != pmu_cpustat_idle_count(s, b))
		return 0;
	for (size_t k = 0; k < n; k++)
		if (pmu_cpustat_idle_read(s, a, k, &x) || pmu_cpustat_idle_read(s, b, k, &y) ||
		    strcmp(x.name, y.name))
			return 0;
	return 1;
}

/* One column per state, "residency% entries/s"; a header each time the list of
 * states changes from one CPU to the next. */
static int text_idle(const struct pmu_cpustat *s, double elapsed)
{
	struct pmu_idle_state st;
	struct pmu_cpustat_cpu c;
	size_t n = pmu_cpustat_cpu_count(s);
	int err, shown = 0, any_disabled = 0;
	char label[24];

	for (size_t i = 0; i < n; i++) {
		size_t ns = pmu_cpustat_idle_count(s, i);

		if (!ns)
			continue;
		if (!shown++)
			printf("\nidle states: residency in percent of the interval, entries per "
			       "second\n");
		if (shown == 1 || !same_states(s, i, i - 1)) {
			printf("%5s", "cpu");
			for (size_t k = 0; k < ns; k++) {
				if ((err = pmu_cpustat_idle_read(s, i, k, &st)))
					return err;
				/* right-aligned over its cell, ending where "/s" ends */
				snprintf(label, sizeof(label), "%.17s%s", st.name,
					 st.disabled ? "*" : "");
				printf(" %18s", label);
				any_disabled |= st.disabled;
			}
			printf("\n");
		}
		if ((err = pmu_cpustat_read(s, i, &c)))
			return err;
		printf("%5d", c.cpu);
		for (size_t k = 0; k < ns; k++) {
			if ((err = pmu_cpustat_idle_read(s, i, k, &st)))
				return err;
			if (st.no_interval)	/* appeared since the first sample */
				printf(" %7s %10s", "-", "-");
			else
				printf(" %6.1f%% %8.0f/s", st.percent,
				       elapsed > 0 ? (double)st.entries_delta / elapsed : 0.0);
		}
		printf("\n");
	}
	if (any_disabled)
		printf("(* the state is disabled)\n");
	return 0;
}

static int print(struct pmu_cpustat *s, double interval, int json)
{
	struct pmu_cpustat_cpu c, total;
	size_t n = pmu_cpustat_cpu_count(s);
	double elapsed = (double)pmu_cpustat_elapsed_ns(s) / 1e9;
	struct pmuk_json j;
	int err;

	if ((err = pmu_cpustat_total(s, &total)))
		return err;
	if (json) {
		pmuk_json_init(&j, stdout, 1);
		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_str(&j, "source", pmu_cpustat_source(s));
		pmuk_json_double(&j, "interval_s", elapsed > 0 ? elapsed : interval);
		pmuk_json_arr_begin(&j, "cpus");
		for (size_t i = 0; i < n; i++) {
			if ((err = pmu_cpustat_read(s, i, &c)))
				return err;
			if ((err = json_cpu(&j, NULL, &c, s, i)))
				return err;
		}
		pmuk_json_arr_end(&j);
		json_cpu(&j, "total", &total, NULL, 0);
		pmuk_json_obj_end(&j);
		pmuk_json_finish(&j);
		return 0;
	}
	printf("CPU time over %.2f s, %zu CPUs (from %s), percent of each CPU's time\n\n",
	       elapsed > 0 ? elapsed : interval, n, pmu_cpustat_source(s));
	printf("%5s %6s", "cpu", "busy");
	for (int k = 0; k < PMU_CPUTIME_COUNT; k++)
		if (total.has & 1u << k)
			printf(" %*s", k == PMU_CPUTIME_SOFTIRQ ? 8 : 7, pmu_cputime_name(k));
	if (total.freq_mhz > 0)
		printf(" %7s", "MHz");
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		if ((err = pmu_cpustat_read(s, i, &c)))
			return err;
		text_row(&c, total.has, total.freq_mhz > 0);
	}
	text_row(&total, total.has, total.freq_mhz > 0);
	return text_idle(s, elapsed);
}

static const struct option longopts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "ntqsi", no_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* -1 to go on, else the exit status (0 after --help, 2 after a bad option). */
static int parse_args(int argc, char **argv, double *interval, int *json,
		      struct pmu_cpustat_opts *opts)
{
	char *end;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:h", longopts, NULL)) != -1) {
		if (opt == 'i') {
			*interval = strtod(optarg, &end);
			if (*end || !(*interval >= 0.001 && *interval <= 3600)) {
				fprintf(stderr, "pmukit cpustat: interval '%s' is not a number of "
					"seconds from 0.001 to 3600\n", optarg);
				return 2;
			}
		} else if (opt == 'j') {
			*json = 1;
		} else if (opt == 'n') {
			opts->windows_ntqsi = 1;
		} else {
			return tool_help_or_bad_option(argv, opt, longopts, usage);
		}
	}
	if (optind < argc) {	/* cpustat takes no operands */
		tool_bad_operand(argv, argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

int cmd_cpustat(int argc, char **argv)
{
	PMU_OPTS(pmu_cpustat_opts, opts);
	struct pmu_cpustat *s;
	double interval = 1, ran;
	int json = 0, err;

	if ((err = parse_args(argc, argv, &interval, &json, &opts)) >= 0)
		return err;
	warn_below_tick(interval);
	if ((err = pmu_cpustat_open(&opts, &s)))
		return tool_error("cpustat", "opening the OS CPU-time counters", err);
	catch_sigint();
	pause_for(interval);
	err = pmu_cpustat_sample(s);
	if (!err)
		err = print(s, interval, json);
	ran = (double)pmu_cpustat_elapsed_ns(s) / 1e9;
	pmu_cpustat_close(s);
	if (err)
		return tool_error("cpustat", "sampling the OS CPU-time counters", err);
	if (tool_flush_stdout("cpustat", "the CPU times"))
		return 1;
	if (!interrupted)
		return 0;
	/* 128 + SIGINT, the shell's convention: a script sees the interval was cut short. */
	fprintf(stderr, "pmukit cpustat: interrupted: the figures cover the %.2f s that ran of "
		"the %g s interval\n", ran, interval);
	return 130;
}
