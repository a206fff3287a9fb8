/* SPDX-License-Identifier: MIT */
/* pmukit script's view of a recorded machine (tools/pmukit/script_maps.c):
 * a newer mapping cuts what it overlaps (offsets of the piece kept after it
 * follow), the kernel image lies under modules and reaches the top, FORK
 * copies names and mappings, and modules and anonymous code get perf's names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "script.h"

static struct sc_state st;

static void mmap_rec(int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *path,
		     uint32_t prot)
{
	struct pmu_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PMU_RECORD_MMAP;
	r.pid = r.tid = pid;
	r.cpumode = pid == -1 ? PMU_CPUMODE_KERNEL : PMU_CPUMODE_USER;
	r.mmap.start = start;
	r.mmap.len = len;
	r.mmap.pgoff = pgoff;
	r.mmap.path = path;
	r.mmap.prot = prot;
	assert_int_equal(sc_track(&st, &r), 0);
}

static void task(enum pmu_record_kind kind, int32_t pid, int32_t tid, int32_t ppid, int32_t ptid,
		 const char *comm)
{
	struct pmu_record r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.pid = pid;
	r.tid = tid;
	r.task.ppid = ppid;
	r.task.ptid = ptid;
	if (comm)
		strcpy(r.comm.name, comm);
	assert_int_equal(sc_track(&st, &r), 0);
}

/* The dso at addr and where its piece starts in the file (pgoff at addr). */
static const char *at(int32_t pid, int kernel, uint64_t addr, uint64_t *fileoff)
{
	const struct sc_map *m = sc_find(&st, pid, kernel, addr);

	if (!m)
		return NULL;
	if (fileoff)
		*fileoff = addr - m->start + m->pgoff;
	return m->dso;
}

static int teardown(void **state)
{
	(void)state;
	sc_free(&st);
	return 0;
}

static void test_overlap(void **state)
{
	uint64_t off;
	(void)state;

	mmap_rec(10, 0x1000, 0x9000, 0x100000, "/a", 5);
	mmap_rec(10, 0x4000, 0x2000, 0, "/b", 5);          /* into a's middle */
	assert_string_equal(at(10, 0, 0x3fff, &off), "/a");
	assert_int_equal(off, 0x100000 + 0x2fff);
	assert_string_equal(at(10, 0, 0x4000, &off), "/b");
	assert_int_equal(off, 0);
	assert_string_equal(at(10, 0, 0x6000, &off), "/a"); /* a's tail keeps its offsets */
	assert_int_equal(off, 0x100000 + 0x5000);
	assert_null(at(10, 0, 0xa000, NULL));
	assert_null(at(10, 0, 0xfff, NULL));
	assert_null(at(11, 0, 0x4000, NULL));               /* another process */
	mmap_rec(10, 0x0, 0x20000, 0, "/c", 5);             /* over everything */
	assert_string_equal(at(10, 0, 0x1000, NULL), "/c");
	assert_string_equal(at(10, 0, 0x6000, NULL), "/c");
	assert_int_equal(st.procs[0].n, 1);
}

static void test_kernel(void **state)
{
	(void)state;
	/* a module seen before the image, another after */
	mmap_rec(-1, 0xffffffffc0000000ull, 0x10000, 0, "/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko",
		 0);
	mmap_rec(-1, 0xffffffff81000000ull, 0x1200000, 0xffffffff81000000ull,
		 "[kernel.kallsyms]_text", 0);
	mmap_rec(-1, 0xffffffffc0100000ull, 0x1000, 0,
		 "/lib/modules/6.1.0/kernel/net/nf-conntrack.ko.xz", 0);
	assert_string_equal(at(-1, 1, 0xffffffff81000010ull, NULL), "[kernel.kallsyms]");
	/* past the image's text (init, BPF): still the kernel, as perf stretches it */
	assert_string_equal(at(-1, 1, 0xffffffff83784000ull, NULL), "[kernel.kallsyms]");
	assert_string_equal(at(-1, 1, 0xffffffffc0000100ull, NULL), "[ext4]");
	assert_string_equal(at(-1, 1, 0xffffffffc0100100ull, NULL), "[nf_conntrack]");
	assert_string_equal(at(-1, 1, 0xffffffffc0200000ull, NULL), "[kernel.kallsyms]");
	assert_null(at(-1, 1, 0xffffffff80000000ull, NULL));
	/* user processes do not see kernel mappings as theirs */
	assert_null(at(5, 0, 0xffffffff81000010ull, NULL));
}

static void test_fork_and_names(void **state)
{
	char buf[24];
	(void)state;

	task(PMU_RECORD_COMM, 100, 100, 0, 0, "bash");
	mmap_rec(100, 0x400000, 0x1000, 0, "/usr/bin/bash", 5);
	mmap_rec(100, 0x7f0000000000ull, 0x1000, 0x7f0000000000ull, "//anon", 7);
	mmap_rec(100, 0x7f0000100000ull, 0x1000, 0x7f0000100000ull, "//anon", 3);
	task(PMU_RECORD_FORK, 200, 200, 100, 100, NULL);   /* a new process */
	task(PMU_RECORD_FORK, 100, 101, 100, 100, NULL);   /* a new thread */
	assert_string_equal(sc_comm(&st, 200, 200, buf, sizeof(buf)), "bash");
	assert_string_equal(sc_comm(&st, 100, 101, buf, sizeof(buf)), "bash");
	assert_string_equal(at(200, 0, 0x400010, NULL), "/usr/bin/bash");
	/* executable anonymous memory is named like perf's JIT map of the process */
	assert_string_equal(at(100, 0, 0x7f0000000010ull, NULL), "/tmp/perf-100.map");
	assert_true(sc_find(&st, 100, 0, 0x7f0000000010ull)->identity);
	assert_string_equal(at(100, 0, 0x7f0000100010ull, NULL), "//anon");
	/* the child's exec replaces its copy only */
	task(PMU_RECORD_COMM, 200, 200, 0, 0, "ls");
	mmap_rec(200, 0x400000, 0x2000, 0, "/usr/bin/ls", 5);
	assert_string_equal(at(200, 0, 0x400010, NULL), "/usr/bin/ls");
	assert_string_equal(at(100, 0, 0x400010, NULL), "/usr/bin/bash");
	assert_string_equal(sc_comm(&st, 200, 200, buf, sizeof(buf)), "ls");
	/* never named: perf's ":tid", and swapper for the idle thread */
	assert_string_equal(sc_comm(&st, 300, 301, buf, sizeof(buf)), ":301");
	assert_string_equal(sc_comm(&st, 0, 0, buf, sizeof(buf)), "swapper");
	/* a reused tid forgets the old thread's name */
	task(PMU_RECORD_FORK, 400, 101, 999, 999, NULL);
	assert_string_equal(sc_comm(&st, 400, 101, buf, sizeof(buf)), ":101");
	/* .etl: unnamed threads take their process's name */
	st.process_names = 1;
	assert_string_equal(sc_comm(&st, 100, 150, buf, sizeof(buf)), "bash");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_overlap, teardown),
		cmocka_unit_test_teardown(test_kernel, teardown),
		cmocka_unit_test_teardown(test_fork_and_names, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
