/* SPDX-License-Identifier: MIT */
/* Event names -> perf_event encodings, checked against the perf ABI numbers of
 * <linux/perf_event.h>, on fixture sysfs trees (x86, hybrid, arm64, no PMU). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <pmukit/pmukit.h>
#include "core/event_parse.h"
#include "core/suggest.h"
#include "linux/event_resolve.h"
#include "linux/pmu_sysfs.h"
#include "pmu_fixture.h"

static char *fx_x86, *fx_hybrid, *fx_arm, *fx_none, *fx_amd, *fx_server;

static int setup(void **state)
{
	(void)state;
	fx_x86 = pmu_fixture_make("x86");
	fx_hybrid = pmu_fixture_make("hybrid");
	fx_arm = pmu_fixture_make("arm64");
	fx_none = pmu_fixture_make("none");
	fx_amd = pmu_fixture_make("amd");
	fx_server = pmu_fixture_make("server");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pmu_fixture_free(fx_x86);
	pmu_fixture_free(fx_hybrid);
	pmu_fixture_free(fx_arm);
	pmu_fixture_free(fx_none);
	pmu_fixture_free(fx_amd);
	pmu_fixture_free(fx_server);
	return 0;
}

static struct pmu_event_list *parse_ok(const char *spec)
{
	struct pmu_event_list *l = NULL;
	int ret = pmu_event_parse(spec, &l);

	if (ret)
		fail_msg("'%s' failed: %s", spec, pmu_error_detail());
	return l;
}

static const struct pmu_event *parse_one(const char *spec, struct pmu_event_list **l)
{
	*l = parse_ok(spec);
	assert_int_equal(pmu_event_list_count(*l), 1);
	return pmu_event_list_get(*l, 0);
}

struct want {
	const char *spec;
	uint32_t type;
	uint64_t config;
	const char *name;
	const char *pmu;
	int generic;
};

static void check_table(const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct pmu_event_list *l;
		const struct pmu_event *e = parse_one(w[i].spec, &l);

		if (e->type != w[i].type || e->config != w[i].config || strcmp(e->name, w[i].name) ||
		    strcmp(e->pmu, w[i].pmu) || e->generic != w[i].generic)
			fail_msg("'%s': got type %u config %#llx name '%s' pmu '%s' generic %d",
				 w[i].spec, e->type, (unsigned long long)e->config, e->name, e->pmu,
				 e->generic);
		assert_int_equal(e->group, 0);
		assert_int_equal(e->group_leader, 1);
		pmu_event_list_free(l);
	}
}

#define HW(s, c, n, g) { s, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, n, "cpu", PMU_GENERIC_##g }
#define SW(s, c, n, g) { s, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, n, "software", g }

static void test_generic(void **state)
{
	static const struct want w[] = {
		HW("cycles", CPU_CYCLES, "cycles", CYCLES),
		HW("cpu-cycles", CPU_CYCLES, "cpu-cycles", CYCLES),
		HW("instructions", INSTRUCTIONS, "instructions", INSTRUCTIONS),
		HW("cache-references", CACHE_REFERENCES, "cache-references", CACHE_REFERENCES),
		HW("cache-misses", CACHE_MISSES, "cache-misses", CACHE_MISSES),
		HW("branches", BRANCH_INSTRUCTIONS, "branches", BRANCHES),
		HW("branch-instructions", BRANCH_INSTRUCTIONS, "branch-instructions", BRANCHES),
		HW("branch-misses", BRANCH_MISSES, "branch-misses", BRANCH_MISSES),
		HW("bus-cycles", BUS_CYCLES, "bus-cycles", BUS_CYCLES),
		HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND, "stalled-cycles-frontend",
		   STALLED_FRONTEND),
		HW("idle-cycles-frontend", STALLED_CYCLES_FRONTEND, "idle-cycles-frontend",
		   STALLED_FRONTEND),
		HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND, "stalled-cycles-backend",
		   STALLED_BACKEND),
		HW("idle-cycles-backend", STALLED_CYCLES_BACKEND, "idle-cycles-backend",
		   STALLED_BACKEND),
		HW("ref-cycles", REF_CPU_CYCLES, "ref-cycles", REF_CYCLES),
		SW("cpu-clock", CPU_CLOCK, "cpu-clock", PMU_GENERIC_CPU_CLOCK),
		SW("task-clock", TASK_CLOCK, "task-clock", PMU_GENERIC_TASK_CLOCK),
		SW("page-faults", PAGE_FAULTS, "page-faults", PMU_GENERIC_PAGE_FAULTS),
		SW("faults", PAGE_FAULTS, "faults", PMU_GENERIC_PAGE_FAULTS),
		SW("context-switches", CONTEXT_SWITCHES, "context-switches", PMU_GENERIC_CONTEXT_SWITCHES),
		SW("cs", CONTEXT_SWITCHES, "cs", PMU_GENERIC_CONTEXT_SWITCHES),
		SW("cpu-migrations", CPU_MIGRATIONS, "cpu-migrations", PMU_GENERIC_CPU_MIGRATIONS),
		SW("migrations", CPU_MIGRATIONS, "migrations", PMU_GENERIC_CPU_MIGRATIONS),
		SW("minor-faults", PAGE_FAULTS_MIN, "minor-faults", PMU_GENERIC_MINOR_FAULTS),
		SW("major-faults", PAGE_FAULTS_MAJ, "major-faults", PMU_GENERIC_MAJOR_FAULTS),
		SW("alignment-faults", ALIGNMENT_FAULTS, "alignment-faults", PMU_GENERIC_ALIGNMENT_FAULTS),
		SW("emulation-faults", EMULATION_FAULTS, "emulation-faults", PMU_GENERIC_EMULATION_FAULTS),
		SW("dummy", DUMMY, "dummy", -1),
		/* Windows curated profile sources. */
		HW("InstructionRetired", INSTRUCTIONS, "InstructionRetired", INSTRUCTIONS),
		HW("TotalCycles", CPU_CYCLES, "TotalCycles", CYCLES),
		HW("UnhaltedCoreCycles", CPU_CYCLES, "UnhaltedCoreCycles", CYCLES),
		HW("UnhaltedReferenceCycles", REF_CPU_CYCLES, "UnhaltedReferenceCycles", REF_CYCLES),
		HW("BranchInstructions", BRANCH_INSTRUCTIONS, "BranchInstructions", BRANCHES),
		HW("BranchMispredictions", BRANCH_MISSES, "BranchMispredictions", BRANCH_MISSES),
		HW("CacheMisses", CACHE_MISSES, "CacheMisses", CACHE_MISSES),
		HW("LLCReference", CACHE_REFERENCES, "LLCReference", CACHE_REFERENCES),
		HW("LLCMisses", CACHE_MISSES, "LLCMisses", CACHE_MISSES),
		HW("TotalIssues", INSTRUCTIONS, "TotalIssues", INSTRUCTIONS),
		SW("Timer", CPU_CLOCK, "Timer", PMU_GENERIC_CPU_CLOCK),
	};

	(void)state;
	pmu_sysroot_set(fx_x86);
	check_table(w, sizeof(w) / sizeof(w[0]));
}

