/* SPDX-License-Identifier: MIT */
/* PDH counter-type math: every worked example of shared/docs/pdh-math.md 1.2, the
 * "Processor Information" sample of seed 004 (Windows Server 2025, instance 0,0),
 * backward moves (windows_exporter#1383), and instance names -> flat CPU ids. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include "core/pdh_math.h"
#include "core/topology_build.h"

#define F100NS PMUK_PDH_100NS_FREQ

static double cook(uint32_t type, struct pmuk_pdh_raw a, struct pmuk_pdh_raw b, uint64_t freq)
{
	struct pmuk_pdh_value v;

	assert_int_equal(pmuk_pdh_cook(type, &a, &b, freq, &v), 0);
	return v.value;
}

/* 1.2.1: 100 * dN / dT; the exporter's seconds 100.0 -> 100.5. */
static void test_100nsec_timer(void **state)
{
	struct pmuk_pdh_track t;
	struct pmuk_pdh_raw a = { .value = 1000000000, .time = 5000000000 };
	struct pmuk_pdh_raw b = { .value = 1005000000, .time = 5010000000 };

	(void)state;
	assert_float_equal(cook(PMUK_PERF_100NSEC_TIMER, a, b, F100NS), 50.0, 1e-9);
	assert_int_equal(pmuk_pdh_track_init(&t, PMUK_PERF_100NSEC_TIMER, F100NS), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &a), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &b), 0);
	assert_float_equal((double)a.value / 1e7, 100.0, 1e-9);
	assert_float_equal((double)b.value / 1e7, 100.5, 1e-9);
	/* The agent's counter grows by the same 0.5 s: rate 0.5 over the 1 s. */
	assert_float_equal(pmuk_pdh_track_total(&t), 0.5, 1e-9);
	assert_float_equal(t.value.value, 50.0, 1e-9);
	assert_int_equal(t.value.unit, PMUK_PDH_PERCENT);
}

/* 1.2.2: 100 * (1 - dN/dT), N counting idle time. */
static void test_100nsec_timer_inv(void **state)
{
	struct pmuk_pdh_raw a = { .value = 8000000000, .time = 1 };
	struct pmuk_pdh_raw b = { .value = 8007500000, .time = 1 + 10000000 };

	(void)state;
	assert_float_equal(cook(PMUK_PERF_100NSEC_TIMER_INV, a, b, F100NS), 25.0, 1e-9);
	/* The same interval in QPC ticks at 3 MHz gives the same answer. */
	a.time = 0;
	b.time = 3000000;
	assert_float_equal(cook(PMUK_PERF_100NSEC_TIMER_INV, a, b, 3000000), 25.0, 1e-9);
}

/* 1.2.3: 100 * dN / dB with the provider's own time base. */
static void test_precision_timer(void **state)
{
	struct pmuk_pdh_raw a = { .value = 5000000000, .base = 20000000000 };
	struct pmuk_pdh_raw b = { .value = 5006000000, .base = 20010000000 };
	struct pmuk_pdh_value v;

	(void)state;
	assert_float_equal(cook(PMUK_PERF_PRECISION_100NS_TIMER, a, b, F100NS), 60.0, 1e-9);
	/* No movement of the base: no value, a sentence. */
	assert_int_equal(pmuk_pdh_cook(PMUK_PERF_PRECISION_100NS_TIMER, &a, &a, F100NS, &v),
			 PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "time base"));
}

