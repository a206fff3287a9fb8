/* SPDX-License-Identifier: MIT */
#ifndef PMUK_WINDOWS_WIN_H
#define PMUK_WINDOWS_WIN_H

/* Internals shared by the files of src/windows. Wine 8 reports success for some calls it does
 * not implement and aborts the process on others (shared/docs/windows-notes.md 2b):
 * every surface asks pmuk_wine_version() first and never calls what aborts. */

#include <windows.h>
#include <stdint.h>

#include "windows/win_defs.h"
#include "core/etw_config.h"
#include "core/etw_machine.h"

/* "8.0" under Wine (ntdll!wine_get_version), NULL on Windows. */
const char *pmuk_wine_version(void);
/* The reason a surface Wine lacks is unavailable: "Wine 8.0 does not implement X". */
#define PMUK_WINE_LACKS "Wine %s does not implement "

/* The OS version from ntdll!RtlGetVersion (GetVersionEx lies to unmanifested programs). */
struct pmuk_win_version {
	DWORD major, minor, build;
};
void pmuk_win_version(struct pmuk_win_version *v);
/* 1 when the running Windows is at least major.minor.build. */
int pmuk_win_at_least(DWORD major, DWORD minor, DWORD build);

/* A function of a system DLL looked up at run time (NULL when absent), so a missing
 * export never stops pmukit.dll from loading on an older Windows or under Wine. */
FARPROC pmuk_win_proc(const wchar_t *dll, const char *name);

/* The Win32 error message of code, in a static per-thread buffer, for details. */
const char *pmuk_win_strerror(DWORD code);

/* What the caller's token allows (caps_win.c). */
struct pmuk_win_priv {
	int admin;               /* member of BUILTIN\Administrators, token elevated */
	int elevated;
	int perflog;             /* member of BUILTIN\Performance Log Users */
	int profile_present;     /* SeSystemProfilePrivilege in the token */
	int profile_enabled;
	int debug_present;       /* SeDebugPrivilege: open other users' processes */
};
int pmuk_win_privileges(struct pmuk_win_priv *p);

/* ETW facts (etw_win.c). Each is -1 when unknown, with a reason in why. */
struct pmuk_etw_facts {
	int usable;              /* the ETW PMC classes can be used on this host */
	char why[256];           /* why not, when usable is 0 */
	int kernel_logger_busy;  /* "NT Kernel Logger" runs: 1, 0, -1 unknown */
	char kernel_logger_owner[160];
	int max_pmc;             /* TraceMaxPmcCounterQuery */
	int pmc_owners;          /* processes holding PMCs (TracePmcCounterOwners), -1 unknown */
	char owner_list[256];
	int nsources;            /* profile sources (TraceProfileSourceListInfo), -1 unknown */
	char sources[768];       /* "Timer(0),TotalIssues(2),..." */
};
void pmuk_etw_probe(struct pmuk_etw_facts *f);
/* TracePmcCounterOwners of processor cpu: its counters and how many others hold.
 * PMU_ENOTSUP / PMU_EPERM with the reason where the class cannot be queried. */
int pmuk_etw_pmc_owners(uint32_t cpu, uint32_t *ncounters, uint32_t *held);

/* A profile source: the HAL's name and id (TraceProfileSourceListInfo). */
struct pmuk_win_source {
	char name[64];
	ULONG id;
	ULONG min_interval, max_interval;
};
/* The host's profile sources: count, or a negative PMU_E* with a detail. */
int pmuk_etw_sources(struct pmuk_win_source *out, int max);

/* The child's process handle (process_win.c), for the Windows tool's wait loop. */
struct pmu_command;
HANDLE pmuk_command_handle(const struct pmu_command *cmd);
/* The job object a command runs in (process_win.c): a duplicate handle of the job of
 * the live pmu_command with this pid (close it), NULL when none; its accounting;
 * the processes it has held (-1 unknown). */
struct pmuk_job_counts { uint64_t cpu_100ns, page_faults, processes; };
HANDLE pmuk_command_job_dup(int pid);
int pmuk_job_accounting(HANDLE job, struct pmuk_job_counts *out);
int pmuk_command_processes(const struct pmu_command *cmd);

/* Where a generic event is counted on Windows (counting_win.c). */
enum pmuk_win_src {
	PMUK_WSRC_NONE = -1,
	PMUK_WSRC_CPU_TIME,      /* GetThreadTimes / GetProcessTimes: user + kernel, 100 ns */
	PMUK_WSRC_CYCLE_TIME,    /* QueryThreadCycleTime / QueryProcessCycleTime */
	PMUK_WSRC_PAGE_FAULTS,   /* GetProcessMemoryInfo PageFaultCount (whole process) */
	PMUK_WSRC_HCP_CSWITCH,   /* HCP ReadThreadProfilingData ContextSwitchCount */
	PMUK_WSRC_ETW_PMC,       /* ETW PMC-on-CSwitch counting (pmc_counting_win.c) */
};
/* The source counting generic event `generic` on a target of kind `kind`, or
 * PMUK_WSRC_NONE with the reason in why. */
