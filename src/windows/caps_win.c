/* SPDX-License-Identifier: MIT */
/* The capability matrix on Windows: the seven concerns mapped onto HCP, ETW, DbgHelp,
 * GetLogicalProcessorInformationEx and PDH (shared/seeds/000), with what Wine lacks
 * reported as unavailable instead of called. */
#include "windows/win.h"
#include "core/caps_model.h"
#include "core/error.h"
#include "core/etw_host.h"
#include "core/os_int.h"

#include <cpuid.h>
#include <pdh.h>
#include <pmukit/caps.h>
#include <stdio.h>
#include <string.h>

typedef DWORD (APIENTRY *enable_tp_fn)(HANDLE, DWORD, DWORD64, HANDLE *);
typedef DWORD (APIENTRY *read_tp_fn)(HANDLE, DWORD, PPERFORMANCE_DATA);
typedef DWORD (APIENTRY *disable_tp_fn)(HANDLE);

struct wcaps {
	struct pmu_caps *c;
	const char *wine;
	struct pmuk_win_version ver;
	struct pmuk_win_priv priv;
	struct pmuk_etw_facts etw;
	char hv[48];
};

static void host(struct wcaps *w)
{
	struct pmuk_cpuid_hv c = { 0 };
	struct pmuk_hv_verdict hv;
	unsigned a, b, cx, d;
	SYSTEM_INFO si;
	char kernel[128];
	int vm;

	if (__get_cpuid(1, &a, &b, &cx, &d))
		c.leaf1_ecx = cx;
	if (c.leaf1_ecx >> 31 & 1) {
		__cpuid(0x40000000, c.hv_max, c.hv_sig[0], c.hv_sig[1], c.hv_sig[2]);
		/* A Windows host with Hyper-V or VBS runs as the root partition: it sees the
		 * hypervisor bit, but owns the hardware (CreatePartitions, 0x40000003 EBX 0). */
		if (pmuk_cpuid_hv_wants_features(&c))
			__cpuid(0x40000003, a, c.hv_features_ebx, cx, d);
	}
	pmuk_cpuid_hv_decode(&c, &hv);
	vm = hv.vm;
	snprintf(w->hv, sizeof(w->hv), "%s", hv.root ? "" : hv.name);
	GetNativeSystemInfo(&si);
	if (w->wine)
		snprintf(kernel, sizeof(kernel), "Wine %s (reports Windows %lu.%lu.%lu)", w->wine,
			 (unsigned long)w->ver.major, (unsigned long)w->ver.minor,
			 (unsigned long)w->ver.build);
	else
		snprintf(kernel, sizeof(kernel), "%lu.%lu.%lu", (unsigned long)w->ver.major,
			 (unsigned long)w->ver.minor, (unsigned long)w->ver.build);
	pmuk_caps_host_set(w->c, kernel, si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64
			   ? "arm64" : "x86_64", vm, w->hv);
	pmuk_caps_fact(w->c, PMU_CONCERN_HOST, "os_build", "RtlGetVersion", "%s", kernel);
	if (w->wine)
		pmuk_caps_fact(w->c, PMU_CONCERN_HOST,
			       "wine", "ntdll!wine_get_version: running under Wine, "
			       "which lacks HCP, PDH Processor Information and real ETW sessions",
			       "%s", w->wine);
	pmuk_caps_fact(w->c, PMU_CONCERN_HOST,
		       "cpus_active", "GetActiveProcessorCount(ALL_PROCESSOR_GROUPS)",
		       "%lu", (unsigned long)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS));
	if (hv.root)
		pmuk_caps_fact(w->c, PMU_CONCERN_HOST,
			       "hyperv_root", "CPUID 0x40000003 EBX bit 0 (CreatePartitions): the "
			       "Hyper-V root partition, which owns the hardware: not a VM", "yes");
	pmuk_caps_fact(w->c, PMU_CONCERN_HOST,
		       "virtual_machine", vm ? "hardware counters exist only if the "
		       "hypervisor virtualizes the PMU" : "no hypervisor detected", "%s",
		       vm ? (w->hv[0] ? w->hv : "yes") : "no");
}

