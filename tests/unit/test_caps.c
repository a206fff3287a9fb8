/* SPDX-License-Identifier: MIT */
/* The capability matrix: model and writers, the Linux judges on fixture trees
 * (paranoid, credentials, hybrid PMUs, hypervisors, NMI watchdog, tracefs, ...),
 * and one live probe of this host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmukit/caps.h>
#include <pmukit/error.h>
#include "core/caps_model.h"
#include "linux/caps_linux.h"
#include "fixture_tree.h"

static char root[256];

/* --- fixture tree ---------------------------------------------------------- */

#define put(rel, text) fixture_write(root, rel, "%s", text)
#define put_dir(rel) fixture_mkdir(root, rel)
#define put_link(rel, target) fixture_symlink(root, rel, target)

/* The fixture path of rel (one static buffer: use it before the next call). */
static const char *at(const char *rel)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	return path;
}

/* A minimal non-root Linux host: paranoid 2, no capabilities, no PMU, tracefs
 * supported and mounted, one NUMA node, /proc/stat, cpuidle. Tests then change it. */
static int setup(void **state)
{
	(void)state;
	fixture_create(root, sizeof(root), "caps");
	put("/proc/sys/kernel/osrelease", "6.1.0-test\n");
	put("/proc/sys/kernel/perf_event_paranoid", "2\n");
	put("/proc/sys/kernel/perf_event_mlock_kb", "516\n");
	put("/proc/sys/kernel/perf_event_max_sample_rate", "100000\n");
	put("/proc/sys/kernel/perf_cpu_time_max_percent", "25\n");
	put("/proc/sys/kernel/nmi_watchdog", "0\n");
	put("/proc/sys/kernel/kptr_restrict", "0\n");
	put("/proc/self/status", "Name:\tpmukit\nUid:\t1000\t1000\t1000\t1000\n"
	    "CapEff:\t0000000000000000\n");
	put("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme sse\n\n");
	put("/proc/filesystems", "nodev\tsysfs\nnodev\ttracefs\n");
	put("/proc/mounts", "sysfs /sys sysfs rw 0 0\ntracefs /sys/kernel/tracing tracefs rw 0 0\n");
	put_dir("/sys/kernel/tracing/events/sched");
	put("/proc/stat", "cpu  1 2 3 4 5 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n");
	put("/proc/kallsyms", "ffffffff81000000 T _stext\n");
	put("/sys/bus/event_source/devices/software/type", "1\n");
	put("/sys/bus/event_source/devices/tracepoint/type", "2\n");
	put_dir("/sys/devices/system/node/node0");
	put("/sys/devices/system/cpu/online", "0-3\n");
	put("/sys/devices/system/cpu/cpu0/topology/core_id", "0\n");
	put_dir("/sys/devices/system/cpu/cpu0/cpuidle/state0");
	assert_int_equal(pmu_sysroot_set(root), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pmu_sysroot_set("");
	return fixture_remove(root);
}

/* An Intel-style core PMU at /sys/bus/event_source/devices/NAME. */
static void put_core_pmu(const char *name, int type, const char *cpus)
{
	char rel[256], val[32];

	snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/type", name);
	snprintf(val, sizeof(val), "%d\n", type);
	put(rel, val);
	snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/cpus", name);
	put(rel, cpus);
	snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/rdpmc", name);
	put(rel, "1\n");
	snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/caps/max_precise", name);
	put(rel, "3\n");
	snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/caps/branches", name);
	put(rel, "32\n");
}

static void set_root_caps(void)
{
	put("/proc/self/status", "Uid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n");
}

/* Syscall results of a host whose probes all worked (with a PMU when pmu). */
static struct pmuk_caps_live live_ok(int pmu)
{
	struct pmuk_caps_live l;

	memset(&l, 0, sizeof(l));
	snprintf(l.arch, sizeof(l.arch), "x86_64");
	l.hw_count_err = pmu ? 0 : ENOENT;
	l.hw_sample_err = pmu ? 0 : ENOENT;
	l.precise_max = pmu ? 3 : PMUK_NOT_PROBED;
	l.branch_err = pmu ? 0 : PMUK_NOT_PROBED;
	l.sw_sample_records = 1;
	l.pfm = 1;
	snprintf(l.pfm_pmus, sizeof(l.pfm_pmus), pmu ? "perf,perf_raw,skl" : "perf,perf_raw");
	l.pfm_core = pmu;
	return l;
}

/* Every answer says why, and every answer short of available says what to do. */
static void assert_explained(const struct pmu_caps *c)
{
	for (int id = 1; id <= PMU_CONCERN_MAX; id++) {
		const struct pmu_cap *p = pmu_caps_get(c, id);

		if (!p->reason[0] || (p->status != PMU_CAP_AVAILABLE && !p->remedy[0]))
			fail_msg("concern %d (%s) is %s, reason \"%s\", remedy \"%s\"", id,
				 p->name, pmu_cap_status_name(p->status), p->reason, p->remedy);
	}
}

static struct pmu_caps *probe(const struct pmuk_caps_live *l)
{
	struct pmu_caps *c = NULL;

	assert_int_equal(pmuk_caps_probe_with(l, &c), 0);
	assert_non_null(c);
	assert_explained(c);
	return c;
}

#define assert_status(c, id, st) \
	assert_string_equal(pmu_cap_status_name(pmu_caps_get(c, id)->status), pmu_cap_status_name(st))
#define assert_reason_has(c, id, text) assert_non_null(strstr(pmu_caps_get(c, id)->reason, text))
#define assert_remedy_has(c, id, text) assert_non_null(strstr(pmu_caps_get(c, id)->remedy, text))

static const char *fact(const struct pmu_caps *c, const char *key)
{
	const struct pmu_cap_fact *f = pmu_caps_fact_find(c, key);

	assert_non_null(f);
	return f->value;
}

/* --- model and writers ----------------------------------------------------- */

static void test_model_and_writers(void **state)
{
	struct pmu_caps *c = pmuk_caps_new("TestOS");
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(c);
	assert_string_equal(pmu_cap_status_name(PMU_CAP_LIMITED), "limited");
	assert_null(pmu_caps_get(c, 0));
	assert_null(pmu_caps_get(c, PMU_CONCERN_MAX + 1));
	for (int id = 1; id <= PMU_CONCERN_MAX; id++) {
		assert_int_equal(pmu_caps_get(c, id)->id, id);
		assert_int_equal(pmu_caps_get(c, id)->status, PMU_CAP_AVAILABLE);
	}
	assert_string_equal(pmu_caps_get(c, PMU_CONCERN_OSCOUNTERS)->name, "OS CPU counters");
	pmuk_caps_set(c, PMU_CONCERN_COUNTING, PMU_CAP_AVAILABLE, "counters on %s", "cpu");
	pmuk_caps_limit(c, PMU_CONCERN_COUNTING, "one counter is taken");
	assert_int_equal(pmu_caps_get(c, PMU_CONCERN_COUNTING)->status, PMU_CAP_LIMITED);
	assert_string_equal(pmu_caps_get(c, PMU_CONCERN_COUNTING)->reason,
			    "counters on cpu; one counter is taken");
	pmuk_caps_set(c, PMU_CONCERN_PRECISE, PMU_CAP_UNAVAILABLE, "no \"PEBS\"");
	pmuk_caps_limit(c, PMU_CONCERN_PRECISE, "also no LBR");
	assert_int_equal(pmu_caps_get(c, PMU_CONCERN_PRECISE)->status, PMU_CAP_UNAVAILABLE);
	pmuk_caps_note(c, PMU_CONCERN_SAMPLING, "works on %s", "cpu-clock");
	assert_int_equal(pmu_caps_get(c, PMU_CONCERN_SAMPLING)->status, PMU_CAP_AVAILABLE);
	pmuk_caps_remedy(c, PMU_CONCERN_PRECISE, "run on bare metal");
	pmuk_caps_remedy(c, PMU_CONCERN_PRECISE, "or enable a vPMU");
	assert_string_equal(pmu_caps_get(c, PMU_CONCERN_PRECISE)->remedy,
			    "run on bare metal; or enable a vPMU");
	for (int i = 0; i < 100; i++)
		pmuk_caps_fact(c, i % 9, "k", "explained", "%d", i);
	pmuk_caps_fact(c, PMU_CONCERN_HOST, "paranoid", "why", "%d", 2);
	assert_int_equal(pmu_caps_fact_count(c), 101);
	assert_string_equal(pmu_caps_fact_find(c, "paranoid")->value, "2");
	assert_null(pmu_caps_fact_find(c, "nope"));
	assert_null(pmu_caps_fact_get(c, 101));
	pmuk_caps_host_set(c, "10.0", "arm64", 1, "Hyper-V");
	assert_string_equal(pmu_caps_host(c)->os, "TestOS");
	assert_int_equal(pmuk_caps_failed(c), 0);

	f = open_memstream(&buf, &len);
	assert_int_equal(pmu_caps_write_json(c, f, 0), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"concerns\":[{\"id\":1,\"name\":\"scalar counting\","
			       "\"status\":\"limited\",\"reason\":\"counters on cpu; one counter is taken\""));
	assert_non_null(strstr(buf, "\"reason\":\"no \\\"PEBS\\\"; also no LBR\""));
	assert_non_null(strstr(buf, "\"host\":{\"os\":\"TestOS\",\"kernel\":\"10.0\",\"arch\":\"arm64\","
			       "\"vm\":true,\"hypervisor\":\"Hyper-V\"}"));
	assert_non_null(strstr(buf, "{\"concern\":0,\"key\":\"paranoid\",\"value\":\"2\",\"explanation\":\"why\"}"));
	free(buf);
	/* PMU_JSON_PRETTY: the same document, one member a line; unknown bits refused */
	f = open_memstream(&buf, &len);
	assert_int_equal(pmu_caps_write_json(c, f, PMU_JSON_PRETTY), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\n  \"concerns\": [\n"));
	free(buf);
	assert_int_equal(pmu_caps_write_json(c, stdout, 1u << 7), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "pmu_caps_write_json: flags 0x80"));
	assert_int_equal(pmu_caps_write_json(c, NULL, 0), PMU_EINVAL);

	f = open_memstream(&buf, &len);
	assert_int_equal(pmu_caps_write_text(c, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "virtual machine (Hyper-V)"));
	assert_non_null(strstr(buf, " 3  precise data-source sampling   unavailable  no \"PEBS\""));
	assert_non_null(strstr(buf, "what to do:\n 3  precise data-source sampling: run on bare metal"));
	assert_non_null(strstr(buf, "   paranoid: 2  -- why\n"));
	free(buf);
	pmu_caps_free(c);
	assert_int_equal(pmu_caps_write_text(NULL, stdout), PMU_EINVAL);
	/* the front checks before any OS backend runs */
	assert_int_equal(pmu_caps_probe(NULL), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "pmu_caps_probe"));
}

