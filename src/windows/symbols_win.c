/* SPDX-License-Identifier: MIT */
/* The symbolizer on Windows: DbgHelp. A live process is a SymInitializeW session that
 * enumerates its modules; an offline symbolizer is a session keyed by a unique value
 * (no process) whose modules come from SymLoadModuleExW at the recorded base. Inline
 * frames come from SymAddrIncludeInlineTrace / SymQueryInlineTrace /
 * SymFromInlineContextW / SymGetLineFromInlineContextW, looked up at run time (older
 * dbghelp.dll lacks them). Module identity: the PDB GUID+Age of the CodeView RSDS
 * record (pmu_module_id_from_pe_file). DbgHelp serves one thread at a time. When
 * DbgHelp finds no PDB for an image, the portable PDB reader (src/formats/pdb_*.c)
 * tries the same symbol path; an image not on disk is loaded by the PDB its recorded
 * GUID+Age names in the symbol path (SymFindFileInPathW), the portable reader again
 * the fallback. */
#include "windows/win.h"
#include "core/symbols_int.h"
#include "core/error.h"
#include "core/file.h"
#include "core/guid.h"
#include "core/le.h"
#include "formats/pdb_symbolizer.h"

#include <dbghelp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_W 1024

typedef DWORD (WINAPI *inline_trace_fn)(HANDLE, DWORD64);
typedef BOOL (WINAPI *query_inline_fn)(HANDLE, DWORD64, DWORD, DWORD64, DWORD64, LPDWORD, LPDWORD);
typedef BOOL (WINAPI *from_inline_fn)(HANDLE, DWORD64, ULONG, PDWORD64, PSYMBOL_INFOW);
typedef BOOL (WINAPI *line_inline_fn)(HANDLE, DWORD64, ULONG, DWORD64, PDWORD, PIMAGEHLP_LINEW64);

struct win {
	HANDLE h;               /* process handle, or the symbolizer's address offline */
	int process;            /* h is a process handle to close */
	int refreshed;
	inline_trace_fn include_inline;
	query_inline_fn query_inline;
	from_inline_fn from_inline;
	line_inline_fn line_inline;
	union {
		SYMBOL_INFOW sym;
		char buf[sizeof(SYMBOL_INFOW) + NAME_MAX_W * sizeof(WCHAR)];
	} u;
};

/* UTF-16 -> an interned UTF-8 string (NULL for NULL or empty). */
static const char *utf8(struct pmu_symbolizer *s, const WCHAR *w)
{
	char buf[2048];
	int n;

	if (!w || !w[0])
		return NULL;
	n = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, sizeof(buf), NULL, NULL);
	return n > 0 ? pmuk_sym_intern(s, buf, (size_t)n - 1) : NULL;
}

static int wide(const char *s, WCHAR *w, int n)
{
	return MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) > 0 ? 0 : -1;
}

