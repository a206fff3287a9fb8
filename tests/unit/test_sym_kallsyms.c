/* SPDX-License-Identifier: MIT */
/* Which kallsyms names a recording's kernel frames (src/linux/kallsyms.c): the
 * copy perf's build-id cache keeps when it is of the recording's boot (its _text
 * where the recording's kernel map says), read before /proc/kallsyms even for the
 * running kernel; a file of another boot read slid by _text's move (KASLR), its
 * modules left unnamed with a sentence; a cache copy larger than one read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmukit/error.h>
#include <pmukit/symbols.h>

#include "core/symbols_int.h"
#include "sym_fixture.h"

#define CACHED_TEXT 0xffffffff81000000ull

static char tmp[] = "/tmp/pmukit-symks-XXXXXX";
static uint8_t kid[20];     /* the running kernel's build-id */
static size_t kidn;

static int setup(void **state)
{
	(void)state;
	kidn = sym_kernel_build_id(kid);
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* Writes text as the build-id cache's kallsyms of kernel id under tmp/name; the
 * cache directory. */
static const char *write_cache(const char *name, const uint8_t *id, size_t idn,
			       const char *text)
{
	static char dir[4200];

	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	sym_kallsyms_cache(dir, id, idn, text);
	return dir;
}

/* The kernel map perf record writes: "[kernel.kallsyms]_text" from _text (as
 * the recording saw it) on. */
static struct pmu_record kernel_map(uint64_t text, const uint8_t *id, size_t idn)
{
	struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = -1, .tid = -1 };

	r.mmap = (struct pmu_mmap){ .start = text, .len = UINT64_MAX - text, .pgoff = text,
				    .path = "[kernel.kallsyms]_text" };
	memcpy(r.mmap.build_id, id, idn);
	r.mmap.build_id_size = (uint8_t)idn;
	return r;
}

static struct pmu_symbolizer *open_in(const char *buildid_dir)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1, .buildid_dir = buildid_dir);
	struct pmu_symbolizer *s;

	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	return s;
}

/* A symbolizer reading text as the cache's copy of kernel id (under tmp/name),
 * the kernel map of a recording that saw _text at text_addr added. */
static struct pmu_symbolizer *open_cached(const char *name, const uint8_t *id, size_t idn,
					  const char *text, uint64_t text_addr)
{
	struct pmu_record r = kernel_map(text_addr, id, idn);
	struct pmu_symbolizer *s = open_in(write_cache(name, id, idn, text));

	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	return s;
}

/* The function (NULL: none) naming addr, with its offset. */
static const char *name_at(struct pmu_symbolizer *s, uint64_t addr, uint64_t *off)
{
	static struct pmu_frame f[4];
	size_t n;

	assert_int_equal(pmu_symbolizer_resolve_pid(s, 4242, addr, f, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].module, "[kernel.kallsyms]");
	*off = f[0].symbol_offset;
	return f[0].function;
}

static const char cached[] = "0000000000000000 A fixed_percpu_data\n"
			     "ffffffff81000000 T _stext\n"
			     "ffffffff81000000 T _text\n"
			     "ffffffff81000100 t cached_fn\n"
			     "ffffffff81000200 T other_fn\n";

/* The running kernel's recording with the cache's copy of this boot: the copy
 * names it (the running kernel's own names would be /proc/kallsyms'). */
static void test_cache_of_this_boot(void **state)
{
	struct pmu_symbolizer *s;
	uint64_t off;

	(void)state;
	if (!kidn)
		skip();   /* /sys/kernel/notes unreadable: no build-id to match */
	s = open_cached("this", kid, kidn, cached, CACHED_TEXT);
	assert_string_equal(name_at(s, CACHED_TEXT + 0x104, &off), "cached_fn");
	assert_int_equal(off, 4);
	assert_string_equal(name_at(s, CACHED_TEXT + 0x200, &off), "other_fn");
	assert_int_equal(off, 0);
	pmu_symbolizer_close(s);
}

/* The running kernel's recording of another boot (its _text elsewhere) while
 * the cache holds a copy of a third boot: /proc/kallsyms names it, slid by
 * _text's move; a module of that recording is not named, and says why. */
