/* SPDX-License-Identifier: MIT */
/* The symbolizer on this very test binary: sym_outer() inlines sym_middle() and
 * sym_inner() (sym_fixture.h), so an address inside sym_inner must resolve to the
 * chain sym_inner (sym_fixture.h) <- sym_middle (sym_fixture.h) <- sym_outer (this
 * file), at the lines the SYM-... markers name. Live (this process) and offline (the
 * executable mapped from /proc/self/maps, or as a whole image), build-id mismatch
 * (stale binary), a missing file, a stripped copy, addresses in no module, and a side
 * by side comparison with binutils addr2line -f -i. Skips (77) when pmukit was built
 * without elfutils libdw. */
#include <elf.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include <pmukit/caps.h>
#include <pmukit/error.h>
#include <pmukit/symbols.h>

#include "core/symbols_int.h"
#include "sym_fixture.h"

static volatile uintptr_t probe_ra;
static char exe[4096];
static uint8_t build_id[20];
static size_t build_id_size;

__attribute__((noinline)) void sym_probe(void)
{
	probe_ra = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) int sym_outer(int x)
{
	return sym_middle(x) * 2; /* SYM-OUTER-CALL */
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "(null)";
}

static void print_frames(const char *what, uint64_t addr, const struct pmu_frame *f, size_t n)
{
	fprintf(stderr, "%s 0x%llx:\n", what, (unsigned long long)addr);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "  %s+0x%llx at %s:%u:%u%s (%s+0x%llx)\n", f[i].function,
			(unsigned long long)f[i].symbol_offset, base(f[i].file), f[i].line,
			f[i].column, f[i].flags & PMU_FRAME_INLINED ? " inlined" : "",
			base(f[i].module), (unsigned long long)f[i].module_offset);
}

/* The chain of the address inside sym_inner. */
static void assert_probe_chain_in(const struct pmu_frame *f, size_t n, const char *module)
{
	assert_int_equal(n, 3);
	assert_string_equal(f[0].function, "sym_inner");
	assert_string_equal(base(f[0].file), "sym_fixture.h");
	assert_int_equal(f[0].line, marker_line("sym_fixture.h", "SYM-INNER-CALL"));
	assert_true(f[0].flags & PMU_FRAME_INLINED);
	assert_string_equal(f[1].function, "sym_middle");
	assert_string_equal(base(f[1].file), "sym_fixture.h");
	assert_int_equal(f[1].line, marker_line("sym_fixture.h", "SYM-MIDDLE-CALL"));
	assert_true(f[1].flags & PMU_FRAME_INLINED);
	assert_string_equal(f[2].function, "sym_outer");
	assert_string_equal(base(f[2].file), "test_symbols.c");
	assert_int_equal(f[2].line, marker_line("test_symbols.c", "SYM-OUTER-CALL"));
	assert_false(f[2].flags & (PMU_FRAME_INLINED | PMU_FRAME_STALE | PMU_FRAME_NOFILE));
	assert_true(f[2].symbol_offset > 0 && f[2].symbol_offset < 4096);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(f[i].module, module);
		assert_int_equal(f[i].module_offset, f[0].module_offset);
	}
}

static void assert_probe_chain(const struct pmu_frame *f, size_t n)
{
	assert_probe_chain_in(f, n, exe);
}

static int setup(void **state)
{
	struct pmu_symbolizer *s;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int err;

	(void)state;
	assert_true(n > 0);
	exe[n] = 0;
	build_id_size = self_build_id(build_id);
	sym_outer(1);
	assert_true(probe_ra != 0);
	err = pmu_symbolizer_open(NULL, &s);
	if (err == PMU_ENOTSUP) {
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		exit(77);
	}
	assert_int_equal(err, 0);
	pmu_symbolizer_close(s);
	return 0;
}

static struct pmu_symbolizer *open_sym(int offline, int no_inline)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = offline, .no_inline = no_inline);
	struct pmu_symbolizer *s;

	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	return s;
}