#define C(cache, op, res) \
	(PERF_COUNT_HW_CACHE_##cache | PERF_COUNT_HW_CACHE_OP_##op << 8 | \
	 PERF_COUNT_HW_CACHE_RESULT_##res << 16)
#define CA(s, n, cache, op, res) \
	{ s, PERF_TYPE_HW_CACHE, C(cache, op, res), n, "cpu", PMU_GENERIC_HW_CACHE }

static void test_cache(void **state)
{
	static const struct want w[] = {
		CA("L1-dcache-load-misses", "L1-dcache-load-misses", L1D, READ, MISS),
		CA("L1-dcache-loads", "L1-dcache-loads", L1D, READ, ACCESS),
		CA("L1-dcache-stores", "L1-dcache-stores", L1D, WRITE, ACCESS),
		CA("L1-dcache-prefetch-misses", "L1-dcache-prefetch-misses", L1D, PREFETCH, MISS),
		CA("L1-icache-load-misses", "L1-icache-load-misses", L1I, READ, MISS),
		CA("L1-icache-prefetches", "L1-icache-prefetches", L1I, PREFETCH, ACCESS),
		CA("LLC-loads", "LLC-loads", LL, READ, ACCESS),
		CA("LLC-load-misses", "LLC-load-misses", LL, READ, MISS),
		CA("LLC-store-misses", "LLC-store-misses", LL, WRITE, MISS),
		CA("dTLB-load-misses", "dTLB-load-misses", DTLB, READ, MISS),
		CA("dTLB-stores", "dTLB-stores", DTLB, WRITE, ACCESS),
		CA("iTLB-loads", "iTLB-loads", ITLB, READ, ACCESS),
		CA("iTLB-load-misses", "iTLB-load-misses", ITLB, READ, MISS),
		CA("branch-loads", "branch-loads", BPU, READ, ACCESS),
		CA("branch-load-misses", "branch-load-misses", BPU, READ, MISS),
		CA("node-loads", "node-loads", NODE, READ, ACCESS),
		CA("node-store-misses", "node-store-misses", NODE, WRITE, MISS),
		/* perf's alternate spellings: the same encoding, printed as typed. */
		CA("l1d-loads", "l1d-loads", L1D, READ, ACCESS),
		CA("LLC-misses", "LLC-misses", LL, READ, MISS),
		CA("L1-dcache", "L1-dcache", L1D, READ, ACCESS),
		CA("dtlb-load-miss", "dtlb-load-miss", DTLB, READ, MISS),
		/* perf takes the result before the operation too. */
		CA("L1-dcache-miss-load", "L1-dcache-miss-load", L1D, READ, MISS),
		CA("LLC-misses-store", "LLC-misses-store", LL, WRITE, MISS),
		CA("node-prefetch-refs", "node-prefetch-refs", NODE, PREFETCH, ACCESS),
	};
	struct pmu_event_list *l = NULL;

	(void)state;
	pmu_sysroot_set(fx_x86);
	check_table(w, sizeof(w) / sizeof(w[0]));
	/* Combinations perf does not define are unknown events. */
	assert_int_equal(pmu_event_parse("iTLB-stores", &l), PMU_ENOENT);
	assert_int_equal(pmu_event_parse("L1-icache-store-misses", &l), PMU_ENOENT);
	assert_int_equal(pmu_event_parse("branch-prefetches", &l), PMU_ENOENT);
	/* A dangling '-' or a repeated part is no event (perf's lexer refuses them). */
	assert_int_equal(pmu_event_parse("L1-dcache-", &l), PMU_ENOENT);
	assert_int_equal(pmu_event_parse("L1-dcache-load-", &l), PMU_ENOENT);
	assert_int_equal(pmu_event_parse("L1-dcache-load-misses-load", &l), PMU_ENOENT);
	assert_int_equal(pmu_event_parse("L1-dcache-misses-miss", &l), PMU_ENOENT);
	assert_null(l);
}

struct mod_want {
	const char *spec;
	const char *name;
	int eu, ek, eh, precise;
};

static void test_modifiers(void **state)
{
	static const struct mod_want w[] = {
		{ "cycles", "cycles", 0, 0, 0, 0 },
		{ "cycles:u", "cycles:u", 0, 1, 1, 0 },
		{ "cycles:k", "cycles:k", 1, 0, 1, 0 },
		{ "cycles:h", "cycles:h", 1, 1, 0, 0 },
		{ "cycles:uk", "cycles:uk", 0, 0, 1, 0 },
		{ "cycles:ku", "cycles:ku", 0, 0, 1, 0 }, /* as typed, as perf prints it */
		{ "cycles:p", "cycles:p", 0, 0, 0, 1 },
		{ "cycles:pp", "cycles:pp", 0, 0, 0, 2 },
		{ "cycles:ppp", "cycles:ppp", 0, 0, 0, 3 },
		{ "cycles:upp", "cycles:upp", 0, 1, 1, 2 },
		{ "cpu-cycles:u", "cpu-cycles:u", 0, 1, 1, 0 },
		{ "cs:k", "cs:k", 1, 0, 1, 0 },
		{ "faults:ku", "faults:ku", 0, 0, 1, 0 },
		{ "l1d-loads:u", "l1d-loads:u", 0, 1, 1, 0 },
		{ "task-clock:k", "task-clock:k", 1, 0, 1, 0 },
		{ "L1-dcache-load-misses:u", "L1-dcache-load-misses:u", 0, 1, 1, 0 },
		{ "r3c:k", "r3c:k", 1, 0, 1, 0 },
		{ "cpu/event=0x3c/:u", "cpu/event=0x3c/u", 0, 1, 1, 0 },
		{ "{cycles}:u", "cycles:u", 0, 1, 1, 0 },
		{ "{cycles:k}:up", "cycles:ukp", 0, 0, 1, 1 },
		{ "sched:sched_switch:k", "sched:sched_switch:k", 1, 0, 1, 0 },
		/* As perf stat -vv shows: levels unite, precise levels add. */
		{ "cycles:uh", "cycles:uh", 0, 1, 0, 0 },
		{ "cycles:kh", "cycles:kh", 1, 0, 0, 0 },
		{ "cycles:ukh", "cycles:ukh", 0, 0, 0, 0 },
		{ "{cycles:u}:k", "cycles:uk", 0, 0, 1, 0 },
		{ "{cycles:p}:p", "cycles:pp", 0, 0, 0, 2 },
		{ "{cycles:pp}:up", "cycles:uppp", 0, 1, 1, 3 },
		{ "{cycles}:ppp", "cycles:ppp", 0, 0, 0, 3 },
	};

	(void)state;
	pmu_sysroot_set(fx_x86);
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		struct pmu_event_list *l;
		const struct pmu_event *e = parse_one(w[i].spec, &l);

		if (strcmp(e->name, w[i].name) || e->exclude_user != w[i].eu ||
		    e->exclude_kernel != w[i].ek || e->exclude_hv != w[i].eh ||
		    e->precise_ip != w[i].precise)
			fail_msg("'%s': name '%s' eu %d ek %d eh %d precise %d", w[i].spec, e->name,
				 e->exclude_user, e->exclude_kernel, e->exclude_hv, e->precise_ip);
		pmu_event_list_free(l);
	}
}

