/* SPDX-License-Identifier: MIT */
/* The PDB reader on a PDB clang + lld make here (a small program with a static
 * function and inlined calls), then on corrupted copies: a bad signature, block
 * size, directory, stream size, symbol record length and truncations at every
 * block must give PMU_EFORMAT naming the stream and the offset, and thousands of
 * flipped bytes must never crash. Recording mode finds a PDB by the GUID+Age an
 * image load recorded, and says when it is stale or missing. Also: the DBI Age is
 * the one matched, lines of code in no procedure (assembly) through the section
 * contributions, MSVC-decorated C++ names, an inline site's end near 4 GiB and a
 * block listed over and over. Skips (77) without clang, lld and mingw-w64. */
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
#include "core/le.h"
#include "formats/pdb_int.h"

static char dir[] = "/tmp/pmukit-pdb-XXXXXX";
static uint8_t *pdb;
static size_t pdb_len;

static const char src[] =
	"volatile int g;\n"
	"static inline int sq(int x)\n{\n\treturn x * x + g;\n}\n"
	"static int __attribute__((noinline)) f(int x)\n{\n\tint s = 0;\n"
	"\tfor (int i = 0; i < x; i++)\n\t\ts += sq(i);\n\treturn s;\n}\n"
	"int start(void)\n{\n\treturn f(g) + sq(g);\n}\n";

static int setup(void **state)
{
	char cmd[1024], path[256];
	FILE *f;
	long n;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/s.c", dir);
	if (!(f = fopen(path, "w")))
		return -1;
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd %s && clang --target=x86_64-w64-mingw32 -O2 -g "
		 "-gcodeview -fuse-ld=lld -nostdlib -Wl,--entry=start -Wl,--pdb=s.pdb s.c "
		 "-o s.exe 2>/dev/null", dir);
	if (system(cmd))
		return -1;
	snprintf(path, sizeof(path), "%s/s.pdb", dir);
	if (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) || !(pdb = malloc((size_t)n)) ||
	    fread(pdb, 1, (size_t)n, f) != (size_t)n)
		return -1;
	pdb_len = (size_t)n;
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	free(pdb);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* The RVA of start(), f() and an address inside the inlined sq() in f. */
static void test_lookup(void **state)
{
	struct pmuk_pdb_frame fr[8];
	struct pmu_module_id id;
	struct pmuk_pdb *p;
	struct pmu_guid g;
	char exe[256];
	int n, inl = 0, named = 0;
	uint32_t age;

	(void)state;
	assert_int_equal(pmuk_pdb_open_mem(pdb, pdb_len, &p), 0);
	snprintf(exe, sizeof(exe), "%s/s.exe", dir);
	assert_int_equal(pmu_module_id_from_pe_file(exe, &id), 0);
	pmuk_pdb_identity(p, &g, &age);
	assert_memory_equal(&g, &id.guid, sizeof(g));
	assert_int_equal(age, id.age);
	assert_true(p->nprocs >= 2);
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct pdb_proc *pr = &p->procs[i];

		for (uint32_t a = (uint32_t)pr->rva; a < pr->rva + pr->len; a++) {
			n = pmuk_pdb_lookup(p, a, fr, 8);
			assert_true(n >= 1);
			assert_string_equal(fr[n - 1].function, pr->name);
			assert_non_null(fr[n - 1].file);
			assert_true(fr[n - 1].line >= 6 && fr[n - 1].line <= 17);
			named++;
			if (n > 1) {
				assert_string_equal(fr[0].function, "sq");
				assert_int_equal(fr[0].line, 4);
				inl++;
			}
		}
	}
	assert_true(named > 20);
	assert_true(inl > 0);
	assert_int_equal(pmuk_pdb_lookup(p, 0x7fffffff, fr, 8), 0);
	pmuk_pdb_close(p);
}

/* The Age an image's RSDS record matches is the DBI stream's (offset 8): the info
 * stream's Age goes up when a PDB is rewritten in place (MSVC /INCREMENTAL) while
 * the DBI's stays that of the image's link. */
