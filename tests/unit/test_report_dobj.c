/* SPDX-License-Identifier: MIT */
/* report --sort data_object: an address named by the variable holding it (this
 * test's own global, through its real mapping and load bias), else by its
 * mapping: [heap] (the kernel's later name for a range first called //anon),
 * [stack], a file's path, an anon range; [unknown] outside every mapping; a
 * forked process keeps its parent's mappings until it execs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/report_node.h"

char dobj_probe[8192];
char dobj_big[48 << 20];   /* bss: costs nothing untouched; STREAM-sized arrays */

static void mmap_rec(struct pmuk_dobj *d, int32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *path)
{
	struct pmu_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PMU_RECORD_MMAP;
	r.pid = r.tid = pid;
	r.mmap.start = start;
	r.mmap.len = len;
	r.mmap.pgoff = pgoff;
	r.mmap.path = path;
	assert_int_equal(pmuk_dobj_record(d, &r), 0);
}

/* This program's first mapping (file offset 0), as a recording would see it. */
static int self_map(char *exe, size_t size, uint64_t *start, uint64_t *len)
{
	char line[1024], path[1024];
	unsigned long s, e, off;
	FILE *f = fopen("/proc/self/maps", "r");
	ssize_t n = readlink("/proc/self/exe", exe, size - 1);
	int found = 0;

	if (!f || n <= 0)
		return 0;
	exe[n] = 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %1023s", &s, &e, &off, path) == 4 &&
		    off == 0 && !strcmp(path, exe)) {
			*start = s;
			*len = e - s;
			found = 1;
		}
	fclose(f);
	return found;
}

static void test_variable(void **state)
{
	struct pmuk_dobj *d;
	char exe[1024];
	uint64_t start = 0, len = 0, end;
	const char *mod;

	(void)state;
	if (!self_map(exe, sizeof(exe), &start, &len))
		skip();
	assert_int_equal(pmuk_dobj_new(&d), 0);
	mmap_rec(d, 10, start, len, 0, exe);
	assert_string_equal(pmuk_dobj_name(d, 10, (uintptr_t)&dobj_probe[0], &mod), "dobj_probe");
	assert_string_equal(mod, exe);
	assert_string_equal(pmuk_dobj_name(d, 10, (uintptr_t)&dobj_probe[8191], &mod),
			    "dobj_probe");
	/* deep inside a large array: still that array */
	assert_string_equal(pmuk_dobj_name(d, 10, (uintptr_t)&dobj_big[40 << 20], &mod),
			    "dobj_big");
	assert_string_equal(pmuk_dobj_name(d, 10, (uintptr_t)&dobj_big[(48 << 20) - 1], &mod),
			    "dobj_big");
	/* the program's range mapped again with another file (dlclose, then dlopen at the
	 * same address): the newer file's, not the program's variable */
	mmap_rec(d, 12, start, len, 0, exe);
	end = (uintptr_t)&dobj_big[48 << 20];
	if (end < (uintptr_t)&dobj_probe[8192])
		end = (uintptr_t)&dobj_probe[8192];
	mmap_rec(d, 12, start, end - start, 0, "/nonexistent/new.so");
	assert_string_equal(pmuk_dobj_name(d, 12, (uintptr_t)&dobj_probe[0], &mod),
			    "/nonexistent/new.so");
	/* another process has no such mapping */
	assert_string_equal(pmuk_dobj_name(d, 11, (uintptr_t)&dobj_probe[0], &mod), "[unknown]");
	pmuk_dobj_free(d);
}

static void test_mappings(void **state)
{
	struct pmuk_dobj *d;
	struct pmu_record r;
	const char *mod;

	(void)state;
	assert_int_equal(pmuk_dobj_new(&d), 0);
	mmap_rec(d, 10, 0x1000000, 0x2000, 0, "//anon");
	assert_string_equal(pmuk_dobj_name(d, 10, 0x1001000, &mod), "[anon 0x1000000-0x1002000]");
	mmap_rec(d, 10, 0x1000000, 0x3000, 0, "[heap]");        /* the heap's second brk */
	assert_string_equal(pmuk_dobj_name(d, 10, 0x1001000, &mod), "[heap]");
	assert_string_equal(pmuk_dobj_name(d, 10, 0x1002800, &mod), "[heap]");
	mmap_rec(d, 10, 0x7ff000000, 0x21000, 0, "[stack]");
	assert_string_equal(pmuk_dobj_name(d, 10, 0x7ff000100, &mod), "[stack]");
	mmap_rec(d, 10, 0x2000000, 0x4000, 0x1000, "/nonexistent/libdata.so");
	assert_string_equal(pmuk_dobj_name(d, 10, 0x2003fff, &mod), "/nonexistent/libdata.so");
	assert_string_equal(mod, "/nonexistent/libdata.so");
	assert_string_equal(pmuk_dobj_name(d, 10, 0x2004000, &mod), "[unknown]");
	assert_string_equal(mod, "");
	/* fork: the child sees the parent's; exec drops them */
	memset(&r, 0, sizeof(r));
	r.kind = PMU_RECORD_FORK;
	r.pid = r.tid = 11;
	r.task.ppid = r.task.ptid = 10;
	assert_int_equal(pmuk_dobj_record(d, &r), 0);
	assert_string_equal(pmuk_dobj_name(d, 11, 0x1001000, &mod), "[heap]");
	memset(&r, 0, sizeof(r));
	r.kind = PMU_RECORD_COMM;
	r.pid = r.tid = 11;
	r.comm.exec = 1;
	assert_int_equal(pmuk_dobj_record(d, &r), 0);
	assert_string_equal(pmuk_dobj_name(d, 11, 0x1001000, &mod), "[unknown]");
	assert_string_equal(pmuk_dobj_name(d, 10, 0x1001000, &mod), "[heap]");
	pmuk_dobj_free(d);
}

static void test_sort_keys(void **state)
{
	(void)state;
	assert_true(pmuk_sort_wants_node("node"));
	assert_true(pmuk_sort_wants_node("sym,data_object"));
	assert_false(pmuk_sort_wants_node("comm,dso,sym"));
	assert_false(pmuk_sort_wants_node("nodes"));
	assert_false(pmuk_sort_wants_node(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variable),
		cmocka_unit_test(test_mappings),
		cmocka_unit_test(test_sort_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
