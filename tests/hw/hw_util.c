/* SPDX-License-Identifier: MIT */
/* The known loop, opening events through the library, running the command, sysctls. */
#include "hwtest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Top-level asm so [known_loop, known_loop_end) is exactly the function. */
#if defined(__aarch64__)
__asm__(".text\n"
	".global known_loop\n"
	".type known_loop, %function\n"
	".balign 64\n"
	"known_loop:\n"
	"	cbz x0, 2f\n"
	"1:	subs x0, x0, #1\n"
	"	b.ne 1b\n"
	"2:	ret\n"
	".size known_loop, .-known_loop\n"
	".global known_loop_end\n"
	"known_loop_end:\n");
const int hw_loop_exact = 1;
#elif defined(__x86_64__)
__asm__(".text\n"
	".global known_loop\n"
	".type known_loop, @function\n"
	".balign 64\n"
	"known_loop:\n"
	"	test %rdi, %rdi\n"
	"	jz 2f\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"2:	ret\n"
	".size known_loop, .-known_loop\n"
	".global known_loop_end\n"
	"known_loop_end:\n");
const int hw_loop_exact = 1;
#else
void known_loop(uint64_t n)
{
	for (volatile uint64_t i = n; i > 0; i--)
		;
}
const char known_loop_end[1];
const int hw_loop_exact = 0;
#endif

int hw_near(uint64_t got, uint64_t want, double rel, uint64_t abs)
{
	double d = got > want ? (double)(got - want) : (double)(want - got);

	if (hw.exact)
		return got == want;
	return d <= rel * (double)want + (double)abs;
}

int hw_counters(const char *spec, const struct pmu_target *t, const struct pmu_counters_opts *o,
		struct pmu_counters **out)
{
	struct pmu_event_list *list = NULL;
	int err = pmu_event_parse(spec, &list);

	*out = NULL;
	if (err)
		return err;
	err = pmu_counters_open(list, t, o, out);
	pmu_event_list_free(list);
	return err;
}

void hw_spec_repeat(char *buf, size_t size, size_t n, const char *a, const char *b, int braced)
{
	size_t len;

	snprintf(buf, size, "%s", braced ? "{" : "");
	for (size_t i = 0; i < n; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? "," : "", i % 2 ? b : a);
	}
	len = strlen(buf);
	snprintf(buf + len, size - len, "%s", braced ? "}" : "");
}

/* Reads fd into out[*len..size-1), dropping what does not fit. */
static void slurp(int fd, char *out, size_t size, size_t *len)
{
	char sink[4096];
	ssize_t r;

	for (;;) {
		if (*len < size - 1)
			r = read(fd, out + *len, size - 1 - *len);
		else
			r = read(fd, sink, sizeof(sink));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (*len < size - 1)
			*len += (size_t)r;
	}
	out[*len] = '\0';
}

int hw_run(char *const argv[], char *out, size_t size)
{
	static const char sep[] = "\n[stderr] ";
	FILE *err = tmpfile();
	size_t len = 0;
	int fd[2], st;
	pid_t pid;

	if (size == 0 || !err)
		return -1;
	if (pipe(fd) < 0) {
		fclose(err);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, 0);
		dup2(fd[1], 1);
		dup2(fileno(err), 2);
		close(fd[0]);
		execv(argv[0], argv);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	if (pid > 0)
		slurp(fd[0], out, size, &len);
	close(fd[0]);
	st = -1;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	/* What it said on stderr follows stdout, for the failure messages. */
	if (lseek(fileno(err), 0, SEEK_END) > 0 && len + sizeof(sep) < size) {
		memcpy(out + len, sep, sizeof(sep));
		len += sizeof(sep) - 1;
		lseek(fileno(err), 0, SEEK_SET);
		slurp(fileno(err), out, size, &len);
	}
	out[len] = '\0';
	fclose(err);
	return pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int hw_sysctl_write(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = write(fd, v, strlen(v));
	close(fd);
	return r == (ssize_t)strlen(v) ? 0 : -1;
}

int hw_sysctl_read(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	return atoi(buf);
}
