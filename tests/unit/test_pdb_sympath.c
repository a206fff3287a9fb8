/* SPDX-License-Identifier: MIT */
/* Symbol paths (core/sympath.h): _NT_SYMBOL_PATH entries, srv*, symsrv*, cache*,
 * network servers skipped and counted, blanks and empty entries; the order of the
 * places a PDB is looked for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include "core/sympath.h"

static void expect_dirs(const char *spec, const char *const *want, size_t n, size_t remote)
{
	struct pmuk_sympath sp;

	assert_int_equal(pmuk_sympath_parse(spec, &sp), 0);
	assert_int_equal(sp.n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(sp.dirs[i], want[i]);
	assert_int_equal(sp.remote, remote);
	pmuk_sympath_free(&sp);
}

static void test_parse(void **state)
{
	static const char *const all[] = { "C:\\syms", "C:\\cache", "D:\\c", "E:\\s", "/x" };
	static const char *const two[] = { "/a", "/b" };

	(void)state;
	expect_dirs("C:\\syms;srv*C:\\cache*https://msdl.microsoft.com/download/symbols;"
		    "cache*D:\\c;symsrv*symsrv.dll*E:\\s*http://sym.example;SRV*/x*HTTPS://y",
		    all, 5, 3);
	expect_dirs(" /a ; ;/b ", two, 2, 0);
	expect_dirs(NULL, NULL, 0, 0);
	expect_dirs("", NULL, 0, 0);
	expect_dirs("srv*", NULL, 0, 0);	/* the default downstream store: none here */
	expect_dirs("srv*https://only.example", NULL, 0, 1);
	expect_dirs("/dir*with*stars", (const char *const[]){ "/dir*with*stars" }, 1, 0);
}

static void test_candidates(void **state)
{
	struct pmu_module_id id = { .guid = { 0x1b4e28ba, 0x2fa1, 0x11d2,
					      { 0x88, 0x3f, 0x00, 0x16, 0xd3, 0xcc, 0xa4, 0x27 } },
				    .age = 0x1a, .pdb = "C:\\build\\x.pdb" };
	struct pmuk_sympath sp;
	char buf[256];

	(void)state;
	assert_int_equal(pmuk_sympath_parse("/a;srv*/store*https://s", &sp), 0);
	assert_int_equal(pmuk_sympath_candidate(&sp, &id, "/img/x.exe", 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/a/x.pdb/1B4E28BA2FA111D2883F0016D3CCA4271A/x.pdb");
	assert_int_equal(pmuk_sympath_candidate(&sp, &id, "/img/x.exe", 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/a/x.pdb");
	assert_int_equal(pmuk_sympath_candidate(&sp, &id, "/img/x.exe", 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/store/x.pdb/1B4E28BA2FA111D2883F0016D3CCA4271A/x.pdb");
	assert_int_equal(pmuk_sympath_candidate(&sp, &id, "/img/x.exe", 4, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "C:\\build\\x.pdb");
	assert_int_equal(pmuk_sympath_candidate(&sp, &id, "/img/x.exe", 5, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/img/x.pdb");
	assert_int_equal(pmuk_sympath_candidate(&sp, &id, "/img/x.exe", 6, buf, sizeof(buf)),
			 PMU_ENOENT);
	/* no image: the recorded path is the last place */
	assert_int_equal(pmuk_sympath_candidate(&sp, &id, NULL, 5, buf, sizeof(buf)), PMU_ENOENT);
	/* too small a buffer: that place is skipped, not truncated */
	assert_int_equal(pmuk_sympath_candidate(&sp, &id, "/img/x.exe", 0, buf, 10), PMU_ERANGE);
	pmuk_sympath_free(&sp);
	assert_string_equal(pmuk_path_base("C:\\a/b\\c.pdb"), "c.pdb");
	assert_string_equal(pmuk_path_base("plain.pdb"), "plain.pdb");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_candidates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
