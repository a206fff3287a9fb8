/* SPDX-License-Identifier: MIT */
/* The symbolizer's recording mode on real files: this test program's executable,
 * mapped for made-up processes from its /proc/self/maps line, found at its path,
 * in a ~/.debug-style build-id cache (temporary HOME, and the buildid_dir option)
 * or flagged stale (a copy with another build-id) or missing; one image for many
 * processes; a mapping laid over another; kernel frames through /proc/kallsyms
 * (`schedule`, as root); JIT frames through a /tmp/perf-PID.map the test writes;
 * C++ and Rust names demangled, or not with no_demangle. Skips (77) without libdw. */
#include <elf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmukit/error.h>
#include <pmukit/symbols.h>

#include "core/symbols_int.h"
#include "self_maps.h"
#include "sym_fixture.h"

static char exe[4096], tmp[] = "/tmp/pmukit-symrec-XXXXXX";
static uint8_t build_id[20];
static size_t build_id_size;
static uint64_t map_start, map_end, map_pgoff;

__attribute__((noinline)) int rec_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 7 + 1;
}

/* One function under two names, as glibc's read is __GI___libc_read (local, what
 * DWARF calls it: the asm label) and read (global): perf names it read. */
__attribute__((noinline, used)) static int rec__impl_alias(int x)
{
	return x * 7 + 1;
}
extern int rec_public(int x) __attribute__((alias("rec__impl_alias")));

/* The name pmukit gives a mangled one: demangled when built with libiberty. */
static const char *dm(const char *mangled, const char *demangled)
{
#ifdef PMUKIT_HAVE_IBERTY
	(void)mangled;
	return demangled;
#else
	(void)demangled;
	return mangled;
#endif
}

static void run(const char *cmd)
{
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	struct pmu_symbolizer *s;
	char line[8192], perm[8], path[4096];
	unsigned long long a, b, off;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	int err;

	(void)state;
	assert_true(n > 0);
	exe[n] = 0;
	build_id_size = self_build_id(build_id);
	assert_true(build_id_size > 0);
	assert_non_null(f = fopen("/proc/self/maps", "r"));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &a, &b, perm, &off, path) == 5 &&
		    perm[2] == 'x' && !strcmp(path, exe) && (uintptr_t)&rec_target >= a &&
		    (uintptr_t)&rec_target < b) {
			map_start = a;
			map_end = b;
			map_pgoff = off;
		}
	fclose(f);
	assert_true(map_end > map_start);
	assert_non_null(mkdtemp(tmp));
	err = pmu_symbolizer_open(NULL, &s);
	if (err == PMU_ENOTSUP) {
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		exit(77);
	}
	assert_int_equal(err, 0);
	pmu_symbolizer_close(s);
	return 0;
}

static int teardown(void **state)
{
	char cmd[4200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd);
}

static struct pmu_symbolizer *open_rec(const char *buildid_dir, int no_demangle)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1, .buildid_dir = buildid_dir,
		 .no_demangle = no_demangle);
	struct pmu_symbolizer *s;

	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	return s;
}

/* An MMAP record of the executable's code mapping, as if path held it in pid. */
static struct pmu_record mmap_rec(int32_t pid, const char *path, const uint8_t *id, size_t idn)
{
	struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = pid, .tid = pid };

	r.mmap.start = map_start;
	r.mmap.len = map_end - map_start;
	r.mmap.pgoff = map_pgoff;
	r.mmap.path = path;
	if (idn)
		memcpy(r.mmap.build_id, id, idn);
	r.mmap.build_id_size = (uint8_t)idn;
	return r;
}

static void assert_target(struct pmu_symbolizer *s, int32_t pid, const char *module)
{
	struct pmu_frame f[8];
	size_t n;

	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, (uintptr_t)&rec_target + 1, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_non_null(f[0].function);
	assert_string_equal(f[0].function, "rec_target");
	assert_int_equal(f[0].symbol_offset, 1);
	assert_string_equal(f[0].module, module);
	assert_non_null(strstr(f[0].file, "test_symbols_rec.c"));
	assert_int_equal(f[0].flags, 0);
}

static void assert_flag(struct pmu_symbolizer *s, int32_t pid, unsigned flag)
{
	struct pmu_frame f[8];
	size_t n;

	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, (uintptr_t)&rec_target, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_null(f[0].function);
	assert_int_equal(f[0].flags, flag);
}