int pmuk_sym_backend_open(struct pmu_symbolizer *s)
{
	struct win *w = calloc(1, sizeof(*w));
	WCHAR path[2048];
	DWORD pid = s->opts.pid ? (DWORD)s->opts.pid : GetCurrentProcessId(), e;

	if (!w)
		return pmuk_fail(PMU_ENOMEM, "out of memory opening a symbolizer");
	const char *sp = s->debug_path ? s->debug_path : s->opts.symbol_path;

	if (sp && wide(sp, path, 2048)) {
		free(w);
		return pmuk_fail(PMU_EINVAL, "the symbol path is not valid UTF-8 or too long");
	}
	if (s->opts.offline) {
		w->h = (HANDLE)s;   /* any unique value names a session without a process */
	} else {
		/* Our own handle even for this process: two sessions never share one. */
		w->h = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pid);
		if (!w->h) {
			e = GetLastError();
			free(w);
			return pmuk_fail(e == ERROR_ACCESS_DENIED ? PMU_EPERM : PMU_ESRCH,
					 "cannot open process %lu: %s%s", (unsigned long)pid,
					 pmuk_win_strerror(e), e == ERROR_ACCESS_DENIED ? " (another "
					 "user's or a protected process: run elevated)" : "");
		}
		w->process = 1;
	}
	SymSetOptions(SymGetOptions() | SYMOPT_LOAD_LINES | SYMOPT_UNDNAME |
		      SYMOPT_DEFERRED_LOADS | SYMOPT_FAIL_CRITICAL_ERRORS);
	if (!SymInitializeW(w->h, sp ? path : NULL, !s->opts.offline)) {
		e = GetLastError();
		if (w->process)
			CloseHandle(w->h);
		free(w);
		return pmuk_fail(PMU_EIO, "DbgHelp SymInitializeW failed for %s: %s",
				 s->opts.offline ? "an offline session" : "the process",
				 pmuk_win_strerror(e));
	}
	w->include_inline = (inline_trace_fn)(void (*)(void))pmuk_win_proc(L"dbghelp.dll",
						"SymAddrIncludeInlineTrace");
	w->query_inline = (query_inline_fn)(void (*)(void))pmuk_win_proc(L"dbghelp.dll",
						"SymQueryInlineTrace");
	w->from_inline = (from_inline_fn)(void (*)(void))pmuk_win_proc(L"dbghelp.dll",
						"SymFromInlineContextW");
	w->line_inline = (line_inline_fn)(void (*)(void))pmuk_win_proc(L"dbghelp.dll",
						"SymGetLineFromInlineContextW");
	if (!w->include_inline || !w->query_inline || !w->from_inline || !w->line_inline)
		w->include_inline = NULL;
	s->backend = w;
	return 0;
}

void pmuk_sym_backend_close(struct pmu_symbolizer *s)
{
	struct win *w = s->backend;

	if (!w)
		return;
	SymCleanup(w->h);
	if (w->process)
		CloseHandle(w->h);
	free(w);
}

/* ImageBase and SizeOfImage of the PE headers of path; 0 or why not. */
static int pe_layout(const char *path, uint64_t *image_base, uint64_t *size)
{
	unsigned char b[1024];
	FILE *f = pmuk_fopen(path, "rb");
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
	uint32_t pe;

	if (!f)
		return pmuk_fail(PMU_ENOENT, "cannot open %s; its addresses resolve to module + "
				 "offset only", path);
	fclose(f);
	/* e_lfanew @60; the signature, file header (24) and the optional header up to
	 * SizeOfImage (@56, 4 bytes) must lie in what was read. */
	pe = n >= 64 ? (uint32_t)(b[60] | b[61] << 8 | b[62] << 16 | (uint32_t)b[63] << 24) : 0;
	if (n < 64 || b[0] != 'M' || b[1] != 'Z' || n < 24 + 60 || pe > n - (24 + 60) ||
	    memcmp(b + pe, "PE\0\0", 4))
		return pmuk_fail(PMU_EFORMAT, "%s is not a PE image (an ELF file is read by "
				 "libdwfl on Linux); its addresses resolve to module + offset "
				 "only", path);
	pe += 24;   /* the optional header */
	if (b[pe] == 0x0b && b[pe + 1] == 0x02) {          /* PE32+ */
		memcpy(image_base, b + pe + 24, 8);
	} else {
		uint32_t base32;

		memcpy(&base32, b + pe + 28, 4);
		*image_base = base32;
	}
	*size = (uint32_t)(b[pe + 56] | b[pe + 57] << 8 | b[pe + 58] << 16 |
			   (uint32_t)b[pe + 59] << 24);
	return 0;
}

/* Checks the recorded PDB GUID+Age against the file's RSDS record. */
static int identity(const struct pmu_symbolizer_module *m)
{
	struct pmu_module_id id;
	char want[41], have[41] = "none";
	uint8_t rec[20];
	int err;

	if (!m->build_id_size)
		return 0;
	if (m->build_id_kind != 1 || m->build_id_size != 20)
		return pmuk_fail(PMU_ENOTSUP, "%s: an ELF build-id; DbgHelp reads PE images, so "
				 "its addresses resolve to module + offset only", m->path);
	err = pmu_module_id_from_pe_file(m->path, &id);
	if (err && err != PMU_ENOENT)
		return err;
	pmuk_guid_store(rec, &id.guid);
	memcpy(rec + 16, &id.age, 4);
	if (!err && !memcmp(rec, m->build_id, 20))
		return 0;
	pmuk_sym_hex(m->build_id, 20, want);
	if (!err)
		pmuk_sym_hex(rec, 20, have);
	return pmuk_fail(PMU_EFORMAT, "stale binary: %s has PDB GUID+Age %s but the recording "
			 "saw %s (rebuilt or replaced since); its symbols would be wrong, so its "
			 "addresses resolve to module + offset only: find the matching image",
			 m->path, have, want);
}

