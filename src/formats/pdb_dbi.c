/* SPDX-License-Identifier: MIT */
/* The DBI stream (stream 3): a 64-byte header, then the module list, section
 * contributions, section map, source info, type server map, EC info and the
 * optional debug header, whose sixth entry is the stream of the image's section
 * headers (RVA of each section, to turn seg:off into an RVA). Each module names its
 * symbol stream and the sizes of its symbols and C13 lines. */
#include "formats/pdb_int.h"
#include "core/bsearch.h"
#include "core/cursor.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/le.h"

#include <stdlib.h>
#include <string.h>

#define DBI_HEADER 64
#define MODI_FIXED 64
#define DBG_SECTION_HEADERS 5
#define SECTION_HEADER 40
#define SC_VER60 0xf12eba2du   /* 0xeffe0000 + 19970605: 28-byte entries */
#define SC_V2 0xf13151e4u      /* 0xeffe0000 + 20140516: 32 bytes (+ COFF section) */

static int bad(uint32_t off, const char *what)
{
	return pmuk_fail(PMU_EFORMAT, "PDB DBI stream (stream 3) at offset %u: %s: the file "
			 "is corrupt", off, what);
}

static int modules(struct pmuk_pdb *p, const uint8_t *b, uint32_t n, uint32_t base)
{
	size_t cap = 0;

	for (uint32_t at = 0; at < n;) {
		struct pdb_module *m;
		const uint8_t *e = b + at;
		const uint8_t *z1, *z2;

		if (n - at < MODI_FIXED + 2 ||
		    !(z1 = memchr(e + MODI_FIXED, 0, n - at - MODI_FIXED)) ||
		    !(z2 = memchr(z1 + 1, 0, (size_t)(b + n - z1 - 1))))
			return bad(base + at, "a module entry runs past the module list");
		if (pmuk_grow((void **)&p->mods, &cap, p->nmods + 1, sizeof(*p->mods)))
			return pmuk_fail(PMU_ENOMEM, "out of memory reading the PDB module list");
		m = &p->mods[p->nmods++];
		*m = (struct pdb_module){ .stream = pmuk_le16(e + 34),
					  .symbytes = pmuk_le32(e + 36),
					  .c11bytes = pmuk_le32(e + 40),
					  .c13bytes = pmuk_le32(e + 44) };
		at = (uint32_t)((z2 + 1 - b + 3) & ~(size_t)3);
	}
	return 0;
}

static int sections(struct pmuk_pdb *p, const uint8_t *dbg, uint32_t n)
{
	struct pdb_stream s;
	int err;

	if (n < 2 * (DBG_SECTION_HEADERS + 1) ||
	    pmuk_le16(dbg + 2 * DBG_SECTION_HEADERS) == PDB_NIL)
		return pmuk_fail(PMU_EFORMAT, "PDB DBI stream: no section header stream in the "
				 "optional debug header: addresses cannot be placed");
	if ((err = pmuk_pdb_stream(p, pmuk_le16(dbg + 2 * DBG_SECTION_HEADERS), &s)))
		return err;
	p->nsec = s.n / SECTION_HEADER;
	if (!(p->sec = calloc(p->nsec + 1, sizeof(*p->sec)))) {
		free(s.p);
		return pmuk_fail(PMU_ENOMEM, "out of memory reading PDB section headers");
	}
	for (uint32_t i = 0; i < p->nsec; i++) {
		p->sec[i].size = pmuk_le32(s.p + i * SECTION_HEADER + 8);
		p->sec[i].rva = pmuk_le32(s.p + i * SECTION_HEADER + 12);
	}
	free(s.p);
	return 0;
}

uint32_t pmuk_pdb_rva(const struct pmuk_pdb *p, uint16_t seg, uint32_t off)
{
	if (seg == 0 || seg > p->nsec || off > UINT32_MAX - p->sec[seg - 1].rva)
		return UINT32_MAX;
	return p->sec[seg - 1].rva + off;
}

static int contrib_by_rva(const void *a, const void *b)
{
	const struct pdb_contrib *x = a, *y = b;

	return x->rva < y->rva ? -1 : x->rva > y->rva;
}

/* The section contributions (u32 version, then entries: section u16, pad u16,
 * offset i32, size i32, characteristics u32, module u16, ...): run after the
 * section headers are known, since they place seg:off. */
