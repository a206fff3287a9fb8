/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_CATALOG_H
#define PMUK_CORE_CATALOG_H

#include <pmukit/events.h>
#include <stddef.h>

/* The growing list behind pmu_event_catalog(), shared by every OS's listing. */
struct pmuk_catalog {
	const char *pattern;        /* filter: glob ("*miss*") or substring, any case */
	struct pmu_event_info *v;
	size_t n, cap;
	int oom;                    /* an allocation failed: the list is incomplete */
};

/* 1 when name passes the filter: a case-insensitive glob (* ? [set]) when pattern has
 * one of those, else a case-insensitive substring; NULL or "" passes everything. */
int pmuk_catalog_matches(const char *pattern, const char *name);

/* Appends name (when it matches), usable until the caller says otherwise;
 * NULL when filtered out or out of memory (then c->oom is set). */
struct pmu_event_info *pmuk_catalog_add(struct pmuk_catalog *c, const char *name,
					const char *pmu, enum pmu_event_kind kind);

#endif
