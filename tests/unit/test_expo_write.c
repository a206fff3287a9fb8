/* SPDX-License-Identifier: MIT */
/* The metrics model and its two writers: exact bytes of a small set in text
 * 0.0.4 and OpenMetrics 1.0.0 (counter _total/_created, # UNIT, # EOF, unknown
 * vs untyped), escaping of label values and help, NaN and +-Inf, and the
 * model's refusals (bad names, a counter named _total, a unit the name does
 * not end in, a negative counter); numbers spelled exactly as "%.15g" (else
 * "%.17g") spells them, whether or not they take the integer fast path; the
 * streamed rendering (pmuk_mset_render_sink) gives the same bytes in pieces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/exporter.h>
#include "core/expo.h"

static struct pmu_mset *small_set(void)
{
	struct pmu_mset *s;
	struct pmu_mfamily *c, *g, *u;
	const char *l1[] = { "cpu", "0", "mode", "idle", NULL };
	const char *l2[] = { "path", "C:\\x \"q\"\nend", NULL };

	assert_int_equal(pmu_mset_new(&s), 0);
	assert_int_equal(pmu_mset_family(s, "t_cpu_seconds", PMU_MTYPE_COUNTER,
					 "CPU \"time\" in C:\\dir\nnext", "seconds", &c), 0);
	assert_int_equal(pmu_mfamily_add(c, l1, 12.5, 1700000000), 0);
	assert_int_equal(pmu_mfamily_add(c, NULL, 3, 0), 0);
	assert_int_equal(pmu_mset_family(s, "t_temp", PMU_MTYPE_GAUGE, NULL, NULL, &g), 0);
	assert_int_equal(pmu_mfamily_add(g, l2, NAN, 0), 0);
	assert_int_equal(pmu_mfamily_add(g, NULL, INFINITY, 0), 0);
	assert_int_equal(pmu_mfamily_add(g, NULL, -INFINITY, 0), 0);
	assert_int_equal(pmu_mfamily_add(g, NULL, 0.1, 0), 0);
	assert_int_equal(pmu_mfamily_add(g, NULL, 1e300, 0), 0);
	assert_int_equal(pmu_mset_family(s, "t_other", PMU_MTYPE_UNKNOWN, "x", NULL, &u), 0);
	assert_int_equal(pmu_mfamily_add(u, NULL, 18446744073709551616.0, 0), 0);
	/* a family without samples is not written */
	assert_int_equal(pmu_mset_family(s, "t_empty", PMU_MTYPE_GAUGE, "none", NULL, &u), 0);
	return s;
}

/* small_set() rendered in fmt is exactly want */
static void render_is(enum pmu_expo_format fmt, const char *want)
{
	struct pmu_mset *s = small_set();
	const char *buf;
	size_t len;

	assert_int_equal(pmu_mset_render(s, fmt, &buf, &len), 0);
	assert_string_equal(buf, want);
	assert_int_equal(len, strlen(buf));
	pmu_mset_free(s);
}

static void test_text(void **state)
{
	(void)state;
	render_is(PMU_EXPO_TEXT,
		"# HELP t_cpu_seconds_total CPU \"time\" in C:\\\\dir\\nnext\n"
		"# TYPE t_cpu_seconds_total counter\n"
		"t_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 12.5\n"
		"t_cpu_seconds_total 3\n"
		"# TYPE t_temp gauge\n"
		"t_temp{path=\"C:\\\\x \\\"q\\\"\\nend\"} NaN\n"
		"t_temp +Inf\n"
		"t_temp -Inf\n"
		"t_temp 0.1\n"
		"t_temp 1e+300\n"
		"# HELP t_other x\n"
		"# TYPE t_other untyped\n"
		"t_other 1.8446744073709552e+19\n");
}

static void test_openmetrics(void **state)
{
	(void)state;
	render_is(PMU_EXPO_OPENMETRICS,
		"# HELP t_cpu_seconds CPU \\\"time\\\" in C:\\\\dir\\nnext\n"
		"# TYPE t_cpu_seconds counter\n"
		"# UNIT t_cpu_seconds seconds\n"
		"t_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 12.5\n"
		"t_cpu_seconds_created{cpu=\"0\",mode=\"idle\"} 1700000000\n"
		"t_cpu_seconds_total 3\n"
		"# TYPE t_temp gauge\n"
		"t_temp{path=\"C:\\\\x \\\"q\\\"\\nend\"} NaN\n"
		"t_temp +Inf\n"
		"t_temp -Inf\n"
		"t_temp 0.1\n"
		"t_temp 1e+300\n"
		"# HELP t_other x\n"
		"# TYPE t_other unknown\n"
		"t_other 1.8446744073709552e+19\n"
		"# EOF\n");
}

