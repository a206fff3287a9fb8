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
 * ERROR_CALL_NOT_IMPLEMENTED: the first configuration call reports that.
 *
 * A session, and the machine-wide profile settings set with it, outlive the process:
 * every exit path stops it and restores them (pmuk_etw_session_stop), a console
 * handler does so on Ctrl-C, Ctrl-Break, close, logoff and shutdown, and the first
 * session of a process stops the sessions left by pmukit processes that are gone. */
#include "windows/win.h"
#include "core/error.h"
#include "core/etw_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define NAME_CHARS 64
#define FILE_CHARS 1024

static volatile LONG sessions;

/* The running sessions of this process, for the console handler. */
#define MAX_LIVE 16
static SRWLOCK live_lock = SRWLOCK_INIT;
static struct pmuk_etw_session *live[MAX_LIVE];
static volatile LONG handler_set, swept;

static int live_add(struct pmuk_etw_session *s);

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
	pmuk_etw_sweep();
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
		/* A recording left running (a hung command) must not fill the disk: ETW
		 * stops writing at this size and counts the events it drops. */
		p->MaximumFileSize = PMUK_ETW_MAX_FILE_MB;
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
	return live_add(s);
}

int pmuk_etw_session_set(struct pmuk_etw_session *s, const struct pmuk_etw_block *b,
			 const char *what)
{
	ULONG e = TraceSetInformation(s->h, (TRACE_INFO_CLASS)b->info_class, (void *)b->data,
				      (ULONG)b->len);

	if (e == ERROR_SUCCESS)
		return 0;
	if (e == ERROR_NO_SYSTEM_RESOURCES)
		return priv_fail(e, what);
	return pmuk_etw_set_error(e, b->info_class, what, pmuk_wine_version());
}

/* ---- the machine-wide settings (TraceId 0), read first and restored at stop ---- */

typedef ULONG (WINAPI *tqi_fn)(TRACEHANDLE, int, PVOID, ULONG, PULONG);

static uint32_t win_query(void *ctx, uint32_t cls, void *buf, uint32_t len, uint32_t *ret)
{
	/* TraceQueryInformation aborts the process under Wine: never called there. */
	tqi_fn q = pmuk_wine_version() ? NULL : (tqi_fn)(void (*)(void))pmuk_win_proc(
		L"advapi32.dll", "TraceQueryInformation");
	ULONG r = 0, e;

	(void)ctx;
	if (!q)
		return ERROR_CALL_NOT_IMPLEMENTED;
	e = q(0, (int)cls, buf, len, &r);
	*ret = r;
	return e;
}

static uint32_t win_set(void *ctx, uint64_t trace_id, uint32_t cls, const void *buf,
			uint32_t len)
{
	(void)ctx;
	return TraceSetInformation((TRACEHANDLE)trace_id, (TRACE_INFO_CLASS)cls, (void *)buf, len);
}

static struct pmuk_etw_ops win_ops(void)
{
	return (struct pmuk_etw_ops){ .query = win_query, .set = win_set,
				      .wine = pmuk_wine_version() };
}

/* Under live_lock, and only while the session runs: the console handler (another
 * thread) restores s->machine under that lock, so a setting is either recorded
 * before it restores or refused after it stopped the session; else a close or
 * logoff between the set and its record would leave the machine changed. */
static int stopped(void)
{
	return pmuk_fail(PMU_EIO, "the ETW session was stopped (Ctrl-C, console close, "
			 "logoff or shutdown) while it was being configured");
}

int pmuk_etw_session_interval(struct pmuk_etw_session *s, uint32_t source, uint32_t interval)
{
	struct pmuk_etw_ops ops = win_ops();
	int err;

	AcquireSRWLockExclusive(&live_lock);
	err = s->running ? pmuk_etw_machine_interval(&ops, &s->machine, source, interval)
			 : stopped();
	ReleaseSRWLockExclusive(&live_lock);
	return err;
}

