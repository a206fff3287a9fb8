/* SPDX-License-Identifier: MIT */
/* pmu_command_* on Windows: the child is created suspended, counters attach to it,
 * then its first thread is resumed. The wait status is the child's exit code. */
#include "windows/win.h"
#include "core/command_int.h"
#include "core/error.h"

#include <pmukit/command.h>
#include <stdlib.h>
#include <string.h>

struct pmu_command {
	PMUK_COMMAND_HEAD /* first: pid, started, reaped (core/command_int.h) */
	PROCESS_INFORMATION pi;
};

PMUK_COMMAND_HEAD_CHECK(struct pmu_command);

/* Appends arg quoted the way CommandLineToArgvW and the CRT split it again. */
static size_t quote_arg(wchar_t *out, const wchar_t *arg)
{
	size_t o = 0, bs = 0;
	int quote = !*arg || wcspbrk(arg, L" \t\n\v\"") != NULL;

	if (!quote) {
		size_t n = wcslen(arg);

		if (out)
			memcpy(out, arg, n * sizeof(wchar_t));
		return n;
	}
	if (out)
		out[o] = L'"';
	o++;
	for (const wchar_t *p = arg;; p++) {
		if (*p == L'\\') {
			bs++;
			continue;
		}
		/* Backslashes double before a quote (written or closing); else stay as is. */
		size_t times = !*p || *p == L'"' ? bs * 2 + (*p == L'"') : bs;

		for (size_t i = 0; i < times; i++, o++)
			if (out)
				out[o] = L'\\';
		bs = 0;
		if (!*p)
			break;
		if (out)
			out[o] = *p;
		o++;
	}
	if (out)
		out[o] = L'"';
	return o + 1;
}

static wchar_t *widen(const char *s)
{
	int n = MultiByteToWideChar(CP_ACP, 0, s, -1, NULL, 0);
	wchar_t *w = n > 0 ? malloc((size_t)n * sizeof(wchar_t)) : NULL;

	if (w)
		MultiByteToWideChar(CP_ACP, 0, s, -1, w, n);
	return w;
}

static wchar_t *command_line(char *const argv[])
{
	size_t len = 1, o = 0;
	wchar_t *line, **w;
	int n = 0;

	while (argv[n])
		n++;
	w = calloc((size_t)n + 1, sizeof(*w));
	if (!w)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (!(w[i] = widen(argv[i])))
			goto fail;
		len += quote_arg(NULL, w[i]) + 1;
	}
	line = malloc(len * sizeof(wchar_t));
	if (!line)
		goto fail;
	for (int i = 0; i < n; i++) {
		if (i)
			line[o++] = L' ';
		o += quote_arg(line + o, w[i]);
	}
	line[o] = L'\0';
	for (int i = 0; i < n; i++)
		free(w[i]);
	free(w);
	return line;
fail:
	for (int i = 0; i < n; i++)
		free(w[i]);
	free(w);
	return NULL;
}

int pmuk_command_os_prepare(char *const argv[], struct pmu_command **out)
{
	STARTUPINFOW si = { .cb = sizeof(si) };
	struct pmu_command *cmd;
	wchar_t *line;
	DWORD e;

	cmd = calloc(1, sizeof(*cmd));
	line = command_line(argv);
	if (!cmd || !line) {
		free(cmd);
		free(line);
		return pmuk_fail(PMU_ENOMEM, "out of memory preparing '%s'", argv[0]);
	}
	/* CreateProcessW searches the application directory, system directories and PATH
	 * for the first token, adding .exe. */
	if (!CreateProcessW(NULL, line, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si,
			    &cmd->pi)) {
		e = GetLastError();
		free(line);
		free(cmd);
		if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
			return pmuk_fail(PMU_ENOENT, "cannot run '%s': no such program in the "
					 "current directory, the system directories or PATH", argv[0]);
		if (e == ERROR_ACCESS_DENIED)
			return pmuk_fail(PMU_EPERM, "cannot run '%s': access denied", argv[0]);
		return pmuk_fail(PMU_EIO, "cannot run '%s': CreateProcess failed: %s", argv[0],
				 pmuk_win_strerror(e));
	}
	free(line);
	cmd->pid = (int)cmd->pi.dwProcessId;
	*out = cmd;
	return 0;
}

int pmuk_command_os_start(struct pmu_command *cmd)
{
	if (ResumeThread(cmd->pi.hThread) == (DWORD)-1)
		return pmuk_fail(PMU_EIO, "cannot start the command: ResumeThread failed: %s",
				 pmuk_win_strerror(GetLastError()));
	cmd->started = 1;
	return 0;
}

int pmuk_command_os_wait(struct pmu_command *cmd, int *wait_status)
{
	DWORD code;

	if (WaitForSingleObject(cmd->pi.hProcess, INFINITE) != WAIT_OBJECT_0)
		return pmuk_fail(PMU_EIO, "waiting for the command failed: %s",
				 pmuk_win_strerror(GetLastError()));
	if (!GetExitCodeProcess(cmd->pi.hProcess, &code))
		return pmuk_fail(PMU_EIO, "cannot read the command's exit code: %s",
				 pmuk_win_strerror(GetLastError()));
	cmd->reaped = 1;
	if (wait_status)
		*wait_status = (int)code;
	return 0;
}

int pmuk_command_os_wait_timeout(struct pmu_command *cmd, int timeout_ms, int *wait_status)
{
	DWORD r = WaitForSingleObject(cmd->pi.hProcess, timeout_ms < 0 ? INFINITE :
				      (DWORD)timeout_ms);
	int err;

	if (r == WAIT_TIMEOUT)
		return 0;
	if (r != WAIT_OBJECT_0)
		return pmuk_fail(PMU_EIO, "waiting for the command failed: %s",
				 pmuk_win_strerror(GetLastError()));
	err = pmuk_command_os_wait(cmd, wait_status); /* returns at once: it has exited */
	return err < 0 ? err : 1;
}

/* The process handle, for the Windows tool's wait loop (process_win.h). */
HANDLE pmuk_command_handle(const struct pmu_command *cmd)
{
	return cmd ? cmd->pi.hProcess : NULL;
}

void pmuk_command_os_free(struct pmu_command *cmd)
{
	if (!cmd->reaped && WaitForSingleObject(cmd->pi.hProcess, 0) == WAIT_TIMEOUT) {
		TerminateProcess(cmd->pi.hProcess, 1);
		WaitForSingleObject(cmd->pi.hProcess, 5000);
	}
	CloseHandle(cmd->pi.hThread);
	CloseHandle(cmd->pi.hProcess);
	free(cmd);
}
