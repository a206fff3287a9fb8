/* SPDX-License-Identifier: MIT */
/* ETW kernel sessions for PMC counting and recordings. On Windows 8 and later a
 * private session in system-logger mode (EVENT_TRACE_SYSTEM_LOGGER_MODE), so
 * pmukit never takes the one NT Kernel Logger from another tool; before that the
 * NT Kernel Logger itself. A session starts with only the process, thread and
 * image flags; the PMC, profile and stack configuration (TraceSetInformation) is
 * set next, and only then are the sampling and context-switch events enabled
 * (TraceSystemTraceEnableFlagsInfo; on the NT Kernel Logger before Windows 8,
 * ControlTrace(UPDATE) of EnableFlags), so no event is logged unconfigured.
 * Under Wine StartTraceW answers success with a fake handle and TraceSetInformation
 * ERROR_CALL_NOT_IMPLEMENTED: the first configuration call reports that. */
#include "windows/win.h"
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define NAME_CHARS 64
#define FILE_CHARS 1024

static volatile LONG sessions;

/* SystemTraceControlGuid (evntrace.h declares it; no import library defines it). */
static const GUID system_trace = {
	0x9e814aad, 0x3204, 0x11d2, { 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 }
};

static int priv_fail(ULONG e, const char *what)
{
	if (e == ERROR_ACCESS_DENIED)
		return pmuk_fail(PMU_EPERM, "%s: access denied (ETW kernel sessions need an "
				 "elevated administrator or Performance Log Users, PMCs also "
				 "SeSystemProfilePrivilege)", what);
	if (e == ERROR_NO_SYSTEM_RESOURCES)
		return pmuk_fail(PMU_EBUSY, "%s: no room for another session (ETW allows 64, "
				 "8 of them system loggers)", what);
	return pmuk_fail(PMU_EIO, "%s failed: %s", what, pmuk_win_strerror(e));
}

int pmuk_etw_profile_privilege(void)
{
	TOKEN_PRIVILEGES tp = { .PrivilegeCount = 1 };
	HANDLE tok;
	DWORD e;

	if (!LookupPrivilegeValueW(NULL, SE_SYSTEM_PROFILE_NAME, &tp.Privileges[0].Luid))
		return pmuk_fail(PMU_EIO, "LookupPrivilegeValue(SeSystemProfilePrivilege) failed: "
				 "%s", pmuk_win_strerror(GetLastError()));
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &tok))
		return pmuk_fail(PMU_EPERM, "OpenProcessToken failed: %s",
				 pmuk_win_strerror(GetLastError()));
	tp.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
	/* Success may still mean ERROR_NOT_ALL_ASSIGNED: the token lacks the privilege. */
	if (!AdjustTokenPrivileges(tok, FALSE, &tp, sizeof(tp), NULL, NULL)) {
		e = GetLastError();
		CloseHandle(tok);
		return pmuk_fail(PMU_EIO, "AdjustTokenPrivileges(SeSystemProfilePrivilege) "
				 "failed: %s", pmuk_win_strerror(e));
	}
	e = GetLastError();
	CloseHandle(tok);
	if (e == ERROR_NOT_ALL_ASSIGNED)
		return pmuk_fail(PMU_EPERM, "SeSystemProfilePrivilege is not held: PMC and "
				 "profile sessions need it; run from an elevated prompt");
	return 0;
}