/* --- judges on fixtures ---------------------------------------------------- */

static void test_status_file(void **state)
{
	struct pmuk_caps_sys s;

	(void)state;
	memset(&s, 0, sizeof(s));
	put("/proc/self/status", "Name:\tx\nUid:\t1000\t0\t0\t0\nCapEff:\t0000004000000000\n");
	pmuk_caps_read_status(&s);
	assert_int_equal(s.euid, 0);
	assert_true(s.have_capeff);
	assert_true(pmuk_caps_has_cap(&s, PMUK_CAP_PERFMON));
	assert_false(pmuk_caps_has_cap(&s, PMUK_CAP_SYS_ADMIN));
}

/* paranoid=3, no capabilities: perf_event_open refuses everything (EACCES). */
static void test_paranoid3_nonroot(void **state)
{
	struct pmuk_caps_live l = live_ok(0);
	struct pmu_caps *c;

	(void)state;
	put("/proc/sys/kernel/perf_event_paranoid", "3\n");
	l.sw_count_err = EACCES;
	c = probe(&l);
	for (int id = 1; id <= 3; id++) {
		assert_status(c, id, PMU_CAP_UNAVAILABLE);
		assert_reason_has(c, id, "perf_event_paranoid=3");
		assert_reason_has(c, id, "forbids it to users without CAP_PERFMON");
		assert_remedy_has(c, id, "CAP_PERFMON");
	}
	assert_string_equal(fact(c, "euid"), "1000");
	assert_non_null(strstr(pmu_caps_fact_find(c, "perf_event_paranoid")->explanation,
			       "may not use perf_event_open at all"));
	/* Without the syscall result the paranoid level alone decides the same. */
	pmu_caps_free(c);
	l.sw_count_err = PMUK_NOT_PROBED;
	c = probe(&l);
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_UNAVAILABLE);
	pmu_caps_free(c);
}

