/* SPDX-License-Identifier: MIT */
/* A child held between fork and exec: it blocks reading a pipe until
 * pmu_command_start(), so counters can be attached first. An exec failure comes
 * back as the child's errno through a close-on-exec pipe (EOF means exec worked). */
#include "core/command_int.h"
#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct pmu_command {
	PMUK_COMMAND_HEAD /* first: pid, started, reaped (core/command_int.h) */
	int go_fd;      /* our end: one byte releases the child; EOF tells it to quit */
	int err_fd;     /* read end: the child's exec errno, or EOF */
	int status;
	char name[256];
};

static void child(char *const argv[], int go, int err)
{
	char c;
	ssize_t r;
	int e;

	do
		r = read(go, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		_exit(127); /* freed without start */
	close(go);
	execvp(argv[0], argv);
	e = errno;
	while (write(err, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(e == ENOENT ? 127 : 126);
}

PMUK_COMMAND_HEAD_CHECK(struct pmu_command);

int pmuk_command_os_prepare(char *const argv[], struct pmu_command **out)
{
	struct pmu_command *cmd;
	int go[2], err[2];

	cmd = calloc(1, sizeof(*cmd));
	if (!cmd)
		return pmuk_fail(PMU_ENOMEM, "out of memory preparing %s", argv[0]);
	snprintf(cmd->name, sizeof(cmd->name), "%s", argv[0]);
	/* A socket for "go", so a dead child gives EPIPE without SIGPIPE (MSG_NOSIGNAL). */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) < 0) {
		free(cmd);
		return pmuk_fail(PMU_EIO, "pipe for %s: %s", argv[0], strerror(errno));
	}
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		free(cmd);
		return pmuk_fail(PMU_EIO, "pipe for %s: %s", argv[0], strerror(errno));
	}
	cmd->pid = fork();
	if (cmd->pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		free(cmd);
		return pmuk_fail(e == EAGAIN ? PMU_EBUSY : PMU_EIO, "fork for %s: %s (process "
				 "limit?)", argv[0], strerror(e));
	}
	if (cmd->pid == 0) {
		close(go[1]);
		close(err[0]);
		child(argv, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);
	cmd->go_fd = go[1];
	cmd->err_fd = err[0];
	*out = cmd;
	return 0;
}

static void reap(struct pmu_command *cmd)
{
	while (!cmd->reaped) {
		if (waitpid(cmd->pid, &cmd->status, 0) == cmd->pid)
			cmd->reaped = 1;
		else if (errno != EINTR)
			break;
	}
}

int pmuk_command_os_start(struct pmu_command *cmd)
{
	char c = 1;
	ssize_t r;
	int e;

	cmd->started = 1;
	do
		r = send(cmd->go_fd, &c, 1, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	close(cmd->go_fd);
	cmd->go_fd = -1;
	if (r != 1) {
		reap(cmd);
		return pmuk_fail(PMU_EIO, "%s exited before it could start", cmd->name);
	}
	do
		r = read(cmd->err_fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(cmd->err_fd);
	cmd->err_fd = -1;
	if (r == 0)
		return 0; /* the pipe closed on exec */
	if (r != (ssize_t)sizeof(e))
		return pmuk_fail(PMU_EIO, "lost track of %s before exec", cmd->name);
	reap(cmd);
	switch (e) {
	case ENOENT:
	case ENOTDIR:
		return pmuk_fail(PMU_ENOENT, "cannot run '%s': command not found (%s)", cmd->name,
				 strchr(cmd->name, '/') ? "no such file" : "not in PATH");
	case EACCES:
	case EPERM:
		return pmuk_fail(PMU_EPERM, "cannot run '%s': permission denied (%s: it is not an "
				 "executable file, or a directory on its path cannot be searched)",
				 cmd->name, e == EACCES ? "EACCES" : "EPERM");
	default:
		return pmuk_fail(PMU_EIO, "cannot execute %s: %s", cmd->name, strerror(e));
	}
}

int pmuk_command_os_wait(struct pmu_command *cmd, int *wait_status)
{
	if (!cmd->reaped) {
		if (waitpid(cmd->pid, &cmd->status, 0) != cmd->pid) {
			if (errno == EINTR)
				return pmuk_fail(PMU_EIO, "interrupted");
			return pmuk_fail(PMU_EIO, "waiting for %s (pid %d): %s", cmd->name,
					 (int)cmd->pid, strerror(errno));
		}
		cmd->reaped = 1;
	}
	if (wait_status)
		*wait_status = cmd->status;
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A pidfd (Linux 5.3) becomes readable when the child exits; without one, poll the
 * child with WNOHANG every few milliseconds. Either way the child is reaped here. */
int pmuk_command_os_wait_timeout(struct pmu_command *cmd, int timeout_ms, int *wait_status)
{
	int64_t end = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	int fd = -1, rc = 1;

#ifdef SYS_pidfd_open
	if (!cmd->reaped)
		fd = (int)syscall(SYS_pidfd_open, cmd->pid, 0);
#endif
	while (!cmd->reaped) {
		pid_t r = waitpid(cmd->pid, &cmd->status, WNOHANG);
		int64_t left = end < 0 ? -1 : end - now_ms();
		int wait;

		if (r == cmd->pid) {
			cmd->reaped = 1;
			break;
		}
		if (r < 0 && errno != EINTR) {
			rc = pmuk_fail(PMU_EIO, "waiting for %s (pid %d): %s", cmd->name, cmd->pid,
				       strerror(errno));
			break;
		}
		if (end >= 0 && left <= 0) {
			rc = 0;
			break;
		}
		wait = left < 0 || left > INT_MAX ? -1 : (int)left;
		if (fd >= 0) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (poll(&p, 1, wait) < 0 && errno == EINTR) {
				rc = pmuk_fail(PMU_EIO, "interrupted");
				break;
			}
		} else {
			struct timespec ts = { 0, 5 * 1000000L };

			if (wait >= 0 && wait < 5)
				ts.tv_nsec = wait * 1000000L;
			if (nanosleep(&ts, NULL) < 0 && errno == EINTR) {
				rc = pmuk_fail(PMU_EIO, "interrupted");
				break;
			}
		}
	}
	/* every way out: the pidfd closed here, the status given only once reaped */
	if (fd >= 0)
		close(fd);
	if (rc == 1 && wait_status)
		*wait_status = cmd->status;
	return rc;
}

void pmuk_command_os_free(struct pmu_command *cmd)
{
	if (cmd->go_fd >= 0)
		close(cmd->go_fd); /* a held child reads EOF and exits */
	if (cmd->err_fd >= 0)
		close(cmd->err_fd);
	if (!cmd->reaped && cmd->started)
		kill(cmd->pid, SIGKILL);
	reap(cmd);
	free(cmd);
}