static int contributions(struct pmuk_pdb *p, const uint8_t *b, uint32_t n, uint32_t base)
{
	uint32_t ver = n >= 4 ? pmuk_le32(b) : 0, esz = ver == SC_V2 ? 32 : 28;

	if (ver != SC_VER60 && ver != SC_V2)
		return 0;	/* none, or a version we do not know: no lines outside procs */
	if ((n - 4) % esz)
		return bad(base, "the section contributions are not a whole number of entries");
	p->ncontribs = 0;
	if (!(p->contribs = malloc(((n - 4) / esz + 1) * sizeof(*p->contribs))))
		return pmuk_fail(PMU_ENOMEM, "out of memory reading PDB section contributions");
	for (uint32_t at = 4; at < n; at += esz) {
		const uint8_t *e = b + at;
		uint32_t rva = pmuk_pdb_rva(p, pmuk_le16(e), pmuk_le32(e + 4));
		uint32_t size = pmuk_le32(e + 8), mod = pmuk_le16(e + 16);

		if (rva == UINT32_MAX || !size || (int32_t)size < 0 || mod >= p->nmods)
			continue;	/* nothing to place, or no such module: no lines */
		p->contribs[p->ncontribs++] = (struct pdb_contrib){ rva, size, mod };
	}
	if (p->ncontribs)
		qsort(p->contribs, p->ncontribs, sizeof(*p->contribs), contrib_by_rva);
	return 0;
}

struct pdb_module *pmuk_pdb_contrib_mod(const struct pmuk_pdb *p, uint32_t rva)
{
	size_t i = PMUK_BSEARCH_UPPER(p->contribs, p->ncontribs, rva, rva);

	if (!i || rva - p->contribs[i - 1].rva >= p->contribs[i - 1].size)
		return NULL;
	return &p->mods[p->contribs[i - 1].mod];
}

static int by_rva(const void *a, const void *b)
{
	const struct pdb_proc *x = a, *y = b;

	return x->rva < y->rva ? -1 : x->rva > y->rva;
}

static int pub_by_rva(const void *a, const void *b)
{
	const struct pdb_pub *x = a, *y = b;

	return x->rva < y->rva ? -1 : x->rva > y->rva;
}

/* The substreams after the header, in the order the header lists their sizes. */
static int substreams(struct pmuk_pdb *p, const struct pdb_stream *s, uint16_t *symrec)
{
	const uint8_t *h = s->p;
	uint64_t at = DBI_HEADER, off[7];
	int err;

	/* Where the header keeps each substream's size: the EC info (at 52) comes
	 * before the optional debug header (at 48) in the stream. */
	static const uint8_t size_at[7] = { 24, 28, 32, 36, 40, 52, 48 };

	for (int i = 0; i < 7; i++) {
		int32_t sz = (int32_t)pmuk_le32(h + size_at[i]);

		if (sz < 0 || at + (uint64_t)sz > s->n)
			return bad(size_at[i], "a substream size runs past the stream");
		off[i] = at;
		at += (uint64_t)sz;
	}
	*symrec = pmuk_le16(h + 20);
	if ((err = modules(p, s->p + off[0], (uint32_t)(off[1] - off[0]), DBI_HEADER)))
		return err;
	if ((err = sections(p, s->p + off[6], (uint32_t)(at - off[6]))))
		return err;
	return contributions(p, s->p + off[1], (uint32_t)(off[2] - off[1]),
			     (uint32_t)off[1]);
}

int pmuk_pdb_dbi(struct pmuk_pdb *p)
{
	struct pdb_stream s;
	uint16_t symrec = PDB_NIL;
	int err = pmuk_pdb_stream(p, PDB_STREAM_DBI, &s);

	if (err)
		return err;
	if (s.n < DBI_HEADER || (int32_t)pmuk_le32(s.p) != -1) {
		free(s.p);
		return bad(0, "no DBI header (signature -1, 64 bytes)");
	}
	/* The Age an image's RSDS record carries is the DBI's: the info stream's goes
	 * up when a PDB is rewritten in place, this one stays the link's. */
	p->age = pmuk_le32(s.p + 8);
	if ((err = substreams(p, &s, &symrec)))
		goto out;
	for (uint32_t i = 0; i < p->nmods && !err; i++)
		err = pmuk_pdb_mod_procs(p, i);
	if (!err && symrec != PDB_NIL && !(err = pmuk_pdb_stream(p, symrec, &p->symrec)))
		err = pmuk_pdb_publics(p, &p->symrec);
	if (!err) {
		/* qsort of a NULL array (none found) is undefined even for 0 items */
		if (p->nprocs)
			qsort(p->procs, p->nprocs, sizeof(*p->procs), by_rva);
		if (p->npubs)
			qsort(p->pubs, p->npubs, sizeof(*p->pubs), pub_by_rva);
	}
out:
	free(s.p);
	return err;
}
