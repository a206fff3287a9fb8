/* SPDX-License-Identifier: MIT */
/* One sample as `perf script` prints it: the one printer behind `pmukit script`
 * and `pmukit report --format perf-script` (report_script.c). */
#ifndef PMUK_CORE_SCRIPT_H
#define PMUK_CORE_SCRIPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* perf script's -F fields, in the order perf prints them. */
enum pmuk_script_field {
	PMUK_SF_COMM = 1u << 0,
	PMUK_SF_PID = 1u << 1,
	PMUK_SF_TID = 1u << 2,
	PMUK_SF_CPU = 1u << 3,
	PMUK_SF_TIME = 1u << 4,
	PMUK_SF_PERIOD = 1u << 5,
	PMUK_SF_EVENT = 1u << 6,
	PMUK_SF_TRACE = 1u << 7,
	PMUK_SF_ADDR = 1u << 8,
	PMUK_SF_IP = 1u << 9,
	PMUK_SF_SYM = 1u << 10,
	PMUK_SF_SYMOFF = 1u << 11,
	PMUK_SF_DSO = 1u << 12,
};

/* -F's words ("comm", "tid", ...) to a field; 0 when unknown. */
unsigned pmuk_script_field_parse(const char *word, size_t len);
const char *pmuk_script_field_name(unsigned field);

/* An address as printed: ip (map-relative in call chains of user modules, as
 * perf prints them), its function and offset, its module. */
struct pmuk_script_frame {
	uint64_t ip;
	const char *sym;         /* NULL: [unknown] */
	uint64_t symoff;
	const char *dso;         /* NULL: [unknown] */
};

struct pmuk_script_sample {
	unsigned fields;         /* enum pmuk_script_field */
	const char *comm;
	int32_t pid, tid, cpu;
	uint64_t time;           /* ns, printed as sec.usec (nanosecs: sec.nsec) */
	int nanosecs;
	uint64_t period;
	const char *event;
	int event_width;         /* perf pads names to the longest of the recording */
	const char *trace;       /* the tracepoint's text, NULL when none */
	const struct pmuk_script_frame *addr; /* PMUK_SF_ADDR: the data address */
	const struct pmuk_script_frame *frames;
	size_t nframes;
	int callchain;           /* frames one per line (a call chain), else frames[0]
				    on the sample's line */
	int clean_dso;           /* for importers: ' ', '(' and ')' in modules as '_' */
};

void pmuk_script_print(FILE *f, const struct pmuk_script_sample *s);

#endif