/* paranoid=2 lets a user count its own threads: a refusal then comes from a
 * seccomp filter or an LSM (a container), and the answer must not blame paranoid. */
static void test_seccomp_denied(void **state)
{
	struct pmuk_caps_live l = live_ok(0);
	struct pmu_caps *c;

	(void)state;
	l.sw_count_err = EPERM;
	c = probe(&l);
	for (int id = 1; id <= 3; id++) {
		assert_status(c, id, PMU_CAP_UNAVAILABLE);
		assert_reason_has(c, id, "denied (EPERM) although perf_event_paranoid=2 allows it");
		assert_reason_has(c, id, "seccomp");
		assert_null(strstr(pmu_caps_get(c, id)->reason, "without CAP_PERFMON"));
		assert_remedy_has(c, id, "seccomp profile");
	}
	pmu_caps_free(c);
	/* root in a container: capabilities held, still refused */
	set_root_caps();
	l.sw_count_err = EACCES;
	c = probe(&l);
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_UNAVAILABLE);
	assert_reason_has(c, PMU_CONCERN_COUNTING,
			  "perf_event_paranoid=2 and CAP_PERFMON allows it");
	pmu_caps_free(c);
}

/* paranoid=2, no capabilities, a PMU: user-space-only limits on 1, 2 and 3. */
static void test_paranoid2_nonroot_pmu(void **state)
{
	struct pmuk_caps_live l = live_ok(1);
	struct pmu_caps *c;

	(void)state;
	put_core_pmu("cpu", 4, "0-3\n");
	c = probe(&l);
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_COUNTING, "hardware and software counters on cpu");
	assert_reason_has(c, PMU_CONCERN_COUNTING,
			  "perf_event_paranoid=2: user space of your own processes only");
	assert_remedy_has(c, PMU_CONCERN_COUNTING,
			  "kernel.perf_event_paranoid=1 for kernel mode (0 for CPU-wide too)");
	assert_status(c, PMU_CONCERN_SAMPLING, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_SAMPLING, "hardware overflow and timer sampling");
	assert_status(c, PMU_CONCERN_PRECISE, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_PRECISE, "PEBS");
	assert_reason_has(c, PMU_CONCERN_PRECISE, "precise_ip up to 3");
	assert_reason_has(c, PMU_CONCERN_PRECISE, "branch stack");
	assert_reason_has(c, PMU_CONCERN_PRECISE, "physical data addresses");
	assert_string_equal(fact(c, "branch_depth"), "32");
	assert_string_equal(fact(c, "rdpmc"), "1");
	assert_status(c, PMU_CONCERN_EVENTS, PMU_CAP_AVAILABLE);
	/* tracefs is mounted and readable, raw payloads need CAP_PERFMON */
	assert_status(c, PMU_CONCERN_TRACING, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_TRACING, "tracefs at /sys/kernel/tracing");
	assert_reason_has(c, PMU_CONCERN_TRACING, "PERF_SAMPLE_RAW");
	pmu_caps_free(c);
}