static void test_other_boot(void **state)
{
	uint64_t text = sym_kallsyms_addr("_text"), sched = sym_kallsyms_addr("schedule");
	uint64_t then = text - 0x4000000, off;   /* _text in the recording's boot */
	const char *dir, *name;
	struct pmu_symbolizer *s;
	struct pmu_record r;

	(void)state;
	if (!kidn || !text || !sched)
		skip();   /* not root, or kptr_restrict hides the addresses */
	dir = write_cache("third", kid, kidn, cached);
	r = kernel_map(then, kid, kidn);
	s = open_in(dir);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	name = name_at(s, sched - text + then + 4, &off);
	assert_non_null(name);
	assert_string_equal(name, "schedule");
	assert_int_equal(off, 4);
	r.mmap = (struct pmu_mmap){ .start = then - 0x100000, .len = 0x2000,
				    .path = "[nf_tables]" };
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "booted again"));
	pmu_symbolizer_close(s);
}

/* Another kernel's copy of another boot (no copy of the recording's): slid. */
static void test_other_kernel_slid(void **state)
{
	uint8_t id[20];
	struct pmu_symbolizer *s;
	uint64_t off, then = CACHED_TEXT - 0x1000000;

	(void)state;
	memset(id, 0xcd, sizeof(id));
	s = open_cached("other", id, sizeof(id), cached, then);
	assert_string_equal(name_at(s, then + 0x108, &off), "cached_fn");
	assert_int_equal(off, 8);
	pmu_symbolizer_close(s);
}

/* Writes an ELF note file (GNU build-id id) at root/rel, making its directories. */
static void write_note(const char *root, const char *rel, const uint8_t *id, size_t idn)
{
	char path[4400], cmd[4600];
	uint32_t head[3] = { 4, (uint32_t)idn, 3 };
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	assert_non_null(f = fopen(path, "wb"));
	fwrite(head, sizeof(head), 1, f);
	fwrite("GNU", 4, 1, f);
	fwrite(id, 1, idn, f);
	fwrite("\0\0\0", 1, (4 - idn % 4) % 4, f);
	fclose(f);
}

/* A module frame of the running kernel's recording while the cache holds a copy
 * with the recording's _text: the copy's module symbols are from when it was
 * written (earlier in the boot, or in an earlier boot of a kernel without KASLR,
 * whose _text never moves), modules load anew at other addresses: the running
 * kernel's list (here without the module's symbols) is what names modules, never
 * the copy's. */
static void test_module_not_from_copy(void **state)
{
	char root[4200], text[512];
	uint8_t mid[20];
	const char *dir, *sysroot = pmu_sysroot();
	char keep[4200];
	struct pmu_symbolizer *s;
	struct pmu_frame f[4];
	struct pmu_record r;
	size_t n;
	int err;

	(void)state;
	if (!kidn)
		skip();   /* /sys/kernel/notes unreadable: no build-id to match */
	snprintf(keep, sizeof(keep), "%s", sysroot ? sysroot : "");
	memset(mid, 0x5a, sizeof(mid));
	snprintf(root, sizeof(root), "%s/root", tmp);
	write_note(root, "sys/kernel/notes", kid, kidn);
	write_note(root, "sys/module/pmukfoo/notes/.note.gnu.build-id", mid, sizeof(mid));
	snprintf(text, sizeof(text), "%sffffffffc0001000 t foo_old\t[pmukfoo]\n", cached);
	dir = write_cache("mod", kid, kidn, text);
	assert_int_equal(pmu_sysroot_set(root), 0);
	r = kernel_map(CACHED_TEXT, kid, kidn);
	s = open_in(dir);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	r.mmap = (struct pmu_mmap){ .start = 0xffffffffc0000000ull, .len = 0x10000,
				    .path = "[pmukfoo]" };
	memcpy(r.mmap.build_id, mid, sizeof(mid));
	r.mmap.build_id_size = sizeof(mid);
	err = pmu_symbolizer_add_mmap(s, &r);
	assert_true(err == 0 || err == PMU_EFORMAT);   /* EFORMAT: this boot's _text moved */
	if (err)
		assert_non_null(strstr(pmu_error_detail(), "not of the recording's boot"));
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 4242, 0xffffffffc0002000ull, f, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].module, "[pmukfoo]");
	assert_null(f[0].function);
	pmu_symbolizer_close(s);
	pmu_sysroot_set(keep);
}