static void test_path_and_processes(void **state)
{
	struct pmu_symbolizer *s = open_rec(NULL, 0);
	struct pmu_record r = mmap_rec(100, exe, build_id, build_id_size);
	struct pmu_frame f[8];
	size_t n;

	(void)state;
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	r.pid = 200;
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	r = mmap_rec(300, exe, NULL, 0);   /* no build-id recorded: the file as it is */
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_target(s, 100, exe);
	assert_target(s, 200, exe);
	assert_target(s, 300, exe);
	assert_int_equal(s->nimgs, 2);     /* one per path + build-id, not per process */
	{
		char deleted[4200];

		/* the kernel's name of a file replaced since: the file at the path is
		 * taken back when its build-id is the recorded one */
		snprintf(deleted, sizeof(deleted), "%s (deleted)", exe);
		r = mmap_rec(301, deleted, build_id, build_id_size);
		assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
		assert_target(s, 301, deleted);
		r = mmap_rec(302, deleted, NULL, 0);   /* without one, no names */
		assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_ENOENT);
		assert_flag(s, 302, PMU_FRAME_NOFILE);
	}
	/* another process maps nothing there */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 400, (uintptr_t)&rec_target, f, 8, &n),
			 PMU_ENOENT);
	/* an anonymous mapping laid over the middle of pid 100's replaces that part */
	r = mmap_rec(100, "//anon", NULL, 0);
	r.mmap.start = (uintptr_t)&rec_target & ~(uint64_t)0xfff;
	r.mmap.len = 0x1000;
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 100, (uintptr_t)&rec_target, f, 8, &n), 0);
	assert_string_equal(f[0].module, "//anon");
	assert_null(f[0].function);
	assert_target(s, 200, exe);
	/* what lies past the anonymous page is still the executable, at its place */
	if (r.mmap.start + 0x1000 < map_end) {
		uint64_t after = r.mmap.start + 0x1000, before = r.mmap.start - 1;
		struct pmu_frame g[8];
		size_t k;

		assert_int_equal(pmu_symbolizer_resolve_pid(s, 100, after, f, 8, &n), 0);
		assert_int_equal(pmu_symbolizer_resolve_pid(s, 200, after, g, 8, &k), 0);
		assert_string_equal(f[0].module, exe);
		assert_int_equal(f[0].module_offset, g[0].module_offset);
		if (before >= map_start) {
			assert_int_equal(pmu_symbolizer_resolve_pid(s, 100, before, f, 8, &n), 0);
			assert_int_equal(pmu_symbolizer_resolve_pid(s, 200, before, g, 8, &k), 0);
			assert_int_equal(f[0].module_offset, g[0].module_offset);
		}
	}
	r.kind = PMU_RECORD_COMM;
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_EINVAL);
	pmu_symbolizer_close(s);
}

/* A copy of the executable whose build-id differs in one byte. */
static void make_stale_copy(const char *path)
{
	FILE *f;
	long size;
	uint8_t *buf, *p;

	assert_non_null(f = fopen(exe, "rb"));
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	assert_non_null(buf = malloc((size_t)size));
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	assert_non_null(p = memmem(buf, (size_t)size, build_id, build_id_size));
	p[0] ^= 0xff;
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	free(buf);
}

static void test_stale_missing(void **state)
{
	struct pmu_symbolizer *s = open_rec(NULL, 0);
	char stale[4200], missing[4200];
	struct pmu_record r;

	(void)state;
	snprintf(stale, sizeof(stale), "%s/stale-copy", tmp);
	snprintf(missing, sizeof(missing), "%s/no-such-file", tmp);
	make_stale_copy(stale);
	setenv("HOME", tmp, 1);  /* an empty build-id cache */
	r = mmap_rec(1, stale, build_id, build_id_size);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "stale"));
	r.pid = 2;  /* said once per file */
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_flag(s, 1, PMU_FRAME_STALE);
	assert_flag(s, 2, PMU_FRAME_STALE);
	r = mmap_rec(3, missing, build_id, build_id_size);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_ENOENT);
	assert_flag(s, 3, PMU_FRAME_NOFILE);
	r = mmap_rec(4, missing, NULL, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_ENOENT);
	assert_flag(s, 4, PMU_FRAME_NOFILE);
	r = mmap_rec(5, "/proc/self/status", NULL, 0);   /* there, but no ELF file */
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "not an ELF file"));
	assert_flag(s, 5, PMU_FRAME_STALE);
	pmu_symbolizer_close(s);
}

/* The stale copy's recorded build-id found in a perf-style cache under dir. */
static void test_buildid_cache(void **state)
{
	char stale[4200], dir[4200], cmd[13000], hex[41];
	struct pmu_symbolizer *s;
	struct pmu_record r;

	(void)state;
	snprintf(stale, sizeof(stale), "%s/stale-copy2", tmp);
	make_stale_copy(stale);
	pmuk_sym_hex(build_id, build_id_size, hex);
	snprintf(dir, sizeof(dir), "%s/home/.debug/.build-id/%.2s/%s", tmp, hex, hex + 2);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s/elf'", dir, exe, dir);
	run(cmd);
	/* $HOME/.debug */
	snprintf(dir, sizeof(dir), "%s/home", tmp);
	setenv("HOME", dir, 1);
	s = open_rec(NULL, 0);
	r = mmap_rec(7, stale, build_id, build_id_size);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_target(s, 7, stale);   /* named as recorded, read from the cache */
	pmu_symbolizer_close(s);
	/* the buildid_dir option instead of $HOME */
	setenv("HOME", tmp, 1);
	snprintf(dir, sizeof(dir), "%s/home/.debug", tmp);
	s = open_rec(dir, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_target(s, 7, stale);
	pmu_symbolizer_close(s);
	s = open_rec(NULL, 0);   /* neither: stale */
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_EFORMAT);
	assert_flag(s, 7, PMU_FRAME_STALE);
	pmu_symbolizer_close(s);
}

