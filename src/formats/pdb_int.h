/* SPDX-License-Identifier: MIT */
#ifndef PMUK_FORMATS_PDB_INT_H
#define PMUK_FORMATS_PDB_INT_H

/* The PDB reader's parts (src/formats/pdb_*.c): the MSF container, the info stream
 * and its string table, the DBI stream, symbols, C13 lines, inline sites. */

#include "formats/pdb.h"

#include <stddef.h>
#include <stdint.h>

/* Stream numbers fixed by the format. */
#define PDB_STREAM_INFO 1
#define PDB_STREAM_DBI 3
#define PDB_STREAM_IPI 4
#define PDB_NIL 0xffffu

/* One stream made contiguous (its blocks copied in order). */
struct pdb_stream {
	uint8_t *p;
	uint32_t n;
	uint32_t index;         /* the stream's number, for messages */
};

struct pdb_line {               /* one row of a C13 line table */
	uint64_t rva;           /* 64 bits: core/bsearch.h's key */
	uint32_t line;          /* 0: a hidden line (0xfeefee, 0xf00f00) */
	uint32_t file;          /* offset of the file's entry in the checksums */
	uint32_t seq;           /* order in the table: of rows at one address the last
				 * holds (an empty prologue's line comes first) */
};

struct pdb_inlinee {            /* DEBUG_S_INLINEELINES: where an inlined function starts */
	uint64_t id;            /* IPI item id of its LF_FUNC_ID/LF_MFUNC_ID (64 bits:
				 * core/bsearch.h's key) */
	uint32_t file, line;
};

struct pdb_module {
	uint16_t stream;        /* PDB_NIL: no symbols */
	uint32_t symbytes, c11bytes, c13bytes;
	int loaded;             /* 1 read, -1 failed */
	struct pdb_stream s;
	const uint8_t *chk;     /* DEBUG_S_FILECHKSMS */
	uint32_t nchk;
	struct pdb_line *lines; /* sorted by rva */
	size_t nlines, caplines;
	struct pdb_inlinee *inl;    /* sorted by id */
	size_t ninl, capinl;
};

struct pdb_proc {
	uint64_t rva;
	uint32_t len;
	uint32_t mod;           /* index in mods */
	uint32_t sym;           /* offset of its record in the module stream */
	uint32_t end;           /* offset of its S_END */
	const char *name;
};

struct pdb_pub {
	uint64_t rva;
	const char *name;
};

struct pdb_contrib {            /* a DBI section contribution: whose code lies there */
	uint64_t rva;           /* 64 bits: core/bsearch.h's key */
	uint32_t size, mod;
};

struct pdb_section {
	uint32_t rva, size;
};

struct pmuk_pdb {
	uint8_t *file;
	size_t size;
	uint32_t bsize, nblocks;
	uint32_t nstreams;
	uint32_t *ssize;        /* stream sizes (0 for nil streams) */
	uint32_t **sblocks;     /* each stream's block numbers, into dir */
	uint8_t *dir;
	struct pmu_guid guid;
	uint32_t age;
	struct pdb_stream names;    /* "/names": the string table */
	struct pdb_stream symrec;   /* the symbol record stream: S_PUB32 names */
	struct pdb_stream ipi;
	uint32_t ipi_begin, *ipi_off;   /* offset of each IPI record, by index - begin */
	uint32_t ipi_n;
	size_t ipi_cap;
	int ipi_loaded;
	struct pdb_section *sec;
	uint32_t nsec;
	struct pdb_module *mods;
	uint32_t nmods;
	struct pdb_contrib *contribs;   /* sorted by rva */
	size_t ncontribs;
	struct pdb_proc *procs;     /* sorted by rva */
	size_t nprocs, capprocs;
	struct pdb_pub *pubs;       /* sorted by rva */
	size_t npubs, cappubs;
};

/* MSF (pdb_msf.c): the superblock and the stream directory; stream i copied. */
int pmuk_pdb_msf(struct pmuk_pdb *p);
int pmuk_pdb_stream(struct pmuk_pdb *p, uint32_t i, struct pdb_stream *out);
/* Info stream (pdb_info.c): GUID, Age and the "/names" string table. */
int pmuk_pdb_info(struct pmuk_pdb *p);
/* The NUL-terminated string at off of the string table, or NULL. */
const char *pmuk_pdb_name(const struct pmuk_pdb *p, uint32_t off);
/* DBI (pdb_dbi.c): modules, section headers; publics of the symbol record stream. */
int pmuk_pdb_dbi(struct pmuk_pdb *p);
/* The module whose section contribution holds rva, or NULL. */
struct pdb_module *pmuk_pdb_contrib_mod(const struct pmuk_pdb *p, uint32_t rva);
/* Symbols (pdb_sym.c): the procedures of module m; S_PUB32 of stream s. */
int pmuk_pdb_mod_procs(struct pmuk_pdb *p, uint32_t m);
int pmuk_pdb_publics(struct pmuk_pdb *p, const struct pdb_stream *s);
/* RVA of seg:off, or UINT32_MAX when seg names no section. */
uint32_t pmuk_pdb_rva(const struct pmuk_pdb *p, uint16_t seg, uint32_t off);
/* A NUL-terminated name at rec[at..end), or NULL. */
const char *pmuk_pdb_cstr(const uint8_t *rec, size_t at, size_t end);
/* Lines (pdb_lines.c): the C13 subsections of module m, read once. */
int pmuk_pdb_mod_lines(struct pmuk_pdb *p, struct pdb_module *m);
/* File name of a checksum entry offset, or NULL. */
const char *pmuk_pdb_file(const struct pmuk_pdb *p, const struct pdb_module *m, uint32_t chk);
/* Inline sites (pdb_inline.c): the inlined frames of rva in proc f, innermost first,
 * into f[0..max); the count or PMU_EFORMAT. */
int pmuk_pdb_inlines(struct pmuk_pdb *p, const struct pdb_proc *pr, uint32_t rva,
		     struct pmuk_pdb_frame *f, int max);
/* The name of IPI item id (LF_FUNC_ID, LF_MFUNC_ID), or NULL. */
const char *pmuk_pdb_func_id(struct pmuk_pdb *p, uint32_t id);

#endif
