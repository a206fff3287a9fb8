/* SPDX-License-Identifier: MIT */
/* Function symbols by address (see dw_symtab.h): one sorted table per module,
 * searched by bisection. */
#ifdef PMUKIT_HAVE_DW

#include "linux/dw_symtab.h"

#include "core/bsearch.h"
#include "core/grow.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* perf's choice among symbols at one address (its choose_best_symbol): not weak
 * over weak, global over local, fewer leading underscores, the longer name;
 * "read" over "__GI___libc_read", "__read" and "__libc_read"; then the first in
 * the table. Negative when x is the worse. */
static int worse(const struct pmuk_symtab_entry *x, const struct pmuk_symtab_entry *y)
{
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_"), nx, ny;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (ux != uy)
		return ux > uy ? -1 : 1;
	nx = strlen(x->name);
	ny = strlen(y->name);
	if (nx != ny)
		return nx > ny ? 1 : -1;
	/* perf keeps the one it read first ("f@GLIBC_2.2.5" before "f@@GLIBC_2.34") */
	return (x->idx < y->idx) - (x->idx > y->idx);
}

/* By address; at one address the best symbol last (the lookup takes the last). */
static int by_addr(const void *a, const void *b)
{
	const struct pmuk_symtab_entry *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return worse(x, y);
}

static unsigned rank_of(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 2;
	case STB_WEAK:
		return 0;
	default:
		return 1;
	}
}

static int by_value(const void *a, const void *b)
{
	const GElf_Addr *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* A symbol dwfl_module_addrinfo may answer with that the table does not hold
 * (labels, data, sized functions it skips): remembered by start. */
static int add_other(struct pmuk_symtab *t, size_t *cap, const char *name,
		     const GElf_Sym *sym, GElf_Addr addr, GElf_Word shndx)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (!name || !name[0] || shndx == SHN_UNDEF || type == STT_SECTION ||
	    type == STT_FILE || type == STT_TLS)
		return 0;
	if (pmuk_grow((void **)&t->other, cap, t->nother + 1, sizeof(*t->other)))
		return -1;
	t->other[t->nother++] = addr;
	return 0;
}

/* The section called name of elf, its header in *sh; NULL when there is none. */
static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	return NULL;
}

/* "name@plt" entries for the PLT stubs, as perf synthesizes them: the n-th
 * relocation of .rela.plt names the n-th stub of .plt.sec when there is one
 * (IBT), else of .plt after its header (x86 and arm64: one entry; arm64 stubs
 * are 16 bytes after a 32-byte header). Best effort: a file without these
 * sections (a separate debug file) gets none. */
static int add_plt(struct pmuk_symtab *t, size_t *cap)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(t->dm, &bias);
	GElf_Shdr rsh, psh, dsh;
	GElf_Ehdr eh;
	Elf_Scn *rel, *plt, *dyn;
	Elf_Data *rd, *dd;
	uint64_t first, step;
	char name[512];

	if (!elf || !gelf_getehdr(elf, &eh) || !(rel = section(elf, ".rela.plt", &rsh)) ||
	    rsh.sh_type != SHT_RELA || !(dyn = elf_getscn(elf, rsh.sh_link)) ||
	    !gelf_getshdr(dyn, &dsh) || !(rd = elf_getdata(rel, NULL)) ||
	    !(dd = elf_getdata(dyn, NULL)))
		return 0;
	if ((plt = section(elf, ".plt.sec", &psh)) && psh.sh_type == SHT_PROGBITS) {
		first = psh.sh_addr;
		step = 16;
	} else if ((plt = section(elf, ".plt", &psh)) && psh.sh_type == SHT_PROGBITS) {
		step = eh.e_machine == EM_AARCH64 ? 16 : psh.sh_entsize;
		first = psh.sh_addr + (eh.e_machine == EM_AARCH64 ? 32 : step);
	} else {
		return 0;
	}
	if (!step || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386 &&
		      eh.e_machine != EM_AARCH64))
		return 0;
	for (size_t i = 0; i < rsh.sh_size / (rsh.sh_entsize ? rsh.sh_entsize : 24); i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *n = "";
		GElf_Addr at = first + i * step;

		if (!gelf_getrela(rd, (int)i, &r) || at + step > psh.sh_addr + psh.sh_size)
			break;
		if (GELF_R_SYM(r.r_info) && gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym) &&
		    !(n = elf_strptr(elf, dsh.sh_link, sym.st_name)))
			n = "";
		snprintf(name, sizeof(name), "%s@plt", n);
		if (pmuk_grow((void **)&t->v, cap, t->n + 1, sizeof(*t->v)) ||
		    pmuk_grow((void **)&t->names, &t->capnames, t->nnames + 1,
			      sizeof(*t->names)) ||
		    !(t->names[t->nnames] = strdup(name)))
			return -1;
		t->v[t->n++] = (struct pmuk_symtab_entry){ at + bias, at + bias + step,
							   t->names[t->nnames++], 2, 0, 0 };
	}
	return 0;
}

static int build(struct pmuk_symtab *t)
{
	int count = dwfl_module_getsymtab(t->dm);
	size_t cap = 0, capo = 0;

	for (int i = 1; i < count; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(t->dm, i, &sym, &addr, &shndx, NULL,
							   NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !name[0] || !sym.st_size || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC)) {
			if (add_other(t, &capo, name, &sym, addr, shndx))
				return -1;
			continue;
		}
		if (pmuk_grow((void **)&t->v, &cap, t->n + 1, sizeof(*t->v)))
			return -1;
		t->v[t->n++] = (struct pmuk_symtab_entry){ addr, addr + sym.st_size, name,
							   rank_of(&sym), (unsigned)i, 0 };
	}
	if (add_plt(t, &cap))
		return -1;
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), by_addr);
	for (size_t i = 0; i < t->n; i++)
		t->v[i].reach = i && t->v[i - 1].reach > t->v[i].hi ? t->v[i - 1].reach :
			t->v[i].hi;
	if (t->nother > 1)
		qsort(t->other, t->nother, sizeof(*t->other), by_value);
	return 0;
}

