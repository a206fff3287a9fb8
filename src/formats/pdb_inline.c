/* SPDX-License-Identifier: MIT */
/* Inlined calls: the S_INLINESITE records nested in a procedure (parent, end,
 * inlinee function id, binary annotations) and the IPI stream (stream 4) whose
 * LF_FUNC_ID/LF_MFUNC_ID records name the inlinees. The annotations are compressed
 * opcodes that walk the code offset (relative to the procedure), the line (from the
 * inlinee's DEBUG_S_INLINEELINES start) and the file: each code-offset step opens a
 * range with the current line, a code length closes it. */
#include "formats/pdb_int.h"
#include "core/bsearch.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/le.h"

#include <stdlib.h>
#include <string.h>

#define S_INLINESITE 0x114d
#define S_INLINESITE2 0x115d
#define LF_FUNC_ID 0x1601
#define LF_MFUNC_ID 0x1602
#define TPI_HEADER 56

enum ba_op {
	BA_END, BA_CODE_OFFSET, BA_CODE_OFFSET_BASE, BA_CHANGE_CODE_OFFSET,
	BA_CHANGE_CODE_LENGTH, BA_CHANGE_FILE, BA_CHANGE_LINE, BA_CHANGE_LINE_END,
	BA_CHANGE_RANGE_KIND, BA_CHANGE_COLUMN_START, BA_CHANGE_COLUMN_END_DELTA,
	BA_CODE_AND_LINE, BA_LENGTH_AND_CODE, BA_CHANGE_COLUMN_END,
};

static int ipi_load(struct pmuk_pdb *p)
{
	uint32_t hsize, bytes;
	int err;

	p->ipi_loaded = -1;
	if (PDB_STREAM_IPI >= p->nstreams || !p->ssize[PDB_STREAM_IPI])
		return 0;	/* no IPI stream: inlined frames go unnamed */
	if ((err = pmuk_pdb_stream(p, PDB_STREAM_IPI, &p->ipi)))
		return err;
	if (p->ipi.n < TPI_HEADER || (hsize = pmuk_le32(p->ipi.p + 4)) > p->ipi.n ||
	    (bytes = pmuk_le32(p->ipi.p + 16)) > p->ipi.n - hsize)
		return pmuk_fail(PMU_EFORMAT, "PDB IPI stream (stream 4) at offset 0: its header "
				 "does not fit its %u bytes: the file is corrupt", p->ipi.n);
	p->ipi_begin = pmuk_le32(p->ipi.p + 8);
	for (uint32_t at = hsize; at + 4 <= hsize + bytes;) {
		uint32_t end = at + 2 + pmuk_le16(p->ipi.p + at);

		if (end > hsize + bytes || end < at + 4)
			return pmuk_fail(PMU_EFORMAT, "PDB IPI stream (stream 4) at offset %u: a "
					 "record runs past the stream: the file is corrupt", at);
		if (pmuk_grow((void **)&p->ipi_off, &p->ipi_cap, p->ipi_n + 1,
			      sizeof(*p->ipi_off)))
			return pmuk_fail(PMU_ENOMEM, "out of memory indexing the PDB IPI stream");
		p->ipi_off[p->ipi_n++] = at;
		at = end;
	}
	p->ipi_loaded = 1;
	return 0;
}

const char *pmuk_pdb_func_id(struct pmuk_pdb *p, uint32_t id)
{
	uint32_t at, end;
	uint16_t kind;

	if (!p->ipi_loaded && ipi_load(p))
		return NULL;
	if (p->ipi_loaded < 0 || id < p->ipi_begin || id - p->ipi_begin >= p->ipi_n)
		return NULL;
	at = p->ipi_off[id - p->ipi_begin];
	end = at + 2 + pmuk_le16(p->ipi.p + at);
	kind = pmuk_le16(p->ipi.p + at + 2);
	if (kind != LF_FUNC_ID && kind != LF_MFUNC_ID)
		return NULL;
	return pmuk_pdb_cstr(p->ipi.p, at + 12, end);
}