/* Whether DbgHelp holds a PDB for the module at base (deferred loads forced). */
static int has_pdb(struct win *w, uint64_t base)
{
	IMAGEHLP_MODULEW64 mi = { .SizeOfStruct = sizeof(mi) };
	DWORD64 disp;

	if (!SymGetModuleInfoW64(w->h, base, &mi))
		return 0;
	if (mi.SymType == SymDeferred) {
		w->u.sym = (SYMBOL_INFOW){ .SizeOfStruct = sizeof(SYMBOL_INFOW),
					   .MaxNameLen = NAME_MAX_W };
		SymFromAddrW(w->h, base, &disp, &w->u.sym);
		if (!SymGetModuleInfoW64(w->h, base, &mi))
			return 0;
	}
	return mi.SymType == SymPdb;
}

/* SymEnumSymbolsW callback: the first function's or public's address, then stop. */
static BOOL CALLBACK first_function(PSYMBOL_INFOW sym, ULONG size, PVOID ctx)
{
	(void)size;
	if ((sym->Tag != 5 && sym->Tag != 10) /* SymTagFunction, SymTagPublicSymbol */ ||
	    !sym->Address)
		return TRUE;
	*(DWORD64 *)ctx = sym->Address;
	return FALSE;
}

/* Whether DbgHelp names an address inside a function of the module at base (one
 * byte past its start): Wine's dbghelp loads a GNU ld PDB (SymType PDB, SymFromName
 * works) yet SymFromAddr names nothing but exact starts, so holding a PDB is not
 * enough to leave the portable reader out. */
static int names_by_address(struct win *w, uint64_t base)
{
	DWORD64 addr = 0, disp = 0;

	SymEnumSymbolsW(w->h, base, L"*", first_function, &addr);
	if (!addr)
		return 1;	/* cannot tell: DbgHelp keeps the module */
	w->u.sym = (SYMBOL_INFOW){ .SizeOfStruct = sizeof(SYMBOL_INFOW),
				   .MaxNameLen = NAME_MAX_W };
	return SymFromAddrW(w->h, addr + 1, &disp, &w->u.sym);
}

/* An image not on disk: the PDB its recorded GUID+Age names (the linker's
 * default name, image.pdb) found along DbgHelp's symbol path; 0 or PMU_ENOENT. */
