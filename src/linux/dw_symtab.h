/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_DW_SYMTAB_H
#define PMUK_LINUX_DW_SYMTAB_H

/* The function symbols of a module sorted by address: dwfl_module_addrinfo
 * searches the symbol table linearly on every call, which dominates the cost of
 * the addresses DWARF does not cover (startup code, assembly, stripped parts). */

#include <elfutils/libdwfl.h>
#include <stddef.h>

struct pmuk_symtab_entry {
	GElf_Addr lo, hi;       /* [lo, hi), addresses of the Dwfl (bias included) */
	const char *name;       /* libdwfl's while the module lives, or in names */
	unsigned rank;          /* among symbols at one address the highest wins */
	unsigned idx;           /* its index in the symbol table: on a tie the first */
	GElf_Addr reach;        /* the highest hi of this entry and all before it */
};

/* A symbol dwfl_module_addrinfo weighs (named, defined, neither section, file
 * nor TLS), in a table by value built when an address no sized function
 * holds first comes (pmuk_symtab_label). */
struct pmuk_symtab_any {
	GElf_Addr lo;           /* its value (bias included) */
	GElf_Addr reach;        /* the highest value + size of it and all before */
	const char *name;
	GElf_Word shndx;
	unsigned same;          /* entries just before it at the same value */
};

struct pmuk_symtab {
	Dwfl_Module *dm;
	struct pmuk_symtab_entry *v;
	size_t n;
	/* Starts of the symbols dwfl_module_addrinfo may also answer with (sizeless
	 * labels, sized data), sorted: an address with none at or below it, and no
	 * sized function holding it, has no symbol at all. */
	GElf_Addr *other;
	size_t nother;
	char **names;           /* the "name@plt" entries' names, owned */
	size_t nnames, capnames;
	struct pmuk_symtab_any *any;
	size_t nany;
	int any_built;          /* 1 built, -1 could not be (no memory) */
};

struct pmuk_symtabs {
	struct pmuk_symtab *t;
	size_t n, cap;
};

/* The sized function symbol holding addr in dm (its table built on first use),
 * *off set to addr - its start; NULL when none holds it or without memory (the
 * caller then asks dwfl_module_addrinfo) and *none = 1 when no symbol of dm can
 * hold it (asking dwfl_module_addrinfo, a linear search, would be in vain). */
const char *pmuk_symtab_find(struct pmuk_symtabs *tabs, Dwfl_Module *dm, GElf_Addr addr,
			     GElf_Off *off, int *none);
/* dwfl_module_addrinfo's answer for addr, one no sized function holds
 * (pmuk_symtab_find gave NULL with *none 0), where it follows from the table
 * alone: *known = 1 and the name with *off (NULL: libdwfl names nothing there
 * either). Its search is linear in the symbols, per address: libLLVM's
 * 100,000 made it most of a report's time. *known = 0 where libdwfl's order
 * among symbols decides (a symbol of another kind holds addr; several labels
 * at one address): then ask it. */
const char *pmuk_symtab_label(struct pmuk_symtabs *tabs, Dwfl_Module *dm, GElf_Addr addr,
			      GElf_Off *off, int *known);
/* Forgets every table: modules may have been removed. */
void pmuk_symtabs_clear(struct pmuk_symtabs *tabs);

#endif
