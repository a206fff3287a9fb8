/* SPDX-License-Identifier: MIT */
/* The PDB info stream (stream 1): version, signature, Age, GUID, then the named
 * stream map (a string buffer and a hash table of name offset -> stream number)
 * that locates "/names", the string table source file names index into. */
#include "formats/pdb_int.h"
#include "core/cursor.h"
#include "core/error.h"
#include "core/le.h"

#include <stdlib.h>
#include <string.h>

#define NAMES_MAGIC 0xeffeeffeu

static int bad(const struct pdb_stream *s, const struct pmuk_cursor *c, const char *what)
{
	return pmuk_fail(PMU_EFORMAT, "PDB info stream (stream %u) at offset %zu: %s: the "
			 "file is corrupt", s->index, (size_t)(s->n - c->left), what);
}

/* Skips a bit vector (word count, words); its words stay in *words. */
static int bitvec(struct pmuk_cursor *c, const uint8_t **words, uint32_t *nw)
{
	const uint8_t *w = pmuk_cursor_span(c, 4);

	if (!w)
		return -1;
	*nw = pmuk_le32(w);
	if (*nw > c->left / 4)
		return -1;
	*words = pmuk_cursor_span(c, 4 * (size_t)*nw);
	return 0;
}

/* The stream number of "/names" in the named stream map, or PDB_NIL. */
static int names_stream(const struct pdb_stream *s, struct pmuk_cursor *c, uint32_t *out)
{
	const uint8_t *h, *strs, *present, *deleted;
	uint32_t nstr, cap, np, nd;

	*out = PDB_NIL;
	if (!(h = pmuk_cursor_span(c, 4)) || (nstr = pmuk_le32(h)) > c->left)
		return bad(s, c, "the named stream map's string buffer runs past the stream");
	strs = pmuk_cursor_span(c, nstr);
	if (!(h = pmuk_cursor_span(c, 8)))
		return bad(s, c, "the named stream map has no hash table header");
	cap = pmuk_le32(h + 4);
	if (bitvec(c, &present, &np) || bitvec(c, &deleted, &nd))
		return bad(s, c, "a bit vector of the named stream map runs past the stream");
	(void)deleted;	/* the deleted set only needs skipping */
	for (uint32_t i = 0; i < cap && i / 32 < np; i++) {
		uint32_t key, val;

		if (!(pmuk_le32(present + 4 * (size_t)(i / 32)) >> (i % 32) & 1))
			continue;
		if (!(h = pmuk_cursor_span(c, 8)))
			return bad(s, c, "the named stream map's entries run past the stream");
		key = pmuk_le32(h);
		val = pmuk_le32(h + 4);
		if (key < nstr && memchr(strs + key, 0, nstr - key) &&
		    !strcmp((const char *)strs + key, "/names"))
			*out = val;
	}
	return 0;
}

static int string_table(struct pmuk_pdb *p, uint32_t i)
{
	int err = pmuk_pdb_stream(p, i, &p->names);

	if (err)
		return err;
	if (p->names.n < 12 || pmuk_le32(p->names.p) != NAMES_MAGIC ||
	    pmuk_le32(p->names.p + 8) > p->names.n - 12)
		return pmuk_fail(PMU_EFORMAT, "PDB string table \"/names\" (stream %u) at offset "
				 "0: no valid header (signature 0xeffeeffe, size within its %u "
				 "bytes): the file is corrupt", i, p->names.n);
	return 0;
}

int pmuk_pdb_info(struct pmuk_pdb *p)
{
	struct pdb_stream s;
	struct pmuk_cursor c;
	const uint8_t *h;
	uint32_t names;
	int err = pmuk_pdb_stream(p, PDB_STREAM_INFO, &s);

	if (err)
		return err;
	c = (struct pmuk_cursor){ s.p, s.n };
	if (!(h = pmuk_cursor_span(&c, 28))) {
		err = bad(&s, &c, "shorter than its 28-byte header");
		goto out;
	}
	p->age = pmuk_le32(h + 8);
	p->guid.d1 = pmuk_le32(h + 12);
	p->guid.d2 = pmuk_le16(h + 16);
	p->guid.d3 = pmuk_le16(h + 18);
	memcpy(p->guid.d4, h + 20, 8);
	if (!(err = names_stream(&s, &c, &names)) && names != PDB_NIL)
		err = string_table(p, names);
out:
	free(s.p);
	return err;
}

const char *pmuk_pdb_name(const struct pmuk_pdb *p, uint32_t off)
{
	uint32_t n;

	if (!p->names.p)
		return NULL;
	n = pmuk_le32(p->names.p + 8);
	if (off >= n || !memchr(p->names.p + 12 + off, 0, n - off))
		return NULL;
	return (const char *)p->names.p + 12 + off;
}
