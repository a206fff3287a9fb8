/* SPDX-License-Identifier: MIT */
/* ETW configuration blocks for TraceSetInformation and the profile-source list of
 * TraceQueryInformation, byte by byte. Layout facts (evntrace.h; all little-endian):
 *   TRACE_PROFILE_INTERVAL: ULONG Source @0, ULONG Interval @4 (8 bytes).
 *   TraceProfileSourceConfigInfo / TracePmcCounterListInfo: ULONG source ids, packed.
 *   CLASSIC_EVENT_ID (24 bytes): GUID EventGuid @0 (Data1 ULONG, Data2 USHORT,
 *     Data3 USHORT, Data4[8]), UCHAR Type @16, UCHAR Reserved[7] @17 (zero).
 *   TraceLbrConfigurationInfo: one ULONG of LBR flags.
 *   TraceLbrEventListInfo: ULONG hook ids (0x0F2E SampledProfile, 0x0F2F PMC), at most 4.
 *   PERFINFO_GROUPMASK: ULONG Masks[8]; a PERF_* group 0xIGGGGGGG is bit G of Masks[I>>1].
 *   PROFILE_SOURCE_INFO: ULONG NextEntryOffset @0 (from this entry; 0 = last),
 *     ULONG Source @4, ULONG MinInterval @8, ULONG MaxInterval @12,
 *     ULONG64 Reserved @16, WCHAR Description[] @24 (UTF-16LE, NUL-terminated). */
#include "core/etw_config.h"
#include "core/event_table.h"
#include "core/error.h"
#include "core/le.h"
#include "core/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CLASSIC_EVENT_ID_SIZE 24
#define SOURCE_INFO_HEAD 24
#define MAX_SOURCES 4096

const struct pmu_guid pmuk_etw_process_guid = {
	0x3d6fa8d0, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }
};
const struct pmu_guid pmuk_etw_thread_guid = {
	0x3d6fa8d1, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }
};
const struct pmu_guid pmuk_etw_perfinfo_guid = {
	0xce1dbfb4, 0x137e, 0x4da6, { 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc }
};

static void put(struct pmuk_etw_block *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b->data[b->len++] = (uint8_t)(v >> (8 * i));
}

static int begin(struct pmuk_etw_block *b, uint32_t info_class, size_t n, size_t max,
		 const char *what)
{
	memset(b, 0, sizeof(*b));
	b->info_class = info_class;
	if (!n)
		return pmuk_fail(PMU_EINVAL, "an empty %s configures nothing", what);
	if (n > max)
		return pmuk_fail(PMU_EINVAL, "%zu entries in a %s; at most %zu fit", n, what, max);
	return 0;
}

int pmuk_etw_profile_interval(struct pmuk_etw_block *b, uint32_t source, uint32_t interval)
{
	int err = begin(b, PMUK_TRACE_SAMPLED_PROFILE_INTERVAL_INFO, 1, 1, "profile interval");

	if (err)
		return err;
	if (!interval)
		return pmuk_fail(PMU_EINVAL, "a sampling interval of 0 for profile source %u",
				 source);
	put(b, source, 4);
	put(b, interval, 4);
	return 0;
}

int pmuk_etw_source_ids(struct pmuk_etw_block *b, uint32_t info_class, const uint32_t *ids,
			size_t n)
{
	int err;

	if (info_class != PMUK_TRACE_PROFILE_SOURCE_CONFIG_INFO &&
	    info_class != PMUK_TRACE_PMC_COUNTER_LIST_INFO)
		return pmuk_fail(PMU_EINVAL, "trace information class %u takes no list of "
				 "profile source ids", info_class);
	if ((err = begin(b, info_class, n, PMUK_ETW_MAX_IDS, "profile source list")))
		return err;
	for (size_t i = 0; i < n; i++)
		put(b, ids[i], 4);
	return 0;
}

int pmuk_etw_event_ids(struct pmuk_etw_block *b, uint32_t info_class,
		       const struct pmuk_etw_event_id *ev, size_t n)
{
	int err;

	/* TraceLbrEventListInfo takes hook ids, not CLASSIC_EVENT_IDs: pmuk_etw_lbr_events. */
	if (info_class != PMUK_TRACE_PMC_EVENT_LIST_INFO &&
	    info_class != PMUK_TRACE_STACK_TRACING_INFO)
		return pmuk_fail(PMU_EINVAL, "trace information class %u takes no list of "
				 "CLASSIC_EVENT_IDs", info_class);
	if ((err = begin(b, info_class, n, PMUK_ETW_MAX_EVENTS, "event list")))
		return err;
	for (size_t i = 0; i < n; i++) {
		put(b, ev[i].guid.d1, 4);
		put(b, ev[i].guid.d2, 2);
		put(b, ev[i].guid.d3, 2);
		for (int k = 0; k < 8; k++)
			put(b, ev[i].guid.d4[k], 1);
		put(b, ev[i].type, 1);
		put(b, 0, 7);
	}
	return 0;
}

