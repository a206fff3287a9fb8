/* SPDX-License-Identifier: MIT */
/* The variables of a file's DWARF, for report --sort data_object where the symbol
 * table falls short (a stripped binary, function-local statics): every
 * DW_TAG_variable whose location is one DW_OP_addr (or clang's DW_OP_addrx),
 * sized by its type. The debug info is found the way the symbolizer finds it,
 * by libdwfl's standard lookup: the file itself, else
 * DIR/.build-id/xx/rest.debug for each DIR of the path (/usr/lib/debug, and
 * SYMFS/usr/lib/debug under --symfs), else .gnu_debuglink (next to the file,
 * its .debug/, /usr/lib/debug/DIR). Without libdw (Windows, the guest's static
 * build) no file has DWARF variables. */
#include "core/report_node.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_sym(const void *a, const void *b)
{
	const struct pmuk_dobj_sym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

#ifdef PMUKIT_HAVE_DW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

struct walk {
	struct pmuk_dobj_sym *v;
	size_t n, cap;
};

/* The address of a variable living at one fixed address, 0 when it does not.
 * TLS variables (DW_OP_addr or DW_OP_const* then DW_OP_form_tls_address /
 * DW_OP_GNU_push_tls_address) hold an offset into each thread's TLS block; the
 * recording has no thread pointers to place that block, so they are left out and
 * their addresses are named by mapping. */
static Dwarf_Addr fixed_addr(Dwarf_Die *die)
{
	Dwarf_Attribute attr, in_addr;
	Dwarf_Addr addr;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(die, DW_AT_location, &attr) ||
	    dwarf_getlocation(&attr, &ops, &nops) != 0 || nops != 1)
		return 0;
	if (ops[0].atom == DW_OP_addr)
		return ops[0].number;
	/* DWARF 5 as clang writes it: an index into .debug_addr */
	if ((ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) &&
	    dwarf_getlocation_attr(&attr, ops, &in_addr) == 0 &&
	    dwarf_formaddr(&in_addr, &addr) == 0)
		return addr;
	return 0;
}

static Dwarf_Word type_size(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die type;
	Dwarf_Word size = 0;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &type) ||
	    dwarf_aggregate_size(&type, &size) != 0)
		return 0;
	return size;
}

/* One variable: "fn::var" inside a function, else its name. */
static int add_var(struct walk *w, Dwarf_Die *die, const char *fn)
{
	const char *name = dwarf_diename(die);
	Dwarf_Addr addr = fixed_addr(die);
	Dwarf_Word size;
	char *s;

	if (!name || !name[0] || !addr || !(size = type_size(die)))
		return 0;
	if (fn) {
		size_t len = strlen(fn) + strlen(name) + 3;

		if ((s = malloc(len)))
			snprintf(s, len, "%s::%s", fn, name);
	} else {
		s = strdup(name);
	}
	if (!s || pmuk_grow((void **)&w->v, &w->cap, w->n + 1, sizeof(*w->v)) < 0) {
		free(s);
		return pmuk_fail(PMU_ENOMEM, "out of memory reading DWARF variables");
	}
	w->v[w->n++] = (struct pmuk_dobj_sym){ .addr = addr, .size = size, .name = s };
	return 0;
}

/* Scopes nested deeper than this are not walked: real code stays far below it,
 * and a crafted file's thousands of levels must not exhaust the stack. */
#define DW_MAX_DEPTH 256

/* The children of die holding variables: scopes recursed into, with the
 * innermost function's name (an inlined copy names its abstract origin). */
static int walk_die(struct walk *w, Dwarf_Die *parent, const char *fn, unsigned depth)
{
	Dwarf_Die die;
	int err = 0;

	if (depth >= DW_MAX_DEPTH || dwarf_child(parent, &die) != 0)
		return 0;
	do {
		switch (dwarf_tag(&die)) {
		case DW_TAG_variable:
			err = add_var(w, &die, fn);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine: {
			const char *name = dwarf_diename(&die);

			err = walk_die(w, &die, name ? name : fn, depth + 1);
			break;
		}
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
			err = walk_die(w, &die, fn, depth + 1);
			break;
		default:
			break;
		}
	} while (!err && dwarf_siblingof(&die, &die) == 0);
	return err;
}

static int walk_dwarf(Dwarf *dw, struct walk *w)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int err = 0;

	while (!err && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			err = walk_die(w, &cu, NULL, 0);
		off = next;
	}
	return err;
}

