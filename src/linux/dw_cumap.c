/* SPDX-License-Identifier: MIT */
/* Compile units by address for modules whose .debug_aranges is missing or partial
 * (see dw_cumap.h): every unit's ranges in one sorted table per module, searched
 * by bisection. */
#ifdef PMUKIT_HAVE_DW

#include "linux/dw_cumap.h"

#include "core/bsearch.h"
#include "core/grow.h"

#include <elfutils/libdw.h>
#include <stdlib.h>

static int by_lo(const void *a, const void *b)
{
	const struct pmuk_cumap_entry *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

static int push(struct pmuk_cumap_module *m, size_t *cap, Dwarf_Addr lo, Dwarf_Addr hi,
		Dwarf_Die *cu)
{
	if (pmuk_grow((void **)&m->v, cap, m->n + 1, sizeof(*m->v)))
		return -1;
	m->v[m->n++] = (struct pmuk_cumap_entry){ .lo = lo, .hi = hi, .cu = cu };
	return 0;
}

static int build(struct pmuk_cumap_module *m)
{
	Dwarf_Addr bias, base, lo, hi;
	Dwarf_Die *cu = NULL;
	size_t cap = 0;
	ptrdiff_t off;

	while ((cu = dwfl_module_nextcu(m->dm, cu, &bias))) {
		for (off = 0; (off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0;)
			if (hi > lo && push(m, &cap, lo, hi, cu))
				return -1;
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), by_lo);
	for (size_t i = 0; i < m->n; i++)
		m->v[i].max_hi = i && m->v[i - 1].max_hi > m->v[i].hi ? m->v[i - 1].max_hi
								      : m->v[i].hi;
	return 0;
}

static struct pmuk_cumap_module *module(struct pmuk_cumaps *maps, Dwfl_Module *dm)
{
	struct pmuk_cumap_module *m;

	for (size_t i = 0; i < maps->n; i++)
		if (maps->m[i].dm == dm)
			return &maps->m[i];
	if (pmuk_grow((void **)&maps->m, &maps->cap, maps->n + 1, sizeof(*maps->m)))
		return NULL;
	m = &maps->m[maps->n];
	*m = (struct pmuk_cumap_module){ .dm = dm };
	if (build(m)) {
		free(m->v);
		return NULL;
	}
	maps->n++;
	return m;
}

Dwarf_Die *pmuk_cumap_addrdie(struct pmuk_cumaps *maps, Dwfl_Module *dm, Dwarf_Addr addr,
			      Dwarf_Addr *bias)
{
	struct pmuk_cumap_module *m;
	size_t lo;

	if (!dwfl_module_getdwarf(dm, bias) || !(m = module(maps, dm)))
		return NULL;
	addr -= *bias;
	/* the last range starting at or below addr; ranges of units may nest or
	 * overlap, so look back for one that covers it while any earlier one ends
	 * above it */
	lo = PMUK_BSEARCH_UPPER(m->v, m->n, lo, addr);
	while (lo-- > 0 && addr < m->v[lo].max_hi)
		if (addr < m->v[lo].hi)
			return m->v[lo].cu;
	return NULL;
}

void pmuk_cumaps_clear(struct pmuk_cumaps *maps)
{
	for (size_t i = 0; i < maps->n; i++)
		free(maps->m[i].v);
	free(maps->m);
	*maps = (struct pmuk_cumaps){ 0 };
}

#else
typedef int pmuk_dw_cumap_unused; /* ISO C wants a declaration in every unit */
#endif
