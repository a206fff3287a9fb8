/* SPDX-License-Identifier: MIT */
#ifndef PMUK_FORMATS_PDB_H
#define PMUK_FORMATS_PDB_H

/* A portable reader of PDB 7.00 files (the MSF container Microsoft's linkers and
 * lld write): the info stream's GUID + Age, the DBI stream's modules and section
 * headers, S_GPROC32/S_LPROC32 and S_PUB32 symbols, C13 line tables and the inline
 * sites of each function. Addresses are RVAs (image address - image base). Every
 * read is bounds-checked; a corrupt file gives PMU_EFORMAT naming the stream and the
 * offset, never a crash. */

#include <pmukit/guid.h>
#include <stddef.h>
#include <stdint.h>

struct pmuk_pdb;

/* Opens the file at path (read whole), or a copy of buf[0..len). */
int pmuk_pdb_open(const char *path, struct pmuk_pdb **out);
int pmuk_pdb_open_mem(const void *buf, size_t len, struct pmuk_pdb **out);
void pmuk_pdb_close(struct pmuk_pdb *p);

/* The identity an image's RSDS record must carry. */
void pmuk_pdb_identity(const struct pmuk_pdb *p, struct pmu_guid *guid, uint32_t *age);

struct pmuk_pdb_frame {
	const char *function;  /* NULL: no symbol holds the address */
	const char *file;      /* NULL when unknown */
	unsigned line;         /* 0 when unknown */
	uint32_t start;        /* RVA of the function (or inlined instance's first byte) */
};

/* The frames of rva, innermost first (inlined calls, then their function), into
 * f[0..max): the count (0: no symbol), or PMU_EFORMAT when the records met are
 * corrupt. Strings live until pmuk_pdb_close. */
int pmuk_pdb_lookup(struct pmuk_pdb *p, uint32_t rva, struct pmuk_pdb_frame *f, int max);

#endif