/* ---- what dwfl_module_addrinfo says where no sized function holds an
 * address (elfutils' __libdwfl_addrsym): the closest symbol holding it, else
 * a sizeless one (a label) at or above every symbol's end below the address,
 * in its section ---- */

static int any_by_lo(const void *a, const void *b)
{
	const struct pmuk_symtab_any *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

static int build_any(struct pmuk_symtab *t)
{
	int count = dwfl_module_getsymtab(t->dm);
	size_t cap = 0;

	for (int i = 1; i < count; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(t->dm, i, &sym, &addr, &shndx, NULL,
							   NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		if (pmuk_grow((void **)&t->any, &cap, t->nany + 1, sizeof(*t->any)))
			return -1;
		t->any[t->nany++] = (struct pmuk_symtab_any){ addr, addr + sym.st_size, name,
							      shndx, 0 };
	}
	if (t->nany > 1)
		qsort(t->any, t->nany, sizeof(*t->any), any_by_lo);
	for (size_t i = 1; i < t->nany; i++) {
		struct pmuk_symtab_any *e = &t->any[i];
		e->reach = e->reach > e[-1].reach ? e->reach : e[-1].reach;
		e->same = e->lo == e[-1].lo ? e[-1].same + 1 : 0;
	}
	return 0;
}

/* Whether addr and e's value lie in one section of the module's file (both
 * in none counts), as dwfl_module_addrinfo judges it, with the lookup it uses;
 * absolute and other special symbols: only at their value. */
static int same_section(Dwfl_Module *dm, const struct pmuk_symtab_any *e, GElf_Addr addr)
{
	Dwarf_Addr a = addr, v = e->lo, bias;

	if (e->shndx >= SHN_LORESERVE)
		return e->lo == addr;
	return dwfl_module_address_section(dm, &a, &bias) ==
	       dwfl_module_address_section(dm, &v, &bias);
}

static struct pmuk_symtab *table(struct pmuk_symtabs *tabs, Dwfl_Module *dm);

const char *pmuk_symtab_label(struct pmuk_symtabs *tabs, Dwfl_Module *dm, GElf_Addr addr,
			      GElf_Off *off, int *known)
{
	struct pmuk_symtab *t = table(tabs, dm);

	*known = 0;
	if (!t || (!t->any_built && (t->any_built = build_any(t) ? -1 : 1) < 0) ||
	    t->any_built < 0)
		return NULL;
	size_t j = PMUK_BSEARCH_UPPER(t->any, t->nany, lo, addr);
	*known = 1;
	if (!j)
		return NULL;	/* no symbol at or below it */
	const struct pmuk_symtab_any *e = &t->any[j - 1];
	if (e->reach > addr || (e->reach == e->lo && e->same)) {
		*known = 0;	/* a symbol holds it, or labels share e's value */
		return NULL;
	}
	/* a symbol ending past the closest value rules every label out; else
	 * the label at that value names addr when in its section */
	if (e->reach > e->lo || !same_section(dm, e, addr))
		return NULL;
	*off = addr - e->lo;
	return e->name;
}

static void free_names(struct pmuk_symtab *t)
{
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
}

static struct pmuk_symtab *table(struct pmuk_symtabs *tabs, Dwfl_Module *dm)
{
	struct pmuk_symtab *t;

	for (size_t i = 0; i < tabs->n; i++)
		if (tabs->t[i].dm == dm)
			return &tabs->t[i];
	if (pmuk_grow((void **)&tabs->t, &tabs->cap, tabs->n + 1, sizeof(*tabs->t)))
		return NULL;
	t = &tabs->t[tabs->n];
	*t = (struct pmuk_symtab){ .dm = dm };
	if (build(t)) {
		free(t->v);
		free(t->any);
		free(t->other);
		free_names(t);
		return NULL;
	}
	tabs->n++;
	return t;
}

const char *pmuk_symtab_find(struct pmuk_symtabs *tabs, Dwfl_Module *dm, GElf_Addr addr,
			     GElf_Off *off, int *none)
{
	struct pmuk_symtab *t = table(tabs, dm);
	/* t is NULL without memory: nothing found */
	size_t lo = t ? PMUK_BSEARCH_UPPER(t->v, t->n, lo, addr) : 0;

	*none = 0;
	/* The nearest start below that holds addr wins (symbols may nest); no
	 * symbol at or below i reaches past addr: none holds it. */
	for (size_t i = lo; i-- > 0 && addr < t->v[i].reach;)
		if (addr < t->v[i].hi) {
			*off = addr - t->v[i].lo;
			return t->v[i].name;
		}
	/* No sized function holds it: only a symbol of the other kinds starting at
	 * or below addr could name it. */
	*none = t && !(t->nother && t->other[0] <= addr);
	return NULL;
}

void pmuk_symtabs_clear(struct pmuk_symtabs *tabs)
{
	for (size_t i = 0; i < tabs->n; i++) {
		free(tabs->t[i].v);
		free(tabs->t[i].any);
		free(tabs->t[i].other);
		free_names(&tabs->t[i]);
	}
	free(tabs->t);
	*tabs = (struct pmuk_symtabs){ 0 };
}

#endif