/* The distribution's debug file by build-id (/usr/lib/debug/.build-id/xx/rest.debug),
 * looked up under a symfs root (as perf --symfs does), for a file gone from its
 * recorded path. */
static void test_debug_dir(void **state)
{
	char root[4200], dir[8400], cmd[21000], hex[41], gone[4200];
	struct pmu_symbolizer *s;
	struct pmu_record r;

	(void)state;
	pmuk_sym_hex(build_id, build_id_size, hex);
	snprintf(root, sizeof(root), "%s/sysroot", tmp);
	snprintf(dir, sizeof(dir), "%s/usr/lib/debug/.build-id/%.2s", root, hex);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s/%s.debug'", dir, exe, dir,
		 hex + 2);
	run(cmd);
	snprintf(gone, sizeof(gone), "%s/no/such/program", tmp);
	r = mmap_rec(9, gone, build_id, build_id_size);
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1, .symfs = root,
		 .buildid_dir = tmp /* no cache there */);
	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_target(s, 9, gone);
	pmu_symbolizer_close(s);
	o.symfs = NULL;   /* this machine's /usr/lib/debug has no such file */
	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_ENOENT);
	assert_flag(s, 9, PMU_FRAME_NOFILE);
	pmu_symbolizer_close(s);
}

static void test_perf_map(void **state)
{
	const int32_t pid = 0x3fffff00;   /* above pid_max: nobody's */
	char path[64];
	struct pmu_symbolizer *s;
	struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = pid, .tid = pid };
	struct pmu_frame f[4];
	size_t n;
	FILE *m;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	assert_non_null(m = fopen(path, "w"));
	fprintf(m, "7f0000001000 100 LazyCompile:~hello /app.js:3\n"
		"0x7f0000001200 0x40 _ZN3foo3barEv\n"
		"7f0000002000 80 _ZN4core3fmt5write17h0123456789abcdefE\n"
		"7f0000003000 20 _RNvNtCs1234_7mycrate3foo3bar\n"
		"garbage line\n");
	fclose(m);
	s = open_rec(NULL, 0);
	r.mmap.start = 0x7f0000000000;
	r.mmap.len = 0x2000;
	r.mmap.path = "//anon";
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000001010, f, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "LazyCompile:~hello /app.js:3");
	assert_int_equal(f[0].symbol_offset, 0x10);
	assert_string_equal(f[0].module, path);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000001230, f, 4, &n), 0);
	assert_string_equal(f[0].function, dm("_ZN3foo3barEv", "foo::bar"));
	/* no mapping at all, still in the map file */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000002010, f, 4, &n), 0);
	assert_string_equal(f[0].function, dm("_ZN4core3fmt5write17h0123456789abcdefE",
					      "core::fmt::write"));
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000003000, f, 4, &n), 0);
	assert_string_equal(f[0].function, dm("_RNvNtCs1234_7mycrate3foo3bar",
					      "mycrate::foo::bar"));
	/* anonymous code no line names */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000001900, f, 4, &n), 0);
	assert_null(f[0].function);
	assert_string_equal(f[0].module, "//anon");
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000009000, f, 4, &n), PMU_ENOENT);
	/* the sentence is written when asked, and says which address and process */
	char want[160];
	snprintf(want, sizeof(want), "0x7f0000009000 lies in no mapping of process %d nor of "
		 "the kernel, and no /tmp/perf-%d.map names it", (int)pid, (int)pid);
	assert_string_equal(pmu_error_detail(), want);
	assert_string_equal(pmu_error_detail(), want);   /* asked twice: the same */
	/* a later failure replaces it, a later unmapped address writes its own */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000009000, NULL, 4, &n),
			 PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "room for at least one frame"));
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f000000a000, f, 4, &n), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "0x7f000000a000 lies in no mapping"));
	pmu_symbolizer_close(s);
	s = open_rec(NULL, 1);   /* no_demangle */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000001230, f, 4, &n), 0);
	assert_string_equal(f[0].function, "_ZN3foo3barEv");
	pmu_symbolizer_close(s);
	unlink(path);
}

/* perf-PID.map lines of any length (a long C++ or JS name is one entry, its tail
 * no entry of its own) and bad lines (no size, zero size, wrapping, not hex)
 * skipped. */
