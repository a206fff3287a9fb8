/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_SYMBOLS_DW_H
#define PMUK_LINUX_SYMBOLS_DW_H

/* The libdwfl backend's state, shared by its files: symbols_dw.c (live and
 * add_module symbolizers, the lookup itself) and symbols_img.c (the images of
 * recording mode). */

#include "core/symbols_int.h"
#include "linux/dw_cumap.h"
#include "linux/dw_prefetch.h"
#include "linux/dw_symtab.h"

#include <elfutils/libdwfl.h>

struct cu_index;

struct pmuk_dw {
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
	int refreshed;          /* live: maps re-read since the last hit */
	struct cu_index *cus;   /* sorted by the address of the unit's DIE */
	size_t ncus, capcus;
	struct pmuk_cumaps cumaps; /* units by address where .debug_aranges falls short */
	struct pmuk_symtabs symtabs; /* function symbols by address */
	struct pmuk_dw_prefetch prefetch; /* recording mode: images' DWARF read ahead */
};

/* The caches hold pointers into libdwfl's modules: forgotten when modules may
 * have gone (live maps re-read, an image closed). */
void pmuk_dw_forget_units(struct pmuk_dw *d);
/* The chain of addr (an address of dm's Dwfl) into s->chain; frames name the
 * module path. The count. */
int pmuk_dw_resolve_in(struct pmu_symbolizer *s, Dwfl_Module *dm, const char *path,
		       uint64_t addr);

#endif
