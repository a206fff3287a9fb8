/* SPDX-License-Identifier: MIT */
/* The symbolizer on Linux: elfutils libdwfl. A live process is reported from its
 * /proc/PID/maps (dwfl_linux_proc_report); an offline module with dwfl_report_elf at
 * the load bias its mapping implies. The symbol table names the function; the DWARF
 * scope tree below the compile unit gives the inlined calls (DW_TAG_inlined_subroutine
 * with DW_AT_call_file/line/column) and the line table the innermost position. */
#include "core/bsearch.h"
#include "core/symbols_int.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/num.h"

#ifdef PMUKIT_HAVE_DW

#include "linux/dw_inline.h"
#include "linux/symbols_dw.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The functions of a compile unit by address range, built on the first lookup in it:
 * a binary search replaces walking every top-level DIE of the unit per address. */
struct fn_range {
	Dwarf_Addr lo, hi;
	Dwarf_Die die;
	size_t fn;              /* its function's inline table in cu_index.fns */
};

struct cu_index {
	Dwarf_Die cu;
	struct fn_range *r;
	size_t n;
	struct pmuk_inl_fn *fns;   /* one per function, built on its first lookup */
	size_t nfns, capfns;
};

void pmuk_dw_forget_units(struct pmuk_dw *d)
{
	for (size_t i = 0; i < d->ncus; i++) {
		for (size_t j = 0; j < d->cus[i].nfns; j++)
			pmuk_inl_free(&d->cus[i].fns[j]);
		free(d->cus[i].fns);
		free(d->cus[i].r);
	}
	free(d->cus);
	d->cus = NULL;
	d->ncus = d->capcus = 0;
	pmuk_cumaps_clear(&d->cumaps);
	pmuk_symtabs_clear(&d->symtabs);
}

/* Field 9 of /proc/PID/stat (the 7th after the parenthesised name) holds PF_KTHREAD. */
static int is_kernel_thread(pid_t pid)
{
	char path[64], buf[512], *p, *save = NULL;
	uint64_t flags = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	if (!(p = strrchr(buf, ')')))
		return 0;
	p = strtok_r(p + 1, " ", &save);
	for (int i = 0; p && i < 6; i++)
		p = strtok_r(NULL, " ", &save);
	return p && !pmuk_parse_u64(p, 10, &flags) && (flags & 0x00200000u);
}

/* Bit 19 of CapEff in /proc/self/status. */
static int have_cap_sys_ptrace(void)
{
	char line[256];
	uint64_t caps = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			line[strcspn(line, "\n")] = '\0';
			if (pmuk_parse_u64(line + 7 + strspn(line + 7, " \t"), 16, &caps))
				caps = 0;
			break;
		}
	fclose(f);
	return (caps >> 19) & 1;
}

/* Why the kernel refused /proc/PID/maps: the check is ptrace's (read mode),
 * which looks at users, dumpability, CAP_SYS_PTRACE and security modules. */
static const char *denied_why(pid_t pid, char *buf, size_t size)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (geteuid() != 0 && !stat(path, &st) && st.st_uid != geteuid())
		snprintf(buf, size, "process %d belongs to uid %u: run as that user or as root",
			 (int)pid, (unsigned)st.st_uid);
	else if (have_cap_sys_ptrace())
		snprintf(buf, size, "pmukit has CAP_SYS_PTRACE, so a security module or sandbox "
			 "(Landlock, SELinux, AppArmor, another user namespace) forbids reading "
			 "process %d", (int)pid);
	else
		snprintf(buf, size, "process %d is not dumpable (set-uid, or it called "
			 "prctl(PR_SET_DUMPABLE, 0)) or Yama's ptrace_scope forbids it; "
			 "CAP_SYS_PTRACE would allow reading it", (int)pid);
	return buf;
}