static void test_groups(void **state)
{
	struct pmu_event_list *l;
	const struct pmu_event *e;
	static const int group[] = { 0, 1, 1, 1, 2, 3, 3 }, leader[] = { 1, 1, 0, 0, 1, 1, 0 };

	(void)state;
	pmu_sysroot_set(fx_x86);
	l = parse_ok("cycles, {instructions,branches,page-faults}:u,task-clock,{cs,msr/tsc/}");
	assert_int_equal(pmu_event_list_count(l), 7);
	assert_int_equal(pmu_event_list_groups(l), 4);
	for (size_t i = 0; i < 7; i++) {
		e = pmu_event_list_get(l, i);
		assert_int_equal(e->group, group[i]);
		assert_int_equal(e->group_leader, leader[i]);
	}
	e = pmu_event_list_get(l, 3);
	assert_string_equal(e->name, "page-faults:u");
	assert_int_equal(e->exclude_kernel, 1);
	assert_null(pmu_event_list_get(l, 7));
	pmu_event_list_free(l);

	/* msr events live in the kernel's software context (as perf's
	 * perf_pmu__is_software() knows): they may join a hardware group. */
	l = parse_ok("{cycles,msr/tsc/,msr/smi/,page-faults}");
	assert_int_equal(pmu_event_list_count(l), 4);
	assert_int_equal(pmu_event_list_groups(l), 1);
	assert_int_equal(pmu_event_list_get(l, 1)->group, 0);
	assert_int_equal(pmu_event_list_get(l, 1)->group_leader, 0);
	pmu_event_list_free(l);
}