int pmuk_win_count_source(int generic, int kind, char *why, size_t n);

/* An ETW kernel session (etw_session.c): a private system logger on Windows 8+,
 * the NT Kernel Logger before. Functions return 0 or PMU_E* with a detail. */
struct pmuk_etw_session {
	TRACEHANDLE h;
	EVENT_TRACE_PROPERTIES *props;
	ULONG props_size;
	wchar_t name[64];        /* the session name, for OpenTraceW */
	char path[1024];         /* the .etl file; "" for a real-time session */
	int kernel_logger;       /* the NT Kernel Logger (before Windows 8) */
	int running;
	ULONG events_lost, buffers_written, buffers_lost;  /* after stop */
	struct pmuk_etw_machine machine;  /* machine-wide settings to restore at stop */
};
/* Enables SeSystemProfilePrivilege in the process token (PMC and profile sessions). */
int pmuk_etw_profile_privilege(void);
/* Starts a session with the classic EnableFlags `flags`: to the .etl file path, or
 * real time when path is NULL. */
int pmuk_etw_session_start(struct pmuk_etw_session *s, const char *path, unsigned buffer_kb,
			   ULONG flags);
/* TraceSetInformation(session, block); what names the class in details. */
int pmuk_etw_session_set(struct pmuk_etw_session *s, const struct pmuk_etw_block *b,
			 const char *what);
/* The machine-wide TraceSampledProfileIntervalInfo / TraceProfileSourceConfigInfo
 * (TraceId 0), read first; pmuk_etw_session_stop (and _free, and the console
 * handler) restores what was read. */
int pmuk_etw_session_interval(struct pmuk_etw_session *s, uint32_t source, uint32_t interval);
int pmuk_etw_session_sources(struct pmuk_etw_session *s, const uint32_t *ids, size_t n);
/* Stops the sessions that pmukit processes now gone left running (QueryAllTracesW);
 * the first session start calls it once. */
void pmuk_etw_sweep(void);
/* Enables the kernel groups of a PERFINFO_GROUPMASK (mask[0]: classic EnableFlags). */
int pmuk_etw_session_enable(struct pmuk_etw_session *s, const uint32_t mask[8]);
int pmuk_etw_session_flush(struct pmuk_etw_session *s);
int pmuk_etw_session_stop(struct pmuk_etw_session *s);
void pmuk_etw_session_free(struct pmuk_etw_session *s);

/* ETW PMC-on-CSwitch counting (pmc_counting_win.c): the hardware events of a
 * counter set, per thread, process or CPU; with inherit, a process target's
 * children too, followed through Process/Start ParentId (core/etw_follow.h). */
struct pmuk_etw_pmc;
struct pmu_event;
struct pmu_target;
int pmuk_etw_pmc_open(const struct pmu_event *const *ev, size_t n, const struct pmu_target *t,
		      int inherit, struct pmuk_etw_pmc **out);
/* Whether n hardware events can be counted, decided from the profile-source list,
 * TraceMaxPmcCounterQuery and TracePmcCounterOwners without starting a session (under
 * Wine: what its fake session answers); their source ids in ids[n] (at most 8). */
int pmuk_etw_pmc_check_events(const struct pmu_event *const *ev, size_t n, uint32_t *ids);
/* Counting on (1) or off (0); off stops the session and joins the consumer, so a
 * read after it has every switch; on again starts a new session. */
int pmuk_etw_pmc_enable(struct pmuk_etw_pmc *p, int on);
void pmuk_etw_pmc_reset(struct pmuk_etw_pmc *p);
/* Totals of event i: all targets (cpu_index -1) or one CPU of a CPU target. */
int pmuk_etw_pmc_read(struct pmuk_etw_pmc *p, size_t i, int cpu_index, uint64_t *value);
void pmuk_etw_pmc_close(struct pmuk_etw_pmc *p);
/* The flat CPU ids of a CPU target (every active CPU when none were named). */
size_t pmuk_etw_pmc_cpus(const struct pmuk_etw_pmc *p, const int **cpus);
/* The HAL profile source ids of hardware events (generic names through the
 * profile-source list, "hal" raw events by their id); PMU_ENOTSUP for :u/:k. */
int pmuk_etw_resolve(const struct pmu_event *const *ev, size_t n, uint32_t *ids);

/* PdhGetRawCounterArrayW of counter h (a PDH_HCOUNTER) into *buf, grown as the PDH
 * sizing protocol asks (pdh_win.c); *count items. what names the call in errors. */
int pmuk_pdh_raw_items(HANDLE h, void **buf, uint32_t *cap, DWORD *count, const char *what);
/* The dwType of PDH counter h (PdhGetCounterInfoW under the same protocol). */
int pmuk_pdh_counter_type(HANDLE h, DWORD *type);

/* OS CPU-time counters from NtQuerySystemInformation (ntqsi_win.c): the fallback of
 * the PDH backend (pdh_win.c) and the source under Wine. */
struct pmuk_cpustat_backend;
int pmuk_ntqsi_cpustat_open(struct pmuk_cpustat_backend *b);

#endif
