/* SPDX-License-Identifier: MIT */
/* What stat's run loop needs of a POSIX OS (stat.h, "The OS under the run loop"):
 * SIGINT/SIGTERM caught for the whole run, passing a kill on to the command, and
 * whether an attached task still runs. stat_os_win.c is the Windows half. */
#include "stat.h"

#include "linux/perf_event.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t stop_signo, stop_aimed;
static struct sigaction old_stop[2], old_chld;
static const int stop_sigs[2] = { SIGINT, SIGTERM };

static void on_stop(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	stop_signo = sig;
	/* a terminal's Ctrl-C reaches the command too; a kill aimed at us is passed on */
	stop_aimed = si && (si->si_code == SI_USER || si->si_code == SI_QUEUE ||
			    si->si_code == SI_TKILL);
}

double stat_os_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

void stat_os_catch(void)
{
	/* SA_RESTART: a read or write is not cut short; the loop's waits (poll,
	 * nanosleep) return early all the same */
	struct sigaction sa = { .sa_sigaction = on_stop, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	sigemptyset(&sa.sa_mask);
	stop_signo = 0;
	for (int i = 0; i < 2; i++) {
		sigaction(stop_sigs[i], NULL, &old_stop[i]);
		/* ignored by the caller (a background job): the command keeps that, as
		 * exec keeps SIG_IGN */
		if (old_stop[i].sa_handler != SIG_IGN)
			sigaction(stop_sigs[i], &sa, NULL);
	}
	/* SIGCHLD ignored (inherited from our parent) would reap the command for us
	 * and leave no status to wait for: the default for the run. */
	sigaction(SIGCHLD, &dfl, &old_chld);
}

void stat_os_release(void)
{
	for (int i = 0; i < 2; i++)
		sigaction(stop_sigs[i], &old_stop[i], NULL);
	sigaction(SIGCHLD, &old_chld, NULL);
}

int stat_os_stop_pending(void)
{
	return stop_signo;
}

int stat_os_take_stop(int *aimed)
{
	int sig = stop_signo;

	*aimed = stop_aimed;
	stop_signo = 0;
	return sig;
}

void stat_os_signal(struct pmu_command *cmd, int sig)
{
	kill(pmu_command_pid(cmd), sig);
}

void stat_os_terminate(struct pmu_command *cmd)
{
	kill(pmu_command_pid(cmd), SIGTERM);	/* as perf's --timeout */
}

int stat_os_target_gone(const struct pmu_target *t)
{
	size_t n = t->pids ? t->npids : 1;

	/* -p A,B: counting goes on while any of them runs, as perf */
	for (size_t i = 0; i < n; i++)
		if (!kill(t->pids ? t->pids[i] : t->pid, 0) || errno != ESRCH)
			return 0;
	return 1;
}

void stat_os_sleep(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	if (!stop_signo)
		nanosleep(&ts, NULL);	/* a stop signal ends it early (EINTR) */
}

int stat_os_exited(int wait_status)
{
	return WIFEXITED(wait_status);
}

int stat_os_terminated(int wait_status)
{
	return WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGTERM;
}

int stat_os_paranoid(void)
{
	return pmuk_perf_paranoid();
}

int stat_os_check(const struct stat_config *cfg)
{
	(void)cfg;
	return 0;
}

const char *stat_os_note(const struct pmu_counters *c, const struct pmu_command *cmd)
{
	(void)c;
	(void)cmd;
	return NULL;	/* perf's counts need no words here */
}
