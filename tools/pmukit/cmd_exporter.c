/* SPDX-License-Identifier: MIT */
/* pmukit exporter: serves the library's metrics (pmu_exporter_scrape) to
 * Prometheus over HTTP, or prints one scrape (--once) for node_exporter's
 * textfile collector. */
#include "cmd.h"
#include "exporter_http.h"

#include "core/num.h"

#include <pmukit/pmukit.h>
#include <pmukit/exporter.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifndef _WIN32
#include <sys/resource.h>
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit exporter [--listen ADDR:PORT] [--collectors LIST]\n"
		   "                       [--compat node|windows] [--max-requests N] [--once]\n"
		   "                       [--openmetrics] [--tls-cert FILE --tls-key FILE]\n"
		   "                       [--service [NAME]]\n\n"
		   "Serves per-CPU OS and hardware-counter metrics to Prometheus: GET /metrics\n"
		   "(text format 0.0.4, or OpenMetrics 1.0.0 when the Accept header asks for\n"
		   "application/openmetrics-text; gzip when Accept-Encoding allows), / (a page\n"
		   "linking to it) and /-/healthy. SIGTERM or Ctrl-C stop it.\n\n"
		   "  --listen ADDR:PORT    where to listen (default 127.0.0.1:9464; [::1]:PORT\n"
		   "                        for IPv6, :PORT for every interface)\n"
		   "  --collectors LIST     comma-separated: cpu,cpuidle,cpufreq,interrupts,pmu,\n"
		   "                        contention (default: all)\n"
		   "  --compat node|windows node_exporter's or windows_exporter's metric names\n"
		   "                        and labels, so existing dashboards keep working\n"
		   "  --max-requests N      exit after N requests (tests)\n"
		   "  --once                print one scrape to stdout and exit (for node_exporter's\n"
		   "                        textfile collector: pmukit exporter --once > f.prom)\n"
		   "  --openmetrics         with --once: OpenMetrics text, not text 0.0.4\n"
		   "  --tls-cert FILE, --tls-key FILE  serve HTTPS with this PEM pair\n"
		   "  --service [NAME]      Windows: run as a service under the Service Control\n"
		   "                        Manager (sc create NAME binPath= \"...pmukit.exe\n"
		   "                        exporter --service ...\"; sc stop stops it); NAME\n"
		   "                        (default pmukit-exporter) is for its messages\n"
		   "  --help                this text\n\n"
		   "Limits: %d connections, %d bytes of request headers (431 past them), no\n"
		   "request body (413), %d s idle timeout.\n",
		EXP_MAX_CONNECTIONS, EXP_MAX_HEADER_BYTES, EXP_TIMEOUT_S);
}

struct args {
	const char *listen, *collectors;
	enum pmu_exporter_compat compat;
	unsigned long max_requests;
	int once, openmetrics;
	const char *tls_cert, *tls_key;
};

static const struct option longopts[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "collectors", required_argument, NULL, 'c' },
	{ "compat", required_argument, NULL, 'C' },
	{ "max-requests", required_argument, NULL, 'n' },
	{ "once", no_argument, NULL, 'o' },
	{ "openmetrics", no_argument, NULL, 'O' },
	{ "tls-cert", required_argument, NULL, 'T' },
	{ "tls-key", required_argument, NULL, 'K' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "pmukit exporter: %s '%s'\n", what, arg);
	return 2;
}

static int one_arg(int opt, struct args *a)
{
	long n;

	switch (opt) {
	case 'l': a->listen = optarg; return -1;
	case 'c': a->collectors = optarg; return -1;
	case 'o': a->once = 1; return -1;
	case 'O': a->openmetrics = 1; return -1;
	case 'T': a->tls_cert = optarg; return -1;
	case 'K': a->tls_key = optarg; return -1;
	case 'C':
		if (!strcmp(optarg, "node"))
			a->compat = PMU_EXPORTER_COMPAT_NODE;
		else if (!strcmp(optarg, "windows"))
			a->compat = PMU_EXPORTER_COMPAT_WINDOWS;
		else
			return bad("--compat takes node or windows, not", optarg);
		return -1;
	case 'n':
		if (pmuk_parse_long(optarg, 10, 1, 1000000000L, &n))
			return bad("--max-requests takes a count from 1, not", optarg);
		a->max_requests = (unsigned long)n;
		return -1;
	}
	return -2;
}

