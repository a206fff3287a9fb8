/* SPDX-License-Identifier: MIT */
/* ETW facts for the capability matrix and event naming: the profile sources the HAL
 * offers (TraceProfileSourceListInfo), the PMC budget (TraceMaxPmcCounterQuery), who
 * holds PMCs now (TracePmcCounterOwners) and whether the NT Kernel Logger already runs:
 * queries only, no session is started (stat and caps decide from these).
 * TraceQueryInformation aborts the process under Wine: it is never called there. */
#include "windows/win.h"
#include "core/error.h"
#include "core/etw_config.h"
#include "core/etw_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef ULONG (WINAPI *tqi_fn)(TRACEHANDLE, int, PVOID, ULONG, PULONG);

static tqi_fn query_fn(void)
{
	if (pmuk_wine_version())
		return NULL;
	return (tqi_fn)(void (*)(void))pmuk_win_proc(L"advapi32.dll", "TraceQueryInformation");
}

static int query_unavailable(void)
{
	const char *wine = pmuk_wine_version();

	if (wine)
		return pmuk_fail(PMU_ENOTSUP, PMUK_WINE_LACKS "TraceQueryInformation (ETW "
				 "profile sources and PMC queries)", wine);
	return pmuk_fail(PMU_ENOTSUP, "TraceQueryInformation is missing: the ETW PMC classes "
			 "need Windows 8 or later");
}

int pmuk_etw_sources(struct pmuk_win_source *out, int max)
{
	tqi_fn q = query_fn();
	struct pmuk_etw_source *v;
	ULONG len = 64 * 1024, ret = 0, e;
	size_t n;
	void *buf;
	int err;

	if (!q)
		return query_unavailable();
	if (!(buf = calloc(1, len)))
		return pmuk_fail(PMU_ENOMEM, "out of memory reading the profile sources");
	e = q(0, PMUK_TRACE_PROFILE_SOURCE_LIST_INFO, buf, len, &ret);
	if (e != ERROR_SUCCESS) {
		free(buf);
		return pmuk_fail(e == ERROR_ACCESS_DENIED ? PMU_EPERM : PMU_EIO, "TraceQuery"
				 "Information(TraceProfileSourceListInfo) failed: %s",
				 pmuk_win_strerror(e));
	}
	/* ReturnLength is what was written; never parse past the buffer. */
	err = pmuk_etw_source_list_parse(buf, ret && ret < len ? ret : len, &v, &n);
	free(buf);
	if (err)
		return err;
	for (size_t i = 0; i < n && (int)i < max; i++) {
		snprintf(out[i].name, sizeof(out[i].name), "%s", v[i].name);
		out[i].id = v[i].id;
		out[i].min_interval = v[i].min_interval;
		out[i].max_interval = v[i].max_interval;
	}
	free(v);
	return (int)n < max ? (int)n : max;
}

/* NT Kernel Logger: running (1), not running (0), unknown (-1, reason in why). */
static int kernel_logger(char *owner, size_t n)
{
	ULONG size = sizeof(EVENT_TRACE_PROPERTIES) + 2 * 1024 * sizeof(WCHAR);
	EVENT_TRACE_PROPERTIES *p = calloc(1, size);
	ULONG e;
	int busy;

	if (!p) {
		snprintf(owner, n, "out of memory");
		return -1;
	}
	p->Wnode.BufferSize = size;
	p->LoggerNameOffset = sizeof(*p);
	p->LogFileNameOffset = sizeof(*p) + 1024 * sizeof(WCHAR);
	e = ControlTraceW(0, KERNEL_LOGGER_NAMEW, p, EVENT_TRACE_CONTROL_QUERY);
	if (e == ERROR_SUCCESS) {
		snprintf(owner, n, "running with %lu buffers, flags 0x%lx",
			 (unsigned long)p->NumberOfBuffers, (unsigned long)p->EnableFlags);
		busy = 1;
	} else if (e == ERROR_WMI_INSTANCE_NOT_FOUND) {
		snprintf(owner, n, "not running");
		busy = 0;
	} else {
		snprintf(owner, n, "ControlTrace query failed: %s", pmuk_win_strerror(e));
		busy = -1;
	}
	free(p);
	return busy;
}