/* 1.2.4: dN / (dD / F); the 32-bit wrap of PERF_COUNTER_COUNTER; bulk. */
static void test_counter_wrap_and_bulk(void **state)
{
	struct pmuk_pdh_track t;
	struct pmuk_pdh_raw a = { .value = 4294967000u, .time = 0 };
	struct pmuk_pdh_raw b = { .value = 1704, .time = 20000000 };
	struct pmuk_pdh_raw c = { .value = 10000, .time = 0 };
	struct pmuk_pdh_raw d = { .value = 12500, .time = 5000000 };

	(void)state;
	assert_float_equal(cook(PMUK_PERF_COUNTER_COUNTER, a, b, 10000000), 1000.0, 1e-9);
	/* The agent accumulates the modular delta instead of seeing a reset. */
	assert_int_equal(pmuk_pdh_track_init(&t, PMUK_PERF_COUNTER_COUNTER, 10000000), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &a), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &b), 0);
	assert_int_equal(t.total, 2000);
	assert_int_equal(t.clamps, 0);
	assert_float_equal(pmuk_pdh_track_total(&t), 2000.0, 0);
	assert_int_equal(t.value.unit, PMUK_PDH_PER_SEC);
	assert_float_equal(cook(PMUK_PERF_COUNTER_BULK_COUNT, c, d, 10000000), 5000.0, 1e-9);
}

/* 1.2.5: the last N. */
static void test_rawcount(void **state)
{
	struct pmuk_pdh_raw f = { .value = 2995 };
	struct pmuk_pdh_value v;

	(void)state;
	assert_int_equal(pmuk_pdh_cook(PMUK_PERF_COUNTER_RAWCOUNT, NULL, &f, F100NS, &v), 0);
	assert_float_equal(v.value, 2995.0, 0);
	assert_int_equal(v.unit, PMUK_PDH_GAUGE);
	assert_float_equal(v.value * 1e6, 2.995e9, 1);
}

/* 1.2.6: dN / dB, % Processor Performance (#787) and % Processor Utility with a
 * wrapping 32-bit base. */
static void test_average_bulk(void **state)
{
	struct pmuk_pdh_track t;
	struct pmuk_pdh_raw a = { .value = 44662434713ull, .base = 218918308 };
	struct pmuk_pdh_raw b = { .value = 44662434713ull + 133800000, .base = 218918308 + 625000 };
	struct pmuk_pdh_raw u0 = { .value = 1000000000, .base = 4294800000u };
	struct pmuk_pdh_raw u1 = { .value = 1000000000 + 46875000, .base = 457704 };
	double perf;

	(void)state;
	perf = cook(PMUK_PERF_AVERAGE_BULK, a, b, F100NS);
	assert_float_equal(perf, 214.08, 1e-9);
	assert_float_equal(2000.0 * perf / 100.0, 4281.6, 1e-6); /* MHz at 2000 nominal */
	assert_float_equal(cook(PMUK_PERF_AVERAGE_BULK, u0, u1, F100NS), 75.0, 1e-9);
	assert_int_equal(pmuk_pdh_track_init(&t, PMUK_PERF_AVERAGE_BULK, F100NS), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &u0), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &u1), 0);
	assert_int_equal(t.base_total, 625000);   /* the exporter's rtc_total grows by this */
	assert_int_equal(t.total, 46875000);
	assert_float_equal((double)t.total / (double)t.base_total, 0.75 * 100, 1e-9);
	assert_float_equal(t.value.value, 75.0, 1e-9);
	assert_int_equal(t.value.unit, PMUK_PDH_RATIO);
}

