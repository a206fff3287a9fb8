/* SPDX-License-Identifier: MIT */
/* Windows raw profile-source registration: ExtendedBits packing (the WPT example
 * "01000100"), the WPRP fragment and registry form byte for byte, the three event
 * spellings (rNNNN, intel:..., cpu/.../ through a fixture sysfs) and refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/events.h>
#include "core/wprp.h"
#include "pmu_fixture.h"

static char *fx_x86, *fx_arm;

static int setup(void **state)
{
	(void)state;
	fx_x86 = pmu_fixture_make("x86");
	fx_arm = pmu_fixture_make("arm64");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pmu_sysroot_set("");
	pmu_fixture_free(fx_x86);
	pmu_fixture_free(fx_arm);
	return 0;
}

static char *render(const struct pmuk_wprp_source *s, int registry, const char *model)
{
	static char out[2048];
	FILE *f = fmemopen(out, sizeof(out), "w");

	assert_non_null(f);
	if (registry)
		assert_int_equal(pmuk_wprp_write_registry(f, s, model), 0);
	else
		assert_int_equal(pmuk_wprp_write_xml(f, s), 0);
	fclose(f);
	return out;
}

/* The WPT example: Event 0x48 Unit 0x01 ExtendedBits "01000100" is
 * L1D_PEND_MISS.PENDING_CYCLES_ANY = cmask 1 + AnyThread. */
static void test_wpt_example(void **state)
{
	struct pmuk_wprp_source s;
	char ext[9];
	uint64_t config = 0x48 | 0x01 << 8 | 1ull << 21 | 1ull << 24;

	(void)state;
	assert_int_equal(pmuk_wprp_from_config(config, "L1DPendMissPendingCyclesAny", 2000003, &s), 0);
	pmuk_wprp_extended_bits(&s, ext);
	assert_string_equal(ext, "01000100");
	assert_string_equal(render(&s, 0, NULL),
		"<MicroArchitecturalConfig>\n"
		"  <ProfileSource Architecture=\"INTEL\" Event=\"0x48\" Unit=\"0x01\" "
		"ExtendedBits=\"01000100\" Name=\"L1DPendMissPendingCyclesAny\" Interval=\"2000003\"/>\n"
		"</MicroArchitecturalConfig>\n");
	assert_string_equal(render(&s, 1, "Intel64 Family 6 Model 85"),
		"Windows Registry Editor Version 5.00\n\n"
		"; ExtendedBits 01000100 has no documented registry value: use the WPRP fragment "
		"for this event.\n"
		"[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WMI\\ProfileSource\\"
		"Intel64 Family 6 Model 85\\L1DPendMissPendingCyclesAny]\n"
		"\"Event\"=dword:00000048\n\"Unit\"=dword:00000001\n\"Interval\"=dword:001e8483\n");
	assert_string_equal(s.warning, "");
}

/* Each flag lands in its own field: CMask CMaskInvert AnyThread EdgeDetect. */
static void test_extended_bits_fields(void **state)
{
	struct pmuk_wprp_source s;
	char ext[9];

	(void)state;
	assert_int_equal(pmuk_wprp_from_config(0xc2 | 1ull << 23, NULL, 0, &s), 0);
	pmuk_wprp_extended_bits(&s, ext);
	assert_string_equal(ext, "00010000");
	assert_int_equal(pmuk_wprp_from_config(0xc2 | 1ull << 18, NULL, 0, &s), 0);
	pmuk_wprp_extended_bits(&s, ext);
	assert_string_equal(ext, "00000001");
	assert_int_equal(pmuk_wprp_from_config(0xc2 | 1ull << 21, NULL, 0, &s), 0);
	pmuk_wprp_extended_bits(&s, ext);
	assert_string_equal(ext, "00000100");
	assert_int_equal(pmuk_wprp_from_config(0xc2 | 0x05ull << 24, NULL, 0, &s), 0);
	pmuk_wprp_extended_bits(&s, ext);
	assert_string_equal(ext, "05000000");
	assert_string_equal(s.warning, "");
	/* CMask >= 10: hex, with the caveat in the output. */
	assert_int_equal(pmuk_wprp_from_config(0xc2 | 0x1full << 24, NULL, 0, &s), 0);
	pmuk_wprp_extended_bits(&s, ext);
	assert_string_equal(ext, "1F000000");
	assert_non_null(strstr(s.warning, "hex"));
	assert_non_null(strstr(render(&s, 0, NULL), "<!-- CMask 31"));
}

