/* SPDX-License-Identifier: MIT */
/* A module's C13 debug subsections (u32 kind, u32 length, data, 4-aligned) after
 * its symbols: DEBUG_S_LINES (a code range seg:off, flags, then blocks of one file:
 * checksum offset, line count, byte size, rows {offset, line:24 flags:8} and
 * columns when flag 1), DEBUG_S_FILECHKSMS (name offset in "/names", checksum) and
 * DEBUG_S_INLINEELINES (function id -> file and line where it starts). */
#include "formats/pdb_int.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/le.h"

#include <stdlib.h>
#include <string.h>

#define DEBUG_S_LINES 0xf2
#define DEBUG_S_FILECHKSMS 0xf4
#define DEBUG_S_INLINEELINES 0xf6
#define HIDDEN_LINE_A 0xfeefee
#define HIDDEN_LINE_B 0xf00f00

static int bad(const struct pdb_module *m, uint64_t off, const char *what)
{
	return pmuk_fail(PMU_EFORMAT, "PDB module stream %u at offset %llu: %s: the file is "
			 "corrupt", m->stream, (unsigned long long)off, what);
}

static int add_line(struct pdb_module *m, uint32_t rva, uint32_t line, uint32_t file)
{
	if (pmuk_grow((void **)&m->lines, &m->caplines, m->nlines + 1, sizeof(*m->lines)))
		return pmuk_fail(PMU_ENOMEM, "out of memory reading PDB line tables");
	if (line == HIDDEN_LINE_A || line == HIDDEN_LINE_B)
		line = 0;
	m->lines[m->nlines] = (struct pdb_line){ rva, line, file, (uint32_t)m->nlines };
	m->nlines++;
	return 0;
}

static int lines(struct pmuk_pdb *p, struct pdb_module *m, const uint8_t *d, uint32_t n,
		 uint32_t base)
{
	uint32_t rva, at = 12;
	int cols;

	if (n < 12)
		return bad(m, base, "a line subsection is shorter than its header");
	if ((rva = pmuk_pdb_rva(p, pmuk_le16(d + 4), pmuk_le32(d))) == UINT32_MAX)
		return 0;	/* code in no section: nothing to look up */
	cols = pmuk_le16(d + 6) & 1;
	while (at + 12 <= n) {
		uint32_t file = pmuk_le32(d + at), nl = pmuk_le32(d + at + 4);
		uint32_t size = pmuk_le32(d + at + 8);

		if (size < 12 || size > n - at || nl > (size - 12) / (cols ? 12u : 8u))
			return bad(m, base + at, "a line block runs past its subsection");
		for (uint32_t i = 0; i < nl; i++) {
			const uint8_t *row = d + at + 12 + 8 * (size_t)i;
			uint32_t line = pmuk_le32(row + 4) & 0xffffff;
			int err = 0;

			/* Code before the first row (an inlined call at the very start)
			 * is the first row's line, as the DWARF of the same code says. */
			if (at == 12 && i == 0 && pmuk_le32(row))
				err = add_line(m, rva, line, file);
			if (err || (err = add_line(m, rva + pmuk_le32(row), line, file)))
				return err;
		}
		at += size;
	}
	return 0;
}

static int inlinees(struct pdb_module *m, const uint8_t *d, uint32_t n, uint32_t base)
{
	uint32_t extra, at = 4;

	if (n < 4)
		return bad(m, base, "an inlinee subsection has no signature");
	extra = pmuk_le32(d) == 1;
	while (at + 12 <= n) {
		uint32_t skip = 12;

		if (extra) {
			if (n - at < 16 || pmuk_le32(d + at + 12) > (n - at - 16) / 4)
				return bad(m, base + at, "an inlinee's extra files run past the "
					   "subsection");
			skip = 16 + 4 * pmuk_le32(d + at + 12);
		}
		if (pmuk_grow((void **)&m->inl, &m->capinl, m->ninl + 1, sizeof(*m->inl)))
			return pmuk_fail(PMU_ENOMEM, "out of memory reading PDB inlinee lines");
		m->inl[m->ninl++] = (struct pdb_inlinee){ pmuk_le32(d + at), pmuk_le32(d + at + 4),
							  pmuk_le32(d + at + 8) };
		at += skip;
	}
	return 0;
}

static int line_cmp(const void *a, const void *b)
{
	const struct pdb_line *x = a, *y = b;

	if (x->rva != y->rva)
		return x->rva < y->rva ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int inl_cmp(const void *a, const void *b)
{
	const struct pdb_inlinee *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int subsections(struct pmuk_pdb *p, struct pdb_module *m)
{
	uint32_t base = m->symbytes + m->c11bytes, n = m->c13bytes;
	const uint8_t *c13 = m->s.p + base;
	int err = 0;

	for (uint32_t at = 0; at + 8 <= n && !err;) {
		uint32_t kind = pmuk_le32(c13 + at) & 0x7fffffff, len = pmuk_le32(c13 + at + 4);
		const uint8_t *d = c13 + at + 8;

		if (len > n - at - 8)
			return bad(m, base + at, "a debug subsection runs past the module's lines");
		if (kind == DEBUG_S_LINES)
			err = lines(p, m, d, len, base + at + 8);
		else if (kind == DEBUG_S_FILECHKSMS) {
			m->chk = d;
			m->nchk = len;
		} else if (kind == DEBUG_S_INLINEELINES)
			err = inlinees(m, d, len, base + at + 8);
		at += (8 + len + 3) & ~3u;
	}
	return err;
}

int pmuk_pdb_mod_lines(struct pmuk_pdb *p, struct pdb_module *m)
{
	int err;

	if (m->loaded)
		return m->loaded < 0 ? PMU_EFORMAT : 0;
	if (m->stream == PDB_NIL || !m->s.p) {
		m->loaded = 1;
		return 0;
	}
	if ((err = subsections(p, m))) {
		m->loaded = -1;
		return err;
	}
	if (m->nlines)	/* qsort(NULL, 0) is undefined */
		qsort(m->lines, m->nlines, sizeof(*m->lines), line_cmp);
	if (m->ninl)
		qsort(m->inl, m->ninl, sizeof(*m->inl), inl_cmp);
	m->loaded = 1;
	return 0;
}

const char *pmuk_pdb_file(const struct pmuk_pdb *p, const struct pdb_module *m, uint32_t chk)
{
	if (!m->chk || chk > m->nchk || m->nchk - chk < 4)
		return NULL;
	return pmuk_pdb_name(p, pmuk_le32(m->chk + chk));
}
