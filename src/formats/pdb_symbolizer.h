/* SPDX-License-Identifier: MIT */
#ifndef PMUK_FORMATS_PDB_SYMBOLIZER_H
#define PMUK_FORMATS_PDB_SYMBOLIZER_H

/* Shared by the symbolizer's PE parts (pdb_symbolizer.c: offline modules,
 * pdb_symrec.c: recording mode, symbols_win.c: DbgHelp's fallback). */

#include "core/symbols_int.h"
#include "formats/pdb.h"

/* "{guid}-age" */
void pmuk_sym_pe_spell(const struct pmu_module_id *id, char *buf, size_t size);
/* The PDB of id along the symbol path, the recorded PDB path and image's directory
 * (image may be NULL): 0, PMU_ENOENT (none: the detail names it with GUID+Age) or
 * PMU_EFORMAT (only stale ones). */
int pmuk_sym_pe_find_pdb(struct pmu_symbolizer *s, const struct pmu_module_id *id,
			 const char *image, struct pmuk_pdb **out);
/* The k frames f as s->chain of module at rva; k. */
int pmuk_sym_pe_chain(struct pmu_symbolizer *s, const struct pmuk_pdb_frame *f, int k,
		      const char *module, uint64_t rva);
/* The identity of a recorded build-id of kind PDB (GUID as stored, Age LE: 20
 * bytes) and PDB path (NULL: the linker's default, the image's name with .pdb). */
void pmuk_sym_pe_recorded_id(const char *image, const uint8_t *build_id, const char *pdb,
			     struct pmu_module_id *id);
/* An offline module not on disk whose PDB identity was recorded: its PDB found by
 * it (mod->handle, mod->pe); 0 or why not. */
int pmuk_sym_pe_attach_id(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m,
			  struct pmuk_sym_module *mod);
/* Windows: DbgHelp found no PDB for mod (added from m): the portable reader's try;
 * 0 or why not (mod->state is the caller's). */
int pmuk_sym_pe_attach(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m,
		       struct pmuk_sym_module *mod);

#endif