/* The error of a failed dwfl_linux_proc_report (an errno, or -1: libdwfl's own). */
static int report_failed(pid_t pid, int err)
{
	char why[256];

	if (err < 0)
		return pmuk_fail(PMU_EIO, "libdwfl could not report the modules of process %d: "
				 "%s", (int)pid, dwfl_errmsg(-1));
	if (err == EACCES || err == EPERM)
		return pmuk_fail(PMU_EPERM, "cannot read /proc/%d/maps: %s: %s", (int)pid,
				 strerror(err), denied_why(pid, why, sizeof(why)));
	return pmuk_fail(err == ENOENT || err == ESRCH ? PMU_ESRCH : PMU_EIO,
			 "cannot read /proc/%d/maps: %s", (int)pid, strerror(err));
}

int pmuk_sym_backend_open(struct pmu_symbolizer *s)
{
	pid_t pid = s->opts.pid ? s->opts.pid : getpid();
	struct pmuk_dw *d;
	int err;

	if (!s->opts.offline && is_kernel_thread(pid))
		return pmuk_fail(PMU_EINVAL, "process %d is a kernel thread: it has no user-space "
				 "memory map, so no modules to symbolize", (int)pid);
	if (!(d = calloc(1, sizeof(*d))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening a symbolizer");
	d->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	d->cb.debuginfo_path = s->debug_path ? &s->debug_path : NULL;
	d->cb.find_elf = s->opts.offline ? dwfl_build_id_find_elf : dwfl_linux_proc_find_elf;
	d->cb.section_address = dwfl_offline_section_address;
	if (!(d->dwfl = dwfl_begin(&d->cb))) {
		free(d);
		return pmuk_fail(PMU_ENOMEM, "libdwfl: %s", dwfl_errmsg(-1));
	}
	s->backend = d;
	pmuk_dw_prefetch_init(&d->prefetch);
	if (s->opts.offline)
		return 0;
	dwfl_report_begin(d->dwfl);
	err = dwfl_linux_proc_report(d->dwfl, pid);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!err)
		return 0;
	pmuk_dw_prefetch_stop(&d->prefetch);
	dwfl_end(d->dwfl);
	free(d);
	s->backend = NULL;
	return report_failed(pid, err);
}

void pmuk_sym_backend_close(struct pmu_symbolizer *s)
{
	struct pmuk_dw *d = s->backend;

	if (!d)
		return;
	pmuk_dw_prefetch_stop(&d->prefetch);   /* the images, closed before, were waited for */
	pmuk_dw_forget_units(d);
	dwfl_end(d->dwfl);
	free(d);
}

/* The load bias of a mapping: the file offset pgoff of the PT_LOAD segment holding it
 * sits at link-time address p_vaddr - p_offset + pgoff. A whole image (len 0) has its
 * lowest segment at start, or where it was linked when start is 0. */
static int load_bias(Elf *elf, const struct pmu_symbolizer_module *m, uint64_t *bias,
		     uint64_t *first, uint64_t *size)
{
	size_t n;
	GElf_Phdr ph;
	uint64_t lo = UINT64_MAX, hi = 0;
	int found = 0;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t off;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr < lo)
			lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > hi)
			hi = ph.p_vaddr + ph.p_memsz;
		off = ph.p_offset & ~(uint64_t)0xfff;
		if (!found && m->len && m->pgoff >= off && m->pgoff < ph.p_offset + ph.p_filesz) {
			*bias = m->start - (ph.p_vaddr - ph.p_offset + m->pgoff);
			found = 1;
		}
	}
	if (lo == UINT64_MAX)
		return -1;
	lo &= ~(uint64_t)0xfff;
	*size = hi - lo;
	if (!m->len) {
		*first = m->start ? m->start : lo;
		*bias = *first - lo;
		found = 1;
	}
	return found ? 0 : -1;
}