static void test_age_from_dbi(void **state)
{
	struct pmu_module_id id;
	struct pmuk_pdb *p;
	struct pmu_guid g;
	uint8_t *b = malloc(pdb_len);
	size_t info, dbi;
	char exe[256];
	uint32_t age;

	(void)state;
	snprintf(exe, sizeof(exe), "%s/s.exe", dir);
	assert_int_equal(pmu_module_id_from_pe_file(exe, &id), 0);
	assert_int_equal(pmuk_pdb_open_mem(pdb, pdb_len, &p), 0);
	info = (size_t)pmuk_le32((const uint8_t *)p->sblocks[PDB_STREAM_INFO]) * p->bsize + 8;
	dbi = (size_t)pmuk_le32((const uint8_t *)p->sblocks[PDB_STREAM_DBI]) * p->bsize + 8;
	pmuk_pdb_close(p);
	assert_int_equal(pmuk_le32(pdb + info), id.age);
	assert_int_equal(pmuk_le32(pdb + dbi), id.age);
	memcpy(b, pdb, pdb_len);
	b[info] += 1;
	assert_int_equal(pmuk_pdb_open_mem(b, pdb_len, &p), 0);
	pmuk_pdb_identity(p, &g, &age);
	assert_int_equal(age, id.age);
	pmuk_pdb_close(p);
	memcpy(b, pdb, pdb_len);
	b[dbi] += 1;
	assert_int_equal(pmuk_pdb_open_mem(b, pdb_len, &p), 0);
	pmuk_pdb_identity(p, &g, &age);
	assert_int_equal(age, id.age + 1);
	pmuk_pdb_close(p);
	free(b);
}

/* Code in no procedure record (assembly with .cv_loc lines, as CRT and hand-written
 * routines are) takes its line from the module whose DBI section contribution holds
 * it, as llvm-symbolizer does: asmfn's rows are lines 7, 9 and 11 of a.s. */
static const char asm_src[] =
	"\t.text\n\t.globl asmfn\n\t.p2align 4\nasmfn:\n\t.cv_file 1 \"a.s\"\n"
	"\t.cv_func_id 0\n\t.cv_loc 0 1 7 0\n\tnop\n\tnop\n\t.cv_loc 0 1 9 0\n"
	"\tmovl $42, %eax\n\t.cv_loc 0 1 11 0\n\tret\n.Lend:\n"
	"\t.section .debug$S,\"dr\"\n\t.p2align 2\n\t.long 4\n"
	"\t.cv_linetable 0, asmfn, .Lend\n\t.cv_filechecksums\n\t.cv_stringtable\n";

/* Writes src to dir/name, runs build in dir (it must succeed) and opens dir/pdbname. */
static struct pmuk_pdb *build_pdb(const char *name, const char *src, const char *build,
				  const char *pdbname)
{
	struct pmuk_pdb *p;
	char cmd[1024], path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd %s && %s", dir, build);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, pdbname);
	assert_int_equal(pmuk_pdb_open(path, &p), 0);
	return p;
}

static void test_contribution_lines(void **state)
{
	static const uint32_t off[] = { 0, 1, 2, 6, 7 }, line[] = { 7, 7, 9, 9, 11 };
	struct pmuk_pdb_frame fr[8];
	struct pmuk_pdb *p;
	uint64_t rva = 0;

	(void)state;
	p = build_pdb("a.s", asm_src, "clang --target=x86_64-w64-mingw32 -g -fuse-ld=lld "
		      "-nostdlib -Wl,--entry=asmfn -Wl,--pdb=a.pdb a.s -o a.exe", "a.pdb");
	assert_int_equal(p->nprocs, 0);
	for (size_t i = 0; i < p->npubs; i++)
		if (!strcmp(p->pubs[i].name, "asmfn"))
			rva = p->pubs[i].rva;
	assert_true(rva != 0);
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		assert_int_equal(pmuk_pdb_lookup(p, (uint32_t)rva + off[i], fr, 8), 1);
		assert_string_equal(fr[0].function, "asmfn");
		assert_int_equal(fr[0].line, line[i]);
		assert_non_null(fr[0].file);
		assert_non_null(strstr(fr[0].file, "a.s"));
	}
	pmuk_pdb_close(p);
}

/* The file offset of byte off of stream i. */
static size_t file_off(const struct pmuk_pdb *p, uint32_t i, uint32_t off)
{
	const uint8_t *list = (const uint8_t *)p->sblocks[i];

	return (size_t)pmuk_le32(list + 4 * (off / p->bsize)) * p->bsize + off % p->bsize;
}

