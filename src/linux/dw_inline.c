/* SPDX-License-Identifier: MIT */
/* Inlined calls of a function by address (see dw_inline.h). The table lists every
 * range of every DW_TAG_inlined_subroutine (and nested subprogram) below the
 * function in preorder, each with its parent instance: the chain of pc is found
 * in one pass, taking the first range holding pc whose parent is the instance
 * chosen last, as a descent of the tree would. Lexical, try and catch blocks are
 * looked through. */
#ifdef PMUKIT_HAVE_DW

#include "linux/dw_inline.h"

#include "core/grow.h"

#include <dwarf.h>
#include <stdlib.h>

struct build {
	struct pmuk_inl_fn *t;
	size_t cap;
	uint32_t nodes;
};

static int walk(struct build *b, Dwarf_Die *parent, uint32_t pnode, int depth)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Die d;
	ptrdiff_t off;

	if (depth > 256 || dwarf_child(parent, &d) != 0)
		return 0;
	do {
		uint32_t node;

		switch (dwarf_tag(&d)) {
		case DW_TAG_inlined_subroutine:
		case DW_TAG_subprogram:
			node = ++b->nodes;
			for (off = 0; (off = dwarf_ranges(&d, off, &base, &lo, &hi)) > 0;) {
				if (pmuk_grow((void **)&b->t->v, &b->cap, b->t->n + 1,
					      sizeof(*b->t->v)))
					return -1;
				b->t->v[b->t->n++] = (struct pmuk_inl_entry){ lo, hi, node, pnode,
									      d };
			}
			if (walk(b, &d, node, depth + 1))
				return -1;
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (walk(b, &d, pnode, depth + 1))
				return -1;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

int pmuk_inl_scopes(struct pmuk_inl_fn *t, Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Die *chain,
		    int *k, int max)
{
	uint32_t tip = 0;

	if (!t->state) {
		struct build b = { .t = t };

		t->state = walk(&b, fn, 0, 0) ? -1 : 1;
		if (t->state < 0) {
			free(t->v);
			t->v = NULL;
			t->n = 0;
		}
	}
	if (t->state < 0)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const struct pmuk_inl_entry *e = &t->v[i];

		if (e->parent != tip || pc < e->lo || pc >= e->hi)
			continue;
		tip = e->node;
		if (*k < max)
			chain[(*k)++] = e->die;
	}
	return 0;
}

void pmuk_inl_free(struct pmuk_inl_fn *t)
{
	free(t->v);
	*t = (struct pmuk_inl_fn){ 0 };
}

#endif