/* Seed 004: the raw values of instance 0,0 on Windows Server 2025. */
static void test_seed004_sample(void **state)
{
	static const struct { const char *name; uint32_t type; uint64_t raw, base; } c[] = {
		{ "% C1 Time", PMUK_PERF_100NSEC_TIMER, 3366958649ull, 0 },
		{ "% C2 Time", PMUK_PERF_100NSEC_TIMER, 21091589064ull, 0 },
		{ "% C3 Time", PMUK_PERF_100NSEC_TIMER, 0, 0 },
		{ "% DPC Time", PMUK_PERF_100NSEC_TIMER, 185312500ull, 0 },
		{ "% Idle Time", PMUK_PERF_100NSEC_TIMER, 25109218750ull, 0 },
		{ "% Interrupt Time", PMUK_PERF_100NSEC_TIMER, 257812500ull, 0 },
		{ "% Performance Limit", PMUK_PERF_COUNTER_RAWCOUNT, 100, 0 },
		{ "% Priority Time", PMUK_PERF_100NSEC_TIMER_INV, 26964687500ull, 0 },
		{ "% Privileged Time", PMUK_PERF_100NSEC_TIMER, 4745937500ull, 0 },
		{ "% Privileged Utility", PMUK_PERF_AVERAGE_BULK, 35875675583ull, 2142017948ull },
		{ "% Processor Performance", PMUK_PERF_AVERAGE_BULK, 80044724120ull, 669031135ull },
		{ "% Processor Time", PMUK_PERF_100NSEC_TIMER_INV, 25109218750ull, 0 },
		{ "% Processor Utility", PMUK_PERF_AVERAGE_BULK, 80044725697ull, 2142017679ull },
		{ "% User Time", PMUK_PERF_100NSEC_TIMER, 4394687500ull, 0 },
		{ "C1 Transitions/sec", PMUK_PERF_COUNTER_BULK_COUNT, 2303708, 0 },
		{ "Clock Interrupts/sec", PMUK_PERF_COUNTER_COUNTER, 1571877, 0 },
		{ "Interrupts/sec", PMUK_PERF_COUNTER_COUNTER, 7795204, 0 },
		{ "Parking Status", PMUK_PERF_COUNTER_RAWCOUNT, 0, 0 },
		{ "Processor Frequency", PMUK_PERF_COUNTER_RAWCOUNT, 3700, 0 },
	};
	struct pmuk_pdh_track t;
	double sec[32];

	(void)state;
	/* Every counter type the collector meets is one we cook; each first sample gives
	 * the agent's value: seconds for timers, the gauge for RAWCOUNT. */
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct pmuk_pdh_raw r = { .value = c[i].raw, .base = c[i].base, .time = 1 };

		assert_true(pmuk_pdh_type_known(c[i].type));
		assert_int_equal(pmuk_pdh_track_init(&t, c[i].type, F100NS), 0);
		assert_int_equal(pmuk_pdh_track_add(&t, &r), 0);
		sec[i] = (double)c[i].raw / 1e7;
		if (c[i].type == PMUK_PERF_COUNTER_RAWCOUNT)
			assert_float_equal(pmuk_pdh_track_total(&t), (double)c[i].raw, 0);
	}
	assert_float_equal(sec[13], 439.46875, 1e-9);   /* user seconds */
	assert_float_equal(sec[8], 474.59375, 1e-9);    /* privileged seconds */
	assert_float_equal(sec[4], 2510.921875, 1e-9);  /* idle seconds */
	/* % Processor Time (INV) counts idle: its raw equals % Idle Time. */
	assert_int_equal(c[11].raw, c[4].raw);
	assert_string_equal(pmuk_pdh_type_name(c[11].type), "PERF_100NSEC_TIMER_INV");
	assert_string_equal(pmuk_pdh_type_name(PMUK_PERF_PRECISION_100NS_TIMER),
			    "PERF_PRECISION_100NS_TIMER"); /* "Average Idle Time" */

	/* A 2 s interval from the recorded values, with the base rates seed 004 gives
	 * (utility ~630 000/s, performance ~330 000/s), lands on its 63.4 and 121.9. */
	{
		struct pmuk_pdh_raw u0 = { c[12].raw, c[12].base, 0 };
		struct pmuk_pdh_raw u1 = { c[12].raw + 79884000, c[12].base + 1260000, 0 };
		struct pmuk_pdh_raw p0 = { c[10].raw, c[10].base, 0 };
		struct pmuk_pdh_raw p1 = { c[10].raw + 80454000, c[10].base + 660000, 0 };

		assert_float_equal(cook(PMUK_PERF_AVERAGE_BULK, u0, u1, F100NS), 63.4, 1e-9);
		assert_float_equal(cook(PMUK_PERF_AVERAGE_BULK, p0, p1, F100NS), 121.9, 1e-9);
	}
	/* Frequency gauge in MHz -> Hz as the collector exports it. */
	assert_float_equal((double)c[18].raw * 1e6, 3.7e9, 1);
}

