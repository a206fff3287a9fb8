/* SPDX-License-Identifier: MIT */
/* The recording-mode symbolizer's DWARF read-ahead thread (dw_prefetch.c) seen
 * from its users: what it reads, and what closing a symbolizer costs. libdwfl's
 * find_debuginfo callback is wrapped to count (and slow down) the images the
 * worker reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/symbols.h>

#ifdef PMUKIT_HAVE_DW
#include "linux/symbols_dw.h"

static atomic_int looked_up;

/* libdwfl's own lookup, after 30 ms: each image read takes long enough that a
 * close right after the mappings finds nearly all of them still queued. */
static int slow_find_debuginfo(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr a,
			       const char *file, const char *link, GElf_Word crc, char **out)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };

	atomic_fetch_add(&looked_up, 1);
	nanosleep(&ts, NULL);
	return dwfl_standard_find_debuginfo(m, ud, name, a, file, link, crc, out);
}

/* The executable mappings of distinct shared libraries of this process (their
 * debug files are looked for apart: they are stripped) as MMAP records of pid
 * 77; how many, up to max. */
static size_t lib_maps(struct pmu_record *r, char (*path)[4096], size_t max)
{
	unsigned long long a, b, off;
	char line[8192], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = 0;

	assert_non_null(f);
	while (n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &a, &b, perm, &off,
			   path[n]) != 5 || perm[2] != 'x' || !strstr(path[n], ".so"))
			continue;
		r[n] = (struct pmu_record){ .kind = PMU_RECORD_MMAP, .pid = 77, .tid = 77 };
		r[n].mmap = (struct pmu_mmap){ .start = a, .len = b - a, .pgoff = off,
					       .path = path[n] };
		n++;
	}
	fclose(f);
	return n;
}

/* Closing a symbolizer reads no more debug files: images still queued for the
 * worker are dropped, only the one being read is waited for. */
static void test_close_drops_queue(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1);
	static char path[8][4096];
	struct pmu_record r[8];
	struct pmu_symbolizer *s;
	size_t n = lib_maps(r, path, 8);

	(void)state;
	if (n < 4)
		skip();   /* a static build: too few shared libraries mapped to queue */
	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	((struct pmuk_dw *)s->backend)->cb.find_debuginfo = slow_find_debuginfo;
	atomic_store(&looked_up, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r[0]), 0);
	/* the worker busy with the first image (up to 5 s on a loaded machine) */
	for (int i = 0; i < 1000 && !atomic_load(&looked_up); i++)
		nanosleep(&(struct timespec){ 0, 5 * 1000 * 1000 }, NULL);
	assert_int_equal(atomic_load(&looked_up), 1);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(pmu_symbolizer_add_mmap(s, &r[i]), 0);
	pmu_symbolizer_close(s);
	fprintf(stderr, "close: %d debug-file lookups for %zu images queued\n",
		atomic_load(&looked_up), n);
	/* libdwfl looks twice per image (DWARF, then symbol table): the image
	 * under way when close began, and the next one if the worker took it
	 * before close did */
	assert_true(atomic_load(&looked_up) <= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_close_drops_queue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
	printf("skipped: this pmukit is built without libdw: no read-ahead thread\n");
	return 77;
}

#endif
