/* SPDX-License-Identifier: MIT */
/* Internals of the record report shared by src/core/report*.c. */
#ifndef PMUK_CORE_REPORT_INT_H
#define PMUK_CORE_REPORT_INT_H

#include "core/hash.h"

#include <pmukit/report.h>
#include <stddef.h>
#include <stdint.h>

/* The report's "no id"; its tables are core/hash.h indexes. */
#define RP_NONE PMUK_INDEX_NONE

/* Memory freed with the report: interned text, stacks and group entries
 * are made one or two per distinct address or stack, and one malloc and
 * free each would cost more than the rest of their work. */
struct rp_arena {
	char *free_at;           /* unused room of the newest block */
	size_t free_n;
	char **blocks;
	size_t n_blocks, cap_blocks;
};
/* n bytes aligned for uint64_t, NULL without memory. */
void *pmuk_rp_alloc(struct rp_arena *a, size_t n);
void pmuk_rp_arena_free(struct rp_arena *a);

/* Interned strings (report_str.c): ids are stable, 0 is "". An address's
 * name or label (see rp_sym.at_addr) has an id whose text is made only when
 * an output keeps it: s[id] NULL until then. */
struct rp_hexname {              /* the ids of "0x<v>" and "0x<v, 16 digits>" */
	uint64_t v;
	uint32_t name, label;    /* RP_NONE: none yet */
};
struct rp_strings {
	struct pmuk_index ix;    /* the ids with text */
	char **s;
	size_t n, cap;
	struct rp_arena text;
	struct rp_hexname *hex;
	size_t cap_hex;
	struct pmuk_index hex_ix;
};
uint32_t pmuk_rp_intern(struct rp_strings *t, const char *s);
/* The ids of "0x<addr>" and "0x<addr, 16 digits>", made without their text;
 * *made: the name's id is new (nothing can be named by it yet). */
uint32_t pmuk_rp_addr_name(struct rp_strings *t, uint64_t addr, int *made);
uint32_t pmuk_rp_addr_label(struct rp_strings *t, uint64_t addr);
void pmuk_rp_strings_free(struct rp_strings *t);

struct rp_module {
	uint32_t path, base;     /* interned: full path, file name */
	uint32_t debug;          /* interned debug path, 0 none */
	uint8_t build_id[20], bid_size, bid_kind;
	uint8_t anon;            /* anonymous memory: its code is named per process */
	char bid_text[48];
	uint64_t samples, period;
};

struct rp_map {
	uint64_t start, end, pgoff;
	uint32_t module;
};

struct rp_mapset {
	int32_t pid;             /* -1: kernel / every process */
	struct rp_map *v;
	size_t n, cap;
	uint32_t jit_gen;        /* generation of its JIT frames (report_jit.c) */
	uint64_t *jit_line;      /* 64-byte lines of them named in this generation: */
	size_t n_line, cap_line; /* a list until a SYMBOL record of the process, */
	int indexed;             /* then distinct and indexed by line_ix */
	struct pmuk_index line_ix;
};

/* A module offset the symbolizer named, and the first frame at it: another
 * process mapping the module elsewhere (ASLR) reuses the names. */
struct rp_moff {
	uint32_t module, frame;
	uint64_t off;
};

struct rp_frame {                /* a distinct code address */
	uint32_t module;         /* RP_NONE: no module maps it */
	int32_t pid;             /* JIT code (no module, anonymous memory): its process, */
	uint64_t addr;           /* absolute */
	uint64_t bias;           /* its map's start - pgoff: a module mapped at another
				    base in another process is another frame */
	uint32_t func;           /* the resolver's name, 0 when none */
	uint32_t sym;            /* its row in the symbol table: the function holding it */
	uint32_t line;           /* interned "file:line" in sym (past inlined calls), 0 unknown */
	uint32_t inl, n_inl;     /* r->inl[2*inl ..): n_inl (sym, line) pairs of the
				    calls inlined at addr, innermost first */
	uint32_t gen;            /* and its process's jit_gen; -1 and 0 for other code */
};

/* A symbol: one name ("module!function", "module!+0xoff" or "0xaddr") in one
 * module. Addresses of one function, or one module offset mapped at several
 * bases, share it: rows and folded stacks count symbols, not addresses. */
struct rp_sym {
	uint32_t name;           /* interned */
	uint32_t module;         /* RP_NONE: no module */
	uint64_t samples, period;    /* as the sampled address */
	uint32_t label;          /* interned: the function, or "0x<offset>" */
	uint8_t kernel;          /* a kernel (or hypervisor) address */
	uint8_t at_addr;         /* named by addr alone, in no module: its texts may
				    not be made (pmuk_rp_sym_name) */
	uint64_t addr;
};