/* Reads the file's identity; 0 or why it cannot be symbolized. */
static int inspect(const struct pmu_symbolizer_module *m, uint64_t *bias, uint64_t *first,
		   uint64_t *size)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC), err = 0;
	const void *id;
	ssize_t idn;
	Elf *elf;

	*bias = m->start - m->pgoff;
	*first = m->start;
	*size = m->len ? m->len : 4096;
	if (m->build_id_size && m->build_id_kind != 0)
		return pmuk_fail(PMU_ENOTSUP, "%s: a PE image (PDB GUID+Age identity) is "
				 "symbolized by DbgHelp on Windows; here it resolves to module + "
				 "offset only", m->path);
	if (fd < 0)
		return pmuk_fail(PMU_ENOENT, "cannot open %s: "
				 "%s; its addresses resolve to module + offset only", m->path,
				 strerror(errno));
	pmuk_dw_elf_init();
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = pmuk_fail(PMU_EFORMAT, "%s is not an ELF file; its addresses resolve to "
				"module + offset only", m->path);
		goto out;
	}
	if (load_bias(elf, m, bias, first, size)) {
		err = pmuk_fail(PMU_EFORMAT, "%s: no loadable segment holds file offset 0x%llx "
				"of the mapping at 0x%llx; its addresses resolve to module + "
				"offset only", m->path,
				(unsigned long long)m->pgoff, (unsigned long long)m->start);
		goto out;
	}
	if (m->len)
		*size = m->len;
	idn = dwelf_elf_gnu_build_id(elf, &id);
	if (m->build_id_size && (idn != m->build_id_size || memcmp(id, m->build_id, m->build_id_size))) {
		char want[41], have[41] = "none";

		pmuk_sym_hex(m->build_id, m->build_id_size, want);
		if (idn > 0 && idn <= 20)
			pmuk_sym_hex(id, (size_t)idn, have);
		err = pmuk_fail(PMU_EFORMAT, "stale binary: %s has build-id %s but the recording "
				"saw %s (rebuilt or replaced since); its symbols would be wrong, so "
				"its addresses resolve to module + offset only: find the matching "
				"file (debuginfod-find executable %s)", m->path, have, want, want);
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

int pmuk_sym_backend_add(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m)
{
	struct pmuk_dw *d = s->backend;
	struct pmuk_sym_module *mod;
	uint64_t bias, first, size;
	Dwfl_Module *dm;
	int err = inspect(m, &bias, &first, &size), merged;

	mod = pmuk_sym_module_add(s, m->path, bias, first, first + size, &merged);
	if (!mod)
		return pmuk_fail(PMU_ENOMEM, "out of memory adding module %s", m->path);
	if (merged || err) {
		if (!merged)
			mod->state = err;
		return err;
	}
	/* add_p_vaddr: base is the bias, the image lands at its own p_vaddr + bias. */
	dwfl_report_begin_add(d->dwfl);
	dm = dwfl_report_elf(d->dwfl, mod->path, mod->path, -1, bias, true);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!dm) {
		mod = pmuk_sym_module_at(s, first);
		mod->state = PMU_EFORMAT;
		return pmuk_fail(PMU_EFORMAT, "libdwfl cannot load %s at bias 0x%llx: %s; its "
				 "addresses resolve to module + offset only", m->path,
				 (unsigned long long)bias, dwfl_errmsg(-1));
	}
	mod->handle = dm;
	return 0;
}

/* The subprogram holding pc and the inlined instances nested in it, outermost first.
 * Lexical blocks are looked through; namespaces (C++) searched. */