/* Root with a PMU and nothing in the way: everything but decode is available. */
static void test_root_pmu_available(void **state)
{
	struct pmuk_caps_live l = live_ok(1);
	struct pmu_caps *c;

	(void)state;
	set_root_caps();
	put_core_pmu("cpu", 4, "0-3\n");
	put_dir("/sys/devices/system/cpu/cpu0/cpufreq");
	c = probe(&l);
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_AVAILABLE);
	assert_status(c, PMU_CONCERN_SAMPLING, PMU_CAP_AVAILABLE);
	assert_status(c, PMU_CONCERN_PRECISE, PMU_CAP_AVAILABLE);
	assert_status(c, PMU_CONCERN_SYMBOLS, PMU_CAP_LIMITED);
	assert_status(c, PMU_CONCERN_TRACING, PMU_CAP_AVAILABLE);
	assert_status(c, PMU_CONCERN_TOPOLOGY, PMU_CAP_AVAILABLE);
	assert_status(c, PMU_CONCERN_EVENTS, PMU_CAP_AVAILABLE);
	assert_status(c, PMU_CONCERN_OSCOUNTERS, PMU_CAP_AVAILABLE);
	/* 'pmukit cpustat' reads cpuidle residency: caps says so. */
	assert_reason_has(c, PMU_CONCERN_OSCOUNTERS, "idle-state (C-state) residency from cpuidle");
	assert_null(strstr(pmu_caps_get(c, PMU_CONCERN_OSCOUNTERS)->reason, "does not read"));
	assert_string_equal(pmu_caps_get(c, PMU_CONCERN_COUNTING)->remedy, "");
	assert_int_equal(pmu_caps_host(c)->vm, 0);
	/* an Intel core PMU with precise_ip: PEBS gives data addresses */
	assert_string_equal(fact(c, "data_address_sources"), "PEBS page-faults");
	assert_string_equal(fact(c, "memory_controller_pmus"), "none");
	pmu_caps_free(c);
	put("/sys/bus/event_source/devices/uncore_imc_0/type", "20\n");
	c = probe(&l);
	assert_string_equal(fact(c, "memory_controller_pmus"), "uncore_imc");
	assert_string_equal(fact(c, "data_address_sources_missing"),
			    "IBS SPE: each is a PMU of another CPU vendor");
	pmu_caps_free(c);
}