/* A symbol's name and label: its strings, or an address symbol's text made
 * in buf (RP_ADDR_BUF bytes). */
#define RP_ADDR_BUF 24
/* "0x" and v in hex, at least `digits` digits ("0x%0*" PRIx64), into buf
 * (RP_ADDR_BUF bytes); returns buf. */
const char *pmuk_rp_hex_text(char *buf, uint64_t v, int digits);
const char *pmuk_rp_sym_name(const struct pmu_report *r, uint32_t sym, char *buf);
const char *pmuk_rp_sym_label(const struct pmu_report *r, uint32_t sym, char *buf);
size_t pmuk_rp_sym_label_len(const struct pmu_report *r, uint32_t sym);
/* Makes the texts of symbol sym (of every symbol when sym is RP_NONE), for
 * outputs that keep names past a call: 0 or PMU_ENOMEM. */
int pmuk_rp_sym_keep(struct pmu_report *r, uint32_t sym);

struct rp_thread {
	int32_t pid, tid;
	uint32_t comm;           /* interned, 0 unnamed */
	int exited, replaced;
	uint64_t samples, period, cpu_ns, switches;
	uint64_t *pmc;
};

struct rp_process {
	int32_t pid;
	uint32_t name;
	int exited, replaced;
	uint64_t samples, period, cpu_ns, switches;
	uint64_t *pmc;
};

struct rp_cpu {
	uint64_t samples, period;
	uint32_t cur;            /* thread running (switched in), RP_NONE unknown */
	uint64_t t_in;
	uint64_t *pmc_in;
	int have_pmc;
};

struct rp_stack {
	uint32_t proc;           /* interned process name */
	uint32_t n;
	uint32_t *frames;        /* symbol ids, leaf first; then (n + 31) / 32 words
				    of bits: symbol i is a call inlined into i + 1 */
	uint64_t count, period;
};

/* The words of a stack of n symbols: the ids, then the inline bits. */
#define RP_STACK_WORDS(n) ((n) + ((n) + 31) / 32)

/* Whether symbol i of stack s is a call inlined into symbol i + 1 (the two
 * are one address: the inlined calls at it, innermost first, then the
 * function holding it). The bits are part of the stack's identity: the same
 * symbols inlined in one sample and called out of line in another are two
 * stacks. */
static inline int pmuk_rp_stack_inlined(const struct rp_stack *s, uint32_t i)
{
	return (int)(s->frames[s->n + i / 32] >> (i % 32) & 1);
}

/* Samples of one event, thread and CPU with one stack of (symbol, srcline)
 * entries, innermost first, inlined calls included: what perf report's views
 * are computed from (report_view.c). */
struct rp_group {
	int32_t event;           /* -1 unknown */
	uint32_t thread;         /* index into threads */
	int32_t cpu;
	uint32_t n;              /* entries */
	uint32_t leaf;           /* entry of the sampled function (past its inlined calls) */
	uint32_t *e;             /* n (sym, line) pairs */
	uint64_t count, period;
};

struct rp_event {                /* totals per event, filtered samples included */
	uint64_t samples, period;
};

struct pmu_report {
	struct pmu_report_opts o;
	struct pmu_report_summary sum;
	struct rp_strings str;
	struct rp_arena mem;     /* stacks' frames, groups' entries */
	struct rp_module *mods;
	size_t n_mods, cap_mods;
	struct pmuk_index mod_ix;
	struct rp_mapset *maps;
	size_t n_maps, cap_maps;
	struct pmuk_index map_ix;
	struct rp_frame *frames;
	size_t n_frames, cap_frames;
	struct pmuk_index frame_ix;
	struct rp_moff *moffs;
	size_t cap_moffs;
	struct pmuk_index moff_ix;
	struct rp_sym *syms;
	size_t n_syms, cap_syms;
	struct pmuk_index sym_ix;
	struct rp_thread *threads;
	size_t n_threads, cap_threads;
	struct pmuk_index thread_ix;
	struct rp_process *procs;
	size_t n_procs, cap_procs;
	struct pmuk_index proc_ix;
	struct rp_cpu *cpus;
	size_t n_cpus;
	struct rp_stack *stacks;
	size_t n_stacks, cap_stacks;
	struct pmuk_index stack_ix;
	struct rp_group *groups;
	size_t n_groups, cap_groups;
	struct pmuk_index group_ix;
	struct rp_event *events; /* [0]: unknown event, [1 + i]: event i */
	size_t n_events;
	uint32_t *inl;           /* (sym, line) pairs of inlined calls, see rp_frame */
	size_t n_inl, cap_inl;
	uint32_t *escratch;      /* (sym, line) pairs of the sample being added */
	size_t escratch_cap;
	uint64_t *uscratch;      /* addresses the symbolizer unwound */
	size_t uscratch_cap;
	int no_unwind;           /* the symbolizer said it cannot unwind here */
	uint32_t *scratch;       /* frame ids of the sample being added */
	size_t scratch_cap;
	uint32_t *sscratch;      /* ... and their symbol ids */
	size_t sscratch_cap;
	/* sorted row order per enum pmu_report_sort, rebuilt when stale */
	uint32_t *order[5];
	size_t order_n[5];
	uint64_t order_gen[5], gen;
};