static void test_raw_and_pmu_terms(void **state)
{
	static const struct want w[] = {
		{ "r3c", PERF_TYPE_RAW, 0x3c, "r3c", "cpu", -1 },
		{ "r1A2b3C", PERF_TYPE_RAW, 0x1a2b3c, "r1A2b3C", "cpu", -1 },
		{ "cpu/event=0x3c,umask=0x01/", 4, 0x13c, "cpu/event=0x3c,umask=0x01/", "cpu", -1 },
		{ "cpu/event=0xc0,umask=1,edge,inv,cmask=2/", 4, 0x028401c0,
		  "cpu/event=0xc0,umask=1,edge,inv,cmask=2/", "cpu", -1 },
		{ "cpu/config=0x1234/", 4, 0x1234, "cpu/config=0x1234/", "cpu", -1 },
		{ "cpu/event=0x3c,name=mycycles/", 4, 0x3c, "mycycles", "cpu", -1 },
		{ "cpu/cpu-cycles/", 4, 0x3c, "cpu/cpu-cycles/", "cpu", -1 },
		{ "cpu/cycles/", PERF_TYPE_HARDWARE, 0, "cpu/cycles/", "cpu", PMU_GENERIC_CYCLES },
		{ "msr/tsc/", 10, 0, "msr/tsc/", "msr", -1 },
		{ "msr/smi/", 10, 4, "msr/smi/", "msr", -1 },
		{ "tsc", 10, 0, "msr/tsc/", "msr", -1 },
		{ "power/energy-pkg/", 9, 2, "power/energy-pkg/", "power", -1 },
		{ "energy-pkg", 9, 2, "power/energy-pkg/", "power", -1 },
		{ "software/config=1/", PERF_TYPE_SOFTWARE, 1, "software/config=1/", "software",
		  PMU_GENERIC_TASK_CLOCK },
		/* perf reads "010" as ten: decimal unless 0x */
		{ "cpu/event=010,umask=08/", 4, 0x80a, "cpu/event=010,umask=08/", "cpu", -1 },
		{ "cpu/event=0X3C/", 4, 0x3c, "cpu/event=0X3C/", "cpu", -1 },
		/* spaces around an alias's terms */
		{ "cpu/spaced/", 4, 0x13c, "cpu/spaced/", "cpu", -1 },
	};
	struct pmu_event_list *l;
	const struct pmu_event *e;

	(void)state;
	pmu_sysroot_set(fx_x86);
	check_table(w, sizeof(w) / sizeof(w[0]));
	e = parse_one("cpu/mem-loads/", &l);
	assert_int_equal(e->type, 4);
	assert_true(e->config == 0x1cd);
	assert_true(e->config1 == 3);
	pmu_event_list_free(l);
	e = parse_one("cpu/event=1,frontend=0x11,ldlat=0x20/", &l);
	assert_true(e->config == 1 && e->config1 == 0x20 && e->config2 == 0x11);
	assert_int_equal(e->kind, PMU_EVENT_RAW);
	pmu_event_list_free(l);

	/* "ldlat=?" in the alias: the value comes from the event's own ldlat term,
	 * written before or after the alias. */
	e = parse_one("cpu/mem-loads-ldlat,ldlat=50/", &l);
	assert_true(e->config == 0x1cd && e->config1 == 50);
	pmu_event_list_free(l);
	e = parse_one("cpu/ldlat=0x40,mem-loads-ldlat/:p", &l);
	assert_true(e->config == 0x1cd && e->config1 == 0x40 && e->precise_ip == 1);
	pmu_event_list_free(l);
	/* A user term after an alias overrides the alias's value. */
	e = parse_one("cpu/mem-loads,ldlat=7/", &l);
	assert_true(e->config == 0x1cd && e->config1 == 7);
	pmu_event_list_free(l);
}

/* A format spread over two ranges (AMD's event select: config:0-7,32-35): a
 * value's low bits fill the low range, the rest the high one. */
static void test_split_format(void **state)
{
	static const struct want w[] = {
		{ "cpu/event=0x3c/", 4, 0x3c, "cpu/event=0x3c/", "cpu", -1 },
		{ "cpu/event=0x129,umask=1/", 4, 0x100000129ULL, "cpu/event=0x129,umask=1/", "cpu", -1 },
		{ "cpu/event=0xfff/", 4, 0xf000000ffULL, "cpu/event=0xfff/", "cpu", -1 },
		{ "cpu/ls_dispatch,edge/", 4, 0x100040129ULL, "cpu/ls_dispatch,edge/", "cpu", -1 },
		{ "ls_dispatch", 4, 0x100000129ULL, "cpu/ls_dispatch/", "cpu", -1 },
	};
	struct pmu_event_list *l = NULL;

	(void)state;
	pmu_sysroot_set(fx_amd);
	check_table(w, sizeof(w) / sizeof(w[0]));
	assert_int_equal(pmu_event_parse("cpu/event=0x1000/", &l), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "does not fit the 12 bits of format 'event'"));

	/* config3 (ARM SPE's inv_event_filter) cannot be carried: said, not dropped. */
	pmu_sysroot_set(fx_arm);
	l = parse_ok("arm_spe_0/ts_enable=1,min_latency=20/");
	assert_true(pmu_event_list_get(l, 0)->config == 1);
	assert_true(pmu_event_list_get(l, 0)->config2 == 20);
	pmu_event_list_free(l);
	l = NULL;
	assert_int_equal(pmu_event_parse("arm_spe_0/inv_event_filter=1/", &l), PMU_ENOTSUP);
	assert_non_null(strstr(pmu_error_detail(), "fills config3 of PMU 'arm_spe_0'"));
	assert_null(l);
}

/* An alias several PMUs share expands to one event per PMU, up to a stated limit. */
static void test_uncore_alias(void **state)
{
	struct pmu_event_list *l = NULL;

	(void)state;
	pmu_sysroot_set(fx_server);
	assert_int_equal(pmu_event_parse("cas_count_read", &l), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "names an event of more than 8 PMUs"));
	assert_null(l);
	l = parse_ok("uncore_imc_9/cas_count_read/");
	assert_int_equal(pmu_event_list_get(l, 0)->type, 29);
	assert_true(pmu_event_list_get(l, 0)->config == 0x304);
	pmu_event_list_free(l);
}