/* libpfm4 built in but not loadable: the injected reason is the one caps gives,
 * whatever this process's own libpfm4 does (the judge probes nothing). */
static void test_pfm_not_loaded(void **state)
{
	struct pmuk_caps_live l = live_ok(1);
	struct pmu_caps *c;
	const char *why = "cannot load libpfm.so.4 (Debian: apt install libpfm4): injected";

	(void)state;
	set_root_caps();
	put_core_pmu("cpu", 4, "0-3\n");
	l.pfm = 0;
	l.pfm_pmus[0] = 0;
	l.pfm_core = 0;
	snprintf(l.pfm_why, sizeof(l.pfm_why), "%s", why);
	c = probe(&l);
	assert_status(c, PMU_CONCERN_EVENTS, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_EVENTS, why);
	assert_remedy_has(c, PMU_CONCERN_EVENTS, "apt install libpfm4");
	assert_string_equal(fact(c, "libpfm4"), "failed");
	assert_string_equal(pmu_caps_fact_find(c, "libpfm4")->explanation, why);
	pmu_caps_free(c);
}

/* arm_pmu accepts precise_ip and ignores it: without SPE there is no precise sampling. */
static void test_arm64_precise_ignored(void **state)
{
	struct pmuk_caps_live l = live_ok(1);
	struct pmu_caps *c;

	(void)state;
	set_root_caps();
	put_core_pmu("armv8_pmuv3_0", 6, "0-3\n");
	snprintf(l.arch, sizeof(l.arch), "aarch64");
	l.branch_err = EOPNOTSUPP;
	c = probe(&l);
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_AVAILABLE);
	assert_status(c, PMU_CONCERN_PRECISE, PMU_CAP_UNAVAILABLE);
	assert_reason_has(c, PMU_CONCERN_PRECISE, "SPE");
	assert_remedy_has(c, PMU_CONCERN_PRECISE, "arm_spe_pmu");
	assert_string_equal(fact(c, "precise_ip_ignored"), "aarch64");
	assert_string_equal(fact(c, "data_address_sources"), "page-faults");
	assert_string_equal(fact(c, "data_address_sources_missing"), "PEBS IBS SPE: the core "
			    "PMU samples without data addresses (no precise_ip) and there is no "
			    "ibs_op or arm_spe PMU");
	assert_reason_has(c, PMU_CONCERN_TOPOLOGY, "only the software page-faults event");
	pmu_caps_free(c);
	/* with SPE (its sysfs PMU) the hardware source exists and the limit goes */
	put("/sys/bus/event_source/devices/arm_spe_0/type", "9\n");
	c = probe(&l);
	assert_string_equal(fact(c, "data_address_sources"), "SPE page-faults");
	assert_null(strstr(pmu_caps_get(c, PMU_CONCERN_TOPOLOGY)->reason, "page-faults"));
	pmu_caps_free(c);
	fixture_remove(at("/sys/bus/event_source/devices/arm_spe_0"));
	/* the arm64 analog of rdpmc switched off */
	put("/proc/sys/kernel/perf_user_access", "0\n");
	c = probe(&l);
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_COUNTING,
			  "user-space counter reads are disabled (kernel.perf_user_access=0)");
	assert_remedy_has(c, PMU_CONCERN_COUNTING, "sysctl kernel.perf_user_access=1");
	assert_string_equal(fact(c, "perf_user_access"), "0");
	pmu_caps_free(c);
	put("/proc/sys/kernel/perf_user_access", "1\n");
	c = probe(&l);
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_AVAILABLE);
	pmu_caps_free(c);
}