static void test_perf_map_lines(void **state)
{
	const int32_t pid = 0x3ffffe00;   /* above pid_max: nobody's */
	char path[64], *name = malloc(6001);
	struct pmu_symbolizer *s;
	struct pmu_frame f[4];
	size_t n;
	FILE *m;

	(void)state;
	assert_non_null(name);
	memset(name, 'x', 6000);
	/* the tail past a 4 KiB buffer looks like an entry of its own */
	memcpy(name + 4095, " 7f0000005000 10 tail_entry", 27);
	name[6000] = 0;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	assert_non_null(m = fopen(path, "w"));
	fprintf(m, "7f0000004000 100 %s\n", name);
	fprintf(m, "7f0000006000\n7f0000006100 0 zero\n" "ffffffffffffff00 200 wraps\n"
		"zz 10 nothex\n7f0000006200 10\n\n7f0000006300 10 last_one");
	fclose(m);
	s = open_rec(NULL, 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000004010, f, 4, &n), 0);
	assert_int_equal(strlen(f[0].function), 6000);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000005004, f, 4, &n), PMU_ENOENT);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000006100, f, 4, &n), PMU_ENOENT);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0xffffffffffffff10ull, f, 4, &n),
			 PMU_ENOENT);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000006200, f, 4, &n), PMU_ENOENT);
	/* the last line has no newline */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, pid, 0x7f0000006301, f, 4, &n), 0);
	assert_string_equal(f[0].function, "last_one");
	pmu_symbolizer_close(s);
	unlink(path);
	free(name);
}

/* Recording mode names the function holding the code as perf report does: the
 * symbol table's best name (global over local), not DWARF's; an offline
 * symbolizer's pmu_symbolizer_resolve keeps DWARF's (what addr2line says). */
static void test_perf_names(void **state)
{
	struct pmu_symbolizer *s = open_rec(NULL, 0);
	struct pmu_record r = mmap_rec(5, exe, build_id, build_id_size);
	uint64_t addr = (uintptr_t)&rec_public + 1;
	struct pmu_frame f[8];
	size_t n;

	(void)state;
	assert_int_equal(rec_public(1), 8);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 5, addr, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "rec_public");
	assert_int_equal(f[0].symbol_offset, 1);
	assert_non_null(f[0].file);   /* the line still from DWARF */
	pmu_symbolizer_close(s);
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1);
	PMU_OPTS(pmu_symbolizer_module, m, .path = exe, .start = map_start,
		 .len = map_end - map_start, .pgoff = map_pgoff);
	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	assert_int_equal(pmu_symbolizer_add_module(s, &m), 0);
	assert_int_equal(pmu_symbolizer_resolve(s, addr, f, 8, &n), 0);
	assert_string_equal(f[0].function, "rec__impl_alias");
	pmu_symbolizer_close(s);
}

/* A forked process runs its parent's code until it execs: it starts with a copy
 * of the parent's mappings (perf's samples of a shell's subshells name bash's
 * functions); a pid used again by a later fork starts over. */
static void test_fork(void **state)
{
	struct pmu_symbolizer *s = open_rec(NULL, 0);
	struct pmu_record r = mmap_rec(30, exe, build_id, build_id_size);
	struct pmu_record fk = { .kind = PMU_RECORD_FORK, .pid = 31, .tid = 31,
				 .task = { .ppid = 30, .ptid = 30 } };
	struct pmu_frame f[8];
	size_t n;

	(void)state;
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 31, (uintptr_t)&rec_target, f, 8, &n),
			 PMU_ENOENT);
	assert_int_equal(pmu_symbolizer_add_fork(s, &fk), 0);
	assert_target(s, 31, exe);
	/* the child's own mappings after the fork are its own */
	r.pid = r.tid = 31;
	r.mmap.path = "//anon";
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_target(s, 30, exe);
	/* pid 31 used again, forked from a process without mappings */
	fk.task.ppid = 29;
	assert_int_equal(pmu_symbolizer_add_fork(s, &fk), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 31, (uintptr_t)&rec_target, f, 8, &n),
			 PMU_ENOENT);
	/* a new thread of process 30 changes nothing */
	fk = (struct pmu_record){ .kind = PMU_RECORD_FORK, .pid = 30, .tid = 32,
				  .task = { .ppid = 30, .ptid = 30 } };
	assert_int_equal(pmu_symbolizer_add_fork(s, &fk), 0);
	assert_target(s, 30, exe);
	r.kind = PMU_RECORD_COMM;
	assert_int_equal(pmu_symbolizer_add_fork(s, &r), PMU_EINVAL);
	pmu_symbolizer_close(s);
}

/* The address of a dynamic symbol of this process's vDSO, 0 when none. */
static uint64_t vdso_sym(const char *name, uint64_t *start, uint64_t *len)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Shdr) *sh;
	char line[512], path[256];
	unsigned long long a, b;
	FILE *f = fopen("/proc/self/maps", "r");

	*start = *len = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %255s", &a, &b, path) == 3 &&
		    !strcmp(path, "[vdso]")) {
			*start = a;
			*len = b - a;
		}
	if (f)
		fclose(f);
	if (!eh || !*start)
		return 0;
	sh = (const ElfW(Shdr) *)((const char *)eh + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const ElfW(Sym) *sym = (const ElfW(Sym) *)((const char *)eh + sh[i].sh_offset);
		const char *str = (const char *)eh + sh[sh[i].sh_link].sh_offset;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++)
			if (!strcmp(str + sym[k].st_name, name))
				return (uintptr_t)eh + sym[k].st_value;
	}
	return 0;
}

