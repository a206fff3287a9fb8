/* SPDX-License-Identifier: MIT */
#ifndef PMUK_WINDOWS_WIN_DEFS_H
#define PMUK_WINDOWS_WIN_DEFS_H

/* What the mingw-w64 10 headers lack (shared/docs/windows-notes.md 2a); the
 * TRACE_QUERY_INFO_CLASS values past 19 are in core/etw_config.h. */

#include <windows.h>
#include <evntrace.h>

/* TracePmcCounterOwners: ETW_PMC_COUNTER_OWNERSHIP_STATUS, ProcessorNumber filled in. */
enum { PMUK_PMC_OWNER_FREE, PMUK_PMC_OWNER_UNTAGGED, PMUK_PMC_OWNER_TAGGED,
       PMUK_PMC_OWNER_TAGGED_WITH_SOURCE };
struct pmuk_pmc_owner {
	ULONG owner_type;
	ULONG profile_source;
	ULONG owner_tag;
};
struct pmuk_pmc_ownership {
	ULONG processor;
	ULONG ncounters;
	struct pmuk_pmc_owner owners[32];
};

#endif