/* windows_exporter#1383: cumulative time stepping back by 1/64 s. The agent's total
 * never goes down and does not count the recovery twice. */
static void test_backward_clamp(void **state)
{
	struct pmuk_pdh_track t;
	struct pmuk_pdh_raw a = { .value = 69393281250ull, .time = 0 };   /* 6939.328125 s */
	struct pmuk_pdh_raw b = { .value = 69393125000ull, .time = 10000000 }; /* 6939.3125 s */
	struct pmuk_pdh_raw c = { .value = 69403281250ull, .time = 20000000 }; /* 6940.328125 s */
	struct pmuk_pdh_raw r0 = { .value = 5000000, .time = 0 };
	struct pmuk_pdh_raw r1 = { .value = 100, .time = 10000000 };
	struct pmuk_pdh_raw r2 = { .value = 600, .time = 20000000 };
	struct pmuk_pdh_value v;

	(void)state;
	assert_int_equal(pmuk_pdh_cook(PMUK_PERF_100NSEC_TIMER, &a, &b, F100NS, &v), 0);
	assert_int_equal(v.clamped, 1);
	assert_float_equal(v.value, 0.0, 0);

	assert_int_equal(pmuk_pdh_track_init(&t, PMUK_PERF_100NSEC_TIMER, F100NS), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &a), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &b), 0);
	assert_float_equal(pmuk_pdh_track_total(&t), 0.0, 0);
	assert_int_equal(t.clamps, 1);
	assert_int_equal(pmuk_pdh_track_add(&t, &c), 0);
	assert_float_equal(pmuk_pdh_track_total(&t), 1.0, 1e-9);  /* from the high-water mark */

	/* A 64-bit count going back is a reset: restart from the new value. */
	assert_int_equal(pmuk_pdh_track_init(&t, PMUK_PERF_COUNTER_BULK_COUNT, F100NS), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &r0), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &r1), 0);
	assert_int_equal(pmuk_pdh_track_add(&t, &r2), 0);
	assert_int_equal(t.total, 500);
	assert_int_equal(t.clamps, 1);
	assert_float_equal(t.value.value, 500.0, 1e-9);
}

static void test_unknown_type(void **state)
{
	struct pmuk_pdh_raw a = { 0 }, b = { 1, 0, 1 };
	struct pmuk_pdh_track t;
	struct pmuk_pdh_value v;

	(void)state;
	/* PERF_RAW_FRACTION (0x20020400) is not cooked here: say so. */
	assert_int_equal(pmuk_pdh_cook(0x20020400u, &a, &b, F100NS, &v), PMU_ENOTSUP);
	assert_non_null(strstr(pmu_error_detail(), "0x20020400"));
	assert_int_equal(pmuk_pdh_track_init(&t, 0x20020400u, F100NS), PMU_ENOTSUP);
	assert_false(pmuk_pdh_type_known(0));
	/* Same time stamp: no rate. */
	assert_int_equal(pmuk_pdh_cook(PMUK_PERF_COUNTER_BULK_COUNT, &a, &a, F100NS, &v),
			 PMU_EINVAL);
	assert_int_equal(pmuk_pdh_cook(PMUK_PERF_COUNTER_BULK_COUNT, NULL, &a, F100NS, &v),
			 PMU_EINVAL);
}

