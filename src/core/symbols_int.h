/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_SYMBOLS_INT_H
#define PMUK_CORE_SYMBOLS_INT_H

/* The symbolizer's portable half (src/core/symbols.c: arguments, the module table of
 * offline symbolizers, a string pool, the inline-chain truncation rule) and the
 * interface each OS backend implements (src/linux/symbols_dw.c with elfutils libdwfl,
 * src/windows/symbols_win.c with DbgHelp). */

#include "core/hash.h"

#include <pmukit/symbols.h>
#include <stddef.h>
#include <stdint.h>

#define PMUK_SYM_DEPTH 64   /* inline nesting kept per address */

/* An offline module: one file at one load address (mappings of it merged). */
struct pmuk_sym_module {
	uint64_t start, end;    /* mapped range, [start, end) */
	uint64_t bias;          /* address - module offset */
	const char *path;       /* interned */
	int state;              /* 0 symbols available, else why not (PMU_ENOENT, ...) */
	void *handle;           /* the backend's module (pe: the struct pmuk_pdb) */
	int pe;                 /* a PE image read by the portable PDB reader */
};

struct pmuk_sym_chunk;

/* Recording mode (src/core/symbols_rec.c). A distinct file (path + build-id) read
 * once: its loadable segments place each mapping of it. */
#define PMUK_SYM_SEGS 16
struct pmuk_sym_seg {
	uint64_t vaddr, offset, filesz;
};

enum pmuk_sym_kind {
	PMUK_SYM_FILE,          /* an ELF/PE file: the backend resolves it */
	PMUK_SYM_KERNEL,        /* the kernel or one of its modules: kallsyms */
	PMUK_SYM_ANON,          /* anonymous executable memory: perf-PID.map */
};

struct pmuk_sym_image {
	const char *path;       /* interned: the file as recorded */
	const char *file;       /* interned: the file read (path or a build-id cache's) */
	const char *kmod;       /* PMUK_SYM_KERNEL: "[name]" of a module, NULL: the kernel */
	const char *name;       /* what frames call it: path, or perf's "[kernel.kallsyms]"
				 * and "[name]" for the kernel and its modules */
	uint8_t id[20];
	uint8_t idn;            /* 0: no build-id recorded */
	uint8_t kind;           /* enum pmuk_sym_kind */
	uint8_t pe;             /* a PE image: handle is its PDB (pdb_symbolizer.c) */
	uint8_t ahead;          /* listed among the sampled images (or none are
				 * listed): its debug information is read ahead */
	int state;              /* 0 symbols, else why not (PMU_ENOENT, PMU_EFORMAT) */
	struct pmuk_sym_seg seg[PMUK_SYM_SEGS];
	unsigned nseg;
	void *handle;           /* the backend's */
};

/* One mapping of one process: [start, end), addr - bias = the image's address. */
struct pmuk_sym_map {
	uint64_t start, end, bias, pgoff;
	uint32_t img;
	uint64_t recorded_end;  /* end as recorded, before the kernel's stretch */
};

struct pmuk_sym_jit {           /* one line of /tmp/perf-PID.map, or a SYMBOL record */
	uint64_t start, end;
	const char *name;       /* interned */
	const char *module;     /* interned; NULL: the perf-PID.map */
	uint64_t seq;           /* order added: the newer of overlapping ranges wins */
};

struct pmuk_sym_proc {
	int32_t pid;            /* -1: the kernel's mappings, seen by every process */
	struct pmuk_sym_map *maps;  /* sorted by start, not overlapping */
	size_t nmaps, capmaps;
	int jit_loaded;         /* perf-PID.map read (or found missing) */
	const char *jit_path;   /* interned, NULL when there is none */
	struct pmuk_sym_jit *jit;   /* sorted by start */
	size_t njit, capjit;
	int jit_rec;            /* the recording names its JIT code: looked up first */
	int jit_dirty;          /* jit[] needs sorting */
	uint64_t jit_seq;       /* SYMBOL ranges added */
	void *unwind;           /* the backend's unwinder of this process */
	int unwind_stale;       /* maps changed since it was built */
};

struct pmuk_sym_ksym {          /* a text symbol of /proc/kallsyms */
	uint64_t addr;
	const char *name;       /* in buf */
	const char *kmod;       /* interned "[name]", NULL: the kernel */
};

struct pmuk_sym_ktab {           /* the text symbols of one kallsyms file */
	char *buf;              /* the file's text */
	struct pmuk_sym_ksym *v;    /* sorted by addr; names in buf */
	size_t n;
};

