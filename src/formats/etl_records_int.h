/* SPDX-License-Identifier: MIT */
/* Internals of the .etl record adapter (etl_records*.c). */
#ifndef PMUK_FORMATS_ETL_RECORDS_INT_H
#define PMUK_FORMATS_ETL_RECORDS_INT_H

#include "formats/etl_merge.h"
#include "formats/etl_records.h"

#define ER_MAX_SOURCES 32

/* A stack-key definition (StackWalk KeyCreate/KeyDelete/KeyRundown). */
struct er_keydef {
	uint64_t key, raw;
	size_t first;              /* frames in er_tables.pool */
	uint32_t n;
	uint32_t next;             /* next definition of the same key + 1, 0 none */
	int create;
};

/* PDB identity of an image (DbgID_RSDS). */
struct er_rsds {
	uint32_t pid;
	uint64_t base, raw;
	uint8_t id[20];            /* GUID as stored + Age LE */
	char *pdb;
};

/* .NET code (etl_records_clr.c). */
struct er_clr_method {
	uint32_t pid;
	int loaded;                /* a runtime MethodLoad (else a rundown listed it) */
	uint64_t method_id, module_id, start;
	uint32_t size;
	char *name;                /* listed ones only */
};
struct er_clr_module {
	uint32_t pid;
	uint64_t module_id;
	char *name;                /* file name of the module */
};
struct er_clr {
	struct er_clr_method *m;
	size_t n_m, cap_m;
	struct er_clr_module *mod;
	size_t n_mod, cap_mod;
};

struct er_source {
	uint32_t source;           /* KPROFILE_SOURCE, 0 = timer */
	uint64_t first_interval;   /* first interval set: 100 ns (timer) or events */
	char name[64];
};

/* What the first pass collects. */
struct er_tables {
	struct er_keydef *defs;
	size_t n_defs, cap_defs;
	struct pmuk_index key_ix;  /* distinct keys -> their key_head entry */
	uint32_t *key_head;        /* per distinct key: its first definition + 1 */
	size_t key_cap;
	uint64_t *pool;
	size_t n_pool, cap_pool;
	struct er_rsds *rsds;
	size_t n_rsds, cap_rsds;
	struct er_source src[ER_MAX_SOURCES];
	size_t n_src;
	struct { uint32_t source, interval; } ivl[ER_MAX_SOURCES];
	size_t n_ivl;
	const char *src_names[ER_MAX_SOURCES];
	char pmc[PMU_ETL_MAX_COUNTERS][64];
	const char *pmc_names[PMU_ETL_MAX_COUNTERS];
	size_t n_pmc;
	struct er_clr clr;
	struct pmuk_etl_volume *vol;   /* SysConfigEx volume mappings (owned strings) */
	size_t n_vol, cap_vol;
	char sysdrive[4];          /* "C:", "" unknown */
};

struct qent {
	struct pmu_record rec;
	uint64_t raw;              /* raw timestamp: what stack parts name */
	uint64_t seq;
	uint64_t prev;             /* seq + 1 of the thread's previous sample, 0 none */
	uint64_t kprev;            /* ... previous one whose kernel part waits for a user part */
	char *str, *str2;          /* owned: COMM long name / MMAP path, PDB path */
	const uint64_t *kfr, *ufr; /* kernel and user stack parts */
	uint64_t *kown, *uown;     /* ... when owned copies */
	uint32_t nk, nu;
	uint64_t pmc[PMU_ETL_MAX_PMC];
	struct pmu_branch *br;     /* owned LBR branch stack, most recent first */
	uint32_t nbr;
};

struct idmap {                     /* u32 id -> u64, no deletions */
	uint64_t *key;             /* id + 1, 0 = empty */
	uint64_t *val;
	size_t cap, n;
};

struct pmuk_etl_records {
	struct pmuk_etl_records_opts o;
	char *path;
	struct pmu_etl *r1;        /* first pass: thread/process table */
	struct pmu_etl *r2;
	struct er_tables tab;
	uint64_t interval[ER_MAX_SOURCES];
	struct qent *q;
	size_t cap;
	uint64_t head, tail;       /* sequence numbers */
	struct idmap last;         /* tid -> seq + 1 of its last sample */
	struct idmap kwait;        /* tid -> seq + 1 of its last sample waiting in the kernel */
	struct idmap seen;         /* id -> 1: thread named, 2: process named */
	int64_t now;
	int err, problem, read;
	uint64_t skipped;
	struct pmuk_etl_records_stats st;
	uint64_t chain[2 * PMU_ETL_MAX_FRAMES];
	union {
		struct pmu_etl_stack_ev sw;
		struct pmu_etl_stack_key_ev sk;
		struct pmu_etl_process_ev pe;
		struct pmu_etl_thread_ev te;
		struct pmu_etl_image_ev im;
		struct pmu_etl_lbr_ev lbr;
		struct pmu_etl_clr_method_ev clr;
	} u;
};

/* etl_records.c */
uint64_t *pmuk_er_idmap_at(struct idmap *m, uint32_t id, int add);
uint64_t pmuk_er_idmap_get(struct idmap *m, uint32_t id);
/* A new record at the tail of the queue; NULL (and a->err set) without memory. */
struct qent *pmuk_er_push(struct pmuk_etl_records *a, enum pmu_record_kind kind, int32_t pid,
			  int32_t tid, const struct pmu_etl_event *ev);

static inline struct qent *pmuk_er_at(struct pmuk_etl_records *a, uint64_t seq)
{
	return &a->q[seq & (a->cap - 1)];
}

/* etl_records_conv.c: one event into records */
void pmuk_er_convert(struct pmuk_etl_records *a, const struct pmu_etl_event *ev);

/* etl_records_tab.c */
int pmuk_er_collect(struct er_tables *t, struct pmu_etl *r);
void pmuk_er_tables_free(struct er_tables *t);
/* Frames of key at reference time raw (NULL when undefined). */
const uint64_t *pmuk_er_key(const struct er_tables *t, uint64_t key, uint64_t raw, uint32_t *n);
const struct er_rsds *pmuk_er_rsds(const struct er_tables *t, uint32_t pid, uint64_t base,
				   uint64_t raw);
/* Index of a profile source among the sample events, -1 when unseen. */
int pmuk_er_source(const struct er_tables *t, uint32_t source);
/* Decodes PerfInfo SampledProfileInterval (opcodes 72-74); 0 or -1. */
int pmuk_er_interval(const struct pmu_etl_event *ev, uint32_t *source, uint32_t *interval,
		     char *name, size_t size);

/* etl_records_path.c: NT image paths with drive letters */
int pmuk_er_volume_collect(struct er_tables *t, const struct pmu_etl_event *ev);
void pmuk_er_path(const struct er_tables *t, const char *in, char *out, size_t size);
void pmuk_er_volumes_free(struct er_tables *t);

/* etl_records_clr.c: .NET methods as SYMBOL records */
void pmuk_er_clr_name(const struct pmu_etl_clr_method_ev *m, char *buf, size_t size);
int pmuk_er_clr_collect(struct er_clr *c, const struct pmu_etl_event *ev);
void pmuk_er_clr_finish(struct er_clr *c);
const char *pmuk_er_clr_module(const struct er_clr *c, uint32_t pid, uint64_t module_id);
void pmuk_er_clr_announce(struct pmuk_etl_records *a);
void pmuk_er_clr_event(struct pmuk_etl_records *a, const struct pmu_etl_event *ev);
void pmuk_er_clr_exit(struct pmuk_etl_records *a, uint32_t pid, const struct pmu_etl_event *ev);
void pmuk_er_clr_free(struct er_clr *c);

#endif