static void test_instance_parse(void **state)
{
	/* The 14 instances of seed 004: _Total, 0,_Total, 0,0 .. 0,11. */
	const char *names[] = { "_Total", "0,_Total", "0,0", "0,1", "0,10", "0,11", "0,2",
				"0,3", "0,4", "0,5", "0,6", "0,7", "0,8", "0,9" };
	struct pmuk_pdh_instance in;
	int cpus = 0, totals = 0, sum = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(pmuk_pdh_instance_parse(names[i], &in), 0);
		if (in.kind == PMUK_PDH_INST_CPU) {
			cpus++;
			sum += in.index;
			assert_int_equal(in.first, 0);
		} else {
			totals++;
		}
	}
	assert_int_equal(cpus, 12);
	assert_int_equal(totals, 2);
	assert_int_equal(sum, 66);
	assert_int_equal(pmuk_pdh_instance_parse("0,_Total", &in), 0);
	assert_int_equal(in.kind, PMUK_PDH_INST_SUBTOTAL);
	assert_int_equal(pmuk_pdh_instance_parse("_Total", &in), 0);
	assert_int_equal(in.kind, PMUK_PDH_INST_TOTAL);
	assert_int_equal(pmuk_pdh_instance_parse("1,63", &in), 0);
	assert_int_equal(in.first, 1);
	assert_int_equal(in.index, 63);
	assert_int_equal(pmuk_pdh_instance_parse("0", &in), PMU_EPARSE);
	assert_int_equal(pmuk_pdh_instance_parse("a,1", &in), PMU_EPARSE);
	assert_int_equal(pmuk_pdh_instance_parse("0,-1", &in), PMU_EPARSE);
	assert_int_equal(pmuk_pdh_instance_parse("0,", &in), PMU_EPARSE);
	assert_int_equal(pmuk_pdh_instance_parse("_total", &in), PMU_EPARSE);
	assert_non_null(strstr(pmu_error_detail(), "_total"));
}

/* 2 groups of 64; NUMA node 0 = CPUs 0-31 and 64-95 (a node spanning both groups,
 * as on the Ampere Altra of TaskManagerBitmap#4), node 1 = the rest. */
static struct pmu_topology *two_group_topology(void)
{
	struct pmu_topology *t;
	int n0[64], n1[64], k0 = 0, k1 = 0;

	assert_int_equal(pmuk_topo_new(&t, "test"), 0);
	for (int c = 0; c < 128; c++) {
		assert_int_equal(pmuk_topo_add_cpu(t, c, 1), 0);
		assert_int_equal(pmuk_topo_set_cpu_location(t, c, c / 64, 0, c % 64), 0);
		if ((c % 64) < 32)
			n0[k0++] = c;
		else
			n1[k1++] = c;
	}
	assert_int_equal(pmuk_topo_add_node(t, 0, 0, n0, 64), 0);
	assert_int_equal(pmuk_topo_add_node(t, 1, 0, n1, 64), 0);
	assert_int_equal(pmuk_topo_finish(t), 0);
	return t;
}

static void test_instance_cpu(void **state)
{
	struct pmu_topology *t = two_group_topology();
	struct pmuk_pdh_instance in;
	int cpu;

	(void)state;
	/* node,index: the index-th CPU of the node in ascending flat ids. */
	assert_int_equal(pmuk_pdh_instance_parse("0,40", &in), 0);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_NODE, &in, &cpu), 0);
	assert_int_equal(cpu, 72);
	assert_int_equal(pmuk_pdh_instance_parse("1,0", &in), 0);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_NODE, &in, &cpu), 0);
	assert_int_equal(cpu, 32);
	/* group,index: group * 64 + index. */
	assert_int_equal(pmuk_pdh_instance_parse("1,5", &in), 0);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_GROUP, &in, &cpu), 0);
	assert_int_equal(cpu, 69);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_NODE, &in, &cpu), 0);
	assert_int_equal(cpu, 37);
	/* Out of range and totals. */
	assert_int_equal(pmuk_pdh_instance_parse("1,64", &in), 0);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_NODE, &in, &cpu), PMU_ENOENT);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_GROUP, &in, &cpu), PMU_ENOENT);
	assert_int_equal(pmuk_pdh_instance_parse("2,0", &in), 0);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_NODE, &in, &cpu), PMU_ENOENT);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_GROUP, &in, &cpu), PMU_ENOENT);
	assert_int_equal(pmuk_pdh_instance_parse("0,_Total", &in), 0);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_NODE, &in, &cpu), PMU_EINVAL);
	pmu_topology_free(t);

	/* No NUMA information: node 0 is the whole machine (Wine, one group). */
	assert_int_equal(pmuk_topo_new(&t, "test"), 0);
	for (int c = 0; c < 12; c++)
		assert_int_equal(pmuk_topo_add_cpu(t, c, 1), 0);
	assert_int_equal(pmuk_topo_finish(t), 0);
	assert_int_equal(pmuk_pdh_instance_parse("0,11", &in), 0);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_NODE, &in, &cpu), 0);
	assert_int_equal(cpu, 11);
	assert_int_equal(pmuk_pdh_instance_cpu(t, PMUK_PDH_BY_GROUP, &in, &cpu), 0);
	assert_int_equal(cpu, 11);
	pmu_topology_free(t);
}