static void test_hybrid(void **state)
{
	struct pmuk_caps_live l = live_ok(1);
	struct pmu_caps *c;

	(void)state;
	set_root_caps();
	put_core_pmu("cpu_core", 4, "0-7\n");
	put_core_pmu("cpu_atom", 10, "8-15\n");
	c = probe(&l);
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_AVAILABLE);
	assert_reason_has(c, PMU_CONCERN_COUNTING, "cpu_atom,cpu_core");
	assert_reason_has(c, PMU_CONCERN_COUNTING, "hybrid");
	assert_string_equal(fact(c, "core_pmus"), "cpu_atom,cpu_core");
	assert_non_null(strstr(pmu_caps_fact_find(c, "core_pmus")->explanation, "hybrid"));
	pmu_caps_free(c);
}

/* No PMU in a KVM guest named by DMI: the answer says so. */
static void test_vm_no_pmu(void **state)
{
	struct pmuk_caps_live l = live_ok(0);
	struct pmu_caps *c;

	(void)state;
	put("/proc/cpuinfo", "vendor_id\t: AuthenticAMD\nflags\t\t: fpu hypervisor sse\n");
	put("/sys/class/dmi/id/sys_vendor", "QEMU\n");
	put("/sys/class/dmi/id/product_name", "KVM\n");
	c = probe(&l);
	assert_int_equal(pmu_caps_host(c)->vm, 1);
	assert_string_equal(pmu_caps_host(c)->hypervisor, "KVM");
	assert_string_equal(fact(c, "hypervisor_flag"), "yes");
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_COUNTING,
			  "no hardware PMU: virtual machine (KVM): the hypervisor exposes no virtual PMU");
	assert_reason_has(c, PMU_CONCERN_COUNTING, "software counters only");
	assert_remedy_has(c, PMU_CONCERN_COUNTING, "virtual PMU");
	assert_status(c, PMU_CONCERN_SAMPLING, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_SAMPLING,
			  "timer-based software sampling only (cpu-clock)");
	assert_status(c, PMU_CONCERN_PRECISE, PMU_CAP_UNAVAILABLE);
	assert_reason_has(c, PMU_CONCERN_PRECISE, "no hardware PMU");
	assert_status(c, PMU_CONCERN_TOPOLOGY, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_TOPOLOGY, "concern 3");
	/* data addresses: only page-faults here, and why the hardware sources are absent */
	assert_reason_has(c, PMU_CONCERN_TOPOLOGY, "only the software page-faults event");
	assert_string_equal(fact(c, "memory_controller_pmus"), "none");
	assert_string_equal(fact(c, "data_address_sources"), "page-faults");
	assert_string_equal(fact(c, "data_address_sources_missing"), "PEBS IBS SPE: no hardware "
			    "PMU: virtual machine (KVM): the hypervisor exposes no virtual PMU");
	assert_status(c, PMU_CONCERN_EVENTS, PMU_CAP_LIMITED);
	assert_string_equal(fact(c, "cycles_open"), "ENOENT");
	assert_status(c, PMU_CONCERN_OSCOUNTERS, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_OSCOUNTERS, "usual in a virtual machine");
	pmu_caps_free(c);

	/* Xen names itself in /sys/hypervisor (before DMI); a CPUID signature wins over both. */
	put("/sys/hypervisor/type", "xen\n");
	c = probe(&l);
	assert_string_equal(pmu_caps_host(c)->hypervisor, "Xen");
	pmu_caps_free(c);
	snprintf(l.hv_vendor, sizeof(l.hv_vendor), "Microsoft Hv");
	c = probe(&l);
	assert_string_equal(pmu_caps_host(c)->hypervisor, "Hyper-V");
	pmu_caps_free(c);
	/* Only the flag: a virtual machine, hypervisor not named. */
	l.hv_vendor[0] = '\0';
	unlink(at("/sys/hypervisor/type"));
	unlink(at("/sys/class/dmi/id/product_name"));
	unlink(at("/sys/class/dmi/id/sys_vendor"));
	c = probe(&l);
	assert_int_equal(pmu_caps_host(c)->vm, 1);
	assert_string_equal(pmu_caps_host(c)->hypervisor, "");
	assert_reason_has(c, PMU_CONCERN_COUNTING,
			  "no hardware PMU: virtual machine: the hypervisor exposes no virtual PMU");
	pmu_caps_free(c);
}