/* HCP on the calling thread: what ReadThreadProfilingData gives without a driver. */
static void counting_hcp(struct wcaps *w)
{
	enable_tp_fn en = (enable_tp_fn)(void (*)(void))pmuk_win_proc(L"kernel32.dll",
								      "EnableThreadProfiling");
	read_tp_fn rd = (read_tp_fn)(void (*)(void))pmuk_win_proc(L"kernel32.dll",
								  "ReadThreadProfilingData");
	disable_tp_fn dis = (disable_tp_fn)(void (*)(void))pmuk_win_proc(L"kernel32.dll",
									  "DisableThreadProfiling");
	PERFORMANCE_DATA pd = { .Size = sizeof(pd), .Version = PERFORMANCE_DATA_VERSION };
	HANDLE h;
	DWORD e;

	if (!en || !rd || !dis) {
		pmuk_caps_limit(w->c, PMU_CONCERN_COUNTING,
				"HCP (EnableThreadProfiling) is missing: it needs "
				"Windows 7 or later");
		return;
	}
	e = en(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &h);
	if (e != ERROR_SUCCESS) {
		pmuk_caps_limit(w->c, PMU_CONCERN_COUNTING,
				"HCP refused: %s (HCP is single-tenant: one profiling "
				"application at a time)", pmuk_win_strerror(e));
		return;
	}
	/* ReadThreadProfilingData takes only the flags EnableThreadProfiling enabled:
	 * dispatching here; hardware counters need a mask of counters a kernel driver
	 * configured (KeSetHardwareCounterConfiguration), which pmukit has none of. */
	e = rd(h, pmuk_hcp_read_flags(THREAD_PROFILING_FLAG_DISPATCH, 0), &pd);
	dis(h);
	if (e != ERROR_SUCCESS) {
		pmuk_caps_limit(w->c, PMU_CONCERN_COUNTING,
				"ReadThreadProfilingData failed: %s", pmuk_win_strerror(e));
		return;
	}
	pmuk_caps_fact(w->c, PMU_CONCERN_COUNTING,
		       "hcp_dispatch", "ReadThreadProfilingData(DISPATCHING) on this thread: "
		       "CycleTime and ContextSwitchCount", "%llu switches",
		       (unsigned long long)pd.ContextSwitchCount);
	pmuk_caps_limit(w->c, PMU_CONCERN_COUNTING,
			"HCP gives CycleTime and ContextSwitchCount only: its hardware "
			"counters need a kernel driver to configure them");
}

static void counting(struct wcaps *w)
{
	struct pmu_caps *c = w->c;

	if (w->wine) {
		pmuk_caps_set(c, PMU_CONCERN_COUNTING,
			      PMU_CAP_LIMITED, "task-clock of this process's threads "
			      "(GetThreadTimes); Wine %s reports zero CPU time and page faults for "
			      "other processes", w->wine);
		pmuk_caps_limit(c, PMU_CONCERN_COUNTING,
				PMUK_WINE_LACKS "HCP (EnableThreadProfiling aborts), "
				"QueryThreadCycleTime or ETW PMC-on-CSwitch counting (StartTraceW "
				"fakes success, TraceSetInformation returns "
				"ERROR_CALL_NOT_IMPLEMENTED)", w->wine);
		pmuk_caps_remedy(c, PMU_CONCERN_COUNTING,
				 "run on Windows for ref-cycles (QueryThreadCycleTime) and HCP");
		return;
	}
	pmuk_caps_set(c, PMU_CONCERN_COUNTING,
		      PMU_CAP_LIMITED, "task-clock (GetThreadTimes/GetProcessTimes) and "
		      "page-faults (GetProcessMemoryInfo) per thread or process");
	pmuk_caps_limit(c, PMU_CONCERN_COUNTING,
			"ref-cycles from QueryThreadCycleTime/QueryProcessCycleTime "
			"(driver-free, TSC rate; core cycles need ETW); context-switches of the calling thread via HCP");
	counting_hcp(w);
	/* Decided from queries alone (no session is started): the profile-source list,
	 * TraceMaxPmcCounterQuery and TracePmcCounterOwners. */
	if (w->etw.usable && !w->etw.nsources)
		pmuk_caps_limit(c, PMU_CONCERN_COUNTING,
				"no ETW PMC counting here: TraceProfileSourceListInfo lists no "
				"profile source (a VM without a virtual PMU?)");
	else if (w->etw.usable)
		pmuk_caps_limit(c, PMU_CONCERN_COUNTING,
				"other hardware events and HAL profile sources count "
				"through ETW PMC-on-CSwitch sessions (TracePmcCounterListInfo) per "
				"thread, process or CPU; PMCs are system-global and single-tenant");
	else
		pmuk_caps_limit(c, PMU_CONCERN_COUNTING,
				"no ETW PMC counting here: %s", w->etw.why);
	if (!(w->priv.admin && w->priv.elevated) || !w->priv.profile_present)
		pmuk_caps_limit(c, PMU_CONCERN_COUNTING,
				"ETW PMC counting needs an elevated prompt with "
				"SeSystemProfilePrivilege, which this process lacks");
	if (w->etw.max_pmc > 0)
		pmuk_caps_fact(c, PMU_CONCERN_COUNTING,
			       "etw_max_pmc", "TraceMaxPmcCounterQuery: PMCs usable at once "
			       "(one fewer with sampling on)", "%d", w->etw.max_pmc);
	if (w->etw.pmc_owners > 0)
		pmuk_caps_limit(c, PMU_CONCERN_COUNTING,
				"%d PMCs are held by another profiler now "
				"(TracePmcCounterOwners): fewer are left for pmukit",
				w->etw.pmc_owners);
	if (w->etw.pmc_owners >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_COUNTING,
			       "pmc_owners", "TracePmcCounterOwners on CPU 0: counters held "
			       "by others", "%d%s%s", w->etw.pmc_owners,
			       w->etw.owner_list[0] ? ": " : "", w->etw.owner_list);
}