static void test_tracepoints(void **state)
{
	struct pmu_event_list *l = NULL;
	const struct pmu_event *e;
	char id[32];
	FILE *f;

	(void)state;
	pmu_sysroot_set(fx_x86);
	e = parse_one("sched:sched_switch", &l);
	assert_int_equal(e->type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(e->config, 316);
	assert_int_equal(e->kind, PMU_EVENT_TRACEPOINT);
	assert_string_equal(e->pmu, "tracepoint");
	pmu_event_list_free(l);
	assert_int_equal(pmu_event_parse("sched:nope", &l), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "unknown tracepoint 'sched:nope'"));

	pmu_sysroot_set(fx_none);
	assert_int_equal(pmu_event_parse("sched:sched_switch", &l), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "mount -t tracefs nodev /sys/kernel/tracing"));

	/* The real tracefs, when this host has it mounted. */
	pmu_sysroot_set("");
	f = fopen("/sys/kernel/tracing/events/sched/sched_switch/id", "r");
	if (!f) {
		fprintf(stderr, "skip real sched:sched_switch: tracefs is not mounted here\n");
		skip();
	}
	assert_non_null(fgets(id, sizeof(id), f));
	fclose(f);
	e = parse_one("sched:sched_switch", &l);
	assert_int_equal(e->config, strtoull(id, NULL, 10));
	pmu_event_list_free(l);
}

/* Tracepoint globs expand as perf's do: one event per match, sorted, in the glob's group. */
static void test_tracepoint_globs(void **state)
{
	static const char *const names[] = { "sched:sched_switch:u", "sched:sched_wakeup:u", "cs:u" };
	struct pmu_event_list *l = NULL;
	const struct pmu_event *e;

	(void)state;
	pmu_sysroot_set(fx_x86);
	l = parse_ok("sched:*");
	assert_int_equal(pmu_event_list_count(l), 2);
	assert_int_equal(pmu_event_list_groups(l), 2);
	assert_string_equal(pmu_event_list_get(l, 0)->name, "sched:sched_switch");
	assert_int_equal(pmu_event_list_get(l, 0)->config, 316);
	assert_string_equal(pmu_event_list_get(l, 1)->name, "sched:sched_wakeup");
	assert_int_equal(pmu_event_list_get(l, 1)->config, 318);
	assert_int_equal(pmu_event_list_get(l, 1)->group, 1);
	assert_int_equal(pmu_event_list_get(l, 1)->group_leader, 1);
	pmu_event_list_free(l);

	e = parse_one("sched:sched_w*:k", &l);
	assert_string_equal(e->name, "sched:sched_wakeup:k");
	assert_int_equal(e->exclude_user, 1);
	pmu_event_list_free(l);

	l = parse_ok("{sch?d:*,cs}:u");
	assert_int_equal(pmu_event_list_count(l), 3);
	assert_int_equal(pmu_event_list_groups(l), 1);
	for (size_t i = 0; i < 3; i++) {
		e = pmu_event_list_get(l, i);
		assert_string_equal(e->name, names[i]);
		assert_int_equal(e->group, 0);
		assert_int_equal(e->group_leader, i == 0);
		assert_int_equal(e->exclude_kernel, 1);
	}
	pmu_event_list_free(l);

	l = parse_ok("cycles,*:*,{cs,irq:irq_*}");
	assert_int_equal(pmu_event_list_count(l), 6);
	assert_int_equal(pmu_event_list_groups(l), 5);
	assert_string_equal(pmu_event_list_get(l, 1)->name, "irq:irq_handler_entry");
	assert_int_equal(pmu_event_list_get(l, 3)->group, 3);
	assert_int_equal(pmu_event_list_get(l, 5)->group, 4);
	assert_int_equal(pmu_event_list_get(l, 5)->group_leader, 0);
	pmu_event_list_free(l);

	assert_int_equal(pmu_event_parse("cs,sched:nomatch*", &l), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "no tracepoint matches 'sched:nomatch*' at "
				"position 3"));
	assert_int_equal(pmu_event_parse("cyc*", &l), PMU_EPARSE);
	assert_non_null(strstr(pmu_error_detail(), "wildcards ('*', '?') are for tracepoints only"));
	pmu_sysroot_set(fx_none);
	assert_int_equal(pmu_event_parse("sched:*", &l), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "mount -t tracefs nodev /sys/kernel/tracing"));
	assert_null(l);
}