static void test_raw_spec(void **state)
{
	struct pmuk_wprp_source s;

	(void)state;
	assert_int_equal(pmuk_wprp_from_spec("r3c", &s), 0);
	assert_int_equal(s.event, 0x3c);
	assert_int_equal(s.unit, 0);
	assert_int_equal(s.interval, PMUK_WPRP_DEFAULT_INTERVAL);
	assert_string_equal(s.name, "PmukitEvent3C_Unit00");
	assert_string_equal(render(&s, 0, NULL),
		"<MicroArchitecturalConfig>\n"
		"  <ProfileSource Architecture=\"INTEL\" Event=\"0x3C\" Unit=\"0x00\" "
		"Name=\"PmukitEvent3C_Unit00\" Interval=\"100000\"/>\n"
		"</MicroArchitecturalConfig>\n");
	assert_non_null(strstr(render(&s, 1, NULL), "; Replace <Model>"));
	assert_non_null(strstr(render(&s, 1, NULL), "ProfileSource\\<Model>\\PmukitEvent3C_Unit00]"));
	/* perf's habit of writing USR|OS|INT|EN (0x53) into a raw value is harmless. */
	assert_int_equal(pmuk_wprp_from_spec("r5301c0", &s), 0);
	assert_int_equal(s.event, 0xc0);
	assert_int_equal(s.unit, 0x01);
	assert_false(s.cmask || s.inv || s.any || s.edge);
	assert_int_equal(pmuk_wprp_from_spec("r1c8301a3", &s), 0);  /* cmask 0x1c, inv, usr, os */
	assert_int_equal(s.cmask, 0x1c);
	assert_int_equal(s.inv, 1);
	assert_int_equal(s.event, 0xa3);
	/* Bits beyond the fields: in_tx (32), pin control (19). */
	assert_int_equal(pmuk_wprp_from_spec("r1000000c0", &s), PMU_ENOTSUP);
	assert_non_null(strstr(pmu_error_detail(), "0x100000000"));
	assert_int_equal(pmuk_wprp_from_spec("r800c0", &s), PMU_ENOTSUP);
	assert_int_equal(pmuk_wprp_from_spec("r0", &s), PMU_EINVAL);
}

static void test_intel_spec(void **state)
{
	struct pmuk_wprp_source s;
	char ext[9];

	(void)state;
	assert_int_equal(pmuk_wprp_from_spec("intel:event=0x3c,umask=0x00,cmask=1", &s), 0);
	pmuk_wprp_extended_bits(&s, ext);
	assert_string_equal(ext, "01000000");
	assert_int_equal(pmuk_wprp_from_spec("intel:event=0xc2,umask=2,cmask=1,inv,edge=1,any=0,"
					     "name=Uops Retired.Stalls,interval=50000", &s), 0);
	pmuk_wprp_extended_bits(&s, ext);
	assert_string_equal(ext, "01010001");
	assert_string_equal(s.name, "Uops_Retired_Stalls");
	assert_int_equal(s.interval, 50000);
	assert_int_equal(pmuk_wprp_from_spec("intel:umask=1", &s), PMU_EPARSE);
	assert_non_null(strstr(pmu_error_detail(), "event="));
	assert_int_equal(pmuk_wprp_from_spec("intel:event=0x3c,foo=1", &s), PMU_EPARSE);
	assert_non_null(strstr(pmu_error_detail(), "'foo'"));
	assert_int_equal(pmuk_wprp_from_spec("intel:event=0x3c,cmask=300", &s), PMU_EPARSE);
	assert_int_equal(pmuk_wprp_from_spec("intel:event=0x3c,inv=2", &s), PMU_EPARSE);
	assert_int_equal(pmuk_wprp_from_spec("intel:event=zz", &s), PMU_EPARSE);
	assert_int_equal(pmuk_wprp_from_spec("", &s), PMU_EPARSE);
}

/* cpu/.../ and generic names go through pmu_event_parse (a fixture sysfs here). */
static void test_parsed_spec(void **state)
{
	struct pmuk_wprp_source s;
	char ext[9];

	(void)state;
	assert_int_equal(pmu_sysroot_set(fx_x86), 0);
	assert_int_equal(pmuk_wprp_from_spec("cpu/event=0x3c,umask=0x00,cmask=2,inv,edge/", &s), 0);
	assert_int_equal(s.event, 0x3c);
	pmuk_wprp_extended_bits(&s, ext);
	assert_string_equal(ext, "02010001");
	assert_string_equal(s.name, "PmukitEvent3C_Unit00_Ext");
	assert_int_equal(pmuk_wprp_from_spec("cpu/cpu-cycles/", &s), 0);
	assert_int_equal(s.event, 0x3c);
	/* A generic event has a curated source already. */
	assert_int_equal(pmuk_wprp_from_spec("instructions", &s), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "InstructionRetired"));
	/* by identity, whatever spelling was typed (the event keeps it as its name) */
	assert_int_equal(pmuk_wprp_from_spec("cpu-cycles:u", &s), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "cpu-cycles:u is a generic event"));
	assert_non_null(strstr(pmu_error_detail(), "TotalCycles"));
	assert_int_equal(pmuk_wprp_from_spec("cycles,instructions", &s), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "2 events"));
	/* An Arm core PMU does not use the Intel layout. */
	assert_int_equal(pmu_sysroot_set(fx_arm), 0);
	assert_int_equal(pmuk_wprp_from_spec("armv8_pmuv3_0/event=0x11/", &s), PMU_ENOTSUP);
	assert_non_null(strstr(pmu_error_detail(), "armv8_pmuv3_0"));
	pmu_sysroot_set("");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wpt_example),
		cmocka_unit_test(test_extended_bits_fields),
		cmocka_unit_test(test_raw_spec),
		cmocka_unit_test(test_intel_spec),
		cmocka_unit_test(test_parsed_spec),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