/* ncpus CPUs 0..ncpus-1; nnodes NUMA nodes (0: none), CPU c in node c % nnodes when
 * interleave, else in contiguous blocks. */
static struct pmu_topology *synth_topology(int ncpus, int nnodes, int interleave)
{
	struct pmu_topology *t;
	int ids[256];

	assert_true(ncpus <= 256);
	assert_int_equal(pmuk_topo_new(&t, "test"), 0);
	for (int c = 0; c < ncpus; c++)
		assert_int_equal(pmuk_topo_add_cpu(t, c, 1), 0);
	for (int n = 0; n < nnodes; n++) {
		int k = 0;

		for (int c = 0; c < ncpus; c++)
			if ((interleave ? c % nnodes : c / (ncpus / nnodes)) == n)
				ids[k++] = c;
		assert_int_equal(pmuk_topo_add_node(t, n, 0, ids, (size_t)k), 0);
	}
	assert_int_equal(pmuk_topo_finish(t), 0);
	return t;
}

/* The instance names of a host: "_Total", then per A "A,_Total" and "A,0".."A,per-1". */
struct names {
	char buf[300][32];
	const char *p[300];
	size_t n;
};

static void make_names(struct names *nm, int nfirst, int per)
{
	nm->n = 0;
	snprintf(nm->buf[nm->n++], sizeof(nm->buf[0]), "_Total");
	for (int a = 0; a < nfirst; a++) {
		snprintf(nm->buf[nm->n++], sizeof(nm->buf[0]), "%d,_Total", a);
		for (int b = 0; b < per; b++)
			snprintf(nm->buf[nm->n++], sizeof(nm->buf[0]), "%d,%d", a, b);
	}
	for (size_t i = 0; i < nm->n; i++)
		nm->p[i] = nm->buf[i];
}

static int map(const struct pmu_topology *t, enum pmuk_pdh_scheme s, const char *name)
{
	struct pmuk_pdh_instance in;
	int cpu;

	assert_int_equal(pmuk_pdh_instance_parse(name, &in), 0);
	assert_int_equal(pmuk_pdh_instance_cpu(t, s, &in, &cpu), 0);
	return cpu;
}

/* Issue 13 item 15: one reading of "A,B" for the whole counter set, decided from the
 * topology and the names, never a per-name guess that mixes the two. */
