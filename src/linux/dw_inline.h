/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_DW_INLINE_H
#define PMUK_LINUX_DW_INLINE_H

/* The inlined calls of one function as a flat table, built on the first address
 * looked up in it: walking the function's DIE tree (parameters, variables, call
 * sites, blocks) with libdw on every address costs more than the rest of the
 * lookup. */

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

struct pmuk_inl_entry {
	Dwarf_Addr lo, hi;      /* one range of an inlined instance (DWARF addresses) */
	uint32_t node;          /* the instance (its ranges share it), from 1 */
	uint32_t parent;        /* the instance it is inlined into, 0: the function */
	Dwarf_Die die;
};

struct pmuk_inl_fn {
	struct pmuk_inl_entry *v; /* in DIE tree preorder */
	size_t n;
	int state;              /* 0 not built, 1 built, -1 failed (walk the tree) */
};

/* Appends the inlined instances holding pc inside function fn to chain[*k..max),
 * outermost first; -1 when the table cannot be built (nothing appended). */
int pmuk_inl_scopes(struct pmuk_inl_fn *t, Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Die *chain,
		    int *k, int max);
void pmuk_inl_free(struct pmuk_inl_fn *t);

#endif
