/* SPDX-License-Identifier: MIT */
/* Derived metrics (pmukit/metrics.h, shown by pmukit stat): which inputs they need
 * and their arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/pmukit.h>

static struct pmu_event ev(int generic, const char *pmu, uint64_t config)
{
	struct pmu_event e;

	memset(&e, 0, sizeof(e));
	e.generic = generic;
	e.config = config;
	snprintf(e.pmu, sizeof(e.pmu), "%s", pmu);
	return e;
}

/* Readings of counted events with these scaled values. */
static void readings(struct pmu_reading *r, const double *v, size_t n)
{
	memset(r, 0, n * sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		r[i].value = (uint64_t)v[i];
		r[i].scaled = v[i];
		r[i].time_enabled = r[i].time_running = 1000;
	}
}

static int compute(const struct pmu_event *e, const double *v, size_t n, size_t i,
		   double elapsed_ns, struct pmu_metric *m)
{
	struct pmu_reading r[8];

	assert_true(n <= 8);
	readings(r, v, n);
	return pmu_metric_compute(e, r, n, i, elapsed_ns, m);
}

static void test_ipc_ghz_cpus(void **state)
{
	struct pmu_event e[3] = {
		ev(PMU_GENERIC_TASK_CLOCK, "software", 0),
		ev(PMU_GENERIC_CYCLES, "cpu", 0),
		ev(PMU_GENERIC_INSTRUCTIONS, "cpu", 1),
	};
	double v[3] = { 2e9 /* ns */, 6e9, 9e9 };
	struct pmu_metric m;

	(void)state;
	assert_int_equal(compute(e, v, 3, 0, 1e9, &m), 1);
	assert_true(m.value > 1.999 && m.value < 2.001);
	assert_string_equal(m.unit, "CPUs utilized");
	assert_int_equal(compute(e, v, 3, 1, 1e9, &m), 1);
	assert_true(m.value > 2.999 && m.value < 3.001);
	assert_string_equal(m.unit, "GHz");
	assert_int_equal(compute(e, v, 3, 2, 1e9, &m), 1);
	assert_true(m.value > 1.499 && m.value < 1.501);
	assert_string_equal(m.unit, "insn per cycle");
}

static void test_missing_inputs(void **state)
{
	struct pmu_event e[2] = {
		ev(PMU_GENERIC_INSTRUCTIONS, "cpu", 1),
		ev(PMU_GENERIC_BRANCH_MISSES, "cpu", 5),
	};
	double v[2] = { 100, 5 };
	struct pmu_metric m;

	(void)state;
	assert_int_equal(compute(e, v, 2, 0, 1e9, &m), 0);
	assert_int_equal(compute(e, v, 2, 1, 1e9, &m), 0);
}

/* On hybrid CPUs instructions of cpu_core must not be divided by cycles of cpu_atom. */
static void test_hybrid_pairs_same_pmu(void **state)
{
	struct pmu_event e[3] = {
		ev(PMU_GENERIC_CYCLES, "cpu_atom", 0),
		ev(PMU_GENERIC_CYCLES, "cpu_core", 0),
		ev(PMU_GENERIC_INSTRUCTIONS, "cpu_core", 1),
	};
	double v[3] = { 1000, 400, 800 };
	struct pmu_metric m;

	(void)state;
	assert_int_equal(compute(e, v, 3, 2, 1e9, &m), 1);
	assert_true(m.value > 1.999 && m.value < 2.001);
}

static void test_branch_and_cache_ratios(void **state)
{
	/* L1-dcache-loads = 0 | 0 << 8 | 0 << 16; L1-dcache-load-misses = result 1 << 16 */
	struct pmu_event e[4] = {
		ev(PMU_GENERIC_BRANCHES, "cpu", 4),
		ev(PMU_GENERIC_BRANCH_MISSES, "cpu", 5),
		ev(PMU_GENERIC_HW_CACHE, "cpu", 0),
		ev(PMU_GENERIC_HW_CACHE, "cpu", 1u << 16),
	};
	double v[4] = { 1000, 25, 400, 40 };
	struct pmu_metric m;

	(void)state;
	assert_int_equal(compute(e, v, 4, 1, 1e9, &m), 1);
	assert_true(m.percent && m.value > 2.499 && m.value < 2.501);
	assert_int_equal(compute(e, v, 4, 3, 1e9, &m), 1);
	assert_true(m.percent && m.value > 9.999 && m.value < 10.001);
	assert_string_equal(m.unit, "of all accesses");
}