static void test_instance_scheme(void **state)
{
	struct pmu_topology *t;
	enum pmuk_pdh_scheme s;
	struct names nm;

	(void)state;
	/* Seed 004: 1 node, 12 CPUs, 0,0..0,11: group,processor (same CPUs either way). */
	t = synth_topology(12, 1, 0);
	make_names(&nm, 1, 12);
	assert_int_equal(pmuk_pdh_instance_scheme(t, nm.p, nm.n, &s), 0);
	assert_int_equal(s, PMUK_PDH_BY_GROUP);
	assert_int_equal(map(t, s, "0,11"), 11);
	pmu_topology_free(t);

	/* 1 node, 128 CPUs = 2 groups: 1,5 is group 1 bit 5; no node 1 exists. */
	t = synth_topology(128, 1, 0);
	make_names(&nm, 2, 64);
	assert_int_equal(pmuk_pdh_instance_scheme(t, nm.p, nm.n, &s), 0);
	assert_int_equal(s, PMUK_PDH_BY_GROUP);
	assert_int_equal(map(t, s, "1,5"), 69);
	/* ... and were they node,index (0,0..0,127), the names say so. */
	make_names(&nm, 1, 128);
	assert_int_equal(pmuk_pdh_instance_scheme(t, nm.p, nm.n, &s), 0);
	assert_int_equal(s, PMUK_PDH_BY_NODE);
	assert_int_equal(map(t, s, "0,100"), 100);
	pmu_topology_free(t);

	/* 2 nodes interleaved (even, odd) in one group of 32 CPUs. node,index names
	 * (0,0..0,15 and 1,0..1,15): 1,3 is node 1's 4th CPU, 7. */
	t = synth_topology(32, 2, 1);
	make_names(&nm, 2, 16);
	assert_int_equal(pmuk_pdh_instance_scheme(t, nm.p, nm.n, &s), 0);
	assert_int_equal(s, PMUK_PDH_BY_NODE);
	assert_int_equal(map(t, s, "1,3"), 7);
	assert_int_equal(map(t, s, "0,3"), 6);
	/* group,processor names (0,0..0,31) on the same host: 0,3 is CPU 3, not node 0's
	 * 4th CPU (6), which a per-name guess trying node first would answer. */
	make_names(&nm, 1, 32);
	assert_int_equal(pmuk_pdh_instance_scheme(t, nm.p, nm.n, &s), 0);
	assert_int_equal(s, PMUK_PDH_BY_GROUP);
	assert_int_equal(map(t, s, "0,3"), 3);
	pmu_topology_free(t);

	/* 2 nodes spanning 2 groups (TaskManagerBitmap#4): both readings fit the names;
	 * Microsoft's help text (node,index) decides. */
	t = two_group_topology();
	make_names(&nm, 2, 64);
	assert_int_equal(pmuk_pdh_instance_scheme(t, nm.p, nm.n, &s), 0);
	assert_int_equal(s, PMUK_PDH_BY_NODE);
	assert_int_equal(map(t, s, "0,40"), 72);
	/* Names neither reading can place: an error naming them, not a silent guess. */
	make_names(&nm, 3, 64);
	assert_int_equal(pmuk_pdh_instance_scheme(t, nm.p, nm.n, &s), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "2,_Total"));
	pmu_topology_free(t);
}

/* Issue 13 item 8: Processor Frequency is nominal; current = nominal x perf / 100. */
static void test_current_frequency(void **state)
{
	(void)state;
	/* pdh-math.md 1.2: 214.08 % of a 2000 MHz nominal clock. */
	assert_true(fabs(pmuk_pdh_current_mhz(2000, 214.08, 0) - 4281.6) < 1e-6);
	assert_true(fabs(pmuk_pdh_current_mhz(3000, 50, 0) - 1500) < 1e-9);
	assert_true(pmuk_pdh_current_mhz(2000, 214.08, 4290) == 4290);  /* Actual Frequency */
	assert_true(pmuk_pdh_current_mhz(2000, 0, 0) == 2000);  /* perf not known yet */
	assert_true(pmuk_pdh_current_mhz(0, 0, 0) == 0);
}

/* A PDH call as documented: size 0 -> PDH_MORE_DATA with the need; a non-zero size
 * that is too small -> PDH_MORE_DATA with an untrustworthy size (here: one byte more
 * than given) or PDH_INVALID_ARGUMENT; a big enough buffer -> the data, size used. */
