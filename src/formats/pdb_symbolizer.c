/* SPDX-License-Identifier: MIT */
/* PE images in offline symbolizers, on every OS, through the portable PDB reader:
 * the image's RSDS record names its PDB (GUID + Age), found along the symbol path
 * (core/sympath.h) and refused when its GUID + Age differ ("stale PDB"). Frames
 * carry the RVA as module offset. */
#include "core/symbols_int.h"
#include "core/error.h"
#include "core/file.h"
#include "core/guid.h"
#include "core/le.h"
#include "core/sympath.h"
#include "formats/pdb.h"
#include "formats/pdb_symbolizer.h"
#include "formats/pe_rsds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ImageBase and SizeOfImage of the PE optional header; 0 or -1 for no PE image. */
static int pe_layout(const char *path, uint64_t *base, uint64_t *size)
{
	uint8_t h[0x400];
	FILE *f = pmuk_fopen(path, "rb");	/* UTF-8 paths on Windows too */
	size_t n = f ? fread(h, 1, sizeof(h), f) : 0;
	uint32_t pe;

	if (f)
		fclose(f);
	if (n < 0x40 || h[0] != 'M' || h[1] != 'Z')
		return -1;
	pe = pmuk_le32(h + 0x3c);
	if (pe > n - 24 - 64 || memcmp(h + pe, "PE\0\0", 4))
		return -1;
	if (pmuk_le16(h + pe + 24) == 0x20b)
		*base = pmuk_le64(h + pe + 24 + 24);
	else
		*base = pmuk_le32(h + pe + 24 + 28);
	*size = pmuk_le32(h + pe + 24 + 56);
	return 0;
}

void pmuk_sym_pe_spell(const struct pmu_module_id *id, char *buf, size_t size)
{
	char g[40];

	pmu_guid_format(&id->guid, g, sizeof(g));
	snprintf(buf, size, "{%s}-%u", g, (unsigned)id->age);
}

/* The recorded identity (GUID as stored + Age LE) against the image's. */
static int recorded_matches(const struct pmu_symbolizer_module *m, const struct pmu_module_id *id)
{
	uint8_t want[20];

	if (!m->build_id_size)
		return 1;
	pmuk_guid_store(want, &id->guid);
	want[16] = (uint8_t)id->age;
	want[17] = (uint8_t)(id->age >> 8);
	want[18] = (uint8_t)(id->age >> 16);
	want[19] = (uint8_t)(id->age >> 24);
	return m->build_id_kind == PMU_BUILD_ID_PDB && m->build_id_size == 20 &&
	       !memcmp(m->build_id, want, 20);
}

/* Opens the first candidate PDB whose GUID + Age are the image's. */
int pmuk_sym_pe_find_pdb(struct pmu_symbolizer *s, const struct pmu_module_id *id, const char *image,
		    struct pmuk_pdb **out)
{
	const char *spec = s->opts.symbol_path ? s->opts.symbol_path : getenv("_NT_SYMBOL_PATH");
	char path[4096], want[64], stale[4096 + 80] = "";
	struct pmuk_sympath sp;
	int err = pmuk_sympath_parse(spec, &sp), r;

	if (err)
		return err;
	pmuk_sym_pe_spell(id, want, sizeof(want));
	for (size_t i = 0; (r = pmuk_sympath_candidate(&sp, id, image, i, path, sizeof(path))) !=
			   PMU_ENOENT; i++) {
		struct pmuk_pdb *p;
		struct pmu_module_id got = { 0 };

		if (r || pmuk_pdb_open(path, &p))
			continue;
		pmuk_pdb_identity(p, &got.guid, &got.age);
		if (!memcmp(&got.guid, &id->guid, sizeof(got.guid)) && got.age == id->age) {
			pmuk_sympath_free(&sp);
			*out = p;
			return 0;
		}
		if (!stale[0]) {
			char have[64];

			pmuk_sym_pe_spell(&got, have, sizeof(have));
			snprintf(stale, sizeof(stale), "%s is %s", path, have);
		}
		pmuk_pdb_close(p);
	}
	err = stale[0] ? pmuk_fail(PMU_EFORMAT, "stale PDB: %s but %s needs %s %s; its names "
				   "would be wrong, so its addresses resolve to module + offset "
				   "only", stale, image, pmuk_path_base(id->pdb), want)
		: pmuk_fail(PMU_ENOENT, "no PDB for %s: %s %s is in none of the %zu symbol path "
			    "directories%s, at its recorded path nor next to the image; fetch it "
			    "(symchk /r %s) into a directory of --symbol-path", image,
			    pmuk_path_base(id->pdb), want, sp.n, sp.remote ?
			    " (network symbol servers are not contacted)" : "", image);
	pmuk_sympath_free(&sp);
	return err;
}

static int pe_open(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m,
		   struct pmuk_sym_module *mod)
{
	struct pmu_module_id id;
	int err = pmu_module_id_from_pe_file(m->path, &id);