static int load_by_id(struct win *w, const struct pmu_symbolizer_module *m, uint64_t base,
		      uint64_t size)
{
	WCHAR name[MAX_PATH], found[MAX_PATH * 2];
	const char *b = m->path, *dot;
	char pdb[MAX_PATH];
	GUID g;

	for (const char *p = m->path; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	dot = strrchr(b, '.');
	snprintf(pdb, sizeof(pdb), "%.*s.pdb", (int)(dot ? (size_t)(dot - b) : strlen(b)), b);
	g.Data1 = pmuk_le32(m->build_id);	/* GUID as stored: little-endian fields */
	g.Data2 = pmuk_le16(m->build_id + 4);
	g.Data3 = pmuk_le16(m->build_id + 6);
	memcpy(g.Data4, m->build_id + 8, 8);
	/* FoundFile is a wide buffer; mingw-w64's header spells it LPSTR. */
	if (wide(pdb, name, MAX_PATH) ||
	    !SymFindFileInPathW(w->h, NULL, name, &g, pmuk_le32(m->build_id + 16), 0,
				SSRVOPT_GUIDPTR, (void *)found, NULL, NULL) ||
	    !SymLoadModuleExW(w->h, NULL, found, NULL, base, (DWORD)size, NULL, 0))
		return pmuk_fail(PMU_ENOENT, "%s is not on disk and DbgHelp finds no %s of its "
				 "GUID+Age in the symbol path: its addresses resolve to module + "
				 "offset only", m->path, pdb);
	return 0;
}

int pmuk_sym_backend_add(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m)
{
	struct win *w = s->backend;
	struct pmuk_sym_module *mod;
	uint64_t image_base = 0, size = 0, base;
	WCHAR path[MAX_PATH * 2];
	int err = pe_layout(m->path, &image_base, &size), merged, by_id;
	DWORD64 got;

	/* Not on disk, but its PDB identity recorded: by the PDB alone. */
	by_id = err == PMU_ENOENT && m->build_id_kind == 1 && m->build_id_size == 20 && m->start;
	if (!err)
		err = identity(m);
	base = m->start ? m->start - m->pgoff : image_base;
	if (m->len)
		size = m->len + m->pgoff;
	if (!size)
		size = 4096;
	if (!(mod = pmuk_sym_module_add(s, m->path, base, base, base + size, &merged)))
		return pmuk_fail(PMU_ENOMEM, "out of memory adding module %s", m->path);
	if (merged)
		return err;
	if (by_id) {
		err = load_by_id(w, m, base, size);
		if (err && !pmuk_sym_pe_attach_id(s, m, mod))
			err = 0;
		mod->state = err;
		return err;
	}
	if (err) {
		mod->state = err;
		return err;
	}
	if (wide(m->path, path, MAX_PATH * 2))
		err = pmuk_fail(PMU_EINVAL, "%s: not UTF-8, or too long", m->path);
	else if (!(got = SymLoadModuleExW(w->h, NULL, path, NULL, base, (DWORD)size, NULL, 0)) &&
		 GetLastError() != ERROR_SUCCESS)
		err = pmuk_fail(PMU_EFORMAT, "DbgHelp SymLoadModuleExW cannot load %s at 0x%llx: "
				"%s; its addresses resolve to module + offset only", m->path,
				(unsigned long long)base, pmuk_win_strerror(GetLastError()));
	mod = pmuk_sym_module_at(s, base);
	/* DbgHelp without a PDB (exports only), or one it cannot name addresses in:
	 * the portable reader's turn. */
	if (!err && (!has_pdb(w, base) || !names_by_address(w, base)))
		pmuk_sym_pe_attach(s, m, mod);
	mod->state = err;
	return err;
}

/* Function and line of inline context ctx (or of the address when ctx is -1). */
static void frame_at(struct pmu_symbolizer *s, struct win *w, uint64_t addr, long long ctx,
		     struct pmu_frame *f)
{
	IMAGEHLP_LINEW64 line = { .SizeOfStruct = sizeof(line) };
	DWORD64 disp = 0;
	DWORD ldisp = 0;
	BOOL ok;

	memset(&w->u, 0, sizeof(w->u));
	w->u.sym.SizeOfStruct = sizeof(SYMBOL_INFOW);
	w->u.sym.MaxNameLen = NAME_MAX_W;
	ok = ctx < 0 ? SymFromAddrW(w->h, addr, &disp, &w->u.sym) :
		w->from_inline(w->h, addr, (ULONG)ctx, &disp, &w->u.sym);
	if (ok) {
		w->u.sym.Name[NAME_MAX_W - 1] = 0;
		f->function = utf8(s, w->u.sym.Name);
		f->symbol_offset = disp;
	}
	ok = ctx < 0 ? SymGetLineFromAddrW64(w->h, addr, &ldisp, &line) :
		w->line_inline(w->h, addr, (ULONG)ctx, 0, &ldisp, &line);
	if (ok) {
		f->file = utf8(s, line.FileName);
		f->line = line.LineNumber;
	}
}

int pmuk_sym_backend_resolve(struct pmu_symbolizer *s, uint64_t addr)
{
	struct win *w = s->backend;
	struct pmu_frame base = { 0 };
	struct pmuk_sym_module *m;
	DWORD depth = 0, ctx = 0, idx = 0;
	int n = 0;

	if (s->opts.offline) {
		if (!(m = pmuk_sym_module_at(s, addr)))
			return pmuk_fail(PMU_ENOENT, "0x%llx lies in no module added to this "
					 "symbolizer", (unsigned long long)addr);
		if (m->state) {
			pmuk_sym_module_frame(m, addr, &s->chain[0]);
			return 1;
		}
		base.module = m->path;
		base.module_offset = addr - m->bias;
	} else {
		IMAGEHLP_MODULEW64 mi = { .SizeOfStruct = sizeof(mi) };

		if (!SymGetModuleInfoW64(w->h, addr, &mi) && !w->refreshed) {
			/* The process may have loaded a DLL since. */
			w->refreshed = 1;
			SymRefreshModuleList(w->h);
		}
		if (!mi.BaseOfImage && !SymGetModuleInfoW64(w->h, addr, &mi))
			return pmuk_fail(PMU_ENOENT, "0x%llx lies in no module of process %d "
					 "(unmapped, or memory no image backs such as JIT code or "
					 "the stack)", (unsigned long long)addr, s->opts.pid ?
					 s->opts.pid : (int)GetCurrentProcessId());
		w->refreshed = 0;
		base.module = utf8(s, mi.LoadedImageName[0] ? mi.LoadedImageName : mi.ImageName);
		base.module_offset = addr - mi.BaseOfImage;
	}
	if (w->include_inline && (depth = w->include_inline(w->h, addr)) > 0 &&
	    w->query_inline(w->h, addr, 0, addr, addr, &ctx, &idx)) {
		if (depth > PMUK_SYM_DEPTH - 1)
			depth = PMUK_SYM_DEPTH - 1;
		/* ctx, ctx + 1, ...: the inlined functions, innermost first; the
		 * function they are inlined into follows. */
		for (DWORD i = 0; i < depth; i++, n++) {
			s->chain[n] = base;
			frame_at(s, w, addr, (long long)ctx + i, &s->chain[n]);
			s->chain[n].flags = PMU_FRAME_INLINED;
		}
	}
	s->chain[n] = base;
	frame_at(s, w, addr, -1, &s->chain[n]);
	return n + 1;
}

/* Recording mode of ELF recordings (perf.data): DbgHelp reads no ELF build-ids
 * nor DWARF CFI, and a Windows host has no kallsyms, so their mappings are kept
 * and resolve to module + offset. */
#define REC_WHY "symbols of a Linux recording (ELF modules, kallsyms, DWARF unwinding) " \
	"are read on Linux: here its frames resolve to module + offset only"

int pmuk_sym_backend_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img)
{
	(void)s;
	return pmuk_fail(PMU_ENOTSUP, "%s: %s", img->path, REC_WHY);
}