/* Where libdwfl looks for separate debug files: next to the file (""), its
 * .debug/, the system's /usr/lib/debug, and under --symfs the recorded root's. */
static void debug_path(char *buf, size_t size, const char *symfs)
{
	if (symfs && symfs[0])
		snprintf(buf, size, ":.debug:%s/usr/lib/debug:/usr/lib/debug", symfs);
	else
		snprintf(buf, size, ":.debug:/usr/lib/debug");
}

int pmuk_dobj_dw_vars(const char *path, const char *symfs, struct pmuk_dobj_sym **out,
		      size_t *n)
{
	char dpath[4200], *dp = dpath;
	Dwfl_Callbacks cb = { .find_elf = dwfl_build_id_find_elf,
			      .find_debuginfo = dwfl_standard_find_debuginfo,
			      .debuginfo_path = &dp };
	struct walk w = { 0 };
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf *dw;
	Dwfl *dwfl;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (path[0] != '/')
		return 0;
	debug_path(dpath, sizeof(dpath), symfs);
	if (!(dwfl = dwfl_begin(&cb)))
		return pmuk_fail(PMU_ENOMEM, "libdwfl cannot start: %s", dwfl_errmsg(-1));
	dwfl_report_begin(dwfl);
	mod = dwfl_report_offline(dwfl, path, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	/* No DWARF anywhere is no error: the symbol table alone names the variables.
	 * Addresses are the DWARF's own, the link-time ones of the symbol table. */
	if (mod && (dw = dwfl_module_getdwarf(mod, &bias)))
		err = walk_dwarf(dw, &w);
	dwfl_end(dwfl);
	if (err) {
		for (size_t i = 0; i < w.n; i++)
			free(w.v[i].name);
		free(w.v);
		return err;
	}
	if (w.n)  /* qsort of NULL, even of none, is undefined */
		qsort(w.v, w.n, sizeof(*w.v), cmp_sym);
	*out = w.v;
	*n = w.n;
	return 0;
}
#else
int pmuk_dobj_dw_vars(const char *path, const char *symfs, struct pmuk_dobj_sym **out,
		      size_t *n)
{
	(void)path;
	(void)symfs;
	*out = NULL;
	*n = 0;
	return 0;
}
#endif

/* GCC names a function-local static "var.N" in the symbol table: DWARF's
 * "fn::var" says more. */
static int local_static_of(const char *sym, const char *dwname)
{
	const char *var = strrchr(dwname, ':');
	size_t len;

	if (!var || var == dwname || var[-1] != ':')
		return 0;
	len = strlen(++var);
	if (strncmp(sym, var, len) || sym[len] != '.' || !sym[len + 1])
		return 0;
	return strspn(sym + len + 1, "0123456789") == strlen(sym + len + 1);
}

/* Both lists sorted by address; *sym grows by the DWARF variables at addresses
 * no symbol starts at (the symbol's name wins, but for a local static's "var.N"),
 * and stays sorted. The DWARF names taken are moved, the rest freed. */
int pmuk_dobj_merge(struct pmuk_dobj_sym **sym, size_t *nsym, struct pmuk_dobj_sym *dw,
		    size_t ndw)
{
	size_t n = *nsym, cap = *nsym, j = 0;
	int err = 0;

	for (size_t i = 0; i < ndw; i++) {
		while (j < n && (*sym)[j].addr < dw[i].addr)
			j++;
		if ((i && dw[i - 1].addr == dw[i].addr) || err) {
			free(dw[i].name);   /* one name per address: the first DWARF gave */
			continue;
		}
		if (j < n && (*sym)[j].addr == dw[i].addr) {
			if (local_static_of((*sym)[j].name, dw[i].name)) {
				free((*sym)[j].name);
				(*sym)[j].name = dw[i].name;
			} else {
				free(dw[i].name);
			}
			continue;
		}
		if (pmuk_grow((void **)sym, &cap, *nsym + 1, sizeof(**sym)) < 0) {
			err = pmuk_fail(PMU_ENOMEM, "out of memory merging DWARF variables");
			free(dw[i].name);
			continue;
		}
		(*sym)[(*nsym)++] = dw[i];
	}
	free(dw);
	if (*nsym > n)
		qsort(*sym, *nsym, sizeof(**sym), cmp_sym);
	return err;
}