static void test_live(void **state)
{
	struct pmu_symbolizer *s = open_sym(0, 0);
	struct pmu_frame f[8];
	size_t n;

	(void)state;
	assert_int_equal(pmu_symbolizer_resolve(s, probe_ra - 1, f, 8, &n), 0);
	print_frames("live", probe_ra - 1, f, n);
	assert_probe_chain(f, n);
	/* a function's first byte */
	assert_int_equal(pmu_symbolizer_resolve(s, (uintptr_t)&sym_outer, f, 8, &n), 0);
	assert_true(n >= 1);   /* its first instruction may already be inlined code */
	assert_string_equal(f[n - 1].function, "sym_outer");
	assert_int_equal(f[n - 1].symbol_offset, 0);
	assert_string_equal(base(f[n - 1].file), "test_symbols.c");
	/* a libc function (one no sanitizer intercepts): the module is libc */
	assert_int_equal(pmu_symbolizer_resolve(s, (uintptr_t)&gnu_get_libc_version, f, 8, &n), 0);
	assert_non_null(strstr(base(f[n - 1].module), "libc"));
	assert_non_null(f[n - 1].function);
	assert_non_null(strstr(f[n - 1].function, "get_libc_version"));
	/* page zero is mapped by nobody */
	assert_int_equal(pmu_symbolizer_resolve(s, 0x10, f, 8, &n), PMU_ENOENT);
	assert_int_equal(n, 0);
	assert_non_null(strstr(pmu_error_detail(), "no file-backed mapping"));
	pmu_symbolizer_close(s);
}

static void test_truncate_and_no_inline(void **state)
{
	struct pmu_symbolizer *s = open_sym(0, 0);
	struct pmu_frame f[8];
	size_t n;

	(void)state;
	/* Two slots for a chain of three: the innermost and the owning function. */
	assert_int_equal(pmu_symbolizer_resolve(s, probe_ra - 1, f, 2, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(f[0].function, "sym_inner");
	assert_string_equal(f[1].function, "sym_outer");
	assert_int_equal(pmu_symbolizer_resolve(s, probe_ra - 1, f, 0, &n), PMU_EINVAL);
	pmu_symbolizer_close(s);
	s = open_sym(0, 1);
	assert_int_equal(pmu_symbolizer_resolve(s, probe_ra - 1, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "sym_outer");
	assert_int_equal(f[0].line, marker_line("test_symbols.c", "SYM-OUTER-CALL"));
	assert_false(f[0].flags & PMU_FRAME_INLINED);
	pmu_symbolizer_close(s);
}

/* The executable mapping of this program in /proc/self/maps. */
static void exe_mapping(uint64_t *start, uint64_t *end, uint64_t *pgoff)
{
	char line[8192], perm[8], path[4096];
	unsigned long long a, b, off;
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &a, &b, perm, &off, path) >= 4 &&
		    perm[2] == 'x' && !strcmp(path, exe) && probe_ra >= a && probe_ra < b) {
			*start = a;
			*end = b;
			*pgoff = off;
			fclose(f);
			return;
		}
	}
	fclose(f);
	fail_msg("no executable mapping of %s holds 0x%llx", exe, (unsigned long long)probe_ra);
}

static void test_offline(void **state)
{
	struct pmu_symbolizer *s = open_sym(1, 0);
	PMU_OPTS(pmu_symbolizer_module, m, .path = exe);
	PMU_OPTS(pmu_symbolizer_module, whole, .path = exe);
	struct pmu_frame f[8];
	uint64_t start, end, pgoff;
	size_t n;

	(void)state;
	exe_mapping(&start, &end, &pgoff);
	m.start = start;
	m.len = end - start;
	m.pgoff = pgoff;
	m.build_id = build_id;
	m.build_id_size = (uint8_t)build_id_size;
	assert_true(build_id_size >= 8);
	assert_int_equal(pmu_symbolizer_add_module(s, &m), 0);
	assert_int_equal(pmu_symbolizer_add_module(s, &m), 0);   /* merged, not doubled */
	assert_int_equal(pmu_symbolizer_resolve(s, probe_ra - 1, f, 8, &n), 0);
	print_frames("offline", probe_ra - 1, f, n);
	assert_probe_chain(f, n);
	assert_int_equal(pmu_symbolizer_resolve(s, start - 1, f, 8, &n), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "no module"));
	assert_int_equal(pmu_symbolizer_resolve(s, end, f, 8, &n), PMU_ENOENT);
	pmu_symbolizer_close(s);

	/* The whole image at the module offsets (as linked): what addr2line -e takes. */
	s = open_sym(1, 0);
	assert_int_equal(pmu_symbolizer_add_module(s, &whole), 0);
	assert_int_equal(pmu_symbolizer_resolve(s, probe_ra - 1 - start + pgoff, f, 8, &n), 0);
	print_frames("offline, as linked", probe_ra - 1 - start + pgoff, f, n);
	assert_string_equal(f[0].function, "sym_inner");
	assert_int_equal(n, 3);
	pmu_symbolizer_close(s);

	/* Live symbolizers take no modules. */
	s = open_sym(0, 0);
	assert_int_equal(pmu_symbolizer_add_module(s, &whole), PMU_EINVAL);
	pmu_symbolizer_close(s);
}