static int scopes(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *chain, int *k, int depth)
{
	Dwarf_Die d;

	if (depth > 2 * PMUK_SYM_DEPTH || dwarf_child(parent, &d) != 0)
		return 0;
	do {
		switch (dwarf_tag(&d)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			if (dwarf_haspc(&d, pc) != 1)
				break;
			if (*k < PMUK_SYM_DEPTH)
				chain[(*k)++] = d;
			scopes(&d, pc, chain, k, depth + 1);
			return 1;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&d, pc) == 1)
				return scopes(&d, pc, chain, k, depth + 1);
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
			if (scopes(&d, pc, chain, k, depth + 1))
				return 1;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

static int add_ranges(struct cu_index *c, size_t *cap, Dwarf_Die *parent)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off;
	Dwarf_Die d;

	if (dwarf_child(parent, &d) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&d);

		if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
			if (add_ranges(c, cap, &d))
				return -1;
			continue;
		}
		if (tag != DW_TAG_subprogram)
			continue;
		if (pmuk_grow((void **)&c->fns, &c->capfns, c->nfns + 1, sizeof(*c->fns)))
			return -1;
		for (off = 0; (off = dwarf_ranges(&d, off, &base, &lo, &hi)) > 0;) {
			if (pmuk_grow((void **)&c->r, cap, c->n + 1, sizeof(*c->r)))
				return -1;
			c->r[c->n++] = (struct fn_range){ lo, hi, d, c->nfns };
		}
		c->nfns++;
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The index of cu (NULL when out of memory: the caller walks the unit). */
static struct cu_index *cu_index(struct pmuk_dw *d, Dwarf_Die *cu)
{
	size_t lo = 0, hi = d->ncus, cap = 0;
	struct cu_index *c;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->cus[mid].cu.addr == cu->addr)
			return &d->cus[mid];
		if ((uintptr_t)d->cus[mid].cu.addr < (uintptr_t)cu->addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (pmuk_grow((void **)&d->cus, &d->capcus, d->ncus + 1, sizeof(*d->cus)))
		return NULL;
	memmove(&d->cus[lo + 1], &d->cus[lo], (d->ncus - lo) * sizeof(*c));
	d->ncus++;
	c = &d->cus[lo];
	*c = (struct cu_index){ .cu = *cu };
	if (add_ranges(c, &cap, cu))
		c->n = 0;   /* partial: the lookup misses and the caller walks */
	if (c->n > 1)   /* c->r is NULL for a unit without functions */
		qsort(c->r, c->n, sizeof(*c->r), range_cmp);
	return c;
}

/* scopes() from the unit's function index. */
static void cu_scopes(struct pmuk_dw *d, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain, int *k)
{
	struct cu_index *c = cu_index(d, cu);
	size_t lo = c ? PMUK_BSEARCH_UPPER(c->r, c->n, lo, pc) : 0;

	if (lo > 0 && pc < c->r[lo - 1].hi) {
		struct fn_range *r = &c->r[lo - 1];

		chain[(*k)++] = r->die;
		if (pmuk_inl_scopes(&c->fns[r->fn], &r->die, pc, chain, k, PMUK_SYM_DEPTH))
			scopes(&r->die, pc, chain, k, 1);
		return;
	}
	if (!c || !c->n)
		scopes(cu, pc, chain, k, 0);
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *n;

	if ((dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ||
	     dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a)) && (n = dwarf_formstring(&a)))
		return n;
	return dwarf_diename(d);
}

static unsigned udata(Dwarf_Die *d, int name)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	return dwarf_attr(d, name, &a) && !dwarf_formudata(&a, &w) && w <= 0xffffffffu ?
		(unsigned)w : 0;
}

static uint64_t die_offset(Dwarf_Die *d, Dwarf_Addr pc)
{
	Dwarf_Addr entry;

	return !dwarf_entrypc(d, &entry) && entry <= pc ? pc - entry : 0;
}

