/* SPDX-License-Identifier: MIT */
/* Tracepoint decoding shared by trace_tp.c (fields, text) and trace_tp_load.c
 * (the format files: perf's tracing data, else this machine's tracefs). */
#ifndef PMUK_FORMATS_TRACE_TP_INT_H
#define PMUK_FORMATS_TRACE_TP_INT_H

#include "formats/trace_int.h"

#ifdef PMUKIT_HAVE_TRACEEVENT
#include <event-parse.h>

struct tp_state {
	struct tep_handle *tep;   /* NULL: loading failed, err/why say how */
	int err;
	char why[256];
	char *str;                /* a string field, NUL-terminated, for pmu_tp_field */
	size_t str_cap;
};

/* Parses perf's HEADER_TRACING_DATA blob into a new tep handle: 0 or PMU_E*
 * (PMU_EFORMAT names the byte offset). Events that do not parse are warned
 * about through t and skipped. */
int pmuk_tp_parse_tracing_data(struct pmu_trace *t, const void *data, size_t size,
			       struct tep_handle **out);
/* The formats of the recording's tracepoint systems from this machine's tracefs. */
int pmuk_tp_load_local(struct pmu_trace *t, struct tep_handle **out);
#endif

#endif
