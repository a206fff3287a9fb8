/* SPDX-License-Identifier: MIT */
/* pmukit script's state while it reads a recording (cmd_script.c). */
#ifndef PMUKIT_TOOL_SCRIPT_RUN_H
#define PMUKIT_TOOL_SCRIPT_RUN_H

#include "core/script.h"
#include "script.h"

#include <pmukit/symbols.h>
#include <pmukit/trace.h>

struct script_event {
	const char *name;
	unsigned fields;         /* enum pmuk_script_field */
	uint64_t period;         /* samples without one: the attr's, as perf prints */
	int warned;              /* its payloads did not decode: said once */
};

/* A name looked up once per distinct (process, address). */
struct script_name {
	int32_t pid;
	uint64_t addr;
	const char *sym;               /* the symbolizer's, NULL: unknown */
	uint64_t symoff;
	const char *module;            /* the symbolizer's (JIT code: no mapping holds it) */
};

struct script_run {
	struct pmu_trace *t;
	struct pmu_symbolizer *sym;    /* NULL: frames print [unknown] */
	struct sc_state st;
	struct script_event *ev;       /* per event of the recording */
	struct script_event unknown;   /* records of no known event */
	size_t nr_ev;
	int event_width, nanosecs;
	int want_names;                /* this sample prints sym */
	struct pmuk_script_frame *frames;
	size_t frames_cap;
	struct script_name *names;
	size_t n_names, cap_names;
	struct pmuk_index name_ix;
	char *text;                    /* a tracepoint's text */
	size_t text_cap;
	uint64_t uips[256];            /* a user stack the symbolizer unwound */
	int no_unwind;                 /* PMU_ENOTSUP once: not tried per sample */
};

/* Prints one sample; 0 or PMU_ENOMEM. */
int script_sample(struct script_run *sr, const struct pmu_record *rec);

#endif
