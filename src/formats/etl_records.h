/* SPDX-License-Identifier: MIT */
/* .etl -> the portable record model (pmukit/sampling.h): process and thread
 * lifecycle with names, module maps with PDB GUID+Age, timer and PMC samples
 * with their StackWalk stacks and LBR branch stacks, context switches with PMC
 * readings, losses. */
#ifndef PMUK_FORMATS_ETL_RECORDS_H
#define PMUK_FORMATS_ETL_RECORDS_H

#include <pmukit/etl.h>
#include <pmukit/report.h>
#include <pmukit/sampling.h>
#include <stddef.h>
#include <stdint.h>

struct pmuk_etl_records;

struct pmuk_etl_records_opts {
	size_t sz;                 /* sizeof(struct pmuk_etl_records_opts) */
	/* How long (trace time) a sample waits for the parts of its stack: the
	 * user part is logged when the thread next returns to user mode. Records
	 * are held this long to stay in time order. 0: one second. */
	uint64_t stack_window_ns;
	pmu_etl_problem_fn on_problem;   /* corrupt structures met (second pass) */
	void *problem_ctx;
};
#define pmuk_etl_records_opts__last_field problem_ctx

struct pmuk_etl_records_stats {
	uint64_t records;          /* delivered, every kind */
	uint64_t samples;
	uint64_t with_stack;       /* samples delivered with a call chain */
	uint64_t fragments;        /* stack parts (plain stacks, key references) met */
	uint64_t unmatched;        /* ... that named no sample still waiting */
	uint64_t keys_unresolved;  /* key references without a key definition */
	uint64_t with_branches;    /* samples delivered with an LBR branch stack */
	uint64_t lbr_unmatched;    /* LBR records that named no sample still waiting */
	uint64_t switches;         /* CSwitch events */
	uint64_t max_pending;      /* most records held at once */
	uint64_t jit_methods;      /* .NET methods named (SYMBOL records with a name) */
};

/* Opens the file and reads it once for what later records need first: the
 * thread/process table (names of threads that exit), stack-key definitions,
 * PDB identities (ImageID/DbgID_RSDS), profile sources and PMC names. */
int pmuk_etl_records_open(const char *path, const struct pmuk_etl_records_opts *opts,
			  struct pmuk_etl_records **out);
/* Reads the file again and delivers every record in time order. Time is ns
 * since 1970-01-01 UTC; pid -1 marks kernel modules (mapped in every process);
 * a COMM or FORK/EXIT whose tid equals its pid is about the process (Windows
 * process and thread ids never collide). Returns 0, cb's nonzero value, or a
 * negative PMU_E* code on an I/O error. Can be called once. */
int pmuk_etl_records_read(struct pmuk_etl_records *a, pmu_record_fn cb, void *ctx);

const struct pmu_etl_header *pmuk_etl_records_header(const struct pmuk_etl_records *a);
/* Sample events (pmu_record.event indexes these): the timer, PMC sources. */
size_t pmuk_etl_records_event_count(const struct pmuk_etl_records *a);
const char *const *pmuk_etl_records_event_names(const struct pmuk_etl_records *a);
/* Names of the counters whose readings SWITCH records carry (pmu_switch.pmc). */
size_t pmuk_etl_records_pmc_count(const struct pmuk_etl_records *a);
const char *const *pmuk_etl_records_pmc_names(const struct pmuk_etl_records *a);
/* Fills what a report needs to know of this recording: event and PMC names, and
 * the trace's start as time zero. The caller's other options are kept. */
void pmuk_etl_records_report_opts(const struct pmuk_etl_records *a, struct pmu_report_opts *ro);
void pmuk_etl_records_stats(const struct pmuk_etl_records *a, struct pmuk_etl_records_stats *st);
void pmuk_etl_records_close(struct pmuk_etl_records *a);

#endif