/* The cache's copy of a boot whose _text is not the running kernel's: each
 * module, named from /proc/kallsyms only, is refused with the running kernel's
 * boot said (looked at once, the same for the second module). */
static void test_modules_of_other_boot(void **state)
{
	uint64_t text = sym_kallsyms_addr("_text"), then = text - 0x4000000;
	static const char *const mods[] = { "pmukfoo", "pmukbar" };
	char root[4200], rel[256], keep[4200], mpath[64];
	const char *sysroot = pmu_sysroot();
	struct pmu_symbolizer *s;
	struct pmu_record r;
	uint8_t mid[20];
	char copy[256];

	(void)state;
	if (!kidn || !text)
		skip();   /* not root, or kptr_restrict hides the addresses */
	snprintf(keep, sizeof(keep), "%s", sysroot ? sysroot : "");
	memset(mid, 0x5b, sizeof(mid));
	snprintf(root, sizeof(root), "%s/root2", tmp);
	write_note(root, "sys/kernel/notes", kid, kidn);
	for (int i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel), "sys/module/%s/notes/.note.gnu.build-id", mods[i]);
		write_note(root, rel, mid, sizeof(mid));
	}
	snprintf(copy, sizeof(copy), "%016llx T _text\n%016llx t early_fn\n",
		 (unsigned long long)then, (unsigned long long)then + 0x10);
	assert_int_equal(pmu_sysroot_set(root), 0);
	s = open_cached("oldboot", kid, kidn, copy, then);
	for (int i = 0; i < 2; i++) {
		snprintf(mpath, sizeof(mpath), "[%s]", mods[i]);
		r = kernel_map(0, mid, sizeof(mid));
		r.mmap = (struct pmu_mmap){ .start = 0xffffffffc0000000ull + 0x100000ull * (unsigned)i,
					    .len = 0x10000, .path = mpath };
		memcpy(r.mmap.build_id, mid, sizeof(mid));
		r.mmap.build_id_size = sizeof(mid);
		assert_int_equal(pmu_symbolizer_add_mmap(s, &r), PMU_EFORMAT);
		assert_non_null(strstr(pmu_error_detail(), "not of the recording's boot"));
		assert_non_null(strstr(pmu_error_detail(), "elsewhere now"));
	}
	pmu_symbolizer_close(s);
	pmu_sysroot_set(keep);
}

/* A copy with the recording's _text but cut short (a crash while it was written,
 * a full disk): its last symbol would name every address above it, far beyond
 * its end. It is not read; /proc/kallsyms of the running kernel names them. */
static void test_cut_copy(void **state)
{
	uint64_t text = sym_kallsyms_addr("_text"), sched = sym_kallsyms_addr("schedule");
	char cut[256];
	const char *name;
	struct pmu_symbolizer *s;
	uint64_t off;

	(void)state;
	if (!kidn || !text || !sched)
		skip();   /* not root, or kptr_restrict hides the addresses */
	snprintf(cut, sizeof(cut), "%016llx T _text\n%016llx t early_fn\nffffffff8",
		 (unsigned long long)text, (unsigned long long)text + 0x10);
	s = open_cached("cut", kid, kidn, cut, text);
	name = name_at(s, sched + 4, &off);
	assert_non_null(name);
	assert_string_equal(name, "schedule");
	assert_int_equal(off, 4);
	pmu_symbolizer_close(s);
}

/* A copy with a run of NUL bytes inside (what a crash can leave of blocks not yet
 * written): the symbols after it are not lost silently, with the one before the
 * run naming the addresses of the gap: the copy is refused, and said. */
