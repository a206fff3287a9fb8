/* SPDX-License-Identifier: MIT */
#ifndef PMUK_TEST_SELF_MAPS_H
#define PMUK_TEST_SELF_MAPS_H

/* This process's executable file mappings (/proc/self/maps) as MMAP records, for
 * the recording-mode symbolizer's tests (test_symbols_rec.c, test_sym_prefetch.c).
 * Include it after <stdint.h>, <stdio.h>, <cmocka.h> and <pmukit/symbols.h>. */

/* The next executable mapping listed in f as an MMAP record of pid, its path
 * into path (which r points to); 0 at the end of f. */
static inline int next_exec_map(FILE *f, int32_t pid, char path[4096], struct pmu_record *r)
{
	unsigned long long a, b, off;
	char line[8192], perm[8];

	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &a, &b, perm, &off,
			   path) == 5 && perm[2] == 'x') {
			*r = (struct pmu_record){ .kind = PMU_RECORD_MMAP, .pid = pid, .tid = pid };
			r->mmap = (struct pmu_mmap){ .start = a, .len = b - a, .pgoff = off,
						     .path = path };
			return 1;
		}
	return 0;
}

/* The executable mapping holding addr as an MMAP record of pid: 0 when
 * /proc/self/maps has none holding it. */
static inline int self_map(uintptr_t addr, int32_t pid, char path[4096], struct pmu_record *r)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	assert_non_null(f);
	while (!found && next_exec_map(f, pid, path, r))
		found = addr >= r->mmap.start && addr - r->mmap.start < r->mmap.len;
	fclose(f);
	return found;
}

#endif
