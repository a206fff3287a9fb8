/* SPDX-License-Identifier: MIT */
/* The metrics model and its two writers: exact bytes of a small set in text
 * 0.0.4 and OpenMetrics 1.0.0 (counter _total/_created, # UNIT, # EOF, unknown
 * vs untyped), escaping of label values and help, NaN and +-Inf, and the
 * model's refusals (bad names, a counter named _total, a unit the name does
 * not end in, a negative counter). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_write_and_clear),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