static void sampling(struct wcaps *w)
{
	struct pmu_caps *c = w->c;

	if (w->wine) {
		pmuk_caps_set(c, PMU_CONCERN_SAMPLING, PMU_CAP_UNAVAILABLE, "%s", w->etw.why);
		pmuk_caps_remedy(c, PMU_CONCERN_SAMPLING,
				 "record on Windows ('pmukit record', wpr or xperf) and "
				 "read the .etl here with 'pmukit report' or 'pmukit etl'");
	} else if (!w->etw.usable) {
		pmuk_caps_set(c, PMU_CONCERN_SAMPLING,
			      PMU_CAP_UNAVAILABLE, "ETW sampling is not usable here: %s",
			      w->etw.why);
	} else {
		pmuk_caps_set(c, PMU_CONCERN_SAMPLING,
			      PMU_CAP_LIMITED, "recordings to .etl (pmu_recording_*, "
			      "'pmukit record'): timer SampledProfile and PMC-overflow "
			      "(PERF_PMC_PROFILE) samples of the whole machine, with stacks; no "
			      "live sampler (pmu_sampler_* is Linux only)");
		if (w->etw.max_pmc > 0)
			pmuk_caps_limit(c, PMU_CONCERN_SAMPLING,
					"%d PMCs per session, one fewer with timer "
					"sampling on (TraceMaxPmcCounterQuery)", w->etw.max_pmc);
		if (!(w->priv.admin && w->priv.elevated) || !w->priv.profile_present)
			pmuk_caps_limit(c, PMU_CONCERN_SAMPLING,
					"recording needs an elevated prompt with "
					"SeSystemProfilePrivilege, which this process lacks");
		pmuk_caps_remedy(c, PMU_CONCERN_SAMPLING,
				 "read recordings with 'pmukit report' or 'pmukit etl'");
	}
	pmuk_caps_set(c, PMU_CONCERN_PRECISE,
		      PMU_CAP_UNAVAILABLE, "Windows offers no public precise data-source "
		      "sampling: TRACE_QUERY_INFO_CLASS has no PEBS or data-address class (the "
		      "kernel's PEBS tracing is internal); the public analogs are branch-only LBR "
		      "(TraceLbrConfigurationInfo, Windows 10 1903+) and register capture "
		      "(Server 23H2); 'pmukit record --lbr' records LBR where the OS has it");
	pmuk_caps_fact(c, PMU_CONCERN_PRECISE,
		       "lbr_os", "TraceLbrConfigurationInfo needs Windows 10 1903 "
		       "(build 18362)", "%s", !w->wine && pmuk_win_at_least(10, 0, 18362) ?
		       "yes" : "no");
}