static void test_stale_missing_pe(void **state)
{
	struct pmu_symbolizer *s = open_sym(1, 0);
	uint8_t other[20];
	PMU_OPTS(pmu_symbolizer_module, m, .path = exe, .start = 0x100000, .build_id = other);
	PMU_OPTS(pmu_symbolizer_module, missing, .path = "/nonexistent/lib.so",
		 .start = 0x7000000, .len = 0x2000, .pgoff = 0x1000);
	PMU_OPTS(pmu_symbolizer_module, pe, .path = "C:\\x\\app.exe", .start = 0x140000000,
		 .len = 0x1000, .build_id = other, .build_id_size = 20, .build_id_kind = 1);
	struct pmu_frame f[8];
	size_t n;

	(void)state;
	memcpy(other, build_id, build_id_size);
	other[0] ^= 0xff;
	m.build_id_size = (uint8_t)build_id_size;
	assert_int_equal(pmu_symbolizer_add_module(s, &m), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "stale binary"));
	fprintf(stderr, "stale: %s\n", pmu_error_detail());
	assert_int_equal(pmu_symbolizer_resolve(s, 0x100000 + 0x40, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_null(f[0].function);
	assert_true(f[0].flags & PMU_FRAME_STALE);
	assert_string_equal(f[0].module, exe);
	assert_int_equal(f[0].module_offset, 0x40);

	assert_int_equal(pmu_symbolizer_add_module(s, &missing), PMU_ENOENT);
	assert_int_equal(pmu_symbolizer_resolve(s, 0x7000010, f, 8, &n), 0);
	assert_true(f[0].flags & PMU_FRAME_NOFILE);
	assert_int_equal(f[0].module_offset, 0x1010);

	/* a PE image (PDB GUID + Age identity) not on disk: its PDB is looked for by
	 * that identity (the portable PDB reader), and not found here */
	assert_int_equal(pmu_symbolizer_add_module(s, &pe), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "no PDB for C:\\x\\app.exe"));
	assert_int_equal(pmu_symbolizer_resolve(s, 0x140000100, f, 8, &n), 0);
	assert_string_equal(f[0].module, "C:\\x\\app.exe");
	assert_int_equal(f[0].module_offset, 0x100);
	pe.sz = 8;    /* older than any pmukit: no path */
	assert_int_equal(pmu_symbolizer_add_module(s, &pe), PMU_EINVAL);
	pe.sz = 0;
	assert_int_equal(pmu_symbolizer_add_module(s, &pe), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "pmu_symbolizer_module: sz is 0"));
	pmu_symbolizer_close(s);
}

/* The module offset (link-time address) of addr in this executable, from a live
 * symbolizer. */
static uint64_t linked(uintptr_t addr)
{
	struct pmu_symbolizer *s = open_sym(0, 1);
	struct pmu_frame f;
	size_t n;

	assert_int_equal(pmu_symbolizer_resolve(s, addr, &f, 1, &n), 0);
	assert_string_equal(f.module, exe);
	pmu_symbolizer_close(s);
	return f.module_offset;
}