/* A procedure's end (pEnd) and an inline site's end near 4 GiB: stepping over the
 * site that does not cover an address must not wrap the offset into a read far past
 * the module stream (it did: at + 4 <= symbytes held for at = 0xfffffffe). */
static void test_inline_site_end_wraps(void **state)
{
	struct pmuk_pdb_frame fr[8];
	struct pmuk_pdb *p;
	uint8_t *b = malloc(pdb_len);
	size_t proc_end = 0, site_end = 0;
	uint32_t lo = 0, hi = 0;

	(void)state;
	assert_int_equal(pmuk_pdb_open_mem(pdb, pdb_len, &p), 0);
	for (size_t i = 0; i < p->nprocs && !site_end; i++) {
		const struct pdb_proc *pr = &p->procs[i];
		const struct pdb_module *m = &p->mods[pr->mod];

		for (uint32_t at = pr->sym; at < pr->end; at += 2 + pmuk_le16(m->s.p + at))
			if (pmuk_le16(m->s.p + at + 2) == 0x114d) {	/* S_INLINESITE */
				proc_end = file_off(p, m->stream, pr->sym + 8);
				site_end = file_off(p, m->stream, at + 8);
				lo = (uint32_t)pr->rva;
				hi = lo + pr->len;
				break;
			}
	}
	assert_true(site_end != 0);
	memcpy(b, pdb, pdb_len);
	memcpy(b + proc_end, "\xff\xff\xff\xff", 4);
	memcpy(b + site_end, "\xfe\xff\xff\xff", 4);
	pmuk_pdb_close(p);
	assert_int_equal(pmuk_pdb_open_mem(b, pdb_len, &p), 0);
	for (uint32_t rva = lo; rva < hi; rva++) {
		int n = pmuk_pdb_lookup(p, rva, fr, 8);

		assert_true(n == PMU_EFORMAT || (n >= 1 && n <= 8));
		if (n == PMU_EFORMAT)
			assert_non_null(strstr(pmu_error_detail(), "inline site"));
	}
	pmuk_pdb_close(p);
	free(b);
}

/* MSVC-decorated linkage names (the publics of a C++ build for the MSVC ABI) have no
 * demangler here: a procedure is named by its own record (ns::K::get, what DbgHelp's
 * SymFromAddr gives; llvm-symbolizer adds the parameters), never ?get@K@ns@@QEAAHH@Z. */
static const char cpp_src[] =
	"namespace ns { struct K { int v; int __attribute__((noinline)) get(int x) "
	"{ return v * x; } }; }\n"
	"ns::K k{2};\nextern \"C\" int start() { return k.get(3); }\n";

static void test_msvc_decorated(void **state)
{
	struct pmuk_pdb_frame fr[8];
	struct pmuk_pdb *p;
	int found = 0;

	(void)state;
	p = build_pdb("c.cpp", cpp_src, "clang++ --target=x86_64-pc-windows-msvc -O2 -g "
		      "-gcodeview -fno-exceptions -c c.cpp -o c.obj && lld-link /entry:start "
		      "/subsystem:console /nodefaultlib /debug /pdb:c.pdb c.obj /out:c.exe "
		      ">/dev/null", "c.pdb");
	for (size_t i = 0; i < p->npubs; i++)
		found += !strcmp(p->pubs[i].name, "?get@K@ns@@QEAAHH@Z");
	assert_int_equal(found, 1);	/* the decorated public exists */
	found = 0;
	for (size_t i = 0; i < p->nprocs; i++) {
		assert_true(pmuk_pdb_lookup(p, (uint32_t)p->procs[i].rva, fr, 8) >= 1);
		assert_true(fr[0].function[0] != '?');
		found += !strcmp(fr[0].function, "ns::K::get");
	}
	assert_int_equal(found, 1);
	pmuk_pdb_close(p);
}

/* Opens a corrupted copy: its error, and the detail must contain each of want. */
static void expect_corrupt(const uint8_t *b, size_t n, const char *want1, const char *want2)
{
	struct pmuk_pdb *p;
	int err = pmuk_pdb_open_mem(b, n, &p);

	assert_int_equal(err, PMU_EFORMAT);
	if (want1 && !strstr(pmu_error_detail(), want1))
		fail_msg("'%s' lacks '%s'", pmu_error_detail(), want1);
	if (want2 && !strstr(pmu_error_detail(), want2))
		fail_msg("'%s' lacks '%s'", pmu_error_detail(), want2);
}