/* [vdso] frames: named from this process's own vDSO, the kernel's same image
 * (perf does so); another build-id is a missing module, not a wrong name. */
static void test_vdso(void **state)
{
	struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = 40, .tid = 40 };
	uint64_t start, len, fn = vdso_sym("__vdso_clock_gettime", &start, &len);
	struct pmu_symbolizer *s;
	struct pmu_frame f[4];
	size_t n;

	(void)state;
	if (!fn)
		skip();   /* no vDSO, or it exports no __vdso_clock_gettime (not x86_64) */
	r.mmap.start = start;
	r.mmap.len = len;
	r.mmap.path = "[vdso]";
	s = open_rec(tmp, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 40, fn + 2, f, 4, &n), 0);
	assert_string_equal(f[0].function, "__vdso_clock_gettime");
	assert_int_equal(f[0].symbol_offset, 2);
	assert_string_equal(f[0].module, "[vdso]");
	pmu_symbolizer_close(s);
	memset(r.mmap.build_id, 0x5a, 20);
	r.mmap.build_id_size = 20;
	s = open_rec(tmp, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_ENOENT);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 40, fn + 2, f, 4, &n), 0);
	assert_null(f[0].function);
	assert_int_equal(f[0].flags, PMU_FRAME_NOFILE);
	pmu_symbolizer_close(s);
}

/* PLT stubs are "name@plt", as perf names them; the first stub as objdump -d
 * (binutils, its own reading of the relocations) names it. */
static void test_plt(void **state)
{
	struct pmu_symbolizer *s = open_rec(NULL, 0);
	struct pmu_record r = mmap_rec(50, exe, build_id, build_id_size);
	char cmd[9000], line[512], name[256];
	unsigned long long at = 0;
	struct pmu_frame f[4];
	size_t n;
	FILE *p;

	(void)state;
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt.sec '%s' 2>/dev/null | grep -m1 "
		 "'@plt>:' || objdump -d -j .plt '%s' 2>/dev/null | grep -m1 '@plt>:'", exe,
		 exe);
	if (!(p = popen(cmd, "r")) || !fgets(line, sizeof(line), p) ||
	    sscanf(line, "%llx <%255[^>]>:", &at, name) != 2) {
		if (p)
			pclose(p);
		pmu_symbolizer_close(s);
		skip();   /* no objdump (binutils) or no PLT in this build */
	}
	pclose(p);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	/* the mapping holds file offset map_pgoff at map_start; text is linked at
	 * its file offset in these binaries */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 50, map_start - map_pgoff + at + 4, f, 4,
						    &n), 0);
	assert_non_null(f[0].function);
	assert_string_equal(f[0].function, name);
	assert_int_equal(f[0].symbol_offset, 4);
	pmu_symbolizer_close(s);
}

static void test_demangle(void **state)
{
	struct pmu_symbolizer *s = open_rec(NULL, 0);

	(void)state;
#ifndef PMUKIT_HAVE_IBERTY
	pmu_symbolizer_close(s);
	skip();   /* built without libiberty (libiberty-dev): names stay mangled */
#endif
	assert_string_equal(pmuk_sym_demangle(s, "_ZN3foo3barEv"), "foo::bar()");
	assert_string_equal(pmuk_sym_demangle(s, "_ZN3foo3barEv"), "foo::bar()"); /* cached */
	assert_string_equal(pmuk_sym_demangle(s, "_ZN3std2rt10lang_start17h4cbf5a9dfd1b7f1bE"),
			    "std::rt::lang_start");
	assert_string_equal(pmuk_sym_demangle(s, "_RNvCsfRSI5gL4tk6_7example4main"),
			    "example::main");
	assert_string_equal(pmuk_sym_demangle(s, "main"), "main");
	assert_string_equal(pmuk_sym_demangle(s, "_Znot_mangled"), "_Znot_mangled");
	/* recording mode: as perf report prints them, without parameters */
	s->perf_names = 1;
	assert_string_equal(pmuk_sym_demangle(s, "_ZN3foo3barEv"), "foo::bar");
	assert_string_equal(pmuk_sym_demangle(s, "_ZN2ns3AccIdE3addERKSsd"), "ns::Acc<double>::add");
	assert_string_equal(pmuk_sym_demangle(s, "_ZNSt5ctypeIwEC1Ev@plt"),
			    "std::ctype<wchar_t>::ctype@plt");
	s->perf_names = 0;
	assert_string_equal(pmuk_sym_demangle(s, "_ZN3foo3barEv"), "foo::bar()");
	pmu_symbolizer_close(s);
}