/* copy = dir/name: this test program rewritten by objcopy ARGS. */
static void objcopy_exe(char *dir, char *copy, size_t size, const char *name, const char *args)
{
	char cmd[8192];

	assert_non_null(mkdtemp(dir));
	snprintf(copy, size, "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "objcopy %s '%s' '%s'", args, exe, copy);
	assert_int_equal(system(cmd), 0);
}

/* A copy without DWARF: names from the symbol table, no lines. */
static void test_stripped(void **state)
{
	char dir[] = "/tmp/pmukit-sym-XXXXXX", copy[512];
	struct pmu_symbolizer *s;
	PMU_OPTS(pmu_symbolizer_module, m, .path = copy);
	struct pmu_frame f[8];
	size_t n;

	(void)state;
	objcopy_exe(dir, copy, sizeof(copy), "stripped", "--strip-debug");
	s = open_sym(1, 0);
	m.build_id = build_id;
	m.build_id_size = (uint8_t)build_id_size;   /* strip keeps the build-id */
	assert_int_equal(pmu_symbolizer_add_module(s, &m), 0);
	assert_int_equal(pmu_symbolizer_resolve(s, linked(probe_ra - 1), f, 8, &n), 0);
	print_frames("stripped", linked(probe_ra - 1), f, n);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "sym_outer");
	assert_null(f[0].file);
	assert_int_equal(f[0].line, 0);
	assert_true(f[0].symbol_offset > 0);
	pmu_symbolizer_close(s);
	unlink(copy);
	rmdir(dir);
}

/* A copy without .debug_aranges (clang and rustc emit none by default; libdw
 * before 0.192 finds compile units only through it): the same lines and
 * inlined calls from the units' own ranges. */
static void test_no_aranges(void **state)
{
	char dir[] = "/tmp/pmukit-sym-XXXXXX", copy[512], cmd[1024];
	struct pmu_symbolizer *s;
	PMU_OPTS(pmu_symbolizer_module, m, .path = copy);
	struct pmu_frame f[8];
	size_t n;

	(void)state;
	objcopy_exe(dir, copy, sizeof(copy), "no-aranges", "--remove-section=.debug_aranges");
	snprintf(cmd, sizeof(cmd), "readelf -S '%s' | grep -q debug_aranges", copy);
	assert_int_not_equal(system(cmd), 0);
	s = open_sym(1, 0);
	assert_int_equal(pmu_symbolizer_add_module(s, &m), 0);
	assert_int_equal(pmu_symbolizer_resolve(s, linked(probe_ra - 1), f, 8, &n), 0);
	print_frames("no .debug_aranges", linked(probe_ra - 1), f, n);
	assert_probe_chain_in(f, n, copy);
	/* an address in no unit (the ELF header) still resolves, to module + offset */
	assert_int_equal(pmu_symbolizer_resolve(s, 0, f, 8, &n), 0);
	assert_null(f[0].file);
	pmu_symbolizer_close(s);
	unlink(copy);
	rmdir(dir);
}

/* Side by side with binutils: addr2line -f -i prints function and file:line per
 * frame, innermost first, as pmu_symbolizer_resolve does. */
static void test_vs_addr2line(void **state)
{
	uintptr_t addrs[] = { probe_ra - 1, (uintptr_t)&sym_outer, (uintptr_t)&sym_probe,
			      (uintptr_t)&test_vs_addr2line + 8 };
	struct pmu_symbolizer *s = open_sym(0, 0);
	char cmd[8192], fn[512], loc[1024];
	size_t len, compared = 0;
	FILE *p;

	(void)state;
	len = (size_t)snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s'", exe);
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " 0x%llx",
					(unsigned long long)linked(addrs[i]));
	len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " 2>/dev/null; echo END");
	p = popen(cmd, "r");
	assert_non_null(p);
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		struct pmu_frame f[8];
		size_t n;

		assert_int_equal(pmu_symbolizer_resolve(s, addrs[i], f, 8, &n), 0);
		for (size_t j = 0; j < n; j++) {
			unsigned line = 0;
			char *colon;

			if (!fgets(fn, sizeof(fn), p) || !strcmp(fn, "END\n")) {
				pclose(p);
				fprintf(stderr, "skip: addr2line (binutils) gave no output\n");
				pmu_symbolizer_close(s);
				return;
			}
			assert_non_null(fgets(loc, sizeof(loc), p));
			fn[strcspn(fn, "\n")] = 0;
			loc[strcspn(loc, " \n")] = 0;
			if ((colon = strrchr(loc, ':'))) {
				*colon = 0;
				line = (unsigned)strtoul(colon + 1, NULL, 10);
			}
			fprintf(stderr, "0x%llx frame %zu: pmukit %s %s:%u | addr2line %s %s:%u\n",
				(unsigned long long)addrs[i], j, f[j].function, base(f[j].file),
				f[j].line, fn, base(loc), line);
			assert_string_equal(f[j].function, fn);
			assert_string_equal(base(f[j].file), base(loc));
			assert_int_equal(f[j].line, line);
			compared++;
		}
	}
	assert_non_null(fgets(fn, sizeof(fn), p));
	assert_string_equal(fn, "END\n");   /* addr2line printed no more frames */
	pclose(p);
	assert_true(compared >= 6);
	pmu_symbolizer_close(s);
}

