/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_EXPO_H
#define PMUK_CORE_EXPO_H

/* The metrics model behind pmukit/exporter.h (expo_model.c) and its writers
 * (expo_write.c). Label sets are kept already rendered and escaped
 * ({a="x",b="y"}), as both formats spell them the same. */

#include <pmukit/exporter.h>
#include <stddef.h>

/* Where a streamed rendering goes, a piece at a time: 0, or an error (PMU_E*,
 * its detail set) that stops the rendering. */
typedef int (*pmuk_expo_sink)(void *ctx, const char *p, size_t n);

struct pmuk_msample {
	size_t lab_off, lab_len;     /* into the family's lab[] (0 long when none) */
	double value, created;
};

struct pmu_mfamily {
	char *name, *help, *unit;
	enum pmu_mtype type;
	struct pmuk_msample *s;
	size_t n, cap;
	char *lab;                   /* rendered label sets, back to back */
	size_t lab_len, lab_cap;
};

struct pmu_mset {
	struct pmu_mfamily **fam;    /* [0, n) in use; [n, made) kept for reuse */
	size_t n, cap, made;
	char *out;                   /* the last rendering */
	size_t out_len, out_cap;
	size_t out_peak;             /* the longest rendering yet */
	pmuk_expo_sink sink;         /* while rendering to a sink: where out goes */
	void *sink_ctx;
	int sink_err;
};

/* Appends to the set's output buffer; PMU_ENOMEM. */
int pmuk_expo_put(struct pmu_mset *s, const char *p, size_t n);
/* Renders the set as pmu_mset_render does, but hands the text to sink in pieces
 * of about PMUK_EXPO_PIECE bytes: it is never whole in memory (a gzipped scrape
 * needs only the compressed bytes). 0, or the sink's error. */
#define PMUK_EXPO_PIECE 16384
int pmuk_mset_render_sink(struct pmu_mset *s, enum pmu_expo_format fmt, pmuk_expo_sink sink,
			  void *ctx);
/* pmu_exporter_scrape's collecting half: the collectors' metrics into the
 * exporter's set (*set, valid until close), to which a server may add its own
 * and which it then renders, whole or streamed (pmuk_mset_render_sink). */
int pmuk_exporter_collect(struct pmu_exporter *e, struct pmu_mset **set);
/* Writes v as Prometheus spells numbers (NaN, +Inf, shortest round trip). */
void pmuk_expo_number(char *buf, size_t size, double v);
/* 1 when name matches [a-zA-Z_][a-zA-Z0-9_]* (and ':' too when metric). */
int pmuk_expo_name_ok(const char *name, int metric);

#endif