int pmuk_etw_session_sources(struct pmuk_etw_session *s, const uint32_t *ids, size_t n)
{
	struct pmuk_etw_ops ops = win_ops();
	int err;

	AcquireSRWLockExclusive(&live_lock);
	err = s->running ? pmuk_etw_machine_sources(&ops, &s->machine, ids, n) : stopped();
	ReleaseSRWLockExclusive(&live_lock);
	return err;
}

int pmuk_etw_session_enable(struct pmuk_etw_session *s, const uint32_t mask[8])
{
	struct pmuk_etw_block b = { .info_class = PMUK_TRACE_SYSTEM_TRACE_ENABLE_FLAGS_INFO };

	/* TraceSystemTraceEnableFlagsInfo needs Windows 8; before it the NT Kernel
	 * Logger changes its EnableFlags through ControlTrace(UPDATE). */
	if (s->kernel_logger) {
		ULONG e;

		/* Masks[1]'s PERF_PROFILE / PERF_CONTEXT_SWITCH are the twins of classic
		 * flags in mask[0]; any other extended group needs Windows 8. */
		for (int i = 1; i < 8; i++)
			if (mask[i] & ~(i == 1 ? (PMUK_ETW_PERF_PROFILE | PMUK_ETW_PERF_CONTEXT_SWITCH)
					& 0x1fffffffu : 0u))
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
	b.len = 8 * sizeof(uint32_t);
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

/* ControlTraceW(STOP), then the machine-wide settings back; under live_lock. */
static int stop_locked(struct pmuk_etw_session *s)
{
	EVENT_TRACE_PROPERTIES *p = s->props;
	struct pmuk_etw_ops ops = win_ops();
	int err = 0, rerr;
	ULONG e;

	if (s->running) {
		s->running = 0;
		p->Wnode.BufferSize = s->props_size;
		p->LoggerNameOffset = sizeof(*p);
		p->LogFileNameOffset = sizeof(*p) + NAME_CHARS * sizeof(wchar_t);
		e = ControlTraceW(s->h, NULL, p, EVENT_TRACE_CONTROL_STOP);
		if (e != ERROR_SUCCESS && e != ERROR_MORE_DATA) {
			err = priv_fail(e, "ControlTraceW(stop)");
		} else {
			s->events_lost = p->EventsLost;
			s->buffers_written = p->BuffersWritten;
			s->buffers_lost = p->LogBuffersLost + p->RealTimeBuffersLost;
		}
	}
	rerr = pmuk_etw_machine_restore(&ops, &s->machine);
	return err ? err : rerr;
}

int pmuk_etw_session_stop(struct pmuk_etw_session *s)
{
	int err;

	AcquireSRWLockExclusive(&live_lock);
	err = stop_locked(s);
	ReleaseSRWLockExclusive(&live_lock);
	return err;
}

static void live_remove(struct pmuk_etw_session *s)
{
	AcquireSRWLockExclusive(&live_lock);
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == s)
			live[i] = NULL;
	ReleaseSRWLockExclusive(&live_lock);
}

void pmuk_etw_session_free(struct pmuk_etw_session *s)
{
	pmuk_etw_session_stop(s);
	live_remove(s);
	free(s->props);
	s->props = NULL;
}

/* Ctrl-C, Ctrl-Break, console close, logoff, shutdown: the process may end before
 * any stop runs, so stop every session and restore the settings now. FALSE: the
 * next handler decides (pmukit's own keeps the process for Ctrl-C; the recording
 * is then finished, as perf record's on SIGINT). */
static BOOL WINAPI on_console(DWORD type)
{
	(void)type;
	AcquireSRWLockExclusive(&live_lock);
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i])
			stop_locked(live[i]);
	ReleaseSRWLockExclusive(&live_lock);
	return FALSE;
}

