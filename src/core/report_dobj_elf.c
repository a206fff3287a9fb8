/* SPDX-License-Identifier: MIT */
/* The variables of an ELF file: its defined STT_OBJECT symbols (.symtab, else
 * .dynsym), sorted by address, for report --sort data_object. libelf comes with
 * libdw (PMUKIT_HAVE_DW); without it (the guest's static build) a small ELF64
 * reader does; on Windows no file has variables and data objects are named by
 * mapping only. */
#include "core/report_node.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

#if defined(PMUKIT_HAVE_DW) || defined(__linux__)
static int cmp_sym(const void *a, const void *b)
{
	const struct pmuk_dobj_sym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Appends one variable (a copy of its name); both readers below share it and
 * the one capacity of the array across their symbol tables. */
static int add_var(struct pmuk_dobj_sym **v, size_t *n, size_t *cap, const char *name,
		   uint64_t addr, uint64_t size)
{
	if (pmuk_grow((void **)v, cap, *n + 1, sizeof(**v)) < 0 ||
	    !((*v)[*n].name = strdup(name)))
		return pmuk_fail(PMU_ENOMEM, "out of memory reading variables");
	(*v)[*n].addr = addr;
	(*v)[*n].size = size;
	(*n)++;
	return 0;
}
#endif

#ifdef PMUKIT_HAVE_DW
#include "linux/dw_prefetch.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

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
		if (add_var(v, n, cap, name, s.st_value, s.st_size) < 0)
			return PMU_ENOMEM;
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
	pmuk_dw_elf_init();   /* the symbolizer's worker may be in elf_begin */
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) && elf_kind(e) == ELF_K_ELF) {
		*load = first_load(e);
		err = syms(e, out, n);
		if (!err && *n)  /* a stripped file: no array, and qsort of NULL is undefined */
			qsort(*out, *n, sizeof(**out), cmp_sym);
	}
	if (e)
		elf_end(e);
	close(fd);
	return err;
}
#elif defined(__linux__)
/* Without libelf (the static cross build of the guest): ELF64 in this machine's
 * byte order read with <elf.h>'s layouts, every offset checked against the file. */
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int inside(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

static int table(const uint8_t *f, size_t size, const Elf64_Shdr *sh, const Elf64_Shdr *str,
		 struct pmuk_dobj_sym **v, size_t *n, size_t *cap)
{
	if (sh->sh_entsize != sizeof(Elf64_Sym) || !inside(size, sh->sh_offset, sh->sh_size) ||
	    !inside(size, str->sh_offset, str->sh_size))
		return 0;
	for (uint64_t i = 0; i < sh->sh_size / sizeof(Elf64_Sym); i++) {
		Elf64_Sym s;
		const char *name;

		memcpy(&s, f + sh->sh_offset + i * sizeof(s), sizeof(s));
		if (ELF64_ST_TYPE(s.st_info) != STT_OBJECT || s.st_shndx == SHN_UNDEF ||
		    !s.st_size || s.st_name >= str->sh_size)
			continue;
		name = (const char *)f + str->sh_offset + s.st_name;
		if (!memchr(name, 0, str->sh_size - s.st_name) || !name[0])
			continue;
		if (add_var(v, n, cap, name, s.st_value, s.st_size) < 0)
			return PMU_ENOMEM;
	}
	return 0;
}

static uint64_t first_load(const uint8_t *f, size_t size, const Elf64_Ehdr *eh)
{
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		uint64_t off = eh->e_phoff + (uint64_t)i * sizeof(ph);

		if (eh->e_phentsize != sizeof(ph) || !inside(size, off, sizeof(ph)))
			return 0;
		memcpy(&ph, f + off, sizeof(ph));
		if (ph.p_type == PT_LOAD)
			return (ph.p_vaddr - ph.p_offset) & ~(uint64_t)0xfff;
	}
	return 0;
}

static int parse(const uint8_t *f, size_t size, struct pmuk_dobj_sym **v, size_t *n,
		 uint64_t *load)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, str, dyn, dynstr;
	size_t cap = 0;
	int have = 0, have_dyn = 0, err = 0;

	if (size < sizeof(eh) || memcmp(f, ELFMAG, SELFMAG) || f[EI_CLASS] != ELFCLASS64)
		return 0;
	memcpy(&eh, f, sizeof(eh));
	if (eh.e_shentsize != sizeof(sh) || !inside(size, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(sh)))
		return 0;
	*load = first_load(f, size, &eh);
	for (unsigned i = 0; i < eh.e_shnum && !err; i++) {
		memcpy(&sh, f + eh.e_shoff + (uint64_t)i * sizeof(sh), sizeof(sh));
		if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || sh.sh_link >= eh.e_shnum)
			continue;
		memcpy(&str, f + eh.e_shoff + (uint64_t)sh.sh_link * sizeof(str), sizeof(str));
		if (sh.sh_type == SHT_SYMTAB) {
			have = 1;
			err = table(f, size, &sh, &str, v, n, &cap);
		} else {
			have_dyn = 1;
			dyn = sh;
			dynstr = str;
		}
	}
	if (!err && !have && have_dyn)
		err = table(f, size, &dyn, &dynstr, v, n, &cap);
	return err;
}

int pmuk_dobj_elf_syms(const char *path, struct pmuk_dobj_sym **out, size_t *n, uint64_t *load)
{
	struct stat st;
	void *f;
	int fd, err = 0;

	*out = NULL;
	*n = 0;
	*load = 0;
	if (path[0] != '/' || (fd = open(path, O_RDONLY)) < 0)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_size > 0 &&
	    (f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED) {
		err = parse(f, (size_t)st.st_size, out, n, load);
		munmap(f, (size_t)st.st_size);
		if (!err && *n)  /* a stripped file: no array, and qsort of NULL is undefined */
			qsort(*out, *n, sizeof(**out), cmp_sym);
	}
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