static void test_hybrid(void **state)
{
	struct pmu_event_list *l;
	const struct pmu_event *e;

	(void)state;
	pmu_sysroot_set(fx_hybrid);
	l = parse_ok("cycles:u");
	assert_int_equal(pmu_event_list_count(l), 2);
	assert_int_equal(pmu_event_list_groups(l), 2);
	e = pmu_event_list_get(l, 0);
	assert_string_equal(e->name, "cpu_atom/cycles/u");
	assert_string_equal(e->pmu, "cpu_atom");
	assert_int_equal(e->type, PERF_TYPE_HARDWARE);
	assert_true(e->config == (PERF_COUNT_HW_CPU_CYCLES | 10ULL << 32));
	assert_int_equal(e->generic, PMU_GENERIC_CYCLES);
	e = pmu_event_list_get(l, 1);
	assert_string_equal(e->name, "cpu_core/cycles/u");
	assert_true(e->config == (PERF_COUNT_HW_CPU_CYCLES | 4ULL << 32));
	assert_int_equal(e->group, 1);
	pmu_event_list_free(l);

	/* A generic-only group is repeated per core PMU, software members with it. */
	l = parse_ok("{instructions,LLC-loads,page-faults}");
	assert_int_equal(pmu_event_list_count(l), 6);
	assert_int_equal(pmu_event_list_groups(l), 2);
	for (size_t i = 0; i < 6; i++) {
		e = pmu_event_list_get(l, i);
		assert_int_equal(e->group, (int)i / 3);
		assert_int_equal(e->group_leader, i % 3 == 0);
	}
	e = pmu_event_list_get(l, 4);
	assert_int_equal(e->type, PERF_TYPE_HW_CACHE);
	assert_true(e->config == (C(LL, READ, ACCESS) | 4ULL << 32));
	assert_string_equal(pmu_event_list_get(l, 5)->pmu, "software");
	pmu_event_list_free(l);

	/* A PMU named in the group decides where its generic members go. */
	l = parse_ok("{cpu_core/event=0x3c/,instructions}");
	assert_int_equal(pmu_event_list_count(l), 2);
	e = pmu_event_list_get(l, 1);
	assert_string_equal(e->pmu, "cpu_core");
	assert_true(e->config == (PERF_COUNT_HW_INSTRUCTIONS | 4ULL << 32));
	pmu_event_list_free(l);

	l = parse_ok("cpu_atom/branch-misses/");
	e = pmu_event_list_get(l, 0);
	assert_int_equal(pmu_event_list_count(l), 1);
	assert_true(e->config == (PERF_COUNT_HW_BRANCH_MISSES | 10ULL << 32));
	pmu_event_list_free(l);

	l = parse_ok("r3c");
	assert_int_equal(pmu_event_list_count(l), 2);
	assert_int_equal(pmu_event_list_get(l, 0)->type, 10);
	assert_int_equal(pmu_event_list_get(l, 1)->type, 4);
	pmu_event_list_free(l);

	assert_int_equal(pmu_event_parse("{cpu_core/event=0x3c/,cpu_atom/event=0x3c/}", &l),
			 PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "('cpu_core' and 'cpu_atom')"));
	/* msr members go with each per-core-PMU copy, like software events. */
	l = parse_ok("{cycles,msr/tsc/}");
	assert_int_equal(pmu_event_list_count(l), 4);
	assert_int_equal(pmu_event_list_groups(l), 2);
	assert_string_equal(pmu_event_list_get(l, 1)->name, "msr/tsc/");
	assert_int_equal(pmu_event_list_get(l, 3)->group, 1);
	assert_int_equal(pmu_event_list_get(l, 3)->type, 11);
	pmu_event_list_free(l);

	/* libpfm4's raw PMU encodes type 4: on a hybrid host that is cpu_core's type. */
	if (pmuk_pfm_ready()) {
		l = parse_ok("perf_raw::r0003");
		assert_int_equal(pmu_event_list_get(l, 0)->type, 4);
		assert_string_equal(pmu_event_list_get(l, 0)->pmu, "cpu_core");
		pmu_event_list_free(l);
	}
}

static void test_arm_and_no_pmu(void **state)
{
	struct pmu_event_list *l;
	const struct pmu_event *e;

	(void)state;
	pmu_sysroot_set(fx_arm);
	e = parse_one("cycles", &l);
	assert_int_equal(e->type, PERF_TYPE_HARDWARE);
	assert_int_equal(e->config, 0);
	assert_string_equal(e->pmu, "armv8_pmuv3_0");
	pmu_event_list_free(l);
	e = parse_one("armv8_pmuv3_0/cpu_cycles/", &l);
	assert_int_equal(e->type, 8);
	assert_int_equal(e->config, 0x11);
	pmu_event_list_free(l);

	/* No core PMU: still PERF_TYPE_HARDWARE on "cpu", so opening says why it fails. */
	pmu_sysroot_set(fx_none);
	e = parse_one("instructions:u", &l);
	assert_int_equal(e->type, PERF_TYPE_HARDWARE);
	assert_int_equal(e->config, PERF_COUNT_HW_INSTRUCTIONS);
	assert_string_equal(e->pmu, "cpu");
	pmu_event_list_free(l);
	assert_int_equal(pmu_device_core_list(NULL, 0), 0);
	assert_int_equal(pmu_event_parse("cpu/event=0x3c/", &l), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "unknown PMU 'cpu' at position 0"));
	assert_non_null(strstr(pmu_error_detail(), "; no hardware PMU: "));
}

struct err_want {
	const char *spec;
	int code;
	const char *detail;
};