int pmuk_sym_backend_resolve_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
				   uint64_t addr)
{
	(void)s;
	(void)img;
	(void)addr;
	return pmuk_fail(PMU_ENOTSUP, REC_WHY);
}

void pmuk_sym_backend_image_close(struct pmu_symbolizer *s, struct pmuk_sym_image *img)
{
	(void)s;
	(void)img;
}

int pmuk_sym_backend_unwind(struct pmu_symbolizer *s, struct pmuk_sym_proc *p,
			    const struct pmu_record *sample, uint64_t *ips, size_t max,
			    size_t *n)
{
	(void)s;
	(void)p;
	(void)sample;
	(void)ips;
	(void)max;
	(void)n;
	return pmuk_fail(PMU_ENOTSUP, "DWARF unwinding of recorded user stacks needs "
			 "elfutils, which pmukit uses on Linux only: unwind on Linux");
}

void pmuk_sym_backend_unwind_free(struct pmu_symbolizer *s, struct pmuk_sym_proc *p)
{
	(void)s;
	(void)p;
}

int pmuk_sym_kernel_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
			  const struct pmu_mmap *mm, int *told)
{
	(void)s;
	(void)mm;
	*told = 0;
	return pmuk_fail(PMU_ENOTSUP, "%s: %s", img->path, REC_WHY);
}

void pmuk_sym_kernel_resolve(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
			     const struct pmuk_sym_map *m, uint64_t addr)
{
	s->chain[0] = (struct pmu_frame){ .module = img->name, .module_offset = addr - m->bias,
					  .flags = PMU_FRAME_NOFILE };
}

void pmuk_sym_kernel_free(struct pmu_symbolizer *s)
{
	(void)s;
}

/* DbgHelp undecorates MSVC names itself (SYMOPT_UNDNAME). */
const char *pmuk_sym_demangle(struct pmu_symbolizer *s, const char *name)
{
	(void)s;
	return name;
}