/* report_tab.c */
uint64_t *pmuk_rp_pmc_array(const struct pmu_report *r);   /* zeroed nr_pmc counts or NULL */
struct rp_mapset *pmuk_rp_mapset(struct pmu_report *r, int32_t pid, int create);
int pmuk_rp_fork_maps(struct pmu_report *r, int32_t pid, int32_t ppid);
int pmuk_rp_add_map(struct pmu_report *r, const struct pmu_record *rec);
/* The distinct address addr sampled in process pid: RP_NONE without memory.
 * kernel: addr is a kernel frame (as the sample's cpumode or stack says). own,
 * all: pmuk_rp_mapset(r, pid, 0) and pmuk_rp_mapset(r, -1, 0), looked up once
 * per sample by the caller. */
uint32_t pmuk_rp_frame(struct pmu_report *r, struct rp_mapset *own,
		       const struct rp_mapset *all, int32_t pid, uint64_t addr, int kernel);
/* JIT frames (report_jit.c): whether a mapped path is anonymous memory; addr
 * named in the current generation of process set s (0 or PMU_ENOMEM); a
 * SYMBOL record that names again what was named ends the generation. */
int pmuk_rp_anon_path(const char *path);
int pmuk_rp_jit_seen(struct rp_mapset *s, uint64_t addr);
void pmuk_rp_jit_symbol(struct pmu_report *r, const struct pmu_record *rec);
void pmuk_rp_jit_free(struct rp_mapset *s);
struct rp_thread *pmuk_rp_thread(struct pmu_report *r, int32_t pid, int32_t tid);
struct rp_process *pmuk_rp_process(struct pmu_report *r, int32_t pid);
const char *pmuk_rp_str(const struct pmu_report *r, uint32_t id);
const char *pmuk_rp_thread_name(struct pmu_report *r, const struct rp_thread *t);
const char *pmuk_rp_process_name(struct pmu_report *r, int32_t pid);
/* report_group.c: counts the sample (frame ids in r->scratch[0..n)) in its
 * group; fresh: one of its symbols is new (no group holds it yet). */
int pmuk_rp_group(struct pmu_report *r, const struct pmu_record *rec, const struct rp_thread *t,
		  size_t n, uint64_t period, int fresh);
void pmuk_rp_groups_free(struct pmu_report *r);
/* report_out.c: what was lost or damaged (LOST_SAMPLES and LOST apart: a
 * file may hold both for the same losses), from the records and
 * the recording's own counts; the lines of it, "# " text or JSON. */
struct pmuk_rp_losses {
	uint64_t lost_samples, lost_records, skipped_bytes, out_of_order;
};
struct pmuk_rp_losses pmuk_rp_losses(const struct pmu_report *r);
void pmuk_rp_text_losses(const struct pmu_report *r, FILE *f);
struct pmuk_json;
void pmuk_rp_json_losses(const struct pmu_report *r, struct pmuk_json *j);
/* PE modules without their PDB (src/core/sympath_report.c): "# N samples in M
 * modules without PDBs: name {GUID}-Age, ..." (nothing when none), and the JSON
 * key "missing_pdbs": {samples, modules: [{module, pdb_id, samples}]}. */
void pmuk_rp_missing_pdbs_text(const struct pmu_report *r, FILE *f);
void pmuk_rp_missing_pdbs_json(const struct pmu_report *r, struct pmuk_json *j);
void pmuk_rp_json_tables(struct pmu_report *r, struct pmuk_json *j, size_t limit, int *err);
/* report_script.c: perf-script text of one sample (frame ids in r->scratch). */
void pmuk_rp_script(struct pmu_report *r, const struct pmu_record *rec, const struct rp_thread *t,
		    size_t nframes);

#endif