static void test_errors(void **state)
{
	static char longname[300];
	static const struct err_want w[] = {
		{ "cyclse", PMU_ENOENT, "unknown event 'cyclse' at position 0; did you mean: cycles, cpu-cycles" },
		{ "cycles,instrutcions", PMU_ENOENT,
		  "unknown event 'instrutcions' at position 7; did you mean: instructions" },
		{ "L1-dcache-lod-misses", PMU_ENOENT, "did you mean: L1-dcache-load-misses" },
		{ "{cycles,instr", PMU_EPARSE, "expected '}' at position 13 in '{cycles,instr'" },
		{ "cycles:x", PMU_EPARSE, "bad modifier ':x' at position 7" },
		{ "cycles:pppp", PMU_EPARSE, "bad modifier ':pppp' at position 7" },
		{ "cycles:", PMU_EPARSE, "expected modifier letters after ':' at position 7" },
		{ "", PMU_EPARSE, "empty event list" },
		{ "  ", PMU_EPARSE, "empty event list" },
		{ "cycles,,instructions", PMU_EPARSE, "unexpected ',' at position 7" },
		{ "cycles,", PMU_EPARSE, "expected an event name at position 7" },
		{ "{cycles,{instructions}}", PMU_EPARSE, "groups cannot be nested: '{' at position 8" },
		{ "{}", PMU_EPARSE, "empty group at position 0" },
		{ "cycles}", PMU_EPARSE, "unexpected '}' at position 6" },
		{ "{cycles}:q", PMU_EPARSE, "bad modifier ':q' at position 9" },
		{ "cycles instructions", PMU_EPARSE, "unexpected 'i' at position 7" },
		{ "cycles;", PMU_EPARSE, "unexpected ';' at position 6" },
		{ "nope/event=1/", PMU_ENOENT, "unknown PMU 'nope' at position 0" },
		{ "cpi/event=1/", PMU_ENOENT, "did you mean: cpu" },
		{ "cpu/foo=1/", PMU_ENOENT, "unknown term 'foo' at position 4 for PMU 'cpu'" },
		{ "cpu/evnt=1/", PMU_ENOENT, "did you mean: event" },
		{ "cpu/event=0x100/", PMU_EINVAL,
		  "value 0x100 of term 'event' at position 4 does not fit the 8 bits of format 'event'" },
		{ "cpu/event=zz/", PMU_EPARSE, "term 'event' at position 4 needs a number, not 'zz'" },
		{ "cpu/event=1", PMU_EPARSE, "expected ',' or '/' at position 11" },
		{ "cpu/event=/", PMU_EPARSE, "unexpected '/' at position 10 in 'cpu/event=/' (expected a value after '=')" },
		{ "instructions,{cycles,power/energy-pkg/}", PMU_EINVAL,
		  "mixes events of different hardware PMUs ('cpu' and 'power')" },
		{ "{cycles:pp}:pp", PMU_EPARSE,
		  "precise level of 'cycles' at position 1 adds up to 4 with its group's ':pp'" },
		{ "{cycles,instructions:ppp}:p", PMU_EPARSE, "'instructions' at position 8 adds up to 4" },
		{ "cycles:u=1", PMU_EPARSE, "bad modifier ':u=1' at position 7" },
		{ "cpu/event/", PMU_EPARSE,
		  "term 'event' at position 4 needs a value: format 'event' of PMU 'cpu' has 8 bits" },
		{ "cpu/event=08x/", PMU_EPARSE, "needs a number, not '08x'" },
		{ "cpu/event=0x/", PMU_EPARSE, "needs a number, not '0x'" },
		{ "cpu/mem-loads-ldlat/", PMU_EINVAL,
		  "event 'mem-loads-ldlat' of PMU 'cpu' at position 4 needs a value for its parameter "
		  "'ldlat' (cpu/events/mem-loads-ldlat = 'event=0xcd,umask=0x1,ldlat=?'): write "
		  "cpu/mem-loads-ldlat,ldlat=N/" },
		{ "mem-loads-ldlat", PMU_EINVAL, "needs a value for its parameter 'ldlat'" },
		{ "cpu/mem-loads-ldlat,ldlat=0x10000/", PMU_EINVAL,
		  "value 0x10000 of term 'ldlat' at position 20 does not fit the 16 bits" },
		{ "cpu/config3=1/", PMU_ENOTSUP, "term 'config3' at position 4 sets config3" },
		{ "{r3c,power/energy-pkg/}", PMU_EINVAL, "('cpu' and 'power')" },
		{ "rzz", PMU_ENOENT, "unknown event 'rzz'" },
		{ longname, PMU_EPARSE, "event name too long at position 0" },
		{ "\x01", PMU_EPARSE, "unexpected byte 0x01 at position 0" },
	};

	(void)state;
	memset(longname, 'a', sizeof(longname) - 1);
	pmu_sysroot_set(fx_x86);
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		struct pmu_event_list *l = (void *)1;
		int ret = pmu_event_parse(w[i].spec, &l);

		if (ret != w[i].code || !strstr(pmu_error_detail(), w[i].detail))
			fail_msg("'%.40s': got %d '%s', want %d '%s'", w[i].spec, ret, pmu_error_detail(),
				 w[i].code, w[i].detail);
		assert_null(l);
	}
	assert_int_equal(pmu_event_parse(NULL, NULL), PMU_EINVAL);
}