static void test_write_and_clear(void **state)
{
	struct pmu_mset *s = small_set();
	struct pmu_mfamily *f;
	char out[4096] = "";
	FILE *mem = fmemopen(out, sizeof(out) - 1, "w");
	const char *buf;
	size_t len;

	(void)state;
	assert_non_null(mem);
	assert_int_equal(pmu_mset_write(s, mem, PMU_EXPO_OPENMETRICS), 0);
	fclose(mem);
	assert_non_null(strstr(out, "t_cpu_seconds_total 3\n"));
	assert_non_null(strstr(out, "\n# EOF\n"));
	assert_int_equal(pmu_mset_family_count(s), 4);
	assert_string_equal(pmu_mfamily_name(pmu_mset_family_get(s, 1)), "t_temp");
	assert_int_equal(pmu_mfamily_sample_count(pmu_mset_family_get(s, 1)), 5);
	/* cleared: empty, and reusable */
	pmu_mset_clear(s);
	assert_int_equal(pmu_mset_family_count(s), 0);
	assert_int_equal(pmu_mset_render(s, PMU_EXPO_TEXT, &buf, &len), 0);
	assert_int_equal(len, 0);
	assert_int_equal(pmu_mset_render(s, PMU_EXPO_OPENMETRICS, &buf, &len), 0);
	assert_string_equal(buf, "# EOF\n");
	assert_int_equal(pmu_mset_family(s, "t_temp", PMU_MTYPE_COUNTER, NULL, NULL, &f), 0);
	assert_int_equal(pmu_mfamily_add(f, NULL, 7, 0), 0);
	assert_int_equal(pmu_mset_render(s, PMU_EXPO_TEXT, &buf, &len), 0);
	assert_string_equal(buf, "# TYPE t_temp_total counter\nt_temp_total 7\n");
	pmu_mset_free(s);
}

static void test_refusals(void **state)
{
	struct pmu_mset *s;
	struct pmu_mfamily *f, *g;
	const char *bad_label[] = { "0cpu", "1", NULL };
	const char *reserved[] = { "__name__", "x", NULL };
	const char *no_value[] = { "cpu", NULL };

	(void)state;
	assert_int_equal(pmu_mset_new(&s), 0);
	assert_int_equal(pmu_mset_family(s, "9x", PMU_MTYPE_GAUGE, NULL, NULL, &f), PMU_EINVAL);
	assert_int_equal(pmu_mset_family(s, "a-b", PMU_MTYPE_GAUGE, NULL, NULL, &f), PMU_EINVAL);
	assert_int_equal(pmu_mset_family(s, "x_total", PMU_MTYPE_COUNTER, NULL, NULL, &f),
			 PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "_total"));
	assert_int_equal(pmu_mset_family(s, "x_bytes", PMU_MTYPE_GAUGE, NULL, "seconds", &f),
			 PMU_EINVAL);
	assert_int_equal(pmu_mset_family(s, "seconds", PMU_MTYPE_GAUGE, NULL, "seconds", &f),
			 PMU_EINVAL);
	assert_int_equal(pmu_mset_family(s, "a:b_seconds", PMU_MTYPE_COUNTER, NULL, "seconds",
					 &f), 0);
	assert_int_equal(pmu_mset_family(s, "a:b_seconds", PMU_MTYPE_GAUGE, NULL, NULL, &g),
			 PMU_EINVAL);
	assert_int_equal(pmu_mset_family(s, "a:b_seconds", PMU_MTYPE_COUNTER, NULL, NULL, &g), 0);
	assert_ptr_equal(f, g);
	assert_int_equal(pmu_mfamily_add(f, NULL, -1, 0), PMU_EINVAL);
	assert_int_equal(pmu_mfamily_add(f, bad_label, 1, 0), PMU_EINVAL);
	assert_int_equal(pmu_mfamily_add(f, reserved, 1, 0), PMU_EINVAL);
	assert_int_equal(pmu_mfamily_add(f, no_value, 1, 0), PMU_EINVAL);
	assert_int_equal(pmu_mfamily_sample_count(f), 0);
	assert_null(pmu_exporter_content_type((enum pmu_expo_format)7));
	assert_string_equal(pmu_exporter_content_type(PMU_EXPO_TEXT),
			    "text/plain; version=0.0.4; charset=utf-8");
	assert_string_equal(pmu_exporter_content_type(PMU_EXPO_OPENMETRICS),
			    "application/openmetrics-text; version=1.0.0; charset=utf-8");
	pmu_mset_free(s);
}

/* The reference: the shortest of 15 or 17 digits that reads back. */
static void reference(char *buf, size_t size, double v)
{
	snprintf(buf, size, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, size, "%.17g", v);
}

