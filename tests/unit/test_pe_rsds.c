/* SPDX-License-Identifier: MIT */
/* PE CodeView RSDS identity on synthetic PE32 / PE32+ images (pe_synth.h), file and
 * mapped layouts, the GUID spellings, and corrupt variants. The PE files the mingw
 * toolchain produces are checked by test_pe_mingw.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include <pmukit/error.h>
#include <pmukit/symbols.h>
#include "core/guid.h"
#include "formats/pe_rsds.h"
#include "pe_synth.h"

static const uint8_t G[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
			       0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static uint8_t img[PE_SYNTH_SIZE];

static void check_id(const struct pmu_module_id *id, uint32_t age, const char *pdb)
{
	char s[64];
	uint8_t raw[16];

	pmuk_guid_store(raw, &id->guid);
	assert_memory_equal(raw, G, 16);
	assert_int_equal(id->age, age);
	assert_string_equal(id->pdb, pdb);
	/* Windows prints Data1-3 little-endian, Data4 as bytes. */
	assert_int_equal(pmu_guid_format(&id->guid, s, sizeof(s)), 0);
	assert_string_equal(s, "33221100-5544-7766-8899-aabbccddeeff");
}

static void test_pe32plus(void **state)
{
	struct pmu_module_id id;
	size_t n = pe_synth(img, 1, 0, G, 7, "C:\\build\\app.pdb");
	char key[64];

	(void)state;
	assert_int_equal(pmu_module_id_from_pe(img, n, &id), 0);
	check_id(&id, 7, "C:\\build\\app.pdb");
	assert_int_equal(pmu_module_id_symstore_key(&id, key, sizeof(key)), 0);
	assert_string_equal(key, "33221100554477668899AABBCCDDEEFF7");
	assert_int_equal(pmu_module_id_symstore_key(&id, key, 33), PMU_ERANGE);
	assert_int_equal(pmu_guid_format(&id.guid, key, 36), PMU_ERANGE);
	id.age = 0x1a;
	assert_int_equal(pmu_module_id_symstore_key(&id, key, sizeof(key)), 0);
	assert_string_equal(key, "33221100554477668899AABBCCDDEEFF1A");
}

static void test_pe32_and_mapped(void **state)
{
	struct pmu_module_id id;
	size_t n;

	(void)state;
	n = pe_synth(img, 0, 0, G, 1, "a.pdb");
	assert_int_equal(pmu_module_id_from_pe(img, n, &id), 0);
	check_id(&id, 1, "a.pdb");
	n = pe_synth(img, 1, 1, G, 2, "mapped.pdb");
	assert_int_equal(pmuk_pe_module_id(img, n, PMUK_PE_MAPPED, &id), 0);
	check_id(&id, 2, "mapped.pdb");
	n = pe_synth(img, 0, 1, G, 3, "m32.pdb");
	assert_int_equal(pmuk_pe_module_id(img, n, PMUK_PE_MAPPED, &id), 0);
	check_id(&id, 3, "m32.pdb");
}

static void test_file(void **state)
{
	char path[] = "/tmp/pmukit-pe-XXXXXX";
	struct pmu_module_id id;
	size_t n = pe_synth(img, 1, 0, G, 9, "file.pdb");
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, img, n), (ssize_t)n);
	close(fd);
	assert_int_equal(pmu_module_id_from_pe_file(path, &id), 0);
	check_id(&id, 9, "file.pdb");
	/* Truncated on disk: the CodeView record is gone. */
	assert_int_equal(truncate(path, 0x220), 0);
	assert_int_equal(pmu_module_id_from_pe_file(path, &id), PMU_EFORMAT);
	unlink(path);
	assert_int_equal(pmu_module_id_from_pe_file(path, &id), PMU_ENOENT);
}

static void expect(int want, const uint8_t *p, size_t n, const char *needle)
{
	struct pmu_module_id id;

	assert_int_equal(pmu_module_id_from_pe(p, n, &id), want);
	if (!strstr(pmu_error_detail(), needle))
		fail_msg("detail '%s' lacks '%s'", pmu_error_detail(), needle);
}

static void test_corrupt(void **state)
{
	size_t n;

	(void)state;
	n = pe_synth(img, 1, 0, G, 1, "x.pdb");
	expect(PMU_EFORMAT, img, 10, "past the end");                  /* truncated */
	expect(PMU_EFORMAT, img, 0x210, "past the end");               /* mid debug dir */
	pe_w32(img + 0x3c, 0xfffffff0);                                 /* bad e_lfanew */
	expect(PMU_EFORMAT, img, n, "e_lfanew");
	pe_w32(img + 0x3c, 0x10);
	expect(PMU_EFORMAT, img, n, "PE signature");
	n = pe_synth(img, 1, 0, G, 1, "x.pdb");
	img[0x40 + 24] = 0x07;                                          /* magic */
	expect(PMU_EFORMAT, img, n, "magic");
	n = pe_synth(img, 1, 0, G, 1, "x.pdb");
	pe_w32(img + 0x40 + 24 + 112 + 48, 0x7fff0000);                 /* debug dir outside */
	expect(PMU_EFORMAT, img, n, "no section");
	n = pe_synth(img, 1, 0, G, 1, "x.pdb");
	pe_w32(img + 0x40 + 24 + 112 + 52, 27);                         /* odd dir size */
	expect(PMU_EFORMAT, img, n, "multiple of 28");
	n = pe_synth(img, 1, 0, G, 1, "x.pdb");
	pe_w32(img + 0x200 + 24, 0x7ffffff0);                           /* CodeView outside */
	expect(PMU_EFORMAT, img, n, "past the end");
	n = pe_synth(img, 1, 0, G, 1, "x.pdb");
	pe_w16(img + 0x40 + 6, 5000);                                   /* sections */
	expect(PMU_EFORMAT, img, n, "5000 sections");
	/* Not corrupt, just without identity. */
	n = pe_synth(img, 1, 0, G, 1, "x.pdb");
	memcpy(img + 0x21c, "NB10", 4);
	expect(PMU_ENOENT, img, n, "RSDS");
	n = pe_synth(img, 1, 0, G, 1, "x.pdb");
	pe_w32(img + 0x40 + 24 + 112 + 52, 0);
	expect(PMU_ENOENT, img, n, "no debug directory");
	memcpy(img, "ZM", 2);
	expect(PMU_EFORMAT, img, n, "not a PE image");
}

/* Every prefix and scattered byte flips: 0, PMU_EFORMAT or PMU_ENOENT only. */
static void test_never_crashes(void **state)
{
	static uint8_t x[PE_SYNTH_SIZE];
	struct pmu_module_id id;
	size_t n = pe_synth(img, 1, 0, G, 1, "some\\long\\path.pdb");
	int err;

	(void)state;
	for (size_t len = 0; len <= n; len++) {
		err = pmu_module_id_from_pe(img, len, &id);
		assert_true(err == 0 || err == PMU_EFORMAT || err == PMU_ENOENT);
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(x, img, n);
		x[i] ^= 0xff;
		err = pmu_module_id_from_pe(x, n, &id);
		assert_true(err == 0 || err == PMU_EFORMAT || err == PMU_ENOENT);
		assert_true(strlen(id.pdb) < sizeof(id.pdb));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pe32plus),
		cmocka_unit_test(test_pe32_and_mapped),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_never_crashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
