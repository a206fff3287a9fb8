/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_SYMPATH_H
#define PMUK_CORE_SYMPATH_H

/* Symbol paths in _NT_SYMBOL_PATH syntax: entries split by ';', each a directory,
 * "srv*[DIR*]...*SERVER", "symsrv*symsrv.dll*DIR*SERVER" or "cache*DIR". The local
 * directories are kept in order; network servers (http://, https://) are out of
 * scope and only counted. A directory is searched as a symbol store
 * (DIR/name.pdb/GUIDAGE/name.pdb) and flat (DIR/name.pdb). */

#include "core/file.h"

#include <pmukit/symbols.h>
#include <stddef.h>

struct pmuk_sympath {
	char **dirs;
	size_t n, cap;
	size_t remote;          /* network servers skipped */
};

/* Parses spec (NULL or "": no directory); 0 or PMU_ENOMEM. */
int pmuk_sympath_parse(const char *spec, struct pmuk_sympath *out);
void pmuk_sympath_free(struct pmuk_sympath *sp);

/* The i-th place to look for the PDB of id: the symbol path's directories (store
 * layout, then flat), the PDB path of the RSDS record, then the image's directory
 * (image may be NULL). 0 with the path in buf, PMU_ENOENT past the last one,
 * PMU_ERANGE when it does not fit size (skip it). */
int pmuk_sympath_candidate(const struct pmuk_sympath *sp, const struct pmu_module_id *id,
			   const char *image, size_t i, char *buf, size_t size);

#endif