/* A compressed unsigned operand; 0 or -1 past the end or when malformed. */
static int operand(const uint8_t *a, size_t n, size_t *at, uint32_t *v)
{
	uint8_t b;

	if (*at >= n)
		return -1;
	b = a[(*at)++];
	if (!(b & 0x80)) {
		*v = b;
	} else if ((b & 0xc0) == 0x80) {
		if (*at >= n)
			return -1;
		*v = (uint32_t)(b & 0x3f) << 8 | a[(*at)++];
	} else if ((b & 0xe0) == 0xc0) {
		if (n - *at < 3)
			return -1;
		*v = (uint32_t)(b & 0x1f) << 24 | (uint32_t)a[*at] << 16 |
		     (uint32_t)a[*at + 1] << 8 | a[*at + 2];
		*at += 3;
	} else {
		return -1;
	}
	return 0;
}

static int32_t sdecode(uint32_t v)
{
	return v & 1 ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
}

/* The walk of one site's annotations toward the code offset target. */
struct ba_walk {
	uint32_t target;
	uint32_t off, line, file;
	int open, dirty, found, any;
	uint32_t rstart, rline, rfile;
	uint32_t first;         /* where the site's first range starts */
};

static void ba_close(struct ba_walk *w, uint32_t end)
{
	if (w->open && !w->found && w->target >= w->rstart && w->target < end) {
		w->found = 1;
		w->line = w->rline;
		w->file = w->rfile;
	}
	w->open = 0;
}

static void ba_open(struct ba_walk *w)
{
	if (!w->any)
		w->first = w->off;
	w->any = w->open = 1;
	w->dirty = 0;
	w->rstart = w->off;
	w->rline = w->line;
	w->rfile = w->file;
}

/* A line or file change not followed by a code step belongs to the open range. */
static void ba_settle(struct ba_walk *w)
{
	if (w->dirty && w->open && w->rstart == w->off) {
		w->rline = w->line;
		w->rfile = w->file;
	}
	w->dirty = 0;
}

static int ba_step(struct ba_walk *w, uint32_t op, const uint8_t *a, size_t n, size_t *at)
{
	uint32_t u, v;

	if (operand(a, n, at, &u))
		return -1;
	if (op != BA_CHANGE_FILE && op != BA_CHANGE_LINE && op != BA_CODE_OFFSET &&
	    op != BA_CHANGE_CODE_OFFSET && op != BA_CODE_AND_LINE && op != BA_LENGTH_AND_CODE)
		ba_settle(w);
	switch (op) {
	case BA_CODE_OFFSET:
	case BA_CHANGE_CODE_OFFSET:
		ba_close(w, w->off + u);
		w->off += u;
		ba_open(w);
		break;
	case BA_CODE_OFFSET_BASE:
		w->off += u;
		break;
	case BA_CHANGE_CODE_LENGTH:
		ba_close(w, w->off + u);
		w->off += u;
		break;
	case BA_CHANGE_FILE:
		w->file = u;
		w->dirty = 1;
		break;
	case BA_CHANGE_LINE:
		w->line += (uint32_t)sdecode(u);
		w->dirty = 1;
		break;
	case BA_CODE_AND_LINE:
		w->line += (uint32_t)sdecode(u >> 4);
		ba_close(w, w->off + (u & 15));
		w->off += u & 15;
		ba_open(w);
		break;
	case BA_LENGTH_AND_CODE:
		if (operand(a, n, at, &v))
			return -1;
		ba_close(w, w->off + v);
		w->off += v;
		ba_open(w);
		ba_close(w, w->off + u);
		w->off += u;
		break;
	default:	/* columns and range kinds: one operand, not needed here */
		break;
	}
	return 0;
}

/* Whether the site whose annotations are a[0..n) covers w->target; its line and
 * file there. -1: malformed annotations. */