static void symbols(struct wcaps *w)
{
	int inl = pmuk_win_proc(L"dbghelp.dll", "SymAddrIncludeInlineTrace") &&
		  pmuk_win_proc(L"dbghelp.dll", "SymQueryInlineTrace") &&
		  pmuk_win_proc(L"dbghelp.dll", "SymFromInlineContextW") &&
		  pmuk_win_proc(L"dbghelp.dll", "SymGetLineFromInlineContextW");

	pmuk_caps_fact(w->c, PMU_CONCERN_SYMBOLS,
		       "symbolizer", "DbgHelp for live processes (SymInitializeW) and "
		       "recorded module maps (SymLoadModuleExW): pmu_symbolizer_*, pmukit "
		       "addr2line", "dbghelp%s", inl ? ", inline frames" : ", no inline frames");
	pmuk_caps_set(w->c, PMU_CONCERN_SYMBOLS,
		      PMU_CAP_AVAILABLE, "DbgHelp resolves addresses to function and "
		      "file:line (SymFromAddrW, SymGetLineFromAddrW64) in live processes and "
		      "recorded module maps; module identity is the PDB GUID+Age of the CodeView "
		      "RSDS record (a stale image gives module + offset only)");
	pmuk_caps_limit(w->c, PMU_CONCERN_SYMBOLS, "DbgHelp gives no source columns");
	if (!inl)
		pmuk_caps_limit(w->c, PMU_CONCERN_SYMBOLS,
				"this dbghelp.dll lacks the inline-frame calls "
				"(SymQueryInlineTrace, Windows 8+): one frame per address");
	if (w->wine)
		pmuk_caps_limit(w->c, PMU_CONCERN_SYMBOLS,
				"Wine's dbghelp reads DWARF 4 only (not DWARF 5, not "
				"the PDBs of ld --pdb), and its lines inside inlined code are wrong "
				"(function names and inline chains are right)");
	else
		pmuk_caps_limit(w->c, PMU_CONCERN_SYMBOLS,
				"images need their PDBs (a symbol path or "
				"_NT_SYMBOL_PATH); mingw-w64 DWARF is not read by Windows' dbghelp");
	pmuk_caps_limit(w->c, PMU_CONCERN_SYMBOLS,
			"ELF modules of Linux recordings resolve to module + offset "
			"only (libdwfl is Linux-only)");
}

static void tracing(struct wcaps *w)
{
	struct pmu_caps *c = w->c;
	struct pmuk_win_priv *p = &w->priv;

	pmuk_caps_fact(c, PMU_CONCERN_TRACING,
		       "administrator", "member of BUILTIN\\Administrators (ETW kernel "
		       "sessions)", "%s%s", p->admin ? "yes" : "no",
		       p->admin && !p->elevated ? " (not elevated)" : "");
	pmuk_caps_fact(c, PMU_CONCERN_TRACING,
		       "performance_log_users", "member of BUILTIN\\Performance Log Users "
		       "(may start ETW sessions)", "%s", p->perflog ? "yes" : "no");
	pmuk_caps_fact(c, PMU_CONCERN_TRACING,
		       "SeSystemProfilePrivilege", "needed for PMC and profile sessions",
		       "%s", p->profile_enabled ? "enabled" : p->profile_present ?
		       "present, disabled" : "not held");
	pmuk_caps_fact(c, PMU_CONCERN_TRACING,
		       "kernel_logger", "NT Kernel Logger (one system-wide; another tool "
		       "may hold it)", "%s", w->etw.kernel_logger_owner);
	pmuk_caps_fact(c, PMU_CONCERN_TRACING,
		       "session_limits", "ETW allows 64 sessions, of which 8 system "
		       "loggers", "64/8");
	if (w->wine) {
		pmuk_caps_set(c, PMU_CONCERN_TRACING, PMU_CAP_UNAVAILABLE, "%s", w->etw.why);
		return;
	}
	pmuk_caps_set(c, PMU_CONCERN_TRACING,
		      PMU_CAP_LIMITED, "ETW kernel sessions (a private system logger "
		      "on Windows 8+) for PMC counting and .etl recordings; pmukit reads .etl "
		      "files ('pmukit etl') but decodes no live event stream beyond CSwitch");
	if (!(p->admin && p->elevated) && !p->perflog)
		pmuk_caps_limit(c, PMU_CONCERN_TRACING,
				"this user may not start ETW kernel sessions (neither an "
				"elevated administrator nor in Performance Log Users)");
	if (!p->profile_present)
		pmuk_caps_limit(c, PMU_CONCERN_TRACING,
				"SeSystemProfilePrivilege is not held: no PMC or profile "
				"sessions");
	if (w->etw.kernel_logger_busy == 1)
		pmuk_caps_limit(c, PMU_CONCERN_TRACING,
				"the NT Kernel Logger is already in use by another tool");
	if (!(p->admin && p->elevated))
		pmuk_caps_remedy(c, PMU_CONCERN_TRACING, "run from an elevated prompt");
}

