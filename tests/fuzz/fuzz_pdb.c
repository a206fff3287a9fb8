/* SPDX-License-Identifier: MIT */
/* libFuzzer entry: any bytes as a PDB (MSF directory, stream sizes, DBI, symbol
 * record lengths, line tables, inline annotations) must open or give PMU_EFORMAT
 * (PMU_ENOMEM for absurd sizes), and every lookup of an opened one returns frames
 * or an error, never a crash. Seed: a PDB of clang/lld rewritten with 512-byte
 * blocks by tests/fuzz/pdb_seed.py. */
#include <pmukit/pmukit.h>
#include "formats/pdb.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmuk_pdb_frame f[8];
	struct pmuk_pdb *p;
	int err = pmuk_pdb_open_mem(data, size, &p);

	if (err) {
		if (err != PMU_EFORMAT && err != PMU_ENOMEM && err != PMU_ENOENT)
			abort();
		return 0;
	}
	/* The addresses a small image has, every 3rd byte of its first pages. */
	for (uint32_t rva = 0x1000; rva < 0x3000; rva += 3) {
		int n = pmuk_pdb_lookup(p, rva, f, 8);

		if (n > 8 || (n < 0 && n != PMU_EFORMAT && n != PMU_ENOMEM))
			abort();
		for (int i = 0; i < n; i++)
			if ((f[i].function && !memchr(f[i].function, 0, 1 << 16)) ||
			    (f[i].file && !memchr(f[i].file, 0, 1 << 16)))
				abort();
	}
	pmuk_pdb_close(p);
	return 0;
}