static void test_rates_use_task_clock(void **state)
{
	struct pmu_event e[2] = {
		ev(PMU_GENERIC_TASK_CLOCK, "software", 0),
		ev(PMU_GENERIC_PAGE_FAULTS, "software", 2),
	};
	double v[2] = { 5e8, 2500 }; /* 2500 faults in 0.5 s of CPU time */
	struct pmu_metric m;

	(void)state;
	assert_int_equal(compute(e, v, 2, 1, 10e9, &m), 1);
	assert_true(m.value > 4.999 && m.value < 5.001);
	assert_string_equal(m.unit, "K/sec");
	/* Without task-clock the wall time is the base. */
	assert_int_equal(compute(&e[1], &v[1], 1, 0, 1e9, &m), 1);
	assert_true(m.value > 2.499 && m.value < 2.501);
	assert_string_equal(m.unit, "K/sec");
}

static void test_zero_denominator(void **state)
{
	struct pmu_event e[2] = {
		ev(PMU_GENERIC_CYCLES, "cpu", 0),
		ev(PMU_GENERIC_INSTRUCTIONS, "cpu", 1),
	};
	double v[2] = { 0, 10 };
	struct pmu_metric m;

	(void)state;
	assert_int_equal(compute(e, v, 2, 1, 1e9, &m), 0);
}

/* A reading that did not count has no metric, and is no input of another's. */
static void test_not_counted(void **state)
{
	struct pmu_event e[2] = {
		ev(PMU_GENERIC_CYCLES, "cpu", 0),
		ev(PMU_GENERIC_INSTRUCTIONS, "cpu", 1),
	};
	static const uint32_t lost[] = { PMU_READING_NOT_COUNTED, PMU_READING_UNSUPPORTED,
					 PMU_READING_ERROR_STATE, 0 };
	double v[2] = { 400, 800 };
	struct pmu_reading r[2];
	struct pmu_metric m;

	(void)state;
	for (size_t k = 0; k < sizeof(lost) / sizeof(lost[0]); k++) {
		readings(r, v, 2);
		r[0].flags = lost[k];
		if (!lost[k])
			r[0].time_enabled = 0; /* never enabled */
		assert_int_equal(pmu_metric_compute(e, r, 2, 1, 1e9, &m), 0);
		readings(r, v, 2);
		r[1].flags = lost[k];
		if (!lost[k])
			r[1].time_enabled = 0;
		assert_int_equal(pmu_metric_compute(e, r, 2, 1, 1e9, &m), 0);
	}
	readings(r, v, 2);
	assert_int_equal(pmu_metric_compute(e, r, 2, 1, 1e9, &m), 1);
	assert_true(m.value > 1.999 && m.value < 2.001 && !m.percent);
}

static void test_bad_arguments(void **state)
{
	struct pmu_event e[1] = { ev(PMU_GENERIC_TASK_CLOCK, "software", 0) };
	double v[1] = { 1e9 };
	struct pmu_reading r[1];
	struct pmu_metric m;

	(void)state;
	readings(r, v, 1);
	assert_int_equal(pmu_metric_compute(e, r, 1, 1, 1e9, &m), PMU_EINVAL);
	assert_int_equal(pmu_metric_compute(NULL, r, 1, 0, 1e9, &m), PMU_EINVAL);
	assert_int_equal(pmu_metric_compute(e, NULL, 1, 0, 1e9, &m), PMU_EINVAL);
	assert_int_equal(pmu_metric_compute(e, r, 1, 0, 1e9, NULL), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "pmu_metric_compute"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipc_ghz_cpus),
		cmocka_unit_test(test_missing_inputs),
		cmocka_unit_test(test_hybrid_pairs_same_pmu),
		cmocka_unit_test(test_branch_and_cache_ratios),
		cmocka_unit_test(test_rates_use_task_clock),
		cmocka_unit_test(test_zero_denominator),
		cmocka_unit_test(test_not_counted),
		cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
