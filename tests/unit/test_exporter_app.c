/* SPDX-License-Identifier: MIT */
/* pmukit exporter's request logic (tools/pmukit/exporter_app.c) without a socket:
 * the listen address parser, the routes, and Accept / Accept-Encoding negotiation
 * with their q values, and the server's own process_* metrics, against a real
 * exporter of this host's cpu collector. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "exporter_http.h"

#include <pmukit/pmukit.h>
#include <pmukit/exporter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void test_listen_parse(void **state)
{
	struct exp_listen l;

	(void)state;
	assert_int_equal(exp_listen_parse("127.0.0.1:9464", &l), 0);
	assert_string_equal(l.host, "127.0.0.1");
	assert_string_equal(l.port, "9464");
	assert_int_equal(exp_listen_parse("[::1]:80", &l), 0);
	assert_string_equal(l.host, "::1");
	assert_int_equal(exp_listen_parse(":9464", &l), 0);
	assert_string_equal(l.host, "");
	assert_int_equal(exp_listen_parse("localhost:1", &l), 0);
	const char *bad[] = { "::1:80", "127.0.0.1", "127.0.0.1:", "h:99999", "h:12a", "h:-1",
			      "[::1:80", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(exp_listen_parse(bad[i], &l), PMU_EINVAL);
}

struct fix {
	struct pmu_exporter *e;
	struct exp_app *a;
};

static int setup(void **state)
{
	static struct fix f;
	PMU_OPTS(pmu_exporter_opts, o, .collectors = "cpu");

	if (pmu_exporter_open(&o, &f.e) || exp_app_new(f.e, 0, &f.a))
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	exp_app_free(f->a);
	pmu_exporter_close(f->e);
	return 0;
}

/* Routes one request; returns the status, with r filled (the lock released). */
static int route(struct fix *f, const char *method, const char *path, const char *accept,
		 const char *enc, struct exp_reply *r)
{
	exp_app_route(f->a, method, path, accept, enc, r);
	exp_app_done(f->a, r);
	return r->status;
}

static void test_routes(void **state)
{
	struct fix *f = *state;
	struct exp_reply r;

	assert_int_equal(route(f, "GET", "/metrics", NULL, NULL, &r), 200);
	assert_string_equal(r.type, pmu_exporter_content_type(PMU_EXPO_TEXT));
	assert_null(r.encoding);
	assert_true(r.len > 0 && memmem(r.body, r.len, "pmukit_cpu_seconds_total{", 25));
	assert_int_equal(route(f, "HEAD", "/metrics?a=b", NULL, NULL, &r), 200);
	assert_int_equal(route(f, "GET", "/", NULL, NULL, &r), 200);
	assert_non_null(memmem(r.body, r.len, "href=\"/metrics\"", 15));
	assert_int_equal(route(f, "GET", "/-/healthy", NULL, NULL, &r), 200);
	assert_int_equal(route(f, "GET", "/metrics/", NULL, NULL, &r), 404);
	assert_int_equal(route(f, "GET", "/metricsx", NULL, NULL, &r), 404);
	assert_int_equal(route(f, "POST", "/metrics", NULL, NULL, &r), 405);
	assert_string_equal(r.allow, "GET, HEAD");
	assert_int_equal(route(f, "get", "/metrics", NULL, NULL, &r), 405);  /* case matters */
}

static void test_negotiation(void **state)
{
	struct fix *f = *state;
	const char *om = pmu_exporter_content_type(PMU_EXPO_OPENMETRICS);
	const char *text = pmu_exporter_content_type(PMU_EXPO_TEXT);
	struct exp_reply r;

	route(f, "GET", "/metrics", "application/openmetrics-text;version=1.0.0,"
	      "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
	      "q=0.5,*/*;q=0.1", NULL, &r);  /* Prometheus 2.42's Accept */
	assert_string_equal(r.type, om);
	route(f, "GET", "/metrics", "Application/OpenMetrics-Text", NULL, &r);
	assert_string_equal(r.type, om);
	route(f, "GET", "/metrics", "application/openmetrics-text; q=0, text/plain", NULL, &r);
	assert_string_equal(r.type, text);
	route(f, "GET", "/metrics", "application/openmetrics-textx", NULL, &r);
	assert_string_equal(r.type, text);
	route(f, "GET", "/metrics", "text/plain", NULL, &r);
	assert_string_equal(r.type, text);
#ifdef PMUKIT_HAVE_ZLIB
	route(f, "GET", "/metrics", NULL, "gzip", &r);
	assert_string_equal(r.encoding, "gzip");
	assert_true(r.len > 10 && ((const unsigned char *)r.body)[0] == 0x1f);
	route(f, "GET", "/metrics", NULL, "deflate, gzip;q=0.5", &r);
	assert_string_equal(r.encoding, "gzip");
	route(f, "GET", "/metrics", NULL, "*", &r);
	assert_string_equal(r.encoding, "gzip");
#endif
	route(f, "GET", "/metrics", NULL, "gzip;q=0", &r);
	assert_null(r.encoding);
	route(f, "GET", "/metrics", NULL, "identity, gzipx", &r);
	assert_null(r.encoding);
}

/* The value of the sample line that starts with name and a space, or -1. */
static double sample(const struct exp_reply *r, const char *name)
{
	char *text = strndup(r->body, r->len), *p;
	double v = -1;
	size_t n = strlen(name);

	assert_non_null(text);
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ' ')
			v = strtod(p + n + 1, NULL);
	free(text);
	return v;
}

static double vmrss_bytes(void)
{
	char line[256];
	double kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = strtod(line + 6, NULL);
	fclose(f);
	return kib * 1024;
}

/* The server's own process metrics: its RSS as /proc says it (it moves a
 * little between the two reads), CPU time that does not go back, a start time
 * of this run. */
static void test_self(void **state)
{
	struct fix *f = *state;
	struct exp_reply r;
	double rss, proc, cpu, start, now = (double)time(NULL);

	assert_int_equal(route(f, "GET", "/metrics", NULL, NULL, &r), 200);
	rss = sample(&r, "process_resident_memory_bytes");
	proc = vmrss_bytes();
	cpu = sample(&r, "process_cpu_seconds_total");
	start = sample(&r, "process_start_time_seconds");
	assert_true(rss > 0.75 * proc && rss < 1.25 * proc);
	assert_true(sample(&r, "process_virtual_memory_bytes") > rss);
	assert_true(cpu >= 0);
	assert_true(start > now - 600 && start <= now);
	assert_int_equal(route(f, "GET", "/metrics", NULL, NULL, &r), 200);
	assert_true(sample(&r, "process_cpu_seconds_total") >= cpu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listen_parse),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_negotiation),
		cmocka_unit_test(test_self),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
