/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_EVENT_TABLE_H
#define PMUK_CORE_EVENT_TABLE_H

#include <pmukit/events.h>
#include <stddef.h>
#include <stdint.h>

/* perf_event_attr.type values (Linux perf ABI; also the portable model's numbering). */
enum {
	PMUK_TYPE_HARDWARE = 0,
	PMUK_TYPE_SOFTWARE = 1,
	PMUK_TYPE_TRACEPOINT = 2,
	PMUK_TYPE_HW_CACHE = 3,
	PMUK_TYPE_RAW = 4,
};

#define PMUK_CACHE_COUNT 7   /* L1-dcache L1-icache LLC dTLB iTLB branch node */
#define PMUK_CACHE_OPS 3     /* load store prefetch */

/* A generic hardware or software event. */
struct pmuk_event_def {
	const char *name;        /* canonical spelling (what perf stat prints) */
	enum pmu_event_kind kind;
	uint64_t config;         /* PERF_COUNT_HW_* / PERF_COUNT_SW_* */
	int generic;             /* enum pmu_generic_event or -1 */
	const char *desc;
};

/* Another spelling of a generic event. */
struct pmuk_event_alias {
	const char *alias;
	const char *name;        /* canonical name it stands for */
	int windows;             /* a Windows curated profile source name */
	const char *note;
};

extern const struct pmuk_event_def pmuk_event_defs[];
extern const size_t pmuk_event_ndefs;
extern const struct pmuk_event_alias pmuk_event_aliases[];
extern const size_t pmuk_event_naliases;

/* Finds a generic event by canonical name or alias (case-insensitive); NULL if none. */
const struct pmuk_event_def *pmuk_event_find(const char *name);

/* Generic cache events: config = cache | op << 8 | result << 16. */
int pmuk_cache_valid(int cache, int op);
/* perf's spelling: L1-dcache-loads, L1-dcache-load-misses, LLC-prefetches, ... */
void pmuk_cache_name(int cache, int op, int miss, char *buf, size_t n);
/* Parses a cache event name (perf's spellings and its alternates, case-insensitive,
 * op and result in either order); 0 and the config on success, -1 when name is not
 * a cache event or names an operation perf does not define for that cache. */
int pmuk_cache_parse(const char *name, uint64_t *config);
const char *pmuk_cache_desc(int cache);

/* "rNNNN": a raw event, 1 to 16 hex digits after the r (perf's syntax). */
int pmuk_event_raw(const char *s, uint64_t *config);

struct pmuk_suggest;
/* Offers every generic, alias and hw-cache name to a suggestion search; aliases
 * first, since among equally close names perf's "cpu-cycles" reads better next to
 * "cycles" than "bus-cycles" does. */
void pmuk_event_suggest_generic(struct pmuk_suggest *s);

#endif