	if (err)
		return err == PMU_ENOENT ? pmuk_fail(PMU_ENOENT, "%s has no CodeView (RSDS) "
				"record: no PDB names its code", m->path) : err;
	if (!recorded_matches(m, &id)) {
		char have[64];

		pmuk_sym_pe_spell(&id, have, sizeof(have));
		return pmuk_fail(PMU_EFORMAT, "stale image: %s has PDB identity %s, not the one "
				 "recorded (rebuilt or replaced since); its addresses resolve to "
				 "module + offset only", m->path, have);
	}
	return pmuk_sym_pe_find_pdb(s, &id, m->path, (struct pmuk_pdb **)&mod->handle);
}

void pmuk_sym_pe_recorded_id(const char *image, const uint8_t *build_id, const char *pdb,
			     struct pmu_module_id *id)
{
	const char *b = pmuk_path_base(image), *dot = strrchr(b, '.');

	memset(id, 0, sizeof(*id));
	pmuk_guid_load(&id->guid, build_id);
	id->age = pmuk_le32(build_id + 16);
	if (pdb && *pdb)
		snprintf(id->pdb, sizeof(id->pdb), "%s", pdb);
	else
		snprintf(id->pdb, sizeof(id->pdb), "%.*s.pdb",
			 (int)(dot ? (size_t)(dot - b) : strlen(b)), b);
}

int pmuk_sym_pe_attach_id(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m,
			  struct pmuk_sym_module *mod)
{
	struct pmu_module_id id;
	int err;

	pmuk_sym_pe_recorded_id(m->path, m->build_id, NULL, &id);
	if (!(err = pmuk_sym_pe_find_pdb(s, &id, m->path, (struct pmuk_pdb **)&mod->handle)))
		mod->pe = 1;
	return err;
}

/* Adds the PE module [first, end) at bias and attaches its PDB with attach; a
 * module merged into one already added answers that one's state. */
static int add_module(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m,
		      uint64_t bias, uint64_t first, uint64_t end,
		      int (*attach)(struct pmu_symbolizer *, const struct pmu_symbolizer_module *,
				    struct pmuk_sym_module *))
{
	struct pmuk_sym_module *mod;
	int merged;

	mod = pmuk_sym_module_add(s, m->path, bias, first, end, &merged);
	if (!mod)
		return pmuk_fail(PMU_ENOMEM, "out of memory adding module %s", m->path);
	if (merged)
		return mod->state;
	mod->pe = 1;
	mod->state = attach(s, m, mod);	/* adds no module: mod stays valid */
	return mod->state;
}

int pmuk_sym_pe_add(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m)
{
	uint64_t base, size, bias, first;
	FILE *f = NULL;

	if (pe_layout(m->path, &base, &size)) {
		if (m->build_id_kind != PMU_BUILD_ID_PDB || m->build_id_size != 20 || !m->start ||
		    (f = pmuk_fopen(m->path, "rb")) != NULL) {
			if (f)
				fclose(f);
			return PMUK_SYM_NOT_PE;
		}
		/* Not on disk but its PDB identity was recorded: placed as mapped. */
		return add_module(s, m, m->start - m->pgoff, m->start,
				  m->start + (m->len ? m->len : 4096), pmuk_sym_pe_attach_id);
	}
	/* Whole images sit where asked, or at their ImageBase (what llvm-symbolizer and
	 * addr2line -e take); a mapping places file offset pgoff at start. */
	bias = !m->len ? (m->start ? m->start : base) : m->start - m->pgoff;
	first = m->len ? m->start : bias;
	return add_module(s, m, bias, first, first + (m->len ? m->len : size), pe_open);
}

int pmuk_sym_pe_resolve(struct pmu_symbolizer *s, uint64_t addr)
{
	struct pmuk_sym_module *m = s->opts.offline ? pmuk_sym_module_at(s, addr) : NULL;
	struct pmuk_pdb_frame f[PMUK_SYM_DEPTH];
	uint64_t rva;
	int k;

	if (!m || !m->pe)
		return PMUK_SYM_NOT_PE;
	rva = addr - m->bias;
	if (m->state || !m->handle || rva > UINT32_MAX ||
	    (k = pmuk_pdb_lookup(m->handle, (uint32_t)rva, f, PMUK_SYM_DEPTH)) <= 0) {
		pmuk_sym_module_frame(m, addr, &s->chain[0]);
		return 1;
	}
	return pmuk_sym_pe_chain(s, f, k, m->path, rva);
}

int pmuk_sym_pe_chain(struct pmu_symbolizer *s, const struct pmuk_pdb_frame *f, int k,
		      const char *module, uint64_t rva)
{
	for (int i = 0; i < k; i++)
		s->chain[i] = (struct pmu_frame){
			.function = f[i].function, .file = f[i].file, .line = f[i].line,
			.module = module, .module_offset = rva, .symbol_offset = rva - f[i].start,
			.flags = i + 1 < k ? PMU_FRAME_INLINED : 0 };
	return k;
}

void pmuk_sym_pe_close(struct pmu_symbolizer *s)
{
	for (size_t i = 0; i < s->nmods; i++)
		if (s->mods[i].pe) {
			pmuk_pdb_close(s->mods[i].handle);
			s->mods[i].handle = NULL;
		}
}

int pmuk_sym_pe_attach(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m,
		       struct pmuk_sym_module *mod)
{
	int err = pe_open(s, m, mod);	/* sets mod->handle only when it succeeds */

	if (!err)
		mod->pe = 1;
	return err;
}