int pmuk_etw_session_start(struct pmuk_etw_session *s, const char *path, unsigned buffer_kb,
			   ULONG flags)
{
	EVENT_TRACE_PROPERTIES *p;
	wchar_t *name, *file;
	ULONG e;

	memset(s, 0, sizeof(*s));
	s->props_size = sizeof(*p) + (NAME_CHARS + FILE_CHARS) * sizeof(wchar_t);
	if (!(p = s->props = calloc(1, s->props_size)))
		return pmuk_fail(PMU_ENOMEM, "out of memory starting an ETW session");
	name = (wchar_t *)((char *)p + sizeof(*p));
	file = name + NAME_CHARS;
	p->Wnode.BufferSize = s->props_size;
	p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	p->Wnode.ClientContext = 1;  /* QPC time stamps: the counting consumer compares them */
	p->BufferSize = buffer_kb ? buffer_kb : 1024;
	p->MinimumBuffers = 2 * GetActiveProcessorCount(ALL_PROCESSOR_GROUPS) + 4;
	p->MaximumBuffers = p->MinimumBuffers + 64;
	p->FlushTimer = 1;
	p->EnableFlags = flags;
	p->LoggerNameOffset = sizeof(*p);
	s->kernel_logger = !pmuk_win_at_least(6, 2, 0);
	if (s->kernel_logger) {
		wcscpy(name, KERNEL_LOGGER_NAMEW);
		p->Wnode.Guid = system_trace;
	} else {
		LARGE_INTEGER t;

		QueryPerformanceCounter(&t);
		swprintf(name, NAME_CHARS, L"pmukit-%lu-%ld", (unsigned long)GetCurrentProcessId(),
			 (long)InterlockedIncrement(&sessions));
		/* Any GUID unique to this session. */
		p->Wnode.Guid.Data1 = GetCurrentProcessId();
		p->Wnode.Guid.Data2 = 0x706d;  /* "pm" */
		p->Wnode.Guid.Data3 = (USHORT)sessions;
		memcpy(p->Wnode.Guid.Data4, &t.QuadPart, 8);
		p->LogFileMode = EVENT_TRACE_SYSTEM_LOGGER_MODE;
	}
	if (path) {
		DWORD n;

		/* GetFullPathNameW answers the size it needs when the buffer is too small. */
		if (!MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1,
					 file + FILE_CHARS / 2, FILE_CHARS / 2) ||
		    !(n = GetFullPathNameW(file + FILE_CHARS / 2, FILE_CHARS / 2, file, NULL)) ||
		    n >= FILE_CHARS / 2)
			return pmuk_fail(PMU_EINVAL, "the path '%s' is not UTF-8 or its full path "
					 "is longer than %d characters", path, FILE_CHARS / 2 - 1);
		p->LogFileNameOffset = sizeof(*p) + NAME_CHARS * sizeof(wchar_t);
		p->LogFileMode |= EVENT_TRACE_FILE_MODE_SEQUENTIAL;
		snprintf(s->path, sizeof(s->path), "%s", path);
	} else {
		p->LogFileMode |= EVENT_TRACE_REAL_TIME_MODE;
	}
	wcsncpy(s->name, name, sizeof(s->name) / sizeof(s->name[0]) - 1);
	e = StartTraceW(&s->h, name, p);
	if (e == ERROR_ALREADY_EXISTS && s->kernel_logger)
		return pmuk_fail(PMU_EBUSY, "the NT Kernel Logger already runs (another tool "
				 "holds it; before Windows 8 there is only that one)");
	if (e != ERROR_SUCCESS)
		return priv_fail(e, "StartTraceW");
	s->running = 1;
	return 0;
}

