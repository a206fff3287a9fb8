/* SPDX-License-Identifier: MIT */
/* CodeView symbol records (u16 length, u16 kind, data): a module stream's
 * procedures (S_GPROC32, S_LPROC32 and their _ID forms: parent, end, next, code
 * length, debug start/end, type, offset, segment, flags, name) and the S_PUB32
 * records (flags, offset, segment, name) of the symbol record stream. */
#include "formats/pdb_int.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/le.h"

#include <stdlib.h>
#include <string.h>

#define S_PUB32 0x110e
#define S_LPROC32 0x110f
#define S_GPROC32 0x1110
#define S_LPROC32_ID 0x1146
#define S_GPROC32_ID 0x1147
#define PROC_NAME 35           /* offset of the name in a procedure's data */
#define PUB_NAME 10

const char *pmuk_pdb_cstr(const uint8_t *rec, size_t at, size_t end)
{
	if (at >= end || !memchr(rec + at, 0, end - at))
		return NULL;
	return (const char *)rec + at;
}

static int is_proc(uint16_t kind)
{
	return kind == S_LPROC32 || kind == S_GPROC32 || kind == S_LPROC32_ID ||
	       kind == S_GPROC32_ID;
}

static int add_proc(struct pmuk_pdb *p, uint32_t mi, const uint8_t *s, uint32_t at,
		    uint32_t end)
{
	const uint8_t *d = s + at + 4;
	struct pdb_proc *pr;
	const char *name;
	uint32_t rva;

	if (end - at < 4 + PROC_NAME + 1 ||
	    !(name = pmuk_pdb_cstr(s, at + 4 + PROC_NAME, end)))
		return pmuk_fail(PMU_EFORMAT, "PDB module stream %u at offset %u: a procedure "
				 "record is too short or its name is not terminated: the file "
				 "is corrupt", p->mods[mi].stream, at);
	if ((rva = pmuk_pdb_rva(p, pmuk_le16(d + 32), pmuk_le32(d + 28))) == UINT32_MAX)
		return 0;	/* in no section of the image: nothing to name */
	if (pmuk_grow((void **)&p->procs, &p->capprocs, p->nprocs + 1, sizeof(*p->procs)))
		return pmuk_fail(PMU_ENOMEM, "out of memory reading PDB procedures");
	pr = &p->procs[p->nprocs++];
	*pr = (struct pdb_proc){ .rva = rva, .len = pmuk_le32(d + 12), .mod = mi, .sym = at,
				 .end = pmuk_le32(d + 4), .name = name };
	return 0;
}

int pmuk_pdb_mod_procs(struct pmuk_pdb *p, uint32_t mi)
{
	struct pdb_module *m = &p->mods[mi];
	uint32_t at = 4;
	int err;

	if (m->stream == PDB_NIL)
		return 0;
	if ((err = pmuk_pdb_stream(p, m->stream, &m->s)))
		return err;
	if (m->symbytes < 4 || m->symbytes > m->s.n || m->c11bytes > m->s.n - m->symbytes ||
	    m->c13bytes > m->s.n - m->symbytes - m->c11bytes)
		return pmuk_fail(PMU_EFORMAT, "PDB module stream %u: %u bytes of symbols and %u "
				 "of lines do not fit its %u bytes: the file is corrupt",
				 m->stream, m->symbytes, m->c11bytes + m->c13bytes, m->s.n);
	while (at + 4 <= m->symbytes) {
		uint32_t end = at + 2 + pmuk_le16(m->s.p + at);
		uint16_t kind = pmuk_le16(m->s.p + at + 2);

		if (end > m->symbytes || end < at + 4)
			return pmuk_fail(PMU_EFORMAT, "PDB module stream %u at offset %u: a symbol "
					 "record of %u bytes runs past the module's symbols (%u "
					 "bytes): the file is corrupt", m->stream, at, end - at,
					 m->symbytes);
		if (is_proc(kind) && (err = add_proc(p, mi, m->s.p, at, end)))
			return err;
		at = end;
	}
	return 0;
}

int pmuk_pdb_publics(struct pmuk_pdb *p, const struct pdb_stream *s)
{
	for (uint32_t at = 0; at + 4 <= s->n;) {
		uint32_t end = at + 2 + pmuk_le16(s->p + at), rva;
		const char *name;

		if (end > s->n || end < at + 4)
			return pmuk_fail(PMU_EFORMAT, "PDB symbol record stream (stream %u) at "
					 "offset %u: a record runs past the stream's %u bytes: the "
					 "file is corrupt", s->index, at, s->n);
		if (pmuk_le16(s->p + at + 2) == S_PUB32 && end - at >= 4 + PUB_NAME + 1 &&
		    (name = pmuk_pdb_cstr(s->p, at + 4 + PUB_NAME, end)) &&
		    (rva = pmuk_pdb_rva(p, pmuk_le16(s->p + at + 12),
					pmuk_le32(s->p + at + 8))) != UINT32_MAX) {
			if (pmuk_grow((void **)&p->pubs, &p->cappubs, p->npubs + 1,
				      sizeof(*p->pubs)))
				return pmuk_fail(PMU_ENOMEM, "out of memory reading PDB publics");
			p->pubs[p->npubs++] = (struct pdb_pub){ rva, name };
		}
		at = end;
	}
	return 0;
}
