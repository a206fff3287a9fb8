/* SPDX-License-Identifier: MIT */
/* A command held before exec: exit status, exec failures, counting from exec on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <pmukit/command.h>
#include <pmukit/error.h>
#include "linux/counters.h"

static void test_exit_status(void **state)
{
	char *argv[] = { "sh", "-c", "exit 7", NULL };
	struct pmu_command *cmd;
	int status = 0;

	(void)state;
	assert_int_equal(pmu_command_prepare(argv, &cmd), 0);
	assert_true(pmu_command_pid(cmd) > 0);
	assert_int_equal(pmu_command_start(cmd), 0);
	assert_int_equal(pmu_command_start(cmd), PMU_EINVAL); /* only once */
	assert_int_equal(pmu_command_wait(cmd, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 7);
	/* waiting again returns the same status */
	status = 0;
	assert_int_equal(pmu_command_wait(cmd, &status), 0);
	assert_int_equal(WEXITSTATUS(status), 7);
	pmu_command_free(cmd);
}

/* A timed wait: 0 while the child runs, 1 with its status once it exited, and the
 * same again after that. */
static void test_wait_timeout(void **state)
{
	char *argv[] = { "sh", "-c", "sleep 1; exit 5", NULL };
	struct pmu_command *cmd;
	struct timespec t0, t1;
	int status = 0;
	double ms;

	(void)state;
	assert_int_equal(pmu_command_wait_timeout(NULL, 0, &status), PMU_EINVAL);
	assert_int_equal(pmu_command_prepare(argv, &cmd), 0);
	assert_int_equal(pmu_command_wait_timeout(cmd, -2, &status), PMU_EINVAL);
	assert_int_equal(pmu_command_start(cmd), 0);
	assert_int_equal(pmu_command_wait_timeout(cmd, 0, &status), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(pmu_command_wait_timeout(cmd, 50, &status), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	assert_true(ms >= 45 && ms < 900);
	assert_int_equal(pmu_command_wait_timeout(cmd, 10000, &status), 1);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 5);
	status = 0;
	assert_int_equal(pmu_command_wait_timeout(cmd, 0, &status), 1);
	assert_int_equal(WEXITSTATUS(status), 5);
	assert_int_equal(pmu_command_wait(cmd, &status), 0);
	assert_int_equal(WEXITSTATUS(status), 5);
	pmu_command_free(cmd);
}

/* A command held before exec never exits on its own: waiting for it (with no
 * timeout) would hang for ever, so both waits refuse it. */
static void test_wait_unstarted(void **state)
{
	char *argv[] = { "sh", "-c", "exit 0", NULL };
	struct pmu_command *cmd;
	int status = 0;

	(void)state;
	alarm(10); /* a hang fails the test (SIGALRM) instead of stalling the suite */
	assert_int_equal(pmu_command_prepare(argv, &cmd), 0);
	assert_int_equal(pmu_command_wait_timeout(cmd, 10, &status), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "not started"));
	assert_int_equal(pmu_command_wait(cmd, &status), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "not started"));
	pmu_command_free(cmd);
	alarm(0);
}

static void test_signal_status(void **state)
{
	char *argv[] = { "sh", "-c", "kill -TERM $$", NULL };
	struct pmu_command *cmd;
	int status = 0;

	(void)state;
	assert_int_equal(pmu_command_prepare(argv, &cmd), 0);
	assert_int_equal(pmu_command_start(cmd), 0);
	assert_int_equal(pmu_command_wait(cmd, &status), 0);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	pmu_command_free(cmd);
}