static void same_as_printf(double v)
{
	char got[40], want[40];

	pmuk_expo_number(got, sizeof(got), v);
	reference(want, sizeof(want), v);
	if (strcmp(got, want))
		fail_msg("%.17g: got \"%s\", printf spells \"%s\"", v, got, want);
	assert_true(strtod(got, NULL) == v);
}

static void test_numbers(void **state)
{
	static const double edge[] = {
		0, 1, -1, 0.5, 0.001, -0.001, 0.0005, 0.01, 0.1, 0.3, 1.1, 98.89, 1e13 + 0.5,
		99999999999999.9, 1e14, -1e14, 1e15, 123456789012.345, 1700000000, 3.5e9,
		1e-5, 2.5e-4, 4294967296.001, 9007199254740993.0, 1.0 / 3, -2.675,
	};
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (size_t i = 0; i < sizeof(edge) / sizeof(*edge); i++)
		same_as_printf(edge[i]);
	/* USER_HZ ticks as seconds, cpuidle microseconds, kHz as Hz */
	for (uint64_t t = 0; t < 200000; t += 7) {
		same_as_printf((double)(t * 10000000ull) / 1e9);
		same_as_printf((double)t * 1000 / 1e9 * 1000);
		same_as_printf((double)t / 1000.0);
	}
	for (int i = 0; i < 100000; i++) {  /* xorshift: any double, any scale */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		same_as_printf((double)(x >> 11) / (double)(1ull << (x % 60)));
		same_as_printf(-(double)(x % 100000000000ull) / 1000.0);
	}
}

/* What a sink received: the pieces back to back, their count and the longest. */
struct pieces {
	char *text;
	size_t len, calls, longest, fail_at;  /* fail_at: the call that fails, 0 none */
};

static int collect_piece(void *ctx, const char *p, size_t n)
{
	struct pieces *c = ctx;

	if (++c->calls == c->fail_at)
		return PMU_EIO;
	assert_non_null(c->text = realloc(c->text, c->len + n + 1));
	memcpy(c->text + c->len, p, n);
	c->len += n;
	c->text[c->len] = '\0';
	if (n > c->longest)
		c->longest = n;
	return 0;
}

/* A set of a dozen pieces or more: cpu x mode counters (with _created). */
static struct pmu_mset *big_set(void)
{
	struct pmu_mset *s;
	struct pmu_mfamily *f;
	char cpu[16];

	assert_int_equal(pmu_mset_new(&s), 0);
	assert_int_equal(pmu_mset_family(s, "t_cpu_seconds", PMU_MTYPE_COUNTER, "CPU time.",
					 "seconds", &f), 0);
	for (int i = 0; i < 4096; i++) {
		const char *l[] = { "cpu", cpu, "mode", i % 2 ? "user" : "idle", NULL };

		snprintf(cpu, sizeof(cpu), "%d", i / 2);
		assert_int_equal(pmu_mfamily_add(f, l, i * 0.01, 1700000000), 0);
	}
	return s;
}

/* Streamed, the text is the same bytes in pieces of about PMUK_EXPO_PIECE, the
 * set keeps no whole rendering afterwards, and a sink's error stops it. */
static void test_sink(void **state)
{
	struct pmu_mset *s = big_set();
	struct pieces c = { 0 };
	const char *buf;
	size_t len;
	char *whole;

	(void)state;
	for (int fmt = PMU_EXPO_TEXT; fmt <= PMU_EXPO_OPENMETRICS; fmt++) {
		assert_int_equal(pmu_mset_render(s, fmt, &buf, &len), 0);
		assert_true(len > 8 * PMUK_EXPO_PIECE);
		assert_non_null(whole = strdup(buf));
		memset(&c, 0, sizeof(c));
		assert_int_equal(pmuk_mset_render_sink(s, fmt, collect_piece, &c), 0);
		assert_int_equal(c.len, len);
		assert_string_equal(c.text, whole);
		assert_true(c.calls >= len / (PMUK_EXPO_PIECE + 200));
		assert_true(c.longest < PMUK_EXPO_PIECE + 200);  /* a piece and a line */
		assert_true(s->out_cap <= 2 * PMUK_EXPO_PIECE);   /* the whole one given back */
		free(whole);
		free(c.text);
	}
	memset(&c, 0, sizeof(c));
	c.fail_at = 2;
	assert_int_equal(pmuk_mset_render_sink(s, PMU_EXPO_TEXT, collect_piece, &c), PMU_EIO);
	assert_int_equal(c.calls, 2);
	free(c.text);
	assert_int_equal(pmuk_mset_render_sink(s, PMU_EXPO_TEXT, NULL, &c), PMU_EINVAL);
	pmu_mset_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_write_and_clear),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_sink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
