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
	void *handle;           /* the backend's module */
};

struct pmuk_sym_chunk;

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
int pmuk_sym_backend_add(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m);
int pmuk_sym_backend_resolve(struct pmu_symbolizer *s, uint64_t addr);
void pmuk_sym_backend_close(struct pmu_symbolizer *s);

#endif