/* A module's text symbol named in its own mapping ("[name]" as kallsyms spells
 * it): the first module symbol of /proc/kallsyms, if any module is loaded (this
 * kernel's ftrace trampolines count). */
static void module_symbol(void)
{
	char line[512], sym[256], mod[256], type, path[260];
	unsigned long long a = 0;
	struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = -1, .tid = -1 };
	struct pmu_symbolizer *s;
	struct pmu_frame f[4];
	int found = 0;
	size_t n;
	FILE *k = fopen("/proc/kallsyms", "r");

	while (k && !found && fgets(line, sizeof(line), k))
		found = sscanf(line, "%llx %c %255s %255s", &a, &type, sym, mod) == 4 && a &&
			(type == 't' || type == 'T') && mod[0] == '[';
	if (k)
		fclose(k);
	if (!found)
		return;
	snprintf(path, sizeof(path), "%s", mod);
	r.mmap = (struct pmu_mmap){ .start = a & ~(uint64_t)0xfff, .len = 0x2000, .path = path };
	s = open_rec(NULL, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 4242, a, f, 4, &n), 0);
	assert_non_null(f[0].function);
	assert_string_equal(f[0].function, sym);
	assert_string_equal(f[0].module, path);
	pmu_symbolizer_close(s);
}

static void test_kallsyms(void **state)
{
	uint64_t text = sym_kallsyms_addr("_text"), sched = sym_kallsyms_addr("schedule");
	struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = -1, .tid = -1 };
	struct pmu_symbolizer *s;
	struct pmu_frame f[4];
	uint8_t id[20];
	size_t idn = sym_kernel_build_id(id), n;

	(void)state;
	if (!text || !sched)
		skip();   /* not root, or kptr_restrict hides the addresses */
	r.mmap.start = text;
	r.mmap.len = UINT64_MAX - text;
	r.mmap.pgoff = text;
	r.mmap.path = "[kernel.kallsyms]_text";
	memcpy(r.mmap.build_id, id, idn);
	r.mmap.build_id_size = (uint8_t)idn;
	s = open_rec(NULL, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	/* kernel frames in any process */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 4242, sched + 4, f, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "schedule");
	assert_int_equal(f[0].symbol_offset, 4);
	assert_string_equal(f[0].module, "[kernel.kallsyms]");   /* as perf names it */
	assert_int_equal(f[0].flags, 0);
	pmu_symbolizer_close(s);
	/* a module's mapping over kernel text: kallsyms' kernel names are not its */
	s = open_rec(NULL, 0);
	r.mmap = (struct pmu_mmap){ .start = sched & ~(uint64_t)0xfff, .len = 0x2000,
				    .path = "[nosuchmod]" };
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 4242, sched + 4, f, 4, &n), 0);
	assert_null(f[0].function);
	assert_string_equal(f[0].module, "[nosuchmod]");
	r.mmap.path = "/lib/modules/6.1.0/kernel/net/nf-tables.ko.xz";  /* named as kallsyms does */
	r.pid = 4242;
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 1, sched + 4, f, 4, &n), 0);
	assert_null(f[0].function);
	assert_string_equal(f[0].module, "[nf_tables]");
	r.pid = -1;
	pmu_symbolizer_close(s);
	module_symbol();
	if (!idn)
		return;
	r.mmap = (struct pmu_mmap){ .start = text, .len = UINT64_MAX - text, .pgoff = text,
				    .path = "[kernel.kallsyms]_text" };
	memcpy(r.mmap.build_id, id, idn);
	r.mmap.build_id_size = (uint8_t)idn;
	/* another kernel's recording */
	r.mmap.build_id[0] ^= 0xff;
	s = open_rec(NULL, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_EFORMAT);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 4242, sched + 4, f, 4, &n), 0);
	assert_null(f[0].function);
	assert_int_equal(f[0].flags, PMU_FRAME_STALE);
	pmu_symbolizer_close(s);
}

/* The first module text symbol of /proc/kallsyms, or 0. */
static uint64_t module_text_addr(void)
{
	char line[512], sym[256], mod[256], type;
	unsigned long long a;
	uint64_t found = 0;
	FILE *k = fopen("/proc/kallsyms", "r");

	while (k && !found && fgets(line, sizeof(line), k))
		if (sscanf(line, "%llx %c %255s %255s", &a, &type, sym, mod) == 4 &&
		    (type == 't' || type == 'T') && mod[0] == '[')
			found = a;
	if (k)
		fclose(k);
	return found;
}

/* The kernel's map as perf record and pmukit record write it, _text.._etext:
 * init text above _etext (start_kernel, in every idle stack of CPU 0) is
 * named as perf names it, and a module's code past the kernel is not given a
 * kernel name. */