struct pmuk_sym_kernel {
	int probed;             /* path chosen, addresses checked: state */
	int loaded;             /* read (all holds what could be read) */
	int state;              /* 0, or PMU_ENOENT (hidden: kptr_restrict) */
	const char *path;       /* interned: /proc/kallsyms or a build-id cache's */
	/* The recording's kernel map names a symbol (perf's "[kernel.kallsyms]_text")
	 * and its address then (pgoff): a file whose symbol lies elsewhere is of
	 * another boot (KASLR): the kernel's addresses are looked up slid by
	 * file - recorded, and modules (placed anew at each boot) are not named. */
	char ref[32];           /* "_text", "": not recorded */
	uint64_t ref_addr;
	int64_t slide;
	struct pmuk_sym_ktab all;   /* path's */
	/* path is a build-id cache's copy: its modules' symbols are of whenever it was
	 * written (modules load anew at other addresses, and a kernel without KASLR
	 * has the same _text at every boot), so modules are named from /proc/kallsyms,
	 * read when the first module frame needs it */
	int copy;
	int mods_loaded;
	struct pmuk_sym_ktab mods;
	/* /proc/kallsyms against ref, looked at once (ref set) for every module:
	 * 0 not yet, 1 of the recording's boot, -1 ref elsewhere, -2 ref not in it */
	int proc_boot;
	void *reader;           /* the thread reading the file ahead (kallsyms.c) */
};

struct pmu_symbolizer {
	struct pmu_symbolizer_opts opts;
	char *debug_path;       /* owned copy of opts.debug_path */
	struct pmuk_sym_module *mods;
	size_t nmods, capmods;
	struct pmuk_sym_chunk *chunks;      /* the string pool */
	const char **strings;               /* every string of the pool, once */
	size_t cap_strings;
	struct pmuk_index strix;            /* their hash index */
	struct pmu_frame chain[PMUK_SYM_DEPTH];
	void *backend;
	char *buildid_dir;      /* owned copy of opts.buildid_dir */
	char *symfs;            /* owned copy of opts.symfs */
	char *symbol_path;      /* owned copy of opts.symbol_path */
	/* recording mode */
	struct pmuk_sym_image *imgs;
	size_t nimgs, capimgs;
	struct pmuk_index imgix;            /* by path + build-id */
	struct pmuk_sym_proc *procs;
	size_t nprocs, capprocs;
	struct pmuk_index procix;           /* by pid */
	/* the images the recording says got samples (opts.trace): only those are
	 * read ahead; none listed: every image */
	struct pmuk_sym_want { const char *path; uint8_t id[20], idn; } *want;
	size_t nwant, capwant;
	struct pmuk_index wantix;           /* by path + build-id, as imgix */
	int closing;                        /* pmu_symbolizer_close under way */
	uint32_t proc_hint[2];              /* 1 + index of the kernel's (-1) and of the
					     * last other process looked up, 0: none */
	struct pmuk_sym_kernel kernel;
	/* names as perf report gives them (recording mode): the symbol table's, C++
	 * without parameters */
	int perf_names;
	/* demangled names by the address of the mangled one and the style */
	struct pmuk_sym_dm { const char *in, *out; int params; } *dm;
	size_t dm_cap;
	struct pmuk_index dmix;
};

/* A copy of s[0..len) that lives until the symbolizer closes; equal strings share
 * one copy. NULL when out of memory. */
const char *pmuk_sym_intern(struct pmu_symbolizer *s, const char *str, size_t len);

/* Registers [start, end) of path loaded at bias: merges it into the entry of the same
 * path and bias (*merged = 1) or adds an entry with state 0 and no handle. NULL when
 * out of memory. The pointer is valid until the next call. */
struct pmuk_sym_module *pmuk_sym_module_add(struct pmu_symbolizer *s, const char *path,
					    uint64_t bias, uint64_t start, uint64_t end,
					    int *merged);
/* The offline module holding addr, or NULL. */
struct pmuk_sym_module *pmuk_sym_module_at(struct pmu_symbolizer *s, uint64_t addr);

/* The single frame of an address in a module without symbols. */
void pmuk_sym_module_frame(const struct pmuk_sym_module *m, uint64_t addr, struct pmu_frame *f);

/* "0a1b..." of build-id bytes; buf holds 2 * n + 1. */
void pmuk_sym_hex(const uint8_t *id, size_t n, char *buf);

