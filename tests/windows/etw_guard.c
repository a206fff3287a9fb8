/* SPDX-License-Identifier: MIT */
/* A Windows test program for the Wine smoke tests (smoke_etw_guard.sh), linked with
 * the library's internals: an ETW session (Wine fakes StartTraceW and ControlTraceW)
 * with machine-wide settings to restore, then
 *   etw_guard ctrl OUT   Ctrl-C to the console (run it on a pty): pmukit's console
 *                        handler must stop the session and restore the settings
 *                        before the process's own handler keeps it alive;
 *   etw_guard props OUT  the EVENT_TRACE_PROPERTIES of a file session
 *                        (MaximumFileSize, sequential) and the group-mask twins the
 *                        session accepts.
 * Results go to OUT, one "key value" a line, LF-ended (a pty garbles stdout under
 * Wine). */
#include "windows/win.h"
#include "core/etw_host.h"

#include <pmukit/error.h>
#include <stdio.h>
#include <string.h>

static volatile LONG seen;

static BOOL WINAPI keep_alive(DWORD type)
{
	InterlockedExchange(&seen, (LONG)type + 1);
	return TRUE;  /* as pmukit record: the process goes on and finishes */
}

static int ctrl(FILE *out)
{
	struct pmuk_etw_session s;
	int err;

	SetConsoleCtrlHandler(keep_alive, TRUE);  /* first: pmukit's runs before it */
	err = pmuk_etw_session_start(&s, NULL, 64, EVENT_TRACE_FLAG_THREAD);
	fprintf(out, "start %d\n", err);
	/* A setting pmukit changed: Ctrl-C must put interval 10000 of source 0 back. */
	s.machine.n = 1;
	s.machine.source[0] = PMUK_PROFILE_TIME;
	s.machine.prev[0] = 10000;
	fprintf(out, "running_before %d\n", s.running);
	fprintf(out, "generate %d\n", GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0) ? 1 : 0);
	for (int i = 0; i < 200 && !seen; i++)
		Sleep(10);
	fprintf(out, "own_handler %ld\n", (long)seen - 1);
	fprintf(out, "running_after %d\n", s.running);
	fprintf(out, "restore_pending %zu\n", s.machine.n);
	pmuk_etw_session_free(&s);
	return 0;
}

static int props(FILE *out, const char *etl)
{
	struct pmuk_etw_session s;
	struct pmuk_etw_groups g = { .classic = EVENT_TRACE_FLAG_PROCESS, .profile = 1,
				     .cswitch = 1 };
	uint32_t mask[8];
	int err = pmuk_etw_session_start(&s, etl, 64, EVENT_TRACE_FLAG_PROCESS);

	fprintf(out, "start %d\n", err);
	if (s.props) {
		fprintf(out, "max_file_mb %lu\n", (unsigned long)s.props->MaximumFileSize);
		fprintf(out, "sequential %d\n",
			!!(s.props->LogFileMode & EVENT_TRACE_FILE_MODE_SEQUENTIAL));
		fprintf(out, "kernel_logger %d\n", s.kernel_logger);
	}
	pmuk_etw_group_mask(&g, mask);
	err = pmuk_etw_session_enable(&s, mask);
	fprintf(out, "enable_twins %d\n", err);
	g.pmc = 1;
	pmuk_etw_group_mask(&g, mask);
	err = pmuk_etw_session_enable(&s, mask);
	fprintf(out, "enable_pmc %d %s\n", err, err ? pmu_error_detail() : "");
	pmuk_etw_session_free(&s);
	return 0;
}

int main(int argc, char **argv)
{
	FILE *out;
	int rc;

	if (argc < 3 || !(out = fopen(argv[2], "wb"))) {
		fprintf(stderr, "usage: etw_guard ctrl|props OUT [ETL]\n");
		return 2;
	}
	rc = !strcmp(argv[1], "ctrl") ? ctrl(out) : props(out, argc > 3 ? argv[3] : "x.etl");
	fclose(out);
	return rc;
}