/* The NMI watchdog and another profiler hold counters. */
static void test_counter_owners(void **state)
{
	struct pmuk_caps_live l = live_ok(1);
	struct pmu_caps *c;

	(void)state;
	set_root_caps();
	put_core_pmu("cpu", 4, "0-3\n");
	put("/proc/sys/kernel/nmi_watchdog", "1\n");
	put("/proc/4242/comm", "perf\n");
	put_link("/proc/4242/fd/0", "/dev/null");
	put_link("/proc/4242/fd/5", "anon_inode:[perf_event]");
	put("/proc/4343/comm", "bash\n");
	put_link("/proc/4343/fd/0", "/dev/pts/0");
	c = probe(&l);
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_COUNTING, "one counter is taken by the NMI watchdog");
	assert_remedy_has(c, PMU_CONCERN_COUNTING,
			  "echo 0 > /proc/sys/kernel/nmi_watchdog to free it");
	assert_reason_has(c, PMU_CONCERN_COUNTING, "4242(perf)");
	assert_string_equal(fact(c, "perf_event_holders"), "1: 4242(perf)");
	pmu_caps_free(c);

	/* On arm64 the watchdog uses no PMU counter of ours to report. */
	snprintf(l.arch, sizeof(l.arch), "aarch64");
	c = probe(&l);
	assert_null(strstr(pmu_caps_get(c, PMU_CONCERN_COUNTING)->reason, "NMI watchdog"));
	pmu_caps_free(c);
}

static void test_tracefs(void **state)
{
	struct pmuk_caps_live l = live_ok(0);
	struct pmu_caps *c;

	(void)state;
	/* supported, not mounted, not root */
	put("/proc/mounts", "sysfs /sys sysfs rw 0 0\n");
	fixture_remove(at("/sys/kernel/tracing"));
	c = probe(&l);
	assert_status(c, PMU_CONCERN_TRACING, PMU_CAP_UNAVAILABLE);
	assert_reason_has(c, PMU_CONCERN_TRACING, "needs root");
	assert_remedy_has(c, PMU_CONCERN_TRACING, "run pmukit as root once (it mounts tracefs");
	assert_string_equal(fact(c, "tracefs"), "not mounted (supported by the kernel)");
	pmu_caps_free(c);
	/* root: pmukit mounts it on first use, as perf does */
	set_root_caps();
	c = probe(&l);
	assert_status(c, PMU_CONCERN_TRACING, PMU_CAP_AVAILABLE);
	assert_reason_has(c, PMU_CONCERN_TRACING, "pmukit mounts it at /sys/kernel/tracing");
	pmu_caps_free(c);
	/* the kernel has none */
	put("/proc/filesystems", "nodev\tsysfs\n");
	unlink(at("/sys/bus/event_source/devices/tracepoint/type"));
	rmdir(at("/sys/bus/event_source/devices/tracepoint"));
	c = probe(&l);
	assert_status(c, PMU_CONCERN_TRACING, PMU_CAP_UNAVAILABLE);
	assert_reason_has(c, PMU_CONCERN_TRACING, "no tracepoint support");
	pmu_caps_free(c);
	/* found through debugfs even when /proc/mounts does not list tracefs */
	put_dir("/sys/kernel/debug/tracing/events/sched");
	c = probe(&l);
	assert_status(c, PMU_CONCERN_TRACING, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_TRACING, "tracefs at /sys/kernel/debug/tracing");
	assert_reason_has(c, PMU_CONCERN_TRACING, "no tracepoint PMU");
	pmu_caps_free(c);
}

