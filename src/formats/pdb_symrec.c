/* SPDX-License-Identifier: MIT */
/* Recording mode's PE images (an .etl's image loads): the recorded GUID + Age and
 * PDB name find the PDB along the symbol path, with or without the image on disk.
 * Frames of an image whose PDB is missing carry PMU_FRAME_NOFILE: the report counts
 * their samples by module (src/core/sympath_report.c). */
#include "core/error.h"
#include "formats/pdb_symbolizer.h"

#include <stdio.h>
#include <string.h>

int pmuk_sym_pe_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
		      const struct pmu_mmap *mm)
{
	struct pmu_module_id id;

	img->pe = 1;
	if (mm->build_id_kind != PMU_BUILD_ID_PDB || mm->build_id_size != 20)
		return pmuk_fail(PMU_ENOENT, "%s: a PE image recorded without its PDB GUID+Age; "
				 "its addresses resolve to module + offset only", img->path);
	pmuk_sym_pe_recorded_id(img->path, mm->build_id, mm->debug_path, &id);
	return pmuk_sym_pe_find_pdb(s, &id, img->path, (struct pmuk_pdb **)&img->handle);
}

int pmuk_sym_pe_resolve_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
			      uint64_t rva)
{
	struct pmuk_pdb_frame f[PMUK_SYM_DEPTH];
	int k = 0;

	if (!img->state && img->handle && rva <= UINT32_MAX &&
	    (k = pmuk_pdb_lookup(img->handle, (uint32_t)rva, f, PMUK_SYM_DEPTH)) > 0)
		return pmuk_sym_pe_chain(s, f, k, img->name, rva);
	s->chain[0] = (struct pmu_frame){ .module = img->name, .module_offset = rva };
	if (img->state == PMU_EFORMAT)
		s->chain[0].flags = PMU_FRAME_STALE;
	else if (img->state)
		s->chain[0].flags = PMU_FRAME_NOFILE;
	return 1;
}

void pmuk_sym_pe_image_close(struct pmu_symbolizer *s, struct pmuk_sym_image *img)
{
	(void)s;
	if (!img->pe)
		return;
	pmuk_pdb_close(img->handle);
	img->handle = NULL;
}