int pmuk_etw_lbr_events(struct pmuk_etw_block *b, const uint32_t *hooks, size_t n)
{
	/* TRACE_LBR_MAXIMUM_EVENTS (evntrace.h): LBR rides on at most 4 events. */
	int err = begin(b, PMUK_TRACE_LBR_EVENT_LIST_INFO, n, PMUK_ETW_MAX_LBR_EVENTS,
			"LBR event list");

	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		if (hooks[i] > 0xffffu) {
			memset(b, 0, sizeof(*b));
			return pmuk_fail(PMU_EINVAL, "0x%x is no kernel hook id (they are 16-bit, "
					 "e.g. 0x0F2E SampledProfile)", hooks[i]);
		}
		put(b, hooks[i], 4);
	}
	return 0;
}

static void group_set(uint32_t mask[8], uint32_t perf_group)
{
	mask[perf_group >> 29] |= perf_group & 0x1fffffffu;
}

void pmuk_etw_group_mask(const struct pmuk_etw_groups *g, uint32_t mask[8])
{
	memset(mask, 0, 8 * sizeof(*mask));
	mask[0] = g->classic;
	if (g->profile) {
		mask[0] |= PMUK_ETW_FLAG_PROFILE;
		group_set(mask, PMUK_ETW_PERF_PROFILE);
	}
	if (g->cswitch) {
		mask[0] |= PMUK_ETW_FLAG_CSWITCH;
		group_set(mask, PMUK_ETW_PERF_CONTEXT_SWITCH);
	}
	if (g->ready_thread)
		mask[0] |= PMUK_ETW_FLAG_DISPATCHER;
	if (g->pmc)
		group_set(mask, PMUK_ETW_PERF_PMC_PROFILE);
}

void pmuk_etw_stack_events(int timer, int pmc, int wait, struct pmuk_etw_event_id ev[4],
			   size_t *n)
{
	*n = 0;
	if (timer)
		ev[(*n)++] = (struct pmuk_etw_event_id){ pmuk_etw_perfinfo_guid,
							 PMUK_ETW_TYPE_SAMPLED_PROFILE };
	if (pmc)
		ev[(*n)++] = (struct pmuk_etw_event_id){ pmuk_etw_perfinfo_guid,
							 PMUK_ETW_TYPE_PMC_INTERRUPT };
	if (wait) {
		ev[(*n)++] = (struct pmuk_etw_event_id){ pmuk_etw_thread_guid,
							 PMUK_ETW_TYPE_CSWITCH };
		ev[(*n)++] = (struct pmuk_etw_event_id){ pmuk_etw_thread_guid,
							 PMUK_ETW_TYPE_READY_THREAD };
	}
}

int pmuk_etw_lbr_config(struct pmuk_etw_block *b, uint32_t flags)
{
	int err = begin(b, PMUK_TRACE_LBR_CONFIGURATION_INFO, 1, 1, "LBR configuration");

	if (err)
		return err;
	if (flags & ~0x3ffu)
		return pmuk_fail(PMU_EINVAL, "LBR flags 0x%x carry bits beyond the documented "
				 "0x3ff", flags);
	put(b, flags, 4);
	return 0;
}

int pmuk_etw_pmc_budget(int sampling, int max_query)
{
	int ceiling = max_query > 0 ? max_query : 4;

	return sampling ? (ceiling > 1 ? ceiling - 1 : 0) : ceiling;
}

int pmuk_etw_pmc_check(size_t n, int sampling, int max_query)
{
	int budget = pmuk_etw_pmc_budget(sampling, max_query);

	if (n <= (size_t)budget)
		return 0;
	return pmuk_fail(PMU_EBUDGET, "%zu hardware counters asked for, but an ETW session "
			 "gets %d at once (%s%d%s); drop some or record twice", n, budget,
			 max_query > 0 ? "TraceMaxPmcCounterQuery says " : "the usual ",
			 max_query > 0 ? max_query : 4,
			 sampling ? ", and CPU sampling takes one for the timer" : "");
}

/* ---- TraceProfileSourceListInfo ---- */

/* The generic event a profile-source name stands for, through the Windows aliases of
 * the event table; -1 when none. */
static int generic_of(const char *name)
{
	for (size_t i = 0; i < pmuk_event_naliases; i++) {
		const struct pmuk_event_def *d;

		if (!pmuk_event_aliases[i].windows || strcasecmp(pmuk_event_aliases[i].alias, name))
			continue;
		d = pmuk_event_find(pmuk_event_aliases[i].name);
		return d ? d->generic : -1;
	}
	return -1;
}