static void test_kallsyms_init_text(void **state)
{
	uint64_t text = sym_kallsyms_addr("_text"), etext = sym_kallsyms_addr("_etext"),
		 init = sym_kallsyms_addr("start_kernel"), mod = module_text_addr();
	struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = -1, .tid = -1 };
	struct pmu_symbolizer *s;
	struct pmu_frame f[4];
	size_t n;

	(void)state;
	if (!text || !etext || !init || init < etext)
		skip();   /* addresses hidden, or start_kernel inside _text.._etext */
	r.mmap = (struct pmu_mmap){ .start = text, .len = etext - text, .pgoff = text,
				    .path = "[kernel.kallsyms]_text" };
	s = open_rec(NULL, 0);
	pmu_symbolizer_add_mmap(s, &r);   /* another kernel's build-id would be PMU_EFORMAT */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 4242, init + 8, f, 4, &n), 0);
	assert_non_null(f[0].function);
	assert_string_equal(f[0].function, "start_kernel");
	assert_string_equal(f[0].module, "[kernel.kallsyms]");
	if (mod > init) {
		assert_int_equal(pmu_symbolizer_resolve_pid(s, 4242, mod + 4, f, 4, &n), 0);
		assert_null(f[0].function);
	}
	pmu_symbolizer_close(s);
}

/* A stripped file's DWARF from a separate debug file found by build-id under the
 * debug_path option (DIR/.build-id/xx/rest.debug, as objcopy --only-keep-debug
 * and distributions lay them out). */
static void test_debug_path(void **state)
{
	char dir[4200], sub[8400], cmd[30000], hex[41], stripped[4200];
	struct pmu_symbolizer *s;
	struct pmu_record r;
	struct pmu_frame f[8];
	size_t n;

	(void)state;
	pmuk_sym_hex(build_id, build_id_size, hex);
	snprintf(dir, sizeof(dir), "%s/dbg", tmp);
	snprintf(sub, sizeof(sub), "%s/.build-id/%.2s", dir, hex);
	snprintf(stripped, sizeof(stripped), "%s/stripped", tmp);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && objcopy --only-keep-debug '%s' "
		 "'%s/%s.debug' && objcopy --strip-debug '%s' '%s'", sub, exe, sub, hex + 2,
		 exe, stripped);
	if (system(cmd) != 0)
		skip();   /* no objcopy (binutils) */
	r = mmap_rec(60, stripped, build_id, build_id_size);
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1, .debug_path = dir, .buildid_dir = tmp);
	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_target(s, 60, stripped);   /* function, and file from the debug file */
	pmu_symbolizer_close(s);
	o.debug_path = "/nonexistent";   /* the stripped file alone: no source line */
	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 60, (uintptr_t)&rec_target + 1, f, 8, &n), 0);
	assert_null(f[0].file);
	pmu_symbolizer_close(s);
}

/* A fake kernel's kallsyms in perf's build-id cache layout under dir; the
 * recorded kernel mapping of that build-id. */
static struct pmu_record cached_kernel(const char *dir, const char *text)
{
	struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = -1, .tid = -1 };

	memset(r.mmap.build_id, 0xab, 20);
	r.mmap.build_id_size = 20;
	sym_kallsyms_cache(dir, r.mmap.build_id, 20, text);
	r.mmap.start = 0xffffffff81000000ull;
	r.mmap.len = UINT64_MAX - r.mmap.start;
	r.mmap.pgoff = r.mmap.start;
	r.mmap.path = "[kernel.kallsyms]_text";
	return r;
}

/* Another kernel's recording named from the kallsyms perf's build-id cache
 * keeps of it; a kallsyms written under kptr_restrict (every address 0) said
 * once, its frames module + offset. */
static void test_kallsyms_cache(void **state)
{
	char dir[4200];
	struct pmu_symbolizer *s;
	struct pmu_frame f[4];
	struct pmu_record r;
	size_t n;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/kcache", tmp);
	r = cached_kernel(dir, "0000000000000000 A fixed_percpu_data\n"
			  "ffffffff81000000 T _text\n"
			  "ffffffff81000100 t helper_fn\n"
			  "ffffffff81000200 D not_text\n"
			  "ffffffff81000300 T modfn\t[somemod]\n"
			  "ffffffff81000400 W weak_fn\n");
	s = open_rec(dir, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 7, 0xffffffff81000104ull, f, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "helper_fn");
	assert_int_equal(f[0].symbol_offset, 4);
	assert_string_equal(f[0].module, "[kernel.kallsyms]");
	/* data symbols name nothing; a module's symbols are not the kernel's */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 7, 0xffffffff81000310ull, f, 4, &n), 0);
	assert_string_equal(f[0].function, "helper_fn");
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 7, 0xffffffff81000401ull, f, 4, &n), 0);
	assert_string_equal(f[0].function, "weak_fn");
	pmu_symbolizer_close(s);

	r = cached_kernel(dir, "0000000000000000 A fixed_percpu_data\n"
			  "0000000000000000 T _text\n"
			  "0000000000000000 t helper_fn\n");
	s = open_rec(dir, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "kptr_restrict"));
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);   /* said once */
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 7, 0xffffffff81000104ull, f, 4, &n), 0);
	assert_null(f[0].function);
	assert_int_equal(f[0].flags, PMU_FRAME_NOFILE);
	assert_int_equal(f[0].module_offset, 0xffffffff81000104ull);
	pmu_symbolizer_close(s);
}