static void test_corrupt_headers(void **state)
{
	uint8_t *b = malloc(pdb_len);
	uint32_t bs = pmuk_le32(pdb + 32), map = pmuk_le32(pdb + 52), dir0;

	(void)state;
	memcpy(b, pdb, pdb_len);
	b[0] = 'X';
	expect_corrupt(b, pdb_len, "not a PDB", "offset 0");
	memcpy(b, pdb, pdb_len);
	b[32] = 0x33;	/* block size 0x1033 */
	expect_corrupt(b, pdb_len, "block size", "offset 32");
	memcpy(b, pdb, pdb_len);
	b[44] = 0xff, b[45] = 0xff, b[46] = 0xff;	/* a directory of 16 MB */
	expect_corrupt(b, pdb_len, "directory", "offset 44");
	/* the directory's first block number points past the end */
	memcpy(b, pdb, pdb_len);
	b[(size_t)map * bs + 3] = 0x7f;
	expect_corrupt(b, pdb_len, "stream directory", "past the end");
	/* stream 3 (DBI) claims 1 GB: its block list runs past the directory */
	memcpy(b, pdb, pdb_len);
	dir0 = pmuk_le32(pdb + (size_t)map * bs);
	b[(size_t)dir0 * bs + 4 + 4 * 3 + 3] = 0x40;
	expect_corrupt(b, pdb_len, "stream directory", "stream 3");
	free(b);
}

/* A 3 KiB MSF whose stream 1 lists one block 125 times: 64,000 bytes copied from a
 * file that has 6 blocks. Block lists longer than the file (stream 0, the previous
 * directory, aside) are refused in the directory, before any stream is copied, so a
 * small file cannot make the reader allocate bsize/4 times its size per block. */
static void test_blocks_reused(void **state)
{
	uint8_t b[6 * 512] = { 0 };
	uint8_t *d = b + 2 * 512;

	(void)state;
	memcpy(b, "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0", 32);
	memcpy(b + 32, &(uint32_t){ 512 }, 4);	/* little-endian host */
	memcpy(b + 40, &(uint32_t){ 6 }, 4);	/* blocks */
	memcpy(b + 44, &(uint32_t){ 512 }, 4);	/* directory bytes */
	memcpy(b + 52, &(uint32_t){ 1 }, 4);	/* the block listing the directory's */
	memcpy(b + 512, &(uint32_t){ 2 }, 4);	/* the directory is block 2 */
	memcpy(d, &(uint32_t){ 2 }, 4);		/* 2 streams */
	memcpy(d + 8, &(uint32_t){ 125 * 512 }, 4);
	for (int i = 0; i < 125; i++)
		memcpy(d + 12 + 4 * i, &(uint32_t){ 5 }, 4);
	expect_corrupt(b, sizeof(b), "stream directory", "list to 125, but the file has 6");
}

/* The first symbol record of the first module with symbols gets length 0xfff0. */
static void test_corrupt_record(void **state)
{
	struct pmuk_pdb *p;
	uint8_t *b = malloc(pdb_len);
	char want[64];
	uint32_t stream = PDB_NIL, block;

	(void)state;
	assert_int_equal(pmuk_pdb_open_mem(pdb, pdb_len, &p), 0);
	for (uint32_t i = 0; i < p->nmods && stream == PDB_NIL; i++)
		if (p->mods[i].stream != PDB_NIL && p->mods[i].symbytes > 8)
			stream = p->mods[i].stream;
	assert_int_not_equal(stream, PDB_NIL);
	block = pmuk_le32((const uint8_t *)p->sblocks[stream]);
	memcpy(b, pdb, pdb_len);
	b[(size_t)block * p->bsize + 4] = 0xf0;	/* record at offset 4 (after the signature) */
	b[(size_t)block * p->bsize + 5] = 0xff;
	snprintf(want, sizeof(want), "module stream %u at offset 4", stream);
	pmuk_pdb_close(p);
	expect_corrupt(b, pdb_len, want, NULL);
	free(b);
}

/* Every truncation at a block boundary, and bytes flipped all over: an error or a
 * reader whose lookups all answer, never a crash (run it under ASan: make check-asan). */