int pmuk_etw_source_list_parse(const void *buf, size_t len, struct pmuk_etw_source **out,
			       size_t *n)
{
	const uint8_t *p = buf;
	struct pmuk_etw_source *v = NULL;
	size_t off = 0, cap = 0, m = 0;

	*out = NULL;
	*n = 0;
	if (!len)
		return 0;  /* no sources: a host without a PMU the HAL knows */
	for (;;) {
		size_t end, units;
		uint32_t next;

		if (len - off < SOURCE_INFO_HEAD)
			goto bad_trunc;
		next = pmuk_le32(p + off);
		if (next && (next < SOURCE_INFO_HEAD + 2 || next > len - off)) {
			free(v);
			return pmuk_fail(PMU_EFORMAT, "profile source entry at byte %zu: "
					 "NextEntryOffset %u leaves the %zu-byte list", off, next, len);
		}
		end = next ? off + next : len;
		for (units = 0; off + SOURCE_INFO_HEAD + 2 * units + 1 < end; units++)
			if (!p[off + SOURCE_INFO_HEAD + 2 * units] &&
			    !p[off + SOURCE_INFO_HEAD + 2 * units + 1])
				break;
		if (off + SOURCE_INFO_HEAD + 2 * units + 1 >= end) {
			free(v);
			return pmuk_fail(PMU_EFORMAT, "profile source entry at byte %zu: the name "
					 "has no terminating NUL", off);
		}
		if (m == cap) {
			struct pmuk_etw_source *q;

			cap = cap ? 2 * cap : 16;
			if (cap > MAX_SOURCES || !(q = realloc(v, cap * sizeof(*v)))) {
				free(v);
				return cap > MAX_SOURCES
					? pmuk_fail(PMU_EFORMAT, "more than %d profile sources",
						    MAX_SOURCES)
					: pmuk_fail(PMU_ENOMEM, "out of memory for profile sources");
			}
			v = q;
		}
		v[m].id = pmuk_le32(p + off + 4);
		v[m].min_interval = pmuk_le32(p + off + 8);
		v[m].max_interval = pmuk_le32(p + off + 12);
		pmuk_utf16_to_utf8(p + off + SOURCE_INFO_HEAD, 2 * units, v[m].name, sizeof(v[m].name));
		v[m].generic = generic_of(v[m].name);
		m++;
		if (!next)
			break;
		off += next;
	}
	*out = v;
	*n = m;
	return 0;
bad_trunc:
	free(v);
	return pmuk_fail(PMU_EFORMAT, "profile source entry at byte %zu is cut short by the "
			 "end of the %zu-byte list", off, len);
}

int pmuk_etw_interval_check(const struct pmuk_etw_source *s, uint32_t interval,
			    const char *unit)
{
	/* A source that states no range (both 0) leaves the check to the kernel. */
	if ((!s->min_interval && !s->max_interval) ||
	    (interval >= s->min_interval && interval <= s->max_interval))
		return 0;
	return pmuk_fail(PMU_EINVAL, "a sampling interval of %u %s is outside what profile "
			 "source %s (%u) takes: %u to %u %s (TraceProfileSourceListInfo); choose "
			 "a %s inside it", interval, unit, s->name, s->id, s->min_interval,
			 s->max_interval, unit, strcmp(unit, "events") ? "frequency (-F)" :
			 "period (-c)");
}

const struct pmuk_etw_source *pmuk_etw_source_find(const struct pmuk_etw_source *v, size_t n,
						   const char *name)
{
	const struct pmuk_event_def *d;
	char have[200];
	size_t o = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(v[i].name, name))
			return &v[i];
	/* A generic name: the Windows spellings in alias-table order (TotalCycles before
	 * UnhaltedCoreCycles). */
	d = pmuk_event_find(name);
	if (d && d->generic >= 0)
		for (size_t a = 0; a < pmuk_event_naliases; a++) {
			if (!pmuk_event_aliases[a].windows ||
			    strcmp(pmuk_event_aliases[a].name, d->name))
				continue;
			for (size_t i = 0; i < n; i++)
				if (!strcasecmp(v[i].name, pmuk_event_aliases[a].alias))
					return &v[i];
		}
	have[0] = '\0';
	for (size_t i = 0; i < n && o + 1 < sizeof(have); i++) {
		int w = snprintf(have + o, sizeof(have) - o, "%s%s", i ? ", " : "", v[i].name);

		if (w < 0 || (size_t)w >= sizeof(have) - o) {
			have[o] = '\0';
			break;
		}
		o += (size_t)w;
	}
	pmuk_fail(PMU_ENOENT, "no ETW profile source counts '%s' on this host (it offers: %s)",
		  name, n ? have : "none");
	return NULL;
}
