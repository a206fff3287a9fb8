/* SPDX-License-Identifier: MIT */
/* What stat's run loop needs of Windows (stat.h, "The OS under the run loop"): the
 * console's Ctrl-C, process handles for an attached task, TerminateProcess for
 * --timeout. stat_os.c is the POSIX half. */
#include "stat.h"

#include "windows/win.h"

#include <signal.h>
#include <string.h>

#define STATUS_CONTROL_C_EXIT_ 0xC000013AUL

static volatile LONG stop_signo;
/* Set by Ctrl-C: ends stat_os_sleep early. Created once and never closed: the
 * console handler runs on a thread of its own and may still be about to set it
 * after stat_os_release removed the handler, and a closed handle's value can
 * name another object by then. */
static HANDLE wake;

static BOOL WINAPI on_ctrl(DWORD type)
{
	if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT)
		return FALSE;
	InterlockedExchange(&stop_signo, SIGINT);
	if (wake)
		SetEvent(wake);
	return TRUE;	/* we live on to print the counts; the command got it too */
}

double stat_os_now_ns(void)
{
	LARGE_INTEGER t, f;

	QueryPerformanceCounter(&t);
	QueryPerformanceFrequency(&f);
	return (double)t.QuadPart * 1e9 / (double)f.QuadPart;
}

void stat_os_catch(void)
{
	InterlockedExchange(&stop_signo, 0);
	if (!wake)
		wake = CreateEventW(NULL, FALSE, FALSE, NULL);
	else
		ResetEvent(wake);  /* a Ctrl-C of the previous run is not this run's */
	SetConsoleCtrlHandler(on_ctrl, TRUE);
}

void stat_os_release(void)
{
	SetConsoleCtrlHandler(on_ctrl, FALSE);
}

int stat_os_stop_pending(void)
{
	return (int)InterlockedCompareExchange(&stop_signo, 0, 0);
}

int stat_os_take_stop(int *aimed)
{
	*aimed = 0;	/* the console gives Ctrl-C to every process on it: nothing to pass on */
	return (int)InterlockedExchange(&stop_signo, 0);
}

void stat_os_signal(struct pmu_command *cmd, int sig)
{
	(void)cmd;
	(void)sig;
}

void stat_os_terminate(struct pmu_command *cmd)
{
	TerminateProcess(pmuk_command_handle(cmd), 1);
}

/* 1 when the process or thread id is gone (or exited, its handle still held). */
static int task_gone(enum pmu_target_kind kind, int id)
{
	HANDLE h = kind == PMU_TARGET_TID ? OpenThread(SYNCHRONIZE, FALSE, (DWORD)id)
					  : OpenProcess(SYNCHRONIZE, FALSE, (DWORD)id);
	int gone;

	if (!h)	/* no such id; one we may not open is still there */
		return GetLastError() == ERROR_INVALID_PARAMETER;
	gone = WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
	CloseHandle(h);
	return gone;
}

int stat_os_target_gone(const struct pmu_target *t)
{
	size_t n = t->pids ? t->npids : 1;

	for (size_t i = 0; i < n; i++)
		if (!task_gone(t->kind, t->pids ? t->pids[i] : t->pid))
			return 0;
	return 1;
}

void stat_os_sleep(int ms)
{
	if (stat_os_stop_pending())
		return;
	if (!wake || WaitForSingleObject(wake, (DWORD)ms) == WAIT_FAILED)
		Sleep((DWORD)ms);  /* no event (CreateEventW failed): no busy loop */
}

int stat_os_exited(int wait_status)
{
	return (DWORD)wait_status != STATUS_CONTROL_C_EXIT_;
}

int stat_os_terminated(int wait_status)
{
	(void)wait_status;	/* TerminateProcess(h, 1): nothing else says 1 apart */
	return 1;
}

int stat_os_paranoid(void)
{
	return -1;	/* no such setting: the user-only fallback is Linux's */
}

int stat_os_check(const struct stat_config *cfg)
{
	if (stat_per_cpu(cfg) || cfg->target.kind == PMU_TARGET_CPUS) {
		fprintf(stderr, "pmukit stat: -a, -C and --per-cpu are not available on "
			"Windows (pmukit counts a process or thread there)\n");
		return 2;
	}
	return 0;
}

/* Item 7 of issue 13: GetThreadTimes/GetProcessTimes advance by whole clock ticks
 * (15.6 ms by default), so a short command's task-clock is 0 or one tick. Item 6:
 * with a job, task-clock and page-faults are the command's and its children's. */
const char *stat_os_note(const struct pmu_counters *c, const struct pmu_command *cmd)
{
	static char note[512];
	int clock = 0, job = 0, ref = 0, nproc = pmuk_command_processes(cmd);

	for (size_t i = 0; i < pmu_counters_event_count(c); i++) {
		int g = pmu_counters_event(c, i)->generic;

		if (pmu_counters_unsupported(c, i))
			continue;
		clock |= g == PMU_GENERIC_TASK_CLOCK || g == PMU_GENERIC_CPU_CLOCK;
		ref |= g == PMU_GENERIC_REF_CYCLES;
		job |= clock || g == PMU_GENERIC_PAGE_FAULTS;
	}
	note[0] = '\0';
	if (nproc > 1)
		snprintf(note, sizeof(note), "%d processes ran in the command's job object (it "
			 "and those it started)%s%s%s", nproc,
			 job ? ": task-clock and page-faults count them all" : "",
			 ref ? "; ref-cycles counts the command's own process only "
			 "(QueryProcessCycleTime; a job keeps no cycle total)" : "",
			 clock ? "; " : "");
	if (clock)
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "Windows counts CPU "
			 "time in whole clock ticks (15.6 ms by default): task-clock is exact "
			 "only to a tick per thread");
	return note[0] ? note : NULL;
}