/* no_lines: the same frames (functions, inlined calls, offsets, flags) without
 * their source positions, for this program's code and libc's (inlined calls
 * where libc's debug file is installed). */
static void test_no_lines(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1, .no_lines = 1);
	struct pmu_symbolizer *with = open_rec(NULL, 0), *without;
	struct pmu_record r;
	struct pmu_frame a[16], b[16];
	char libc[4096], self[4096];
	uintptr_t at[2] = { (uintptr_t)&rec_target, (uintptr_t)&qsort };
	size_t na, nb, lines = 0, inlined = 0;

	(void)state;
	assert_int_equal(pmu_symbolizer_open(&o, &without), 0);
	assert_true(self_map(at[0], 77, self, &r));
	assert_int_equal(pmu_symbolizer_add_mmap(with, &r), 0);
	assert_int_equal(pmu_symbolizer_add_mmap(without, &r), 0);
	if (self_map(at[1], 77, libc, &r)) {
		pmu_symbolizer_add_mmap(with, &r);
		pmu_symbolizer_add_mmap(without, &r);
	}
	for (int k = 0; k < 2; k++)
		for (uintptr_t x = at[k]; x < at[k] + 0x600; x += 3) {
			int ea = pmu_symbolizer_resolve_pid(with, 77, x, a, 16, &na);

			assert_int_equal(pmu_symbolizer_resolve_pid(without, 77, x, b, 16, &nb), ea);
			assert_int_equal(na, nb);
			for (size_t i = 0; i < na; i++) {
				assert_true(a[i].function == b[i].function || (a[i].function &&
					    b[i].function && !strcmp(a[i].function, b[i].function)));
				assert_int_equal(a[i].symbol_offset, b[i].symbol_offset);
				assert_int_equal(a[i].module_offset, b[i].module_offset);
				assert_int_equal(a[i].flags, b[i].flags);
				assert_null(b[i].file);
				assert_int_equal(b[i].line, 0);
				assert_int_equal(b[i].column, 0);
				lines += a[i].line != 0;
				inlined += (a[i].flags & PMU_FRAME_INLINED) != 0;
			}
		}
	assert_true(lines > 0);   /* this program is built with -g: lines were there */
	fprintf(stderr, "no_lines: %zu positions left out, %zu inlined frames kept\n", lines,
		inlined);
	pmu_symbolizer_close(with);
	pmu_symbolizer_close(without);
}

/* The DWARF and kallsyms read ahead on threads (dw_prefetch.c, kallsyms.c): the
 * same frames whether a lookup comes before the reading started, while it runs
 * or after it ended, and a symbolizer closed at any of those moments (nothing
 * resolved: the kallsyms reader is stopped) leaves nothing behind. */
static void test_read_ahead(void **state)
{
	uint64_t text = sym_kallsyms_addr("_text"), sched = sym_kallsyms_addr("schedule");
	struct pmu_record r = mmap_rec(4242, exe, build_id, build_id_size), k = r;
	struct pmu_symbolizer *s;
	struct pmu_frame f[8];
	size_t n;

	(void)state;
	k.pid = k.tid = -1;
	k.mmap = (struct pmu_mmap){ .start = text, .len = UINT64_MAX - text, .pgoff = text,
				    .path = "[kernel.kallsyms]_text" };
	for (int i = 0; i < 24; i++) {
		s = open_rec(NULL, 0);
		if (text && sched)
			assert_int_equal(pmu_symbolizer_add_mmap(s, &k), 0);
		assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
		if (i % 3)   /* the third closes with the reading under way */
			usleep((useconds_t)(i % 6) * 4000);
		if (i % 3 == 1)
			assert_target(s, 4242, exe);
		if (i % 3 == 2 && text && sched) {
			assert_int_equal(pmu_symbolizer_resolve_pid(s, 4242, sched + 4, f, 8, &n),
					 0);
			assert_string_equal(f[0].function, "schedule");
		}
		pmu_symbolizer_close(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_and_processes),
		cmocka_unit_test(test_stale_missing),
		cmocka_unit_test(test_buildid_cache),
		cmocka_unit_test(test_debug_dir),
		cmocka_unit_test(test_debug_path),
		cmocka_unit_test(test_perf_map),
		cmocka_unit_test(test_perf_map_lines),
		cmocka_unit_test(test_perf_names),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_plt),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_kallsyms_init_text),
		cmocka_unit_test(test_kallsyms_cache),
		cmocka_unit_test(test_read_ahead),
		cmocka_unit_test(test_no_lines),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