static void test_not_found(void **state)
{
	char *argv[] = { "pmukit-no-such-command-xyz", "arg", NULL };
	struct pmu_command *cmd;
	int status = 0;

	(void)state;
	assert_int_equal(pmu_command_prepare(argv, &cmd), 0);
	assert_int_equal(pmu_command_start(cmd), PMU_ENOENT);
	assert_string_equal(pmu_error_detail(),
			    "cannot run 'pmukit-no-such-command-xyz': command not found (not in PATH)");
	assert_int_equal(pmu_command_wait(cmd, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 127);
	pmu_command_free(cmd);
}

static void test_not_executable(void **state)
{
	char path[] = "/tmp/pmukit-test-noexec-XXXXXX";
	char *argv[] = { path, NULL };
	struct pmu_command *cmd;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	chmod(path, 0644); /* no execute bit: even root gets EACCES */
	assert_int_equal(pmu_command_prepare(argv, &cmd), 0);
	assert_int_equal(pmu_command_start(cmd), PMU_EPERM);
	assert_non_null(strstr(pmu_error_detail(), "permission denied"));
	pmu_command_free(cmd);
	unlink(path);
}

static void test_free_unstarted(void **state)
{
	char *argv[] = { "sh", "-c", "exit 0", NULL };
	struct pmu_command *cmd;
	pid_t pid;

	(void)state;
	assert_int_equal(pmu_command_prepare(argv, &cmd), 0);
	pid = pmu_command_pid(cmd);
	pmu_command_free(cmd);
	/* reaped: no zombie left behind */
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_free_running(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	struct pmu_command *cmd;
	pid_t pid;

	(void)state;
	assert_int_equal(pmu_command_prepare(argv, &cmd), 0);
	pid = pmu_command_pid(cmd);
	assert_int_equal(pmu_command_start(cmd), 0);
	pmu_command_free(cmd); /* kills and reaps */
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* tests/test_command -> the build root holds the touch_pages workload */
static int workload(char *buf, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	if (!(slash = strrchr(self, '/')))
		return -1;
	*slash = '\0';
	snprintf(buf, size, "%s/../touch_pages", self);
	return access(buf, X_OK);
}

static void test_count_from_exec(void **state)
{
	PMU_OPTS(pmu_counters_opts, o, .inherit = 1, .enable_on_exec = 1);
	struct pmu_target t = { .kind = PMU_TARGET_PID };
	struct pmu_event ev[2];
	struct pmu_reading r[2];
	struct pmu_counters *c;
	struct pmu_command *cmd;
	char path[PATH_MAX + 32];
	char *argv[] = { path, "512", NULL };
	int status;

	(void)state;
	if (workload(path, sizeof(path)) != 0) {
		fprintf(stderr, "skip: workload %s not built\n", path);
		skip();
	}
	memset(ev, 0, sizeof(ev));
	snprintf(ev[0].name, sizeof(ev[0].name), "task-clock");
	ev[0].config = PERF_COUNT_SW_TASK_CLOCK;
	ev[0].group_leader = 1;
	snprintf(ev[1].name, sizeof(ev[1].name), "page-faults");
	ev[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	for (int i = 0; i < 2; i++) {
		ev[i].kind = PMU_EVENT_SOFTWARE;
		ev[i].type = PERF_TYPE_SOFTWARE;
		snprintf(ev[i].pmu, sizeof(ev[i].pmu), "software");
	}
	assert_int_equal(pmu_command_prepare(argv, &cmd), 0);
	t.pid = pmu_command_pid(cmd);
	assert_int_equal(pmuk_counters_open_events(ev, 2, &t, &o, &c), 0);
	/* nothing counted before exec */
	assert_int_equal(pmu_counters_read(c, r, 2), 0);
	assert_int_equal(r[0].value, 0);
	assert_int_equal(r[1].value, 0);
	assert_int_equal(pmu_command_start(cmd), 0);
	assert_int_equal(pmu_command_wait(cmd, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(pmu_counters_read(c, r, 2), 0);
	/* the worker thread's 512 faults (inherit) plus the loader's (and, under
	 * AddressSanitizer, its runtime's) */
	fprintf(stderr, "touch_pages 512: %llu page faults\n", (unsigned long long)r[1].value);
	assert_true(r[1].value >= 512);
#if !defined(__SANITIZE_ADDRESS__)
	assert_true(r[1].value < 512 + 2000);
#endif
	assert_true(r[0].value > 0);
	pmu_counters_close(c);
	pmu_command_free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_signal_status),
		cmocka_unit_test(test_wait_timeout),
		cmocka_unit_test(test_wait_unstarted),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_not_executable),
		cmocka_unit_test(test_free_unstarted),
		cmocka_unit_test(test_free_running),
		cmocka_unit_test(test_count_from_exec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
