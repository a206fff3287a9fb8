/* SPDX-License-Identifier: MIT */
/* report --sort node,data_object,sym: samples with a data address attributed to
 * the node that held the page (record -d's answers, formats/perf_file.h
 * PMUK_FEAT_NODES) and to the data object the address is in; local vs remote
 * from the node of the sample's CPU (perf's HEADER_NUMA_TOPOLOGY).
 *   report_node_file.c  the two features, read from the perf.data
 *   report_dobj.c       address -> data object: symbol, [heap], [stack], file, anon range
 *   report_dobj_elf.c   a file's STT_OBJECT symbols (libelf)
 *   report_dobj_dw.c    a file's DWARF variables (libdw), merged with those
 *   report_node.c       the rows, text and JSON */
#ifndef PMUK_CORE_REPORT_NODE_H
#define PMUK_CORE_REPORT_NODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pmukit/sampling.h>

#include "formats/perf_file.h"

/* What the recording says of nodes. */
struct pmuk_nodefile {
	int have_answers;             /* PMUK_FEAT_NODES present */
	struct pmuk_node_feat_head h;
	struct pmuk_node_feat_entry *e;   /* sorted by (pid, page) */
	size_t n;
	int32_t *cpu_node;            /* [ncpu] from HEADER_NUMA_TOPOLOGY, -1 unknown */
	size_t ncpu;
	uint32_t nnodes;
};
/* Reads the features of a file-mode perf.data. PMU_ENOENT/PMU_EFORMAT (a
 * damaged feature) with the detail; a file without them (or another format:
 * pipe mode, .etl) loads with have_answers 0, ncpu 0. */
int pmuk_nodefile_load(const char *path, struct pmuk_nodefile *nf);
/* Parses the bodies (exposed for the tests): PMU_EFORMAT when damaged. */
int pmuk_nodefile_parse_nodes(struct pmuk_nodefile *nf, const uint8_t *p, size_t n);
int pmuk_nodefile_parse_numa(struct pmuk_nodefile *nf, const uint8_t *p, size_t n);
/* The answer for addr's page in pid, NULL when none was recorded. */
const struct pmuk_node_feat_entry *pmuk_nodefile_find(const struct pmuk_nodefile *nf,
						     int32_t pid, uint64_t addr);
int pmuk_nodefile_cpu_node(const struct pmuk_nodefile *nf, int32_t cpu);
void pmuk_nodefile_free(struct pmuk_nodefile *nf);

/* Address -> data object, from a recording's MMAP and FORK records. */
struct pmuk_dobj;
int pmuk_dobj_new(struct pmuk_dobj **out);
int pmuk_dobj_record(struct pmuk_dobj *d, const struct pmu_record *rec);
/* The object holding addr in pid: a variable's name (module set to its file),
 * "[heap]", "[stack]", a file's path, "[anon 0xSTART-0xEND]" or "[unknown]". */
const char *pmuk_dobj_name(struct pmuk_dobj *d, int32_t pid, uint64_t addr, const char **module);
void pmuk_dobj_free(struct pmuk_dobj *d);
/* Look for the files' separate debug info under DIR/usr/lib/debug too (--symfs). */
int pmuk_dobj_set_symfs(struct pmuk_dobj *d, const char *symfs);

/* report_dobj_elf.c: the defined STT_OBJECT symbols of an ELF file, sorted by
 * address; 0 symbols (no error) where libelf is missing or the file has none.
 * *load: the link-time address of the first loadable segment, page-aligned. */
struct pmuk_dobj_sym {
	uint64_t addr, size;
	uint64_t reach;   /* the furthest end of this and every earlier symbol (sorted) */
	char *name;
};
int pmuk_dobj_elf_syms(const char *path, struct pmuk_dobj_sym **out, size_t *n, uint64_t *load);
/* report_dobj_dw.c: the variables at fixed addresses of path's DWARF (the file's
 * own, else its separate debug file by build-id or .gnu_debuglink, also under
 * symfs when not NULL), sorted by address, link-time addresses as the symbol
 * table's; function-local statics named "function::var". 0 variables (no error)
 * without libdw or debug info. */
int pmuk_dobj_dw_vars(const char *path, const char *symfs, struct pmuk_dobj_sym **out,
		      size_t *n);
/* Adds to *sym (sorted) the DWARF variables dw (sorted, taken: freed) at
 * addresses no symbol starts at; a symbol wins at the same address, but for
 * GCC's "var.N" of a function-local static, which DWARF's "fn::var" replaces. */
int pmuk_dobj_merge(struct pmuk_dobj_sym **sym, size_t *nsym, struct pmuk_dobj_sym *dw,
		    size_t ndw);

/* Whether a --sort list names node or data_object (this report, not the view). */
int pmuk_sort_wants_node(const char *sort);

struct pmuk_node_report_args {
	const char *path;
	const char *sort;             /* node, data_object, sym, tid, comm: combined */
	int json;
	int no_symbols;
	size_t limit;                 /* rows (0: all) */
	FILE *f;
	const char *symfs;            /* --symfs: debug files under DIR/usr/lib/debug */
};
int pmuk_node_report(const struct pmuk_node_report_args *a);

#endif