/* frames from the DWARF scopes of pc (module-relative); the count. */
static int inline_chain(struct pmu_symbolizer *s, Dwarf_Die *cu, Dwarf_Addr pc, int k,
			Dwarf_Die *chain)
{
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	int n = 0;

	if (!s->opts.no_lines)
		dwarf_getsrcfiles(cu, &files, &nfiles);
	/* chain[k - 1] is innermost; frame i + 1 holds the call site of frame i. */
	for (int i = k - 1; i >= 0; i--, n++) {
		struct pmu_frame *f = &s->chain[n];

		f->function = die_name(&chain[i]);
		f->symbol_offset = die_offset(&chain[i], pc);
		if (i > 0)
			f->flags |= PMU_FRAME_INLINED;
		if (n + 1 < PMUK_SYM_DEPTH && i > 0) {
			struct pmu_frame *caller = &s->chain[n + 1];
			unsigned file = udata(&chain[i], DW_AT_call_file);

			*caller = (struct pmu_frame){ .module = f->module,
						      .module_offset = f->module_offset };
			caller->file = files && file < nfiles ? dwarf_filesrc(files, file, NULL,
									      NULL) : NULL;
			caller->line = udata(&chain[i], DW_AT_call_line);
			caller->column = udata(&chain[i], DW_AT_call_column);
		}
	}
	return n;
}

/* libdwfl answers the last line below addr even past the end of the unit's
 * code (the padding before crt1's _start, right after an -O2 main in
 * .text.startup): a line counts only inside one of its unit's ranges. When a
 * function of the line's unit holds addr (cu: the unit whose scopes were found,
 * the usual case), it is inside: only otherwise are the unit's ranges walked
 * (libdwfl's .debug_aranges lookup alone overshoots just like its lines). */
static int line_in_unit(Dwfl_Line *line, Dwarf_Die *cu, Dwarf_Addr addr)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Die *lcu = dwfl_linecu(line);
	ptrdiff_t off = 0;
	int ranges = 0;

	if (!lcu || lcu == cu)
		return 1;
	while ((off = dwarf_ranges(lcu, off, &base, &lo, &hi)) > 0) {
		if (addr >= lo && addr < hi)
			return 1;
		ranges++;
	}
	return !ranges; /* no ranges to judge by: keep libdwfl's answer */
}

/* What dwfl_module_addrinfo names addr (no sized function holds it): from
 * the sorted table where that is plain, else its linear search. */
static const char *label(struct pmuk_dw *d, Dwfl_Module *dm, uint64_t addr, GElf_Off *off)
{
	GElf_Sym sym;
	int known;
	const char *name = pmuk_symtab_label(&d->symtabs, dm, addr, off, &known);

	return known ? name : dwfl_module_addrinfo(dm, addr, off, &sym, NULL, NULL, NULL);
}