/* -1 to go on, else the exit status (0 after --help, 2 after a bad option). */
static int parse_args(int argc, char **argv, struct args *a)
{
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1)
		if ((rc = one_arg(opt, a)) != -1)
			return rc == -2 ? tool_help_or_bad_option(argv, opt, longopts, usage) : rc;
	if (optind < argc) {	/* exporter takes no operands */
		tool_bad_operand(argv, argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!a->tls_cert != !a->tls_key) {
		fprintf(stderr, "pmukit exporter: --tls-cert and --tls-key go together\n");
		return 2;
	}
	return -1;
}

static int once(struct pmu_exporter *e, int openmetrics)
{
	const char *text;
	size_t len;
	int err = pmu_exporter_scrape(e, openmetrics ? PMU_EXPO_OPENMETRICS : PMU_EXPO_TEXT,
				      &text, &len);

	if (err)
		return tool_error("exporter", "collecting the metrics", err);
	fwrite(text, 1, len, stdout);
	return tool_flush_stdout("exporter", "the metrics");
}

static int serve(struct pmu_exporter *e, const struct args *a)
{
	struct exp_listen l;
	struct exp_app *app;
	int status;

	if (exp_listen_parse(a->listen, &l))
		return bad("--listen takes HOST:PORT, [IPV6]:PORT or :PORT, not", a->listen);
	l.tls_cert = a->tls_cert;
	l.tls_key = a->tls_key;
	if (exp_app_new(e, a->max_requests, &app))
		return tool_error("exporter", "starting the server", PMU_ENOMEM);
	status = exp_serve(app, &l);
	exp_app_free(app);
	return status;
}

/* A long-running server on every host of a fleet: its memory should be what
 * it holds. glibc gives each thread that mallocs its own arena (64 MiB
 * reserved, its touched pages kept); the scrapes are serialized anyway, so one
 * arena serves them all. A fixed mmap threshold: glibc would otherwise raise
 * it to the largest block freed (an uncompressed scrape's copy, half a
 * megabyte on a 256-CPU host), and keep such blocks in the heap once freed.
 * The per-CPU files stay open between scrapes (up to half the fd limit; past
 * it they are reopened per scrape): the soft limit is raised to the hard one,
 * as Go servers such as node_exporter do. */
static void server_process(void)
{
#ifdef __GLIBC__
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);  /* glibc's default, kept fixed */
#endif
#ifndef _WIN32
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);  /* best effort: fewer files kept open */
	}
#endif
}

static int exporter_main(int argc, char **argv)
{
	struct args a = { .listen = "127.0.0.1:9464" };
	PMU_OPTS(pmu_exporter_opts, opts);
	struct pmu_exporter *e;
	int status;

	if ((status = parse_args(argc, argv, &a)) >= 0)
		return status;
	server_process();
	opts.collectors = a.collectors;
	opts.compat = a.compat;
	if ((status = pmu_exporter_open(&opts, &e)))
		return tool_error("exporter", "opening the collectors", status);
	status = a.once ? once(e, a.openmetrics) : serve(e, &a);
	pmu_exporter_close(e);
	return status;
}

/* Takes --service [NAME] (or --service=NAME) out of argv: 1 when found, with
 * *name set; a NAME is the next word unless it is an option. */
static int service_option(int *argc, char **argv, const char **name)
{
	for (int i = 1; i < *argc; i++) {
		int take = 1;

		if (!strcmp(argv[i], "--"))
			break;
		if (!strncmp(argv[i], "--service=", 10) && argv[i][10]) {
			*name = argv[i] + 10;
		} else if (!strcmp(argv[i], "--service")) {
			if (i + 1 < *argc && argv[i + 1][0] != '-') {
				*name = argv[i + 1];
				take = 2;
			}
		} else {
			continue;
		}
		memmove(argv + i, argv + i + take, (size_t)(*argc - i - take + 1) * sizeof(*argv));
		*argc -= take;
		return 1;
	}
	return 0;
}

int cmd_exporter(int argc, char **argv)
{
	const char *name = "pmukit-exporter";

	if (!service_option(&argc, argv, &name))
		return exporter_main(argc, argv);
#ifdef _WIN32
	return exp_service(name, exporter_main, argc, argv);
#else
	fprintf(stderr, "pmukit exporter: --service is for the Windows Service Control "
		"Manager; on Linux run it under systemd (a unit with ExecStart=pmukit exporter "
		"--listen ...; systemctl stop sends SIGTERM, which stops it cleanly)\n");
	return 2;
#endif
}