static void test_symbols(void **state)
{
	/* One NT_GNU_BUILD_ID note: namesz 4, descsz 4, type 3, "GNU\0", desc. */
	static const unsigned char note[] = { 4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0,
					      'G', 'N', 'U', 0, 0xde, 0xad, 0xbe, 0xef };
	struct pmuk_caps_live l = live_ok(0);
	struct pmu_caps *c;
	char path[512];
	FILE *f;

	(void)state;
	fixture_path(root, "/sys/kernel/notes", path, sizeof(path));
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(note, 1, sizeof(note), f);
	fclose(f);
	put("/proc/sys/kernel/kptr_restrict", "1\n");
	put("/proc/kallsyms", "0000000000000000 T _stext\n");
	c = probe(&l);
	assert_status(c, PMU_CONCERN_SYMBOLS, PMU_CAP_LIMITED);
	assert_string_equal(fact(c, "kernel_build_id"), "deadbeef");
	assert_string_equal(fact(c, "kallsyms"), "addresses hidden (zeros)");
	assert_reason_has(c, PMU_CONCERN_SYMBOLS, "hidden (kptr_restrict=1)");
	assert_reason_has(c, PMU_CONCERN_SYMBOLS, "build-id is readable");
	assert_remedy_has(c, PMU_CONCERN_SYMBOLS, "CAP_SYSLOG");
	pmu_caps_free(c);
}

static void test_oscounters_and_perf_absent(void **state)
{
	struct pmuk_caps_live l = live_ok(0);
	struct pmu_caps *c;
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/perf_event_paranoid", root);
	unlink(path);
	l.sw_count_err = ENOSYS;
	c = probe(&l);
	assert_status(c, PMU_CONCERN_OSCOUNTERS, PMU_CAP_UNAVAILABLE);
	assert_reason_has(c, PMU_CONCERN_OSCOUNTERS, "/proc/stat");
	for (int id = 1; id <= 3; id++) {
		assert_status(c, id, PMU_CAP_UNAVAILABLE);
		assert_reason_has(c, id, "no perf_event support");
		assert_remedy_has(c, id, "CONFIG_PERF_EVENTS");
	}
	pmu_caps_free(c);
}

/* --- this host ------------------------------------------------------------- */

static void test_live_host(void **state)
{
	struct pmu_device dev[8];
	struct pmu_caps *c;
	char line[4096];
	int ncore, hv = 0;
	FILE *f;

	(void)state;
	pmu_sysroot_set("");
	ncore = pmu_device_core_list(dev, 8);
	assert_int_equal(pmu_caps_probe(&c), 0);
	for (int id = 1; id <= PMU_CONCERN_MAX; id++) {
		assert_non_null(pmu_caps_get(c, id));
		assert_true(pmu_caps_get(c, id)->reason[0] != '\0');
	}
	assert_non_null(pmu_caps_fact_find(c, "perf_event_paranoid"));
	assert_explained(c);
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
			hv = 1;
	if (f)
		fclose(f);
	if (hv)
		assert_int_equal(pmu_caps_host(c)->vm, 1);
	if (ncore > 0) {
		pmu_caps_free(c);
		skip(); /* a hardware PMU exists: the no-PMU answers do not apply here */
	}
	assert_status(c, PMU_CONCERN_COUNTING, PMU_CAP_LIMITED);
	assert_reason_has(c, PMU_CONCERN_COUNTING, "no hardware PMU");
	assert_reason_has(c, PMU_CONCERN_COUNTING, "software counters only");
	assert_status(c, PMU_CONCERN_PRECISE, PMU_CAP_UNAVAILABLE);
	assert_string_equal(fact(c, "core_pmus"), "none");
	pmu_caps_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_and_writers),
		cmocka_unit_test_setup_teardown(test_status_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paranoid3_nonroot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seccomp_denied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paranoid2_nonroot_pmu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_pmu_available, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arm64_precise_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pfm_not_loaded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hybrid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vm_no_pmu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counter_owners, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tracefs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symbols, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oscounters_and_perf_absent, setup, teardown),
		cmocka_unit_test(test_live_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
