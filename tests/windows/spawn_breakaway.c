/* SPDX-License-Identifier: MIT */
/* A Windows test program for the Wine smoke tests: runs the rest of its command line
 * as a child created with CREATE_BREAKAWAY_FROM_JOB (as installers and service hosts
 * do), waits for it and exits with its status; 2 when CreateProcess refused, with
 * the Win32 error on stderr. Under `pmukit stat --` the child asks to leave the
 * command's job: pmukit must allow that, as running the command alone would. */
#include <windows.h>
#include <stdio.h>
#include <wchar.h>

int main(void)
{
	wchar_t *line = GetCommandLineW();
	STARTUPINFOW si = { .cb = sizeof(si) };
	PROCESS_INFORMATION pi;
	DWORD code = 2;
	int quoted = 0;

	/* skip argv[0] (quoted or not) and the blanks after it */
	for (; *line && (quoted || (*line != L' ' && *line != L'\t')); line++)
		if (*line == L'"')
			quoted = !quoted;
	while (*line == L' ' || *line == L'\t')
		line++;
	if (!*line) {
		fprintf(stderr, "usage: spawn_breakaway PROGRAM [ARGS...]\n");
		return 2;
	}
	if (!CreateProcessW(NULL, line, NULL, NULL, FALSE, CREATE_BREAKAWAY_FROM_JOB, NULL,
			    NULL, &si, &pi)) {
		fprintf(stderr, "spawn_breakaway: CreateProcess(CREATE_BREAKAWAY_FROM_JOB) "
			"failed: Win32 error %lu\n", (unsigned long)GetLastError());
		return 2;
	}
	WaitForSingleObject(pi.hProcess, INFINITE);
	GetExitCodeProcess(pi.hProcess, &code);
	CloseHandle(pi.hThread);
	CloseHandle(pi.hProcess);
	return (int)code;
}