static void test_truncated_and_flipped(void **state)
{
	uint8_t *b = malloc(pdb_len);
	struct pmuk_pdb_frame fr[8];
	uint32_t bs = pmuk_le32(pdb + 32), seed = 12345;
	struct pmuk_pdb *p;
	int opened = 0;

	(void)state;
	for (size_t n = 0; n < pdb_len; n += bs / 2)
		if (!pmuk_pdb_open_mem(pdb, n, &p))
			fail_msg("a PDB cut to %zu of %zu bytes opened", n, pdb_len);
	for (int round = 0; round < 300; round++) {
		memcpy(b, pdb, pdb_len);
		for (int k = 0; k < 8; k++) {
			seed = seed * 1103515245u + 12345u;
			b[(seed >> 8) % pdb_len] ^= (uint8_t)(1u << (seed & 7));
		}
		if (pmuk_pdb_open_mem(b, pdb_len, &p))
			continue;
		opened++;
		for (uint32_t rva = 0x1000; rva < 0x1100; rva++)
			assert_true(pmuk_pdb_lookup(p, rva, fr, 8) <= 8);
		pmuk_pdb_close(p);
	}
	assert_true(opened > 0);	/* most flips land in padding */
	free(b);
}

/* An .etl's image load: the image not on disk (a Windows path), its GUID+Age and
 * PDB name recorded; the PDB is found along the symbol path by them. Another
 * GUID: no PDB, frames without symbols (PMU_FRAME_NOFILE), said once. */
static void test_recording(void **state)
{
	struct pmu_module_id id;
	struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = 7, .tid = 7 };
	struct pmu_symbolizer *s;
	struct pmu_frame f[8];
	char exe[256];
	size_t n;

	(void)state;
	snprintf(exe, sizeof(exe), "%s/s.exe", dir);
	assert_int_equal(pmu_module_id_from_pe_file(exe, &id), 0);
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1, .symbol_path = dir);
	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	r.mmap = (struct pmu_mmap){ .start = 0x7ff600000000, .len = 0x10000,
				    .build_id_size = 20, .build_id_kind = PMU_BUILD_ID_PDB,
				    .path = "C:\\Apps\\s.exe", .debug_path = "D:\\build\\s.pdb" };
	pmuk_guid_store(r.mmap.build_id, &id.guid);
	memcpy(r.mmap.build_id + 16, &(uint32_t){ id.age }, 4);	/* little-endian host */
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 7, 0x7ff600001000, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "start");
	assert_string_equal(f[0].module, "C:\\Apps\\s.exe");
	assert_int_equal(f[0].module_offset, 0x1000);
	assert_non_null(strstr(f[0].file, "s.c"));
	/* the same image of another build: the s.pdb here is stale for it */
	r.mmap.start = 0x7ff700000000;
	r.mmap.path = "C:\\Other\\s.exe";
	r.mmap.build_id[0] ^= 1;
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "stale PDB: "));
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 7, 0x7ff700001000, f, 8, &n), 0);
	assert_null(f[0].function);
	assert_true(f[0].flags & PMU_FRAME_STALE);
	assert_int_equal(f[0].module_offset, 0x1000);
	/* and of a third build whose PDB has another name: none at all */
	r.mmap.start = 0x7ff800000000;
	r.mmap.path = "C:\\Third\\t.exe";
	r.mmap.debug_path = NULL;	/* the linker's default name: t.pdb */
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "no PDB for C:\\Third\\t.exe: t.pdb {"));
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 7, 0x7ff800000010, f, 8, &n), 0);
	assert_true(f[0].flags & PMU_FRAME_NOFILE);
	pmu_symbolizer_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_recording),
		cmocka_unit_test(test_age_from_dbi),
		cmocka_unit_test(test_contribution_lines),
		cmocka_unit_test(test_inline_site_end_wraps),
		cmocka_unit_test(test_msvc_decorated),
		cmocka_unit_test(test_corrupt_headers),
		cmocka_unit_test(test_blocks_reused),
		cmocka_unit_test(test_corrupt_record),
		cmocka_unit_test(test_truncated_and_flipped),
	};

	if (system("command -v clang >/dev/null 2>&1 && command -v lld-link >/dev/null 2>&1 && "
		   "command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1")) {
		fprintf(stderr, "skip: clang, lld or x86_64-w64-mingw32-gcc is not installed "
				"(Debian: clang lld gcc-mingw-w64-x86-64)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