static void test_args(void **state)
{
	struct pmu_symbolizer_opts o = { .sz = 4 };  /* not even its sz */
	struct pmu_symbolizer *s;
	size_t n;

	(void)state;
	assert_int_equal(pmu_symbolizer_open(&o, &s), PMU_EINVAL);
	assert_null(s);
	o.sz = sizeof(o);
	o.pid = -3;
	assert_int_equal(pmu_symbolizer_open(&o, &s), PMU_EINVAL);
	o.pid = 0x3fffffff;   /* beyond pid_max */
	assert_int_equal(pmu_symbolizer_open(&o, &s), PMU_ESRCH);
	assert_non_null(strstr(pmu_error_detail(), "/proc/"));
	assert_int_equal(pmu_symbolizer_open(NULL, &s), 0);   /* NULL opts: this process */
	assert_int_equal(pmu_symbolizer_resolve(s, 0x1000, NULL, 1, &n), PMU_EINVAL);
	pmu_symbolizer_close(s);
	pmu_symbolizer_close(NULL);
}

/* The string pool: equal strings share one copy, by their first len bytes. */
static void test_intern(void **state)
{
	struct pmu_symbolizer *s;
	const char *a, *b, *c;
	char name[16];

	(void)state;
	assert_int_equal(pmu_symbolizer_open(NULL, &s), 0);
	a = pmuk_sym_intern(s, "main.c", 6);
	b = pmuk_sym_intern(s, "main.cpp", 6);	/* only "main.c" is asked for */
	c = pmuk_sym_intern(s, "main.cpp", 8);
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_string_equal(c, "main.cpp");
	assert_ptr_not_equal(a, c);
	assert_string_equal(pmuk_sym_intern(s, "", 0), "");
	for (int i = 0; i < 3000; i++) {	/* past a few regrowths of the index */
		snprintf(name, sizeof(name), "f%d", i);
		assert_string_equal(pmuk_sym_intern(s, name, strlen(name)), name);
	}
	assert_ptr_equal(pmuk_sym_intern(s, "main.c", 6), a);
	assert_ptr_equal(pmuk_sym_intern(s, "f2999", 5), pmuk_sym_intern(s, "f2999", 5));
	pmu_symbolizer_close(s);
}

/* pmukit caps reports the symbolizer this build has. */
static void test_caps(void **state)
{
	const struct pmu_cap_fact *fact;
	struct pmu_caps *c;

	(void)state;
	assert_int_equal(pmu_caps_probe(&c), 0);
	assert_non_null(strstr(pmu_caps_get(c, PMU_CONCERN_SYMBOLS)->reason,
			       "resolve through elfutils libdwfl"));
	fact = pmu_caps_fact_find(c, "symbolizer");
	assert_non_null(fact);
	assert_non_null(strstr(fact->value, "libdwfl 0."));
	pmu_caps_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_truncate_and_no_inline),
		cmocka_unit_test(test_offline),
		cmocka_unit_test(test_stale_missing_pe),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_no_aranges),
		cmocka_unit_test(test_vs_addr2line),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_caps),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
