/* SPDX-License-Identifier: MIT */
/* Host decisions of the Windows backend: pmukit's session names and the sweep of
 * leftovers (issue 13 item 9), the Hyper-V root partition (item 13), the PMC owners
 * and the no-session PMC decision (item 10), and the HCP read flags (item 3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include "core/etw_host.h"

static void test_session_names(void **state)
{
	static const char *const bad[] = {
		"pmukit-", "pmukit-x", "pmukit--1", "pmukit-12-", "pmukit-12-a", "pmukit-12x",
		"pmukit-99999999999", "NT Kernel Logger", "pmukitx-12", "Pmukit-12", "",
		"pmukit-1-2-3", "pmukit-+5",
	};
	uint32_t pid = 7;

	(void)state;
	assert_int_equal(pmuk_etw_session_name_pid("pmukit-1234-1", &pid), 1);
	assert_int_equal(pid, 1234);
	assert_int_equal(pmuk_etw_session_name_pid("pmukit-4294967295", &pid), 1);
	assert_int_equal(pid, 4294967295u);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pmuk_etw_session_name_pid(bad[i], &pid), 0);
	assert_int_equal(pmuk_etw_session_name_pid(NULL, &pid), 0);
}

/* pid 100 runs, 200 is gone, 300 unknown. */
static int alive(uint32_t pid, void *ctx)
{
	(*(int *)ctx)++;
	return pid == 100 ? 1 : pid == 200 ? 0 : -1;
}

static void test_sweep(void **state)
{
	int asked = 0;

	(void)state;
	assert_int_equal(pmuk_etw_sweep_decide("pmukit-200-3", 42, alive, &asked), 1);
	assert_int_equal(pmuk_etw_sweep_decide("pmukit-200", 42, alive, &asked), 1);
	assert_int_equal(pmuk_etw_sweep_decide("pmukit-100-1", 42, alive, &asked), 0);
	assert_int_equal(pmuk_etw_sweep_decide("pmukit-300-1", 42, alive, &asked), 0);
	assert_int_equal(asked, 4);
	/* Our own sessions, and sessions not ours, are never asked about nor stopped. */
	assert_int_equal(pmuk_etw_sweep_decide("pmukit-200-1", 200, alive, &asked), 0);
	assert_int_equal(pmuk_etw_sweep_decide("WPR_initiated_session-200", 42, alive, &asked), 0);
	assert_int_equal(pmuk_etw_sweep_decide("NT Kernel Logger", 42, alive, &asked), 0);
	assert_int_equal(asked, 4);
}

static struct pmuk_cpuid_hv hv(const char *sig, uint32_t max, uint32_t ebx3)
{
	struct pmuk_cpuid_hv c = { .leaf1_ecx = 1u << 31, .hv_max = max,
				   .hv_features_ebx = ebx3 };

	memcpy(c.hv_sig, sig, 12);
	return c;
}

static void test_cpuid(void **state)
{
	struct pmuk_cpuid_hv c = { 0 };
	struct pmuk_hv_verdict v;

	(void)state;
	pmuk_cpuid_hv_decode(&c, &v);
	assert_int_equal(v.vm, 0);
	assert_int_equal(v.root, 0);
	assert_string_equal(v.name, "");
	/* A Hyper-V guest: no CreatePartitions. */
	c = hv("Microsoft Hv", 0x4000000b, 0x2e7e);
	assert_int_equal(pmuk_cpuid_hv_wants_features(&c), 1);
	pmuk_cpuid_hv_decode(&c, &v);
	assert_int_equal(v.vm, 1);
	assert_string_equal(v.name, "Hyper-V");
	/* The root partition of a Windows 11 host with VBS: EBX bit 0. */
	c = hv("Microsoft Hv", 0x4000000b, 0x2e7e | 1);
	pmuk_cpuid_hv_decode(&c, &v);
	assert_int_equal(v.vm, 0);
	assert_int_equal(v.root, 1);
	assert_non_null(strstr(v.name, "root"));
	/* Leaf 0x40000003 absent: bit 0 of a stale value means nothing. */
	c = hv("Microsoft Hv", 0x40000001, 1);
	assert_int_equal(pmuk_cpuid_hv_wants_features(&c), 0);
	pmuk_cpuid_hv_decode(&c, &v);
	assert_int_equal(v.vm, 1);
	/* KVM's leaves are not Hyper-V's. */
	c = hv("KVMKVMKVM\0\0\0", 0x40000010, 1);
	assert_int_equal(pmuk_cpuid_hv_wants_features(&c), 0);
	pmuk_cpuid_hv_decode(&c, &v);
	assert_int_equal(v.vm, 1);
	assert_string_equal(v.name, "KVM");
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void test_owners(void **state)
{
	uint8_t b[8 + 4 * 12] = { 0 };
	uint32_t n, held;
	char list[128];

	(void)state;
	put32(b + 4, 4);
	put32(b + 8 + 12, 2);       /* counter 1: tagged ... */
	put32(b + 8 + 12 + 4, 19);  /* ... source 19 ... */
	put32(b + 8 + 12 + 8, 77);  /* ... tag 77 */
	put32(b + 8 + 36, 1);       /* counter 3: untagged */
	assert_int_equal(pmuk_etw_owners_parse(b, sizeof(b), &n, &held, list, sizeof(list)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(held, 2);
	assert_string_equal(list, "counter 1: owner tag 77 (source 19), counter 3: untagged "
			    "owner 0 (source 0)");
	assert_int_equal(pmuk_etw_owners_parse(b, sizeof(b) - 1, &n, &held, list, sizeof(list)),
			 PMU_EFORMAT);
	assert_int_equal(pmuk_etw_owners_parse(b, 7, &n, &held, list, sizeof(list)), PMU_EFORMAT);
}

static void test_pmc_decide(void **state)
{
	(void)state;
	assert_int_equal(pmuk_etw_pmc_decide(4, 0, 4, -1), 0);
	assert_int_equal(pmuk_etw_pmc_decide(4, 1, 4, -1), PMU_EBUDGET);
	assert_int_equal(pmuk_etw_pmc_decide(2, 0, 4, 2), 0);
	assert_int_equal(pmuk_etw_pmc_decide(3, 0, 4, 2), PMU_EBUSY);
	assert_non_null(strstr(pmu_error_detail(), "held by another profiler"));
	assert_int_equal(pmuk_etw_pmc_decide(1, 0, 0, 0), 0);
}

static void test_hcp_flags(void **state)
{
	(void)state;
	/* Enabled with DISPATCH only: read DISPATCHING only (today's probe also asked for
	 * HARDWARE_COUNTERS, which it never enabled). */
	assert_int_equal(pmuk_hcp_read_flags(1, 0), 1);
	assert_int_equal(pmuk_hcp_read_flags(1, 0x3), 3);
	assert_int_equal(pmuk_hcp_read_flags(0, 0x1), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_names),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_cpuid),
		cmocka_unit_test(test_owners),
		cmocka_unit_test(test_pmc_decide),
		cmocka_unit_test(test_hcp_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