/* Backend. open: live (opts.pid) or offline setup. add: reads m's file, registers
 * it with pmuk_sym_module_add() and returns 0 or the reason the module has no
 * symbols (it stays registered; state says the same). resolve: the chain of addr
 * into s->chain, innermost first; the count, or a negative PMU_E* code. */
int pmuk_sym_backend_open(struct pmu_symbolizer *s);
/* Recording mode. image: opens img->path (or the build-id caches), fills seg[]
 * and handle, returns 0 or why it has no symbols (img->state is set by the
 * caller). resolve_image: the chain of an address of the image (link-time) into
 * s->chain; the count or PMU_E*. image_close frees handle. */
int pmuk_sym_backend_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img);
int pmuk_sym_backend_resolve_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
				   uint64_t addr);
void pmuk_sym_backend_image_close(struct pmu_symbolizer *s, struct pmuk_sym_image *img);
/* DWARF unwinding of sample through the mappings of p; 0 or PMU_E*. */
int pmuk_sym_backend_unwind(struct pmu_symbolizer *s, struct pmuk_sym_proc *p,
			    const struct pmu_record *sample, uint64_t *ips, size_t max,
			    size_t *n);
void pmuk_sym_backend_unwind_free(struct pmu_symbolizer *s, struct pmuk_sym_proc *p);

/* Kernel (src/linux/kallsyms.c): checks the running kernel against img (its
 * build-id; mm its first mapping) and loads /proc/kallsyms or the build-id cache's
 * copy once; 0 or why not (*told: the reason was given with an earlier mapping,
 * kallsyms being unreadable). resolve: the frame of addr (a kernel address inside
 * map m of image img) into s->chain[0]. */
int pmuk_sym_kernel_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
			  const struct pmu_mmap *mm, int *told);
void pmuk_sym_kernel_resolve(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
			     const struct pmuk_sym_map *m, uint64_t addr);
void pmuk_sym_kernel_free(struct pmu_symbolizer *s);

/* JIT maps (src/core/perfmap.c): reads /tmp/perf-PID.map of p once; the entry
 * holding addr or NULL. */
const struct pmuk_sym_jit *pmuk_sym_jit_find(struct pmu_symbolizer *s,
					     struct pmuk_sym_proc *p, uint64_t addr);
/* A SYMBOL record's range into p (name NULL: removes the range); 0 or PMU_ENOMEM. */
int pmuk_sym_jit_add(struct pmu_symbolizer *s, struct pmuk_sym_proc *p,
		     const struct pmu_symbol *sym);

/* The demangled C++ or Rust name (interned), or name itself when it is no mangled
 * name or demangling is off or unavailable (src/linux/demangle.c; Windows: name).
 * With s->perf_names set, without parameters ("ns::f", as perf report prints). */
const char *pmuk_sym_demangle(struct pmu_symbolizer *s, const char *name);

/* Recording mode (src/core/symbols_rec.c): the sampled images of opts.trace
 * copied (0 or PMU_ENOMEM); the teardown. */
int pmuk_sym_rec_want(struct pmu_symbolizer *s);
void pmuk_sym_rec_free(struct pmu_symbolizer *s);
/* The truncation rule and demangling of pmu_symbolizer_resolve applied to k frames
 * of s->chain, copied out. */
int pmuk_sym_finish(struct pmu_symbolizer *s, int k, struct pmu_frame *frames, size_t max,
		    size_t *n);
int pmuk_sym_backend_add(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m);
/* PE images through the portable PDB reader (src/formats/pdb_symbolizer.c): add
 * and resolve return PMUK_SYM_NOT_PE for what is not theirs; close frees them. */
#define PMUK_SYM_NOT_PE 0x7fff  /* above any frame count */
int pmuk_sym_pe_add(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m);
int pmuk_sym_pe_resolve(struct pmu_symbolizer *s, uint64_t addr);
void pmuk_sym_pe_close(struct pmu_symbolizer *s);
/* Recording mode: a PE image by its recorded GUID+Age and PDB name (mm's
 * debug_path), its address (RVA) resolved, its PDB closed. */
int pmuk_sym_pe_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
		      const struct pmu_mmap *mm);
int pmuk_sym_pe_resolve_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
			      uint64_t rva);
void pmuk_sym_pe_image_close(struct pmu_symbolizer *s, struct pmuk_sym_image *img);
int pmuk_sym_backend_resolve(struct pmu_symbolizer *s, uint64_t addr);
void pmuk_sym_backend_close(struct pmu_symbolizer *s);

#endif
