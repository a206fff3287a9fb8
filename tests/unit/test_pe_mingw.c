/* SPDX-License-Identifier: MIT */
/* PE CodeView RSDS identity on PE files the mingw-w64 toolchain produces: a tiny C
 * file linked with -Wl,--build-id (ld then writes an RSDS record), compared with what
 * x86_64-w64-mingw32-objdump -p prints, then corrupted. Skips (77) without
 * x86_64-w64-mingw32-gcc (Debian: gcc-mingw-w64-x86-64). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>
#include <unistd.h>

#include <pmukit/error.h>
#include <pmukit/symbols.h>
#include "core/guid.h"

static char dir[] = "/tmp/pmukit-mingw-XXXXXX";

static int run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Links dir/name.exe from t.c with extra linker flags. */
static void link_exe(const char *name, const char *flags)
{
	assert_int_equal(run("cd %s && x86_64-w64-mingw32-gcc -O1 -o %s.exe t.c %s", dir, name,
			     flags), 0);
}

/* Parses objdump's "(format RSDS signature <32 hex> age <n> pdb <path>)". objdump
 * prints the GUID in its string order (Data1, Data2, Data3 as numbers, then Data4),
 * so guid gets the Windows spelling "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX". */
static int objdump_rsds(const char *name, char guid[40], unsigned *age, char *pdb, size_t sz)
{
	char cmd[512], line[1024];
	FILE *p;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "x86_64-w64-mingw32-objdump -p %s/%s.exe", dir, name);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char hex[33], path[256] = "";
		const char *at = strstr(line, "(format RSDS signature ");

		if (!at || sscanf(at, "(format RSDS signature %32s age %u pdb %255[^)]", hex, age,
				  path) < 2)
			continue;
		assert_int_equal(strlen(hex), 32);
		for (char *h = hex; *h; h++)
			*h = (char)(*h >= 'a' && *h <= 'f' ? *h - 'a' + 'A' : *h);
		snprintf(guid, 40, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16,
			 hex + 20);
		/* "pdb (none)" when the image names no PDB */
		snprintf(pdb, sz, "%s", strcmp(path, "(none") ? path : "");
		found = 1;
	}
	pclose(p);
	return found;
}

static int setup(void **state)
{
	char path[128];
	FILE *f;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.c", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("int twice(int x) { return 2 * x; }\nint main(void) { return twice(3) - 6; }\n", f);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return run("rm -rf %s", dir);
}

static void test_build_id(void **state)
{
	struct pmu_module_id id;
	unsigned age;
	char pdb[256], path[256], guid[40], s[40];

	(void)state;
	link_exe("a", "-Wl,--build-id");
	assert_true(objdump_rsds("a", guid, &age, pdb, sizeof(pdb)));
	snprintf(path, sizeof(path), "%s/a.exe", dir);
	assert_int_equal(pmu_module_id_from_pe_file(path, &id), 0);
	assert_int_equal(pmu_guid_format(&id.guid, s, sizeof(s)), 0);
	assert_int_equal(strcasecmp(s, guid), 0);	/* objdump spells it upper-case */
	assert_int_equal(id.age, age);
	assert_string_equal(id.pdb, pdb);
	assert_string_equal(id.pdb, "");   /* objdump says "pdb (none)" */
}

/* A chosen build id and a PDB name: the GUID spelling Windows uses follows. */
static void test_chosen_id_and_pdb(void **state)
{
	static const uint8_t raw[16] = { 0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66,
					 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	struct pmu_module_id id;
	unsigned age;
	char pdb[256], path[256], guid[40], s[64];
	uint8_t stored[16];

	(void)state;
	/* ld reads the build id as a GUID in string order and stores it mixed-endian. */
	link_exe("b", "-Wl,--build-id=0x00112233445566778899aabbccddeeff -Wl,--pdb=b.pdb");
	assert_true(objdump_rsds("b", guid, &age, pdb, sizeof(pdb)));
	snprintf(path, sizeof(path), "%s/b.exe", dir);
	assert_int_equal(pmu_module_id_from_pe_file(path, &id), 0);
	pmuk_guid_store(stored, &id.guid);
	assert_memory_equal(stored, raw, 16);
	assert_int_equal(id.age, age);
	assert_int_equal(id.age, 1);
	assert_string_equal(id.pdb, pdb);
	assert_string_equal(id.pdb, "b.pdb");
	assert_int_equal(pmu_guid_format(&id.guid, s, sizeof(s)), 0);
	assert_int_equal(strcasecmp(s, guid), 0);
	assert_string_equal(s, "00112233-4455-6677-8899-aabbccddeeff");
	assert_int_equal(pmu_module_id_symstore_key(&id, s, sizeof(s)), 0);
	assert_string_equal(s, "00112233445566778899AABBCCDDEEFF1");
}

static uint8_t *slurp(const char *name, size_t *n)
{
	char path[256];
	uint8_t *buf;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.exe", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *n, f), *n);
	fclose(f);
	return buf;
}

static void test_corrupt_variants(void **state)
{
	struct pmu_module_id id;
	uint32_t lfanew, dbg_at;
	size_t n;
	uint8_t *b;

	(void)state;
	link_exe("c", "-Wl,--build-id");
	b = slurp("c", &n);
	assert_int_equal(pmu_module_id_from_pe(b, n, &id), 0);
	/* Truncated before the CodeView data and in the headers. */
	for (size_t len = 0; len < n; len += n / 97 + 1) {
		int err = pmu_module_id_from_pe(b, len, &id);

		assert_true(err == PMU_EFORMAT || err == PMU_ENOENT || err == 0);
	}
	assert_int_equal(pmu_module_id_from_pe(b, 100, &id), PMU_EFORMAT);
	/* Debug directory RVA pointing outside every section. */
	lfanew = b[0x3c] | b[0x3d] << 8 | (uint32_t)b[0x3e] << 16 | (uint32_t)b[0x3f] << 24;
	dbg_at = lfanew + 24 + 112 + 8 * 6;
	b[dbg_at + 3] = 0x7f;
	assert_int_equal(pmu_module_id_from_pe(b, n, &id), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "debug directory"));
	b[dbg_at + 3] = 0;
	assert_int_equal(pmu_module_id_from_pe(b, n, &id), 0);
	/* Bad e_lfanew. */
	b[0x3f] = 0x40;
	assert_int_equal(pmu_module_id_from_pe(b, n, &id), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "e_lfanew"));
	free(b);
	/* Without --build-id there is no identity: a clear PMU_ENOENT. */
	link_exe("d", "");
	b = slurp("d", &n);
	assert_int_equal(pmu_module_id_from_pe(b, n, &id), PMU_ENOENT);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_chosen_id_and_pdb),
		cmocka_unit_test(test_corrupt_variants),
	};

	if (system("command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 && "
		   "command -v x86_64-w64-mingw32-objdump >/dev/null 2>&1")) {
		fprintf(stderr, "skip: x86_64-w64-mingw32-gcc/objdump not installed "
				"(Debian package gcc-mingw-w64-x86-64)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