/* TracePmcCounterOwners of one processor: 0, or an error saying why not. */
static int owners_of(tqi_fn q, uint32_t cpu, uint32_t *ncounters, uint32_t *held, char *list,
		     size_t list_len)
{
	struct pmuk_pmc_ownership st;
	ULONG ret = 0, e;

	memset(&st, 0, sizeof(st));
	st.processor = cpu;
	e = q(0, PMUK_TRACE_PMC_COUNTER_OWNERS, &st, sizeof(st), &ret);
	if (e != ERROR_SUCCESS)
		return pmuk_fail(e == ERROR_ACCESS_DENIED ? PMU_EPERM : PMU_ENOTSUP,
				 "TraceQueryInformation(TracePmcCounterOwners) failed: %s (the "
				 "class needs Windows 10 21H2 or later and administrator rights)",
				 pmuk_win_strerror(e));
	return pmuk_etw_owners_parse(&st, ret && ret <= sizeof(st) ? ret : sizeof(st), ncounters,
				     held, list, list_len);
}

static void owners(tqi_fn q, struct pmuk_etw_facts *f)
{
	uint32_t n, held;

	if (owners_of(q, 0, &n, &held, f->owner_list, sizeof(f->owner_list))) {
		pmuk_clear_detail();
		return;
	}
	f->pmc_owners = (int)held;
}

int pmuk_etw_pmc_owners(uint32_t cpu, uint32_t *ncounters, uint32_t *held)
{
	tqi_fn q = query_fn();
	char list[8];

	if (!q)
		return query_unavailable();
	return owners_of(q, cpu, ncounters, held, list, sizeof(list));
}

void pmuk_etw_probe(struct pmuk_etw_facts *f)
{
	const char *wine = pmuk_wine_version();
	struct pmuk_win_source src[64];
	tqi_fn q;
	ULONG max = 0, ret = 0;
	int n;

	memset(f, 0, sizeof(*f));
	f->kernel_logger_busy = f->max_pmc = f->pmc_owners = f->nsources = -1;
	if (wine) {
		/* ControlTraceW and StartTraceW report success there without doing anything. */
		snprintf(f->why, sizeof(f->why), PMUK_WINE_LACKS "ETW sessions (StartTraceW "
			 "returns a fake handle) nor TraceQueryInformation/TraceSetInformation",
			 wine);
		snprintf(f->kernel_logger_owner, sizeof(f->kernel_logger_owner),
			 "unknown: Wine's ControlTraceW answers success for any session");
		return;
	}
	f->kernel_logger_busy = kernel_logger(f->kernel_logger_owner,
					      sizeof(f->kernel_logger_owner));
	if (!(q = query_fn())) {
		snprintf(f->why, sizeof(f->why), "TraceQueryInformation is missing: the ETW PMC "
			 "classes need Windows 8 or later");
		return;
	}
	f->usable = 1;
	if (q(0, PMUK_TRACE_MAX_PMC_COUNTER_QUERY, &max, sizeof(max), &ret) == ERROR_SUCCESS)
		f->max_pmc = (int)max;
	owners(q, f);
	n = pmuk_etw_sources(src, 64);
	if (n < 0) {
		snprintf(f->why, sizeof(f->why), "%s", pmu_error_detail());
		f->usable = 0;
		return;
	}
	f->nsources = n;
	for (int i = 0, o = 0; i < n && o < (int)sizeof(f->sources); i++)
		o += snprintf(f->sources + o, sizeof(f->sources) - o, "%s%s(%lu)", i ? "," : "",
			      src[i].name, (unsigned long)src[i].id);
}