static int ba_run(struct ba_walk *w, const uint8_t *a, size_t n)
{
	size_t at = 0;
	uint32_t op;

	while (!w->found && at < n) {
		if (operand(a, n, &at, &op))
			return -1;
		if (op == BA_END)
			break;
		if (op > BA_CHANGE_COLUMN_END || ba_step(w, op, a, n, &at))
			return -1;
	}
	ba_settle(w);
	ba_close(w, UINT32_MAX);	/* a range left open runs to the procedure's end */
	return w->found;
}

static int bad_site(const struct pdb_module *m, uint32_t at, const char *what)
{
	return pmuk_fail(PMU_EFORMAT, "PDB module stream %u at offset %u: %s: the file is "
			 "corrupt", m->stream, at, what);
}

/* The site's first line and file, from the module's inlinee table. */
static void site_start(const struct pdb_module *m, uint32_t id, struct ba_walk *w)
{
	size_t i = PMUK_BSEARCH_UPPER(m->inl, m->ninl, id, id);

	if (i && m->inl[i - 1].id == id) {
		w->line = m->inl[i - 1].line;
		w->file = m->inl[i - 1].file;
	}
}

/* The site record at[0..end) covers the walk's target: 1, 0, or PMU_EFORMAT. */
static int site_covers(const struct pdb_module *m, uint32_t at, uint32_t end,
		       struct ba_walk *w, uint32_t *inlinee, uint32_t *next)
{
	const uint8_t *d = m->s.p + at + 4;
	uint32_t hdr = pmuk_le16(m->s.p + at + 2) == S_INLINESITE2 ? 16 : 12;
	int r;

	if (end - at < 4 + hdr)
		return bad_site(m, at, "an inline site record is shorter than its header");
	*next = pmuk_le32(d + 4);
	*inlinee = pmuk_le32(d + 8);
	site_start(m, *inlinee, w);
	if ((r = ba_run(w, d + hdr, end - at - 4 - hdr)) < 0)
		return bad_site(m, at, "an inline site's binary annotations are malformed");
	if (!r && *next <= at)
		return bad_site(m, at, "an inline site ends before it starts");
	return r;
}

int pmuk_pdb_inlines(struct pmuk_pdb *p, const struct pdb_proc *pr, uint32_t rva,
		     struct pmuk_pdb_frame *f, int max)
{
	const struct pdb_module *m = &p->mods[pr->mod];
	struct pmuk_pdb_frame site[64];
	uint32_t at = pr->sym + 2 + pmuk_le16(m->s.p + pr->sym);
	int ns = 0;

	/* at <= symbytes - 4, not at + 4 <= symbytes: a site's end near 4 GiB wraps */
	while (at <= m->symbytes - 4 && at < pr->end) {
		uint32_t end = at + 2 + pmuk_le16(m->s.p + at), kind, id = 0, next = 0;
		struct ba_walk w = { .target = rva - (uint32_t)pr->rva };
		int r;

		if (end > m->symbytes || end < at + 4)
			return bad_site(m, at, "a symbol record runs past the module's symbols");
		kind = pmuk_le16(m->s.p + at + 2);
		if (kind != S_INLINESITE && kind != S_INLINESITE2) {
			at = end;
			continue;
		}
		if ((r = site_covers(m, at, end, &w, &id, &next)) < 0)
			return r;
		if (!r) {
			at = next;	/* past its nested records, to its S_INLINESITE_END */
			continue;
		}
		if (ns < 64)
			site[ns++] = (struct pmuk_pdb_frame){
				.function = pmuk_pdb_func_id(p, id), .line = w.line,
				.file = pmuk_pdb_file(p, m, w.file),
				.start = (uint32_t)pr->rva + w.first };
		at = end;
	}
	for (int i = 0; i < ns && i < max; i++)
		f[i] = site[ns - 1 - i];
	return ns < max ? ns : max;
}
