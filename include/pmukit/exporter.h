/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_EXPORTER_H
#define PMUKIT_EXPORTER_H

/* Prometheus exposition: a small metrics model, its two writers, and the
 * exporter that fills it from pmukit's collectors.
 *
 * The model (pmu_mset: a set of families, each with a type, help, unit and
 * samples with labels) knows nothing about HTTP; a library user can render it
 * to a file for node_exporter's textfile collector:
 *
 *   struct pmu_mset *s;
 *   struct pmu_mfamily *f;
 *   pmu_mset_new(&s);
 *   pmu_mset_family(s, "app_work_seconds", PMU_MTYPE_COUNTER, "Work done.", "seconds", &f);
 *   const char *l[] = { "cpu", "0", NULL };
 *   pmu_mfamily_add(f, l, 12.5, 0);        text: app_work_seconds_total{cpu="0"} 12.5
 *   pmu_mset_write(s, stdout, PMU_EXPO_TEXT);
 *   pmu_mset_free(s);
 *
 * The exporter keeps what must stay open between scrapes (PMU counters, the
 * previous values for the monotonic clamp) and renders every collector on each
 * pmu_exporter_scrape(). */

#include <pmukit/opts.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pmu_expo_format {
	PMU_EXPO_TEXT,        /* Prometheus text format 0.0.4 */
	PMU_EXPO_OPENMETRICS  /* OpenMetrics 1.0.0 text, ending in "# EOF" */
};

/* The Content-Type header for a format: "text/plain; version=0.0.4;
 * charset=utf-8" or "application/openmetrics-text; version=1.0.0;
 * charset=utf-8"; NULL out of range. */
const char *pmu_exporter_content_type(enum pmu_expo_format fmt);

/* ---- the metrics model ---- */

enum pmu_mtype {
	PMU_MTYPE_GAUGE,
	PMU_MTYPE_COUNTER,    /* samples are written as NAME_total (and NAME_created
			       * in OpenMetrics when a created time is given) */
	PMU_MTYPE_UNKNOWN     /* "untyped" in text 0.0.4 */
};

struct pmu_mset;
struct pmu_mfamily;

int pmu_mset_new(struct pmu_mset **out);
/* Drops every family and sample, keeping the memory for the next fill. */
void pmu_mset_clear(struct pmu_mset *s);
void pmu_mset_free(struct pmu_mset *s);

/* Adds a family (or returns the one of that name, PMU_EINVAL when its type
 * differs). name: [a-zA-Z_:][a-zA-Z0-9_:]*, without "_total" for a counter;
 * when unit is given (NULL or "" for none) name must end in "_" unit, as
 * OpenMetrics requires. help may be NULL. The strings are copied. */
int pmu_mset_family(struct pmu_mset *s, const char *name, enum pmu_mtype type,
		    const char *help, const char *unit, struct pmu_mfamily **out);
/* Number of families, and family i in the order they were added. */
size_t pmu_mset_family_count(const struct pmu_mset *s);
const struct pmu_mfamily *pmu_mset_family_get(const struct pmu_mset *s, size_t i);
const char *pmu_mfamily_name(const struct pmu_mfamily *f);
size_t pmu_mfamily_sample_count(const struct pmu_mfamily *f);

/* Adds a sample. labels: NULL, or name/value pairs ending with a NULL name
 * ({"cpu", "0", "mode", "idle", NULL}); names [a-zA-Z_][a-zA-Z0-9_]* (not "__"
 * first), values any UTF-8 (escaped by the writers). value may be NaN or
 * +-Inf. created: for a counter, its creation time in seconds since the epoch
 * (OpenMetrics NAME_created); 0 for none. PMU_EINVAL for a bad label name or a
 * negative counter value. */
int pmu_mfamily_add(struct pmu_mfamily *f, const char *const *labels, double value,
		    double created);

/* Renders the set: families in the order added, samples in the order added.
 * TEXT: # HELP / # TYPE lines; OPENMETRICS: also # UNIT, counters as NAME_total,
 * and "# EOF" last. *buf is the library's, valid until the set changes or is
 * freed. */
int pmu_mset_render(struct pmu_mset *s, enum pmu_expo_format fmt, const char **buf,
		    size_t *len);
/* pmu_mset_render to a stream. PMU_EIO when writing fails. */
int pmu_mset_write(struct pmu_mset *s, FILE *f, enum pmu_expo_format fmt);

/* ---- the exporter ---- */

struct pmu_exporter;

enum pmu_exporter_compat {
	PMU_EXPORTER_NATIVE,          /* pmukit_* names */
	PMU_EXPORTER_COMPAT_NODE,     /* node_exporter names and labels (node_cpu_seconds_total{cpu,mode}) */
	PMU_EXPORTER_COMPAT_WINDOWS   /* windows_exporter names (windows_cpu_time_total{core,mode}) */
};

struct pmu_exporter_opts {
	size_t sz;                    /* sizeof(struct pmu_exporter_opts) */
	/* Comma-separated: "cpu,cpuidle,cpufreq,interrupts,pmu,contention";
	 * NULL: the default set (all of them). */
	const char *collectors;
	enum pmu_exporter_compat compat;
	/* The pmu collector's events, comma-separated, each counted on every
	 * online CPU; NULL: "cycles,instructions,ref-cycles,branch-misses,cache-misses". */
	const char *pmu_events;
};
#define pmu_exporter_opts__last_field pmu_events /* see pmukit/opts.h */

/* Opens what stays open between scrapes (PMU counters). PMU_EINVAL naming an
 * unknown collector. opts may be NULL. */
int pmu_exporter_open(const struct pmu_exporter_opts *opts, struct pmu_exporter **out);
/* Collects every collector now and renders them; *text stays valid until the
 * next scrape or close. Not thread-safe: the caller serializes scrapes. */
int pmu_exporter_scrape(struct pmu_exporter *e, enum pmu_expo_format fmt, const char **text,
			size_t *len);
void pmu_exporter_close(struct pmu_exporter *e);

#ifdef __cplusplus
}
#endif
#endif