static void test_libpfm(void **state)
{
	struct pmu_event_list *l = NULL;
	const struct pmu_event *e;
	int ret;

	(void)state;
	pmu_sysroot_set(fx_x86);
	if (!pmuk_pfm_ready()) {
		fprintf(stderr, "skip libpfm4 names: libpfm4 is not compiled in or did not initialise\n");
		skip();
	}
	/* libpfm4's "perf" pseudo-PMU exists on every host. */
	e = parse_one("perf::PERF_COUNT_SW_CPU_CLOCK", &l);
	assert_int_equal(e->type, PERF_TYPE_SOFTWARE);
	assert_int_equal(e->config, PERF_COUNT_SW_CPU_CLOCK);
	assert_string_equal(e->name, "perf::PERF_COUNT_SW_CPU_CLOCK");
	assert_string_equal(e->pmu, "software");
	pmu_event_list_free(l);
	e = parse_one("PERF_COUNT_SW_PAGE_FAULTS:u", &l);
	assert_int_equal(e->config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(e->exclude_kernel, 1);
	assert_string_equal(e->name, "PERF_COUNT_SW_PAGE_FAULTS:u");
	pmu_event_list_free(l);

	/* Levels written the libpfm4 way count: ":k:u" is both, ":h" the hypervisor only. */
	e = parse_one("PERF_COUNT_SW_CPU_CLOCK:k:u", &l);
	assert_true(!e->exclude_user && !e->exclude_kernel && e->exclude_hv);
	pmu_event_list_free(l);
	e = parse_one("PERF_COUNT_SW_CPU_CLOCK:h", &l);
	assert_true(e->exclude_user && e->exclude_kernel && !e->exclude_hv);
	pmu_event_list_free(l);
	e = parse_one("PERF_COUNT_SW_CPU_CLOCK:u=1:k=0", &l);
	assert_true(!e->exclude_user && e->exclude_kernel);
	pmu_event_list_free(l);
	/* libpfm4's precise=N adds to :p as a group's p does. */
	e = parse_one("perf::PERF_COUNT_HW_CPU_CYCLES:precise=2:p", &l);
	assert_int_equal(e->precise_ip, 3);
	assert_int_equal(e->type, PERF_TYPE_HARDWARE);
	pmu_event_list_free(l);
	assert_int_equal(pmu_event_parse("perf::PERF_COUNT_HW_CPU_CYCLES:precise=2:pp", &l),
			 PMU_EPARSE);
	/* An event libpfm4 knows but cannot encode as written: libpfm4's reason. */
	assert_int_equal(pmu_event_parse("perf::PERF_COUNT_HW_CPU_CYCLES:FOO", &l), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "libpfm4 cannot encode "
			       "'perf::PERF_COUNT_HW_CPU_CYCLES:FOO' at position 0: invalid event "
			       "attribute"));
	assert_int_equal(pmu_event_parse("cycles,PERF_COUNT_SW_CPU_CLOCK:u=2", &l), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "at position 7: invalid event attribute value"));
	assert_null(l);

	/* CPU-specific names work only where libpfm4 detects the core PMU. */
	ret = pmu_event_parse("INST_RETIRED:ANY_P", &l);
	if (ret) {
		assert_int_equal(ret, PMU_ENOENT);
		fprintf(stderr, "skip INST_RETIRED:ANY_P: libpfm4 detects no Intel core PMU here\n");
		skip();
	}
	e = pmu_event_list_get(l, 0);
	assert_int_not_equal(e->type, PERF_TYPE_SOFTWARE);
	assert_int_equal(e->kind, PMU_EVENT_RAW);
	pmu_event_list_free(l);
	l = parse_ok("inst_retired.any");
	pmu_event_list_free(l);
}

static void test_suggest(void **state)
{
	struct pmuk_suggest s;
	char buf[128];

	(void)state;
	assert_int_equal(pmuk_edit_distance("cycles", "cycles"), 0);
	assert_int_equal(pmuk_edit_distance("cyclse", "cycles"), 1);
	assert_int_equal(pmuk_edit_distance("CYCLES", "cycles"), 0);
	assert_int_equal(pmuk_edit_distance("", "abc"), 3);
	pmuk_suggest_init(&s, "cyclse");
	pmuk_suggest_add(&s, "instructions");
	pmuk_suggest_add(&s, "cpu-cycles");
	pmuk_suggest_add(&s, "cycles");
	pmuk_suggest_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "; did you mean: cycles, cpu-cycles?");
	pmuk_suggest_init(&s, "zzzzzz");
	pmuk_suggest_add(&s, "cycles");
	pmuk_suggest_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* Random event-ish strings: every one parses or fails cleanly (run under ASan too). */
static void test_random(void **state)
{
	static const char alphabet[] = "cyles{},:/=ukhp0x1r-_.Lmsr tsc";
	unsigned seed = 12345;
	char buf[48];

	(void)state;
	pmu_sysroot_set(fx_x86);
	for (int i = 0; i < 20000; i++) {
		struct pmu_event_list *l = NULL;
		size_t n = (seed = seed * 1103515245 + 12345) % (sizeof(buf) - 1);
		int ret;

		for (size_t k = 0; k < n; k++) {
			seed = seed * 1103515245 + 12345;
			buf[k] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		buf[n] = '\0';
		ret = pmu_event_parse(buf, &l);
		assert_true(ret <= 0);
		if (ret)
			assert_true(pmu_error_detail()[0] != '\0');
		else
			assert_true(pmu_event_list_count(l) > 0);
		pmu_event_list_free(l);
	}
}

/* One place chooses the tracefs sentence: not readable (PMU_EPERM) or not mounted. */
static void test_tracefs_hint(void **state)
{
	(void)state;
	assert_string_equal(pmuk_tracefs_hint(PMU_EPERM), PMUK_TRACEFS_PERM_HINT);
	assert_non_null(strstr(pmuk_tracefs_hint(PMU_ENOENT), "tracefs"));
	assert_string_not_equal(pmuk_tracefs_hint(PMU_ENOENT), PMUK_TRACEFS_PERM_HINT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic), cmocka_unit_test(test_cache),
		cmocka_unit_test(test_modifiers), cmocka_unit_test(test_groups),
		cmocka_unit_test(test_raw_and_pmu_terms), cmocka_unit_test(test_split_format),
		cmocka_unit_test(test_uncore_alias), cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_tracepoint_globs),
		cmocka_unit_test(test_hybrid), cmocka_unit_test(test_arm_and_no_pmu),
		cmocka_unit_test(test_errors), cmocka_unit_test(test_libpfm),
		cmocka_unit_test(test_suggest), cmocka_unit_test(test_random),
		cmocka_unit_test(test_tracefs_hint),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
