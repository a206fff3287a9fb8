/* SPDX-License-Identifier: MIT */
#ifndef PMUK_WINDOWS_WIN_H
#define PMUK_WINDOWS_WIN_H

/* Internals shared by the files of src/windows. Wine 8 reports success for some calls it does
 * not implement and aborts the process on others (shared/docs/windows-notes.md 2b):
 * every surface asks pmuk_wine_version() first and never calls what aborts. */

#include <windows.h>
#include <stdint.h>

#include "windows/win_defs.h"

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

/* Where a generic event is counted on Windows (counting_win.c). */
enum pmuk_win_src {
	PMUK_WSRC_NONE = -1,
	PMUK_WSRC_CPU_TIME,      /* GetThreadTimes / GetProcessTimes: user + kernel, 100 ns */
	PMUK_WSRC_CYCLE_TIME,    /* QueryThreadCycleTime / QueryProcessCycleTime */
	PMUK_WSRC_PAGE_FAULTS,   /* GetProcessMemoryInfo PageFaultCount (whole process) */
	PMUK_WSRC_HCP_CSWITCH,   /* HCP ReadThreadProfilingData ContextSwitchCount */
};
/* The source counting generic event `generic` on a target of kind `kind`, or
 * PMUK_WSRC_NONE with the reason in why. */
int pmuk_win_count_source(int generic, int kind, char *why, size_t n);

#endif
