/* SPDX-License-Identifier: MIT */
#ifndef PMUK_FORMATS_PE_RSDS_H
#define PMUK_FORMATS_PE_RSDS_H

/* PE/COFF -> CodeView RSDS module identity (PDB GUID + Age + PDB path), portable:
 * DOS header e_lfanew -> "PE\0\0" -> file header -> optional header (PE32 0x10b or
 * PE32+ 0x20b) -> data directory 6 (IMAGE_DIRECTORY_ENTRY_DEBUG) -> the section
 * table maps its RVA to a file offset -> IMAGE_DEBUG_DIRECTORY entries; the first of
 * type IMAGE_DEBUG_TYPE_CODEVIEW (2) whose data starts "RSDS" wins. Every read is
 * bounds-checked; corrupt input gives PMU_EFORMAT with a sentence, never a crash.
 * The public entry points are in <pmukit/symbols.h>. */

#include <pmukit/symbols.h>
#include <stddef.h>
#include <stdint.h>

enum pmuk_pe_layout {
	PMUK_PE_FILE,    /* as on disk: RVAs go through the section table */
	PMUK_PE_MAPPED,  /* as the loader mapped it (a module in memory): RVA = offset */
};

/* Parses image[0..len). PMU_ENOENT when there is no RSDS record. */
int pmuk_pe_module_id(const uint8_t *image, size_t len, enum pmuk_pe_layout layout,
		      struct pmu_module_id *out);

#endif