int pmuk_etw_session_set(struct pmuk_etw_session *s, const struct pmuk_etw_block *b,
			 const char *what)
{
	ULONG e = TraceSetInformation(s->h, (TRACE_INFO_CLASS)b->info_class, (void *)b->data,
				      (ULONG)b->len);
	const char *wine = pmuk_wine_version();

	if (e == ERROR_SUCCESS)
		return 0;
	if (wine && e == ERROR_CALL_NOT_IMPLEMENTED)
		return pmuk_fail(PMU_ENOTSUP, "Wine %s has no ETW kernel sessions: StartTraceW "
				 "returned success with a fake handle, and TraceSetInformation(%s) "
				 "returned ERROR_CALL_NOT_IMPLEMENTED (120)", wine, what);
	if (e == ERROR_NOT_SUPPORTED || e == ERROR_INVALID_FUNCTION)
		return pmuk_fail(PMU_ENOTSUP, "TraceSetInformation(%s): this Windows does not "
				 "support it (%s)", what, pmuk_win_strerror(e));
	if (e == ERROR_BUSY)
		return pmuk_fail(PMU_EBUSY, "TraceSetInformation(%s): the counters are in use by "
				 "another session or profiler (PMCs are single-tenant)", what);
	if (e == ERROR_INVALID_PARAMETER)
		return pmuk_fail(PMU_EINVAL, "TraceSetInformation(%s) refused the configuration "
				 "(too many counters, or a source this CPU lacks)", what);
	return priv_fail(e, what);
}

int pmuk_etw_session_enable(struct pmuk_etw_session *s, const ULONG mask[8])
{
	struct pmuk_etw_block b = { .info_class = PMUK_TRACE_SYSTEM_TRACE_ENABLE_FLAGS_INFO };

	/* TraceSystemTraceEnableFlagsInfo needs Windows 8; before it the NT Kernel
	 * Logger changes its EnableFlags through ControlTrace(UPDATE). */
	if (s->kernel_logger) {
		ULONG e;

		for (int i = 1; i < 8; i++)
			if (mask[i])
				return pmuk_fail(PMU_ENOTSUP, "extended kernel groups (PERFINFO_"
						 "GROUPMASK word %d) need Windows 8 or later", i);
		s->props->Wnode.BufferSize = s->props_size;
		s->props->EnableFlags = mask[0];
		s->props->LogFileNameOffset = 0;  /* 0: keep writing the same file */
		e = ControlTraceW(s->h, NULL, s->props, EVENT_TRACE_CONTROL_UPDATE);
		return e == ERROR_SUCCESS ? 0 : priv_fail(e, "ControlTraceW(update EnableFlags)");
	}

	/* PERFINFO_GROUPMASK: Masks[0] holds the classic EnableFlags, Masks[1..7] the
	 * extended groups (e.g. PERF_PMC_PROFILE 0x20000400: Masks[1] bit 0x400). The
	 * class is documented; the meaning of the extended bits is not. */
	b.len = 8 * sizeof(ULONG);
	memcpy(b.data, mask, b.len);
	return pmuk_etw_session_set(s, &b, "TraceSystemTraceEnableFlagsInfo");
}

int pmuk_etw_session_flush(struct pmuk_etw_session *s)
{
	ULONG e;

	if (!s->running)
		return 0;
	e = ControlTraceW(s->h, NULL, s->props, EVENT_TRACE_CONTROL_FLUSH);
	return e == ERROR_SUCCESS ? 0 : priv_fail(e, "ControlTraceW(flush)");
}

int pmuk_etw_session_stop(struct pmuk_etw_session *s)
{
	EVENT_TRACE_PROPERTIES *p = s->props;
	ULONG e;

	if (!s->running)
		return 0;
	s->running = 0;
	p->Wnode.BufferSize = s->props_size;
	p->LoggerNameOffset = sizeof(*p);
	p->LogFileNameOffset = sizeof(*p) + NAME_CHARS * sizeof(wchar_t);
	e = ControlTraceW(s->h, NULL, p, EVENT_TRACE_CONTROL_STOP);
	if (e != ERROR_SUCCESS && e != ERROR_MORE_DATA)
		return priv_fail(e, "ControlTraceW(stop)");
	s->events_lost = p->EventsLost;
	s->buffers_written = p->BuffersWritten;
	s->buffers_lost = p->LogBuffersLost + p->RealTimeBuffersLost;
	return 0;
}

void pmuk_etw_session_free(struct pmuk_etw_session *s)
{
	if (s->running)
		pmuk_etw_session_stop(s);
	free(s->props);
	s->props = NULL;
}
