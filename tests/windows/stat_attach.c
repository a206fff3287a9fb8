/* SPDX-License-Identifier: MIT */
/* A Windows test program for the Wine smoke tests: starts TARGET ARGS... , then
 * `PMUKIT stat -p <its pid>`, and prints how long pmukit ran after the target had
 * ended. `pmukit stat -p` must end by itself once the process it counts is gone, as
 * on Linux (it used to wait for Ctrl-C on Windows).
 *   stat_attach.exe PMUKIT TARGET ARGS...
 * Prints "target_ms N", "after_ms N", "rc N"; exits 0 when pmukit ended within 10 s
 * of the target, 1 otherwise. */
#include <windows.h>
#include <stdio.h>
#include <string.h>

static int spawn(const char *cmdline, PROCESS_INFORMATION *pi)
{
	STARTUPINFOA si = { .cb = sizeof(si) };
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", cmdline);
	return CreateProcessA(NULL, buf, NULL, NULL, TRUE, 0, NULL, NULL, &si, pi) ? 0 : -1;
}

int main(int argc, char **argv)
{
	PROCESS_INFORMATION target, stat;
	char line[4096] = "";
	DWORD rc = 1, w;
	ULONGLONG t0, t1, t2;

	if (argc < 3)
		return 2;
	for (int i = 2; i < argc; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "\"%s\" ", argv[i]);
	t0 = GetTickCount64();
	if (spawn(line, &target))
		return printf("cannot start %s\n", argv[2]), 2;
	snprintf(line, sizeof(line), "\"%s\" stat -p %lu", argv[1],
		 (unsigned long)target.dwProcessId);
	if (spawn(line, &stat))
		return printf("cannot start %s\n", argv[1]), 2;
	WaitForSingleObject(target.hProcess, INFINITE);
	t1 = GetTickCount64();
	w = WaitForSingleObject(stat.hProcess, 10000);
	t2 = GetTickCount64();
	if (w != WAIT_OBJECT_0)
		TerminateProcess(stat.hProcess, 99);
	GetExitCodeProcess(stat.hProcess, &rc);
	printf("target_ms %llu\nafter_ms %llu\nrc %lu\n", t1 - t0, t2 - t1, (unsigned long)rc);
	return w == WAIT_OBJECT_0 ? 0 : 1;
}