static int live_add(struct pmuk_etw_session *s)
{
	int i;

	if (!InterlockedExchange(&handler_set, 1))
		SetConsoleCtrlHandler(on_console, TRUE);
	AcquireSRWLockExclusive(&live_lock);
	for (i = 0; i < MAX_LIVE && live[i]; i++)
		;
	if (i < MAX_LIVE)
		live[i] = s;
	ReleaseSRWLockExclusive(&live_lock);
	return i < MAX_LIVE ? 0 : pmuk_fail(PMU_EBUSY, "more than %d ETW sessions open in one "
					    "process", MAX_LIVE);
}

/* ---- leftovers of pmukit processes that died ---- */

typedef ULONG (WINAPI *qat_fn)(PEVENT_TRACE_PROPERTIES *, ULONG, PULONG);

static int pid_alive(uint32_t pid, void *ctx)
{
	HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, pid);
	int alive;

	(void)ctx;
	if (!h)  /* ERROR_INVALID_PARAMETER: no such process; else (denied) unknown */
		return GetLastError() == ERROR_INVALID_PARAMETER ? 0 : -1;
	alive = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
	CloseHandle(h);
	return alive;
}

#define SWEEP_MAX 64
#define SWEEP_CHARS 1024

static void stop_leftover(const EVENT_TRACE_PROPERTIES *p, const char *name)
{
	ULONG size = sizeof(*p) + 2 * SWEEP_CHARS * sizeof(wchar_t);
	EVENT_TRACE_PROPERTIES *q = calloc(1, size);
	const wchar_t *wname = (const wchar_t *)((const char *)p + p->LoggerNameOffset);
	ULONG e;

	if (!q)
		return;
	q->Wnode.BufferSize = size;
	q->LoggerNameOffset = sizeof(*q);
	q->LogFileNameOffset = sizeof(*q) + SWEEP_CHARS * sizeof(wchar_t);
	e = ControlTraceW(0, wname, q, EVENT_TRACE_CONTROL_STOP);
	pmuk_log(e == ERROR_SUCCESS ? PMU_LOG_INFO : PMU_LOG_WARN, "ETW session %s was left "
		 "by a pmukit process that is gone: %s", name, e == ERROR_SUCCESS ? "stopped" :
		 pmuk_win_strerror(e));
	free(q);
}

/* QueryAllTracesW, then ControlTraceW(STOP) of each "pmukit-<pid>-<n>" whose
 * process is gone (core/etw_host.c decides). Once per process; best effort. */
void pmuk_etw_sweep(void)
{
	qat_fn qat = (qat_fn)(void (*)(void))pmuk_win_proc(L"advapi32.dll", "QueryAllTracesW");
	ULONG one = sizeof(EVENT_TRACE_PROPERTIES) + 2 * SWEEP_CHARS * sizeof(wchar_t), n = 0;
	EVENT_TRACE_PROPERTIES *v[SWEEP_MAX];
	char *mem;

	if (InterlockedExchange(&swept, 1) || !qat || !(mem = calloc(SWEEP_MAX, one)))
		return;
	for (int i = 0; i < SWEEP_MAX; i++) {
		v[i] = (EVENT_TRACE_PROPERTIES *)(mem + (size_t)i * one);
		v[i]->Wnode.BufferSize = one;
		v[i]->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
		v[i]->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES) +
					  SWEEP_CHARS * sizeof(wchar_t);
	}
	if (qat(v, SWEEP_MAX, &n) == ERROR_SUCCESS)
		for (ULONG i = 0; i < n && i < SWEEP_MAX; i++) {
			const wchar_t *w = (const wchar_t *)((const char *)v[i] +
							     v[i]->LoggerNameOffset);
			char name[256];

			if (v[i]->LoggerNameOffset &&
			    WideCharToMultiByte(CP_UTF8, 0, w, -1, name, sizeof(name), NULL, NULL) &&
			    pmuk_etw_sweep_decide(name, GetCurrentProcessId(), pid_alive, NULL))
				stop_leftover(v[i], name);
		}
	free(mem);
}