int pmuk_dw_resolve_in(struct pmu_symbolizer *s, Dwfl_Module *dm, const char *path,
		      uint64_t addr)
{
	struct pmuk_dw *d = s->backend;
	struct pmu_frame *f = &s->chain[0];
	Dwarf_Die chain[PMUK_SYM_DEPTH], *cu;
	Dwarf_Line *dline;
	Dwarf_Addr bias = 0, start;
	GElf_Off off = 0;
	Dwfl_Line *line;
	const char *name;
	int k = 0, n = 1, col = 0, lineno = 0, none;

	dwfl_module_info(dm, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	*f = (struct pmu_frame){ .module = path };
	if (!dwfl_module_getelf(dm, &bias)) {
		f->module_offset = addr - start;
		f->flags = PMU_FRAME_NOFILE;
		return 1;
	}
	f->module_offset = addr - bias;
	if ((cu = dwfl_module_addrdie(dm, addr, &bias)))
		cu_scopes(d, cu, addr - bias, chain, &k);
	if (!s->opts.no_lines && (line = dwfl_module_getsrc(dm, addr)) &&
	    line_in_unit(line, k ? cu : NULL, f->module_offset)) {
		f->file = dwfl_lineinfo(line, NULL, &lineno, &col, NULL, NULL);
		f->line = lineno > 0 ? (unsigned)lineno : 0;
		f->column = col > 0 ? (unsigned)col : 0;
	}
	if (!cu && (cu = pmuk_cumap_addrdie(&d->cumaps, dm, addr, &bias))) {
		cu_scopes(d, cu, addr - bias, chain, &k);
		if (!s->opts.no_lines && (dline = dwarf_getsrc_die(cu, addr - bias))) {
			/* no .debug_aranges entry: libdwfl found neither unit nor line */
			f->file = dwarf_linesrc(dline, NULL, NULL);
			f->line = !dwarf_lineno(dline, &lineno) && lineno > 0 ?
				(unsigned)lineno : 0;
			f->column = !dwarf_linecol(dline, &col) && col > 0 ? (unsigned)col : 0;
		}
	}
	if (k)
		n = inline_chain(s, cu, addr - bias, k, chain);
	/* Recordings name the function holding the code as perf does: by the symbol
	 * table (perf's choice among aliases, "foo.cold" for the split part), DWARF's
	 * name (glibc's "__GI___libc_read") only where no symbol holds the address. */
	if (k && s->perf_names && (name = pmuk_symtab_find(&d->symtabs, dm, addr, &off, &none))) {
		s->chain[n - 1].function = name;
		s->chain[n - 1].symbol_offset = off;
	}
	if (!k && ((name = pmuk_symtab_find(&d->symtabs, dm, addr, &off, &none)) ||
		   (!none && (name = label(d, dm, addr, &off))))) {
		/* No DWARF scope: the symbol table names the function (libdwfl's
		 * search is linear: a sorted table first). */
		s->chain[0].function = name;
		s->chain[0].symbol_offset = off;
	}
	return n;
}

int pmuk_sym_backend_resolve(struct pmu_symbolizer *s, uint64_t addr)
{
	struct pmuk_dw *d = s->backend;
	struct pmuk_sym_module *m;
	Dwfl_Module *dm;
	const char *path;

	if (s->opts.offline) {
		if (!(m = pmuk_sym_module_at(s, addr)))
			return pmuk_fail(PMU_ENOENT, "0x%llx lies in no module added to this "
					 "symbolizer", (unsigned long long)addr);
		if (m->state || !m->handle) {
			pmuk_sym_module_frame(m, addr, &s->chain[0]);
			return 1;
		}
		return pmuk_dw_resolve_in(s, m->handle, m->path, addr);
	}
	dm = dwfl_addrmodule(d->dwfl, addr);
	if (!dm && !d->refreshed) {
		/* The process may have loaded a library since: read its maps again. */
		d->refreshed = 1;
		pmuk_dw_forget_units(d);
		dwfl_report_begin(d->dwfl);
		dwfl_linux_proc_report(d->dwfl, s->opts.pid ? s->opts.pid : getpid());
		dwfl_report_end(d->dwfl, NULL, NULL);
		dm = dwfl_addrmodule(d->dwfl, addr);
	}
	if (!dm)
		return pmuk_fail(PMU_ENOENT, "0x%llx lies in no file-backed mapping of process "
				 "%d (unmapped, or anonymous memory such as JIT code or the "
				 "stack)", (unsigned long long)addr,
				 s->opts.pid ? s->opts.pid : (int)getpid());
	d->refreshed = 0;
	path = dwfl_module_info(dm, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	return pmuk_dw_resolve_in(s, dm, path, addr);
}

#else /* !PMUKIT_HAVE_DW */

#define NO_DW "this pmukit was built without elfutils libdw, so it reads no ELF/DWARF: " \
	"rebuild with libdw-dev installed"

int pmuk_sym_backend_open(struct pmu_symbolizer *s)
{
	(void)s;
	return pmuk_fail(PMU_ENOTSUP, NO_DW);
}

int pmuk_sym_backend_add(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m)
{
	(void)s;
	(void)m;
	return pmuk_fail(PMU_ENOTSUP, NO_DW);
}

int pmuk_sym_backend_resolve(struct pmu_symbolizer *s, uint64_t addr)
{
	(void)s;
	(void)addr;
	return pmuk_fail(PMU_ENOTSUP, NO_DW);
}

void pmuk_sym_backend_close(struct pmu_symbolizer *s)
{
	(void)s;
}

#endif