static void topology(struct wcaps *w)
{
	ULONG node = 0;

	pmuk_caps_set(w->c, PMU_CONCERN_TOPOLOGY,
		      PMU_CAP_LIMITED, "GetLogicalProcessorInformationEx covers every "
		      "processor group, NUMA node and cache; QueryWorkingSetEx tells the node of "
		      "a known page only (no sampled address to attribute)");
	pmuk_caps_fact(w->c, PMU_CONCERN_TOPOLOGY,
		       "processor_groups", "GetActiveProcessorGroupCount", "%u",
		       (unsigned)GetActiveProcessorGroupCount());
	if (GetNumaHighestNodeNumber(&node))
		pmuk_caps_fact(w->c, PMU_CONCERN_TOPOLOGY,
			       "numa_highest_node", "GetNumaHighestNodeNumber", "%lu",
			       (unsigned long)node);
}

static void events(struct wcaps *w)
{
	if (w->etw.nsources >= 0) {
		pmuk_caps_set(w->c, PMU_CONCERN_EVENTS,
			      PMU_CAP_LIMITED, "%d curated HAL profile sources; raw "
			      "events only through a system-global ProfileSource registration "
			      "(Windows 10 1903+)", w->etw.nsources);
		pmuk_caps_fact(w->c, PMU_CONCERN_EVENTS,
			       "profile_sources", "TraceProfileSourceListInfo", "%s",
			       w->etw.sources);
		return;
	}
	pmuk_caps_set(w->c, PMU_CONCERN_EVENTS,
		      PMU_CAP_LIMITED, "generic and curated profile-source names "
		      "parse, but the host's profile-source list cannot be read: %s", w->etw.why);
}

static void oscounters(struct wcaps *w)
{
	PDH_HQUERY q;
	PDH_HCOUNTER h;
	PDH_STATUS st = PdhOpenQueryW(NULL, 0, &q);

	if (st == ERROR_SUCCESS) {
		st = PdhAddEnglishCounterW(q, L"\\Processor Information(*)\\% Processor Time", 0, &h);
		PdhCloseQuery(q);
	}
	pmuk_caps_fact(w->c, PMU_CONCERN_OSCOUNTERS,
		       "pdh_processor_information", "PdhAddEnglishCounterW on "
		       "\\Processor Information(*)", "%s%08lx", st == ERROR_SUCCESS ? "present, "
		       "status 0x" : "missing, status 0x", (unsigned long)st);
	if (st == ERROR_SUCCESS && !w->wine) {
		pmuk_caps_set(w->c, PMU_CONCERN_OSCOUNTERS,
			      PMU_CAP_AVAILABLE, "per-CPU user/privileged/idle/"
			      "interrupt/DPC time, frequency, parking and %% Processor Performance "
			      "from PDH \"Processor Information\" (pmu_cpustat_*, 'pmukit "
			      "cpustat')");
		return;
	}
	pmuk_caps_set(w->c, PMU_CONCERN_OSCOUNTERS,
		      PMU_CAP_LIMITED, "per-CPU user/system/idle/interrupt/DPC time "
		      "from NtQuerySystemInformation (pmu_cpustat_*, 'pmukit cpustat')");
	pmuk_caps_limit(w->c, PMU_CONCERN_OSCOUNTERS,
			"no frequency, parking or performance: PDH \"Processor "
			"Information\" %s", w->wine ? "is missing under Wine (and Wine aborts "
			"in PdhGetRawCounterArrayW)" : "is missing on this host");
}

int pmuk_os_caps_probe(struct pmu_caps **out)
{
	struct wcaps w = { 0 };
	int err;

	if (!(w.c = pmuk_caps_new("Windows")))
		return pmuk_fail(PMU_ENOMEM, "out of memory building the capability matrix");
	w.wine = pmuk_wine_version();
	pmuk_win_version(&w.ver);
	pmuk_win_privileges(&w.priv);
	pmuk_etw_probe(&w.etw);
	host(&w);
	counting(&w);
	sampling(&w);
	symbols(&w);
	tracing(&w);
	topology(&w);
	events(&w);
	oscounters(&w);
	err = pmuk_caps_failed(w.c);
	if (err) {
		pmu_caps_free(w.c);
		return err;
	}
	*out = w.c;
	return 0;
}
