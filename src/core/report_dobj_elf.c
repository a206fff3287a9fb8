/* SPDX-License-Identifier: MIT */
/* The variables of an ELF file: its defined STT_OBJECT symbols (.symtab, else
 * .dynsym), sorted by address, for report --sort data_object. libelf comes with
 * libdw (PMUKIT_HAVE_DW); without it, or on Windows, no file has variables and
 * data objects are named by mapping only. */
#include "core/report_node.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

#ifdef PMUKIT_HAVE_DW
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

static int cmp_sym(const void *a, const void *b)
{
	const struct pmuk_dobj_sym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The defined, sized objects of one symbol table. */
static int table(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct pmuk_dobj_sym **v,
		 size_t *n, size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym s;

	for (size_t i = 0; data && i < count; i++) {
		const char *name;

		if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_OBJECT ||
		    s.st_shndx == SHN_UNDEF || !s.st_size ||
		    !(name = elf_strptr(e, sh->sh_link, s.st_name)) || !name[0])
			continue;
		if (pmuk_grow((void **)v, cap, *n + 1, sizeof(**v)) < 0 ||
		    !((*v)[*n].name = strdup(name)))
			return pmuk_fail(PMU_ENOMEM, "out of memory reading variables");
		(*v)[*n].addr = s.st_value;
		(*v)[*n].size = s.st_size;
		(*n)++;
	}
	return 0;
}

static uint64_t first_load(Elf *e)
{
	size_t nph = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &nph))
		return 0;
	for (size_t i = 0; i < nph; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			return (ph.p_vaddr - ph.p_offset) & ~(uint64_t)0xfff;
	return 0;
}

static int syms(Elf *e, struct pmuk_dobj_sym **v, size_t *n)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dsh;
	size_t cap = 0;
	int have = 0;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh)) {
			if (sh.sh_type == SHT_SYMTAB) {
				have = 1;
				if (table(e, scn, &sh, v, n, &cap) < 0)
					return PMU_ENOMEM;
			} else if (sh.sh_type == SHT_DYNSYM) {
				dyn = scn;
				dsh = sh;
			}
		}
	if (!have && dyn && table(e, dyn, &dsh, v, n, &cap) < 0)
		return PMU_ENOMEM;
	return 0;
}

int pmuk_dobj_elf_syms(const char *path, struct pmuk_dobj_sym **out, size_t *n, uint64_t *load)
{
	int fd, err = 0;
	Elf *e;

	*out = NULL;
	*n = 0;
	*load = 0;
	if (path[0] != '/' || (fd = open(path, O_RDONLY)) < 0)
		return 0;
	elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) && elf_kind(e) == ELF_K_ELF) {
		*load = first_load(e);
		err = syms(e, out, n);
		if (!err)
			qsort(*out, *n, sizeof(**out), cmp_sym);
	}
	if (e)
		elf_end(e);
	close(fd);
	return err;
}
#else
int pmuk_dobj_elf_syms(const char *path, struct pmuk_dobj_sym **out, size_t *n, uint64_t *load)
{
	(void)path;
	*out = NULL;
	*n = 0;
	*load = 0;
	return 0;
}
#endif
