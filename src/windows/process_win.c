/* SPDX-License-Identifier: MIT */
/* pmu_command_* on Windows: the child is created suspended in a job object of its
 * own, counters attach to it, then its first thread is resumed. What it starts
 * joins the job, so the job's accounting (CPU times, page faults, processes) covers
 * `cmd /c build.bat` whole, as perf stat counts children. The wait status is the
 * child's exit code. Arguments are UTF-8, converted strictly to UTF-16. */
#include "windows/win.h"
#include "core/command_int.h"
#include "core/error.h"
#include "core/utf8.h"

#include <pmukit/command.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pmu_command {
	PMUK_COMMAND_HEAD /* first: pid, started, reaped (core/command_int.h) */
	PROCESS_INFORMATION pi;
	HANDLE job;          /* NULL when the process could not be put in one */
};

/* The live commands' jobs by pid, for the counters of a PMU_TARGET_PID with inherit
 * (counting_win.c), which know only the pid. */
#define MAX_JOBS 16
static SRWLOCK jobs_lock = SRWLOCK_INIT;
static struct { DWORD pid; HANDLE job; } jobs[MAX_JOBS];

static void jobs_set(DWORD pid, HANDLE job)
{
	AcquireSRWLockExclusive(&jobs_lock);
	for (int i = 0; i < MAX_JOBS; i++)
		if (job ? !jobs[i].job : jobs[i].pid == pid && jobs[i].job) {
			jobs[i].pid = pid;
			jobs[i].job = job;
			break;
		}
	ReleaseSRWLockExclusive(&jobs_lock);
}

HANDLE pmuk_command_job_dup(int pid)
{
	HANDLE dup = NULL;

	AcquireSRWLockShared(&jobs_lock);
	for (int i = 0; i < MAX_JOBS && !dup; i++)
		if (jobs[i].job && jobs[i].pid == (DWORD)pid &&
		    !DuplicateHandle(GetCurrentProcess(), jobs[i].job, GetCurrentProcess(), &dup,
				     0, FALSE, DUPLICATE_SAME_ACCESS))
			dup = NULL;
	ReleaseSRWLockShared(&jobs_lock);
	return dup;
}

int pmuk_job_accounting(HANDLE job, struct pmuk_job_counts *out)
{
	JOBOBJECT_BASIC_ACCOUNTING_INFORMATION a;

	if (!QueryInformationJobObject(job, JobObjectBasicAccountingInformation, &a,
				       sizeof(a), NULL))
		return pmuk_fail(PMU_EIO, "reading the job's accounting failed: %s",
				 pmuk_win_strerror(GetLastError()));
	out->cpu_100ns = (uint64_t)a.TotalUserTime.QuadPart + (uint64_t)a.TotalKernelTime.QuadPart;
	out->page_faults = a.TotalPageFaultCount;
	out->processes = a.TotalProcesses;
	return 0;
}

int pmuk_command_processes(const struct pmu_command *cmd)
{
	struct pmuk_job_counts c;

	if (!cmd || !cmd->job || pmuk_job_accounting(cmd->job, &c)) {
		pmuk_clear_detail();
		return -1;
	}
	return (int)c.processes;
}

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

/* The command line of UTF-8 argv; 0, PMU_ENOMEM, or PMU_EINVAL naming the argument
 * that is not UTF-8 (the ANSI code page would have named another file). */
static int command_line(char *const argv[], wchar_t **out)
{
	size_t len = 1, o = 0;
	wchar_t *line, **w;
	int n = 0, err = 0;

	*out = NULL;
	while (argv[n])
		n++;
	w = calloc((size_t)n + 1, sizeof(*w));
	if (!w)
		return pmuk_fail(PMU_ENOMEM, "out of memory preparing '%s'", argv[0]);
	for (int i = 0; i < n; i++) {
		if ((err = pmuk_utf8_to_utf16(argv[i], (uint16_t **)&w[i]))) {
			char why[200];

			snprintf(why, sizeof(why), "%s", pmu_error_detail());
			err = err == PMU_EINVAL ? pmuk_fail(err, "argument %d of the command: %s",
							    i, why) : err;
			goto fail;
		}
		len += quote_arg(NULL, w[i]) + 1;
	}
	line = malloc(len * sizeof(wchar_t));
	if (!line) {
		err = pmuk_fail(PMU_ENOMEM, "out of memory preparing '%s'", argv[0]);
		goto fail;
	}
	for (int i = 0; i < n; i++) {
		if (i)
			line[o++] = L' ';
		o += quote_arg(line + o, w[i]);
	}
	line[o] = L'\0';
	*out = line;
fail:  /* and success (err 0): the UTF-16 arguments are freed either way */
	for (int i = 0; i < n; i++)
		free(w[i]);
	free(w);
	return err;
}

/* A job of the command's own; a job it cannot have (nested jobs before Windows 8,
 * a parent job without breakaway) leaves it counted as one process. The job lets a
 * child that asks for CREATE_BREAKAWAY_FROM_JOB leave (CreateProcess would fail with
 * access denied otherwise, which the command alone never meets); such a child is
 * not counted. */
static void join_job(struct pmu_command *cmd)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim = { 0 };

	cmd->job = CreateJobObjectW(NULL, NULL);
	lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_BREAKAWAY_OK;
	if (cmd->job && !SetInformationJobObject(cmd->job, JobObjectExtendedLimitInformation,
						 &lim, sizeof(lim)))
		pmuk_log(PMU_LOG_WARN, "the command's job object does not allow breakaway (%s): "
			 "a child started with CREATE_BREAKAWAY_FROM_JOB will fail",
			 pmuk_win_strerror(GetLastError()));
	if (cmd->job && AssignProcessToJobObject(cmd->job, cmd->pi.hProcess)) {
		jobs_set(cmd->pi.dwProcessId, cmd->job);
		return;
	}
	pmuk_log(PMU_LOG_WARN, "the command runs outside a job object (%s): what it starts is "
		 "not counted", pmuk_win_strerror(GetLastError()));
	if (cmd->job)
		CloseHandle(cmd->job);
	cmd->job = NULL;
}

int pmuk_command_os_prepare(char *const argv[], struct pmu_command **out)
{
	STARTUPINFOW si = { .cb = sizeof(si) };
	struct pmu_command *cmd;
	wchar_t *line;
	DWORD e;
	int err;

	if ((err = command_line(argv, &line)))
		return err;
	if (!(cmd = calloc(1, sizeof(*cmd)))) {
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
	join_job(cmd);  /* suspended: it has started nothing yet */
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
	if (cmd->job) {
		jobs_set(cmd->pi.dwProcessId, NULL);
		CloseHandle(cmd->job);  /* what the command left running runs on */
	}
	CloseHandle(cmd->pi.hThread);
	CloseHandle(cmd->pi.hProcess);
	free(cmd);
}
