/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_DW_CUMAP_H
#define PMUK_LINUX_DW_CUMAP_H

/* The compile units of a module by address, from each unit's own DW_AT_low_pc /
 * high_pc / ranges. libdw before 0.192 (Debian 12 ships 0.188) finds the unit of
 * an address only through .debug_aranges, which clang and rustc do not emit by
 * default: without this, their code gets no lines and no inlined calls. */

#include <elfutils/libdwfl.h>
#include <stddef.h>

struct pmuk_cumap_entry {
	Dwarf_Addr lo, hi;      /* [lo, hi) in DWARF addresses (module, no bias) */
	Dwarf_Addr max_hi;      /* the highest hi of this and every earlier entry */
	Dwarf_Die *cu;          /* owned by libdwfl while the module lives */
};

struct pmuk_cumap_module {
	Dwfl_Module *dm;
	struct pmuk_cumap_entry *v;   /* sorted by lo */
	size_t n;
};

struct pmuk_cumaps {
	struct pmuk_cumap_module *m;
	size_t n, cap;
};

/* The unit holding addr (an address of the Dwfl, bias included) in dm, its map
 * built on first use; *bias set. NULL when no unit covers addr or without memory. */
Dwarf_Die *pmuk_cumap_addrdie(struct pmuk_cumaps *maps, Dwfl_Module *dm, Dwarf_Addr addr,
			      Dwarf_Addr *bias);
/* Forgets every map: modules may have been removed (live maps re-read). */
void pmuk_cumaps_clear(struct pmuk_cumaps *maps);

#endif