static void test_nul_in_copy(void **state)
{
	char text[256];
	size_t len;
	const char *dir, *name;
	struct pmu_symbolizer *s;
	struct pmu_record r;
	uint64_t off;
	uint8_t id[20];
	FILE *f;
	char path[4400], hexid[41];

	(void)state;
	memset(id, 0xab, sizeof(id));
	len = (size_t)snprintf(text, sizeof(text), "%s", cached);
	memset(text + len, 0, 32);
	len += 32;
	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"ffffffff81000400 T late_fn\nffffffff81000800 T last_fn\n");
	dir = write_cache("nul", id, sizeof(id), "");
	pmuk_sym_hex(id, sizeof(id), hexid);
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms", dir, hexid);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	r = kernel_map(CACHED_TEXT, id, sizeof(id));
	s = open_in(dir);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	name = name_at(s, CACHED_TEXT + 0x404, &off);
	if (name)
		assert_string_equal(name, "late_fn");
	else
		assert_non_null(strstr(pmu_error_detail(), "NUL"));
	pmu_symbolizer_close(s);
}

/* The recording's module map comes before its kernel map (no producer is bound
 * to perf's order): the kernel map's _text still says the recording is of another
 * boot, and its frames are slid; the module, placed anew at each boot, unnamed. */
static void test_module_before_kernel(void **state)
{
	uint64_t text = sym_kallsyms_addr("_text"), sched = sym_kallsyms_addr("schedule");
	uint64_t then = text - 0x200000, off;   /* KASLR moves by 2 MB steps */
	char root[4200], keep[4200];
	const char *sysroot = pmu_sysroot(), *name;
	uint8_t mid[20];
	struct pmu_symbolizer *s;
	struct pmu_frame f[4];
	struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = -1, .tid = -1 };
	size_t n;

	(void)state;
	if (!kidn || !text || !sched)
		skip();   /* not root, or kptr_restrict hides the addresses */
	snprintf(keep, sizeof(keep), "%s", sysroot ? sysroot : "");
	memset(mid, 0x5b, sizeof(mid));
	snprintf(root, sizeof(root), "%s/root2", tmp);
	write_note(root, "sys/kernel/notes", kid, kidn);
	write_note(root, "sys/module/pmukbar/notes/.note.gnu.build-id", mid, sizeof(mid));
	assert_int_equal(pmu_sysroot_set(root), 0);
	s = open_in(tmp);   /* no copy there */
	r.mmap = (struct pmu_mmap){ .start = 0xffffffffc0000000ull, .len = 0x10000,
				    .path = "[pmukbar]" };
	memcpy(r.mmap.build_id, mid, sizeof(mid));
	r.mmap.build_id_size = sizeof(mid);
	pmu_symbolizer_add_mmap(s, &r);   /* named or not: /proc/kallsyms has no pmukbar */
	r = kernel_map(then, kid, kidn);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	name = name_at(s, sched - text + then + 4, &off);
	assert_non_null(name);
	assert_string_equal(name, "schedule");
	assert_int_equal(off, 4);
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 4242, 0xffffffffc0002000ull, f, 4, &n), 0);
	assert_null(f[0].function);
	pmu_symbolizer_close(s);
	pmu_sysroot_set(keep);
}

/* The kernel map is stretched past its recorded end so that init text is named
 * (symbols_rec.c); beyond the end of init text (_einittext) lie modules, BPF
 * programs and ftrace trampolines, which a copy written earlier may not list:
 * such an address is not named after the kernel's last init function. */
static void test_past_init_text(void **state)
{
	static const char text[] = "ffffffff81000000 T _text\n"
				   "ffffffff81000100 t cached_fn\n"
				   "ffffffff81002000 T start_kernel\n"
				   "ffffffff81003000 T _einittext\n";
	uint8_t id[20];
	const char *dir, *name;
	struct pmu_symbolizer *s;
	struct pmu_record r;
	uint64_t off;

	(void)state;
	memset(id, 0xa7, sizeof(id));
	dir = write_cache("einit", id, sizeof(id), text);
	r = kernel_map(CACHED_TEXT, id, sizeof(id));
	r.mmap.len = 0x1000;   /* _text.._etext as recorded */
	s = open_in(dir);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_string_equal(name_at(s, CACHED_TEXT + 0x2010, &off), "start_kernel");
	assert_int_equal(off, 0x10);
	name = name_at(s, 0xffffffffc0201010ull, &off);
	assert_null(name);
	pmu_symbolizer_close(s);
}