struct fake_pdh {
	uint32_t need;
	uint32_t grow;       /* the need grows by this after a size-0 call ... */
	int grow_times;      /* ... this many times */
	int invalid_arg;     /* too-small non-zero sizes answer PDH_INVALID_ARGUMENT */
	uint32_t fail;       /* a status every call answers instead, 0 for none */
	int calls;
};

static uint32_t fake_call(void *ctx, uint32_t *size, void *buf)
{
	struct fake_pdh *f = ctx;
	uint32_t given = *size;

	f->calls++;
	if (f->fail)
		return f->fail;
	if (!given) {
		assert_null(buf);
		*size = f->need;
		if (f->grow_times && f->grow_times--)
			f->need += f->grow;
		return PMUK_PDH_MORE_DATA;
	}
	if (given < f->need) {
		*size = given + 1;
		return f->invalid_arg ? PMUK_PDH_INVALID_ARGUMENT : PMUK_PDH_MORE_DATA;
	}
	memset(buf, 0x5a, f->need);
	*size = f->need;
	return 0;
}

static void test_sized_call(void **state)
{
	struct fake_pdh f = { .need = 1000 };
	void *buf = NULL;
	uint32_t cap = 0;

	(void)state;
	/* No buffer yet: ask the need, allocate, call. */
	assert_int_equal(pmuk_pdh_sized_call(fake_call, &f, &buf, &cap, "fake"), 0);
	assert_int_equal(cap, 1000);
	assert_int_equal(((uint8_t *)buf)[999], 0x5a);
	/* A buffer too small for a counter with more instances: the size-0 answer sizes
	 * it, not the one-byte-more answer of the failed call. */
	f.need = 5000;
	f.calls = 0;
	assert_int_equal(pmuk_pdh_sized_call(fake_call, &f, &buf, &cap, "fake"), 0);
	assert_int_equal(cap, 5000);
	assert_int_equal(f.calls, 3);
	/* Releases that answer PDH_INVALID_ARGUMENT for a small buffer (PdhGetCounterInfoW
	 * with sizeof(PDH_COUNTER_INFO_W), which lacks the appended strings). */
	f.need = 6000;
	f.invalid_arg = 1;
	assert_int_equal(pmuk_pdh_sized_call(fake_call, &f, &buf, &cap, "fake"), 0);
	assert_int_equal(cap, 6000);
	/* Instances appearing between the calls: keep asking. */
	f.need = 7000;
	f.grow = 100;
	f.grow_times = 2;
	assert_int_equal(pmuk_pdh_sized_call(fake_call, &f, &buf, &cap, "fake"), 0);
	assert_int_equal(cap, 7200);
	/* ... but not forever. */
	f.need = 8000;
	f.grow_times = 1000;
	assert_int_equal(pmuk_pdh_sized_call(fake_call, &f, &buf, &cap, "fake"), PMU_EIO);
	assert_non_null(strstr(pmu_error_detail(), "larger buffer"));
	/* Another status is the answer, with its number. */
	f.fail = 0xC0000BB9u;   /* PDH_CSTATUS_NO_COUNTER */
	assert_int_equal(pmuk_pdh_sized_call(fake_call, &f, &buf, &cap, "fake"), PMU_EIO);
	assert_non_null(strstr(pmu_error_detail(), "0xc0000bb9"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_100nsec_timer),
		cmocka_unit_test(test_100nsec_timer_inv),
		cmocka_unit_test(test_precision_timer),
		cmocka_unit_test(test_counter_wrap_and_bulk),
		cmocka_unit_test(test_rawcount),
		cmocka_unit_test(test_average_bulk),
		cmocka_unit_test(test_seed004_sample),
		cmocka_unit_test(test_backward_clamp),
		cmocka_unit_test(test_unknown_type),
		cmocka_unit_test(test_instance_parse),
		cmocka_unit_test(test_instance_cpu),
		cmocka_unit_test(test_instance_scheme),
		cmocka_unit_test(test_current_frequency),
		cmocka_unit_test(test_sized_call),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