/* The cache's kallsyms is a FIFO (or anything but a regular file): opening it
 * would wait for a writer forever; it is not read (alarm: the test's bound). */
static void test_fifo_copy(void **state)
{
	char path[4400], hexid[41];
	const char *dir;
	struct pmu_symbolizer *s;
	struct pmu_record r;
	uint8_t id[20];
	uint64_t off;

	(void)state;
	memset(id, 0x3c, sizeof(id));
	dir = write_cache("fifo", id, sizeof(id), "");
	pmuk_sym_hex(id, sizeof(id), hexid);
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms", dir, hexid);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	r = kernel_map(CACHED_TEXT, id, sizeof(id));
	alarm(20);
	s = open_in(dir);
	assert_int_not_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	assert_null(name_at(s, CACHED_TEXT + 0x104, &off));
	pmu_symbolizer_close(s);
	alarm(0);
}

/* A kernel with many per-CPU variables lists them (address 0 or their offsets,
 * type A) before its first text symbol: _text is found after 1500 of them. */
static void test_text_after_percpu(void **state)
{
	size_t cap = 1u << 17, len = 0;
	char *text = malloc(cap);
	struct pmu_symbolizer *s;
	uint64_t off, then = CACHED_TEXT - 0x1000000;
	uint8_t id[20];

	(void)state;
	assert_non_null(text);
	memset(id, 0x61, sizeof(id));
	for (unsigned i = 0; i < 1500; i++)
		len += (size_t)snprintf(text + len, cap - len, "%016x A percpu_var_%u\n",
					i * 64, i);
	len += (size_t)snprintf(text + len, cap - len, "%s", cached);
	s = open_cached("percpu", id, sizeof(id), text, then);
	free(text);
	assert_string_equal(name_at(s, then + 0x108, &off), "cached_fn");
	assert_int_equal(off, 8);
	pmu_symbolizer_close(s);
}

/* A copy far larger than one read (and than the first guess of any buffer):
 * its last symbol is there. */
static void test_large_cache(void **state)
{
	size_t cap = 4u << 20, len = 0;
	char *text = malloc(cap);
	struct pmu_symbolizer *s;
	uint64_t off;
	uint8_t id[20];
	char last[64];

	(void)state;
	assert_non_null(text);
	memset(id, 0xef, sizeof(id));
	len += (size_t)snprintf(text + len, cap - len, "%s", cached);
	for (unsigned i = 0; i < 40000; i++)
		len += (size_t)snprintf(text + len, cap - len, "%016llx t fn_%u\n",
					(unsigned long long)(CACHED_TEXT + 0x1000 + 16ull * i), i);
	s = open_cached("large", id, sizeof(id), text, CACHED_TEXT);
	free(text);
	snprintf(last, sizeof(last), "fn_%u", 39999);
	assert_string_equal(name_at(s, CACHED_TEXT + 0x1000 + 16ull * 39999 + 3, &off), last);
	assert_int_equal(off, 3);
	assert_string_equal(name_at(s, CACHED_TEXT + 0x1000 + 5, &off), "fn_0");
	pmu_symbolizer_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache_of_this_boot),
		cmocka_unit_test(test_other_boot),
		cmocka_unit_test(test_other_kernel_slid),
		cmocka_unit_test(test_large_cache),
		cmocka_unit_test(test_module_not_from_copy),
		cmocka_unit_test(test_modules_of_other_boot),
		cmocka_unit_test(test_cut_copy),
		cmocka_unit_test(test_nul_in_copy),
		cmocka_unit_test(test_module_before_kernel),
		cmocka_unit_test(test_past_init_text),
		cmocka_unit_test(test_fifo_copy),
		cmocka_unit_test(test_text_after_percpu),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
