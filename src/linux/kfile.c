/* SPDX-License-Identifier: MIT */
/* Files kept open and re-read from offset 0 (linux/kfile.h). Kept descriptors
 * are budgeted to half of RLIMIT_NOFILE so that a host with thousands of CPU
 * files never starves the rest of the process (sockets, perf_event fds): past
 * the budget a file is opened, read and closed each time, as before. */
#include "linux/kfile.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/sysroot.h"

#include <pmukit/error.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_long kept;

static int may_keep(void)
{
	struct rlimit rl;
	long budget = 512;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		budget = rl.rlim_cur == RLIM_INFINITY ? 1L << 20 : (long)(rl.rlim_cur / 2);
	return atomic_load(&kept) < budget;
}

void pmuk_kfile_close(int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	*fd = -1;
	atomic_fetch_sub(&kept, 1);
}

static int code(int e)
{
	return e == ENOENT || e == ENOTDIR || e == ENODEV ? PMU_ENOENT :
	       e == EACCES || e == EPERM ? PMU_EPERM : PMU_EIO;
}

/* Opens path into *fd, counted as kept. */
static int reopen(int *fd, const char *path)
{
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return code(errno);
	atomic_fetch_add(&kept, 1);
	return 0;
}

static void trim(char *buf, size_t *n)
{
	buf[*n] = '\0';
	while (*n > 0 && (buf[*n - 1] == '\n' || buf[*n - 1] == ' '))
		buf[--*n] = '\0';
}

/* Under a sysroot the files are a test's or a copy's regular files, which may
 * be replaced by a new one (mv, sed -i) where procfs never is: one stat per
 * read notices it. */
static int replaced(int fd, const char *path)
{
	struct stat a, b;

	if (!*pmu_sysroot())
		return 0;
	return stat(path, &a) || fstat(fd, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev;
}

/* The absolute path of the file that fmt and ap name. */
static int vpath(char *path, size_t size, const char *fmt, va_list ap)
{
	char rel[448];

	if (vsnprintf(rel, sizeof(rel), fmt, ap) >= (int)sizeof(rel))
		return PMU_ERANGE;
	return pmuk_path(path, size, "%s", rel);
}

static int vtext(int *fd, char *buf, size_t size, const char *fmt, va_list ap)
{
	char path[512] = "";
	ssize_t n = -1;
	size_t len;
	int err, e;

	if (size < 2)
		return PMU_ERANGE;
	/* Only a sysroot's files are ever replaced: real sysfs pays no stat. */
	if (*fd >= 0 && *pmu_sysroot()) {
		if ((err = vpath(path, sizeof(path), fmt, ap)))
			return err;
		if (replaced(*fd, path))
			pmuk_kfile_close(fd);
	}
	/* A sysfs attribute comes whole from one read at offset 0. */
	if (*fd >= 0 && (n = pread(*fd, buf, size - 1, 0)) < 0)
		pmuk_kfile_close(fd);  /* removed (ENODEV): open it again below */
	if (n < 0) {
		if (!*path && (err = vpath(path, sizeof(path), fmt, ap)))
			return err;
		if ((err = reopen(fd, path)))
			return err;
		n = pread(*fd, buf, size - 1, 0);
		e = errno;
		if (n < 0 || !may_keep())
			pmuk_kfile_close(fd);
		if (n < 0)
			return code(e);
	}
	len = (size_t)n;
	trim(buf, &len);
	return (int)len;
}

int pmuk_kfile_text(int *fd, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vtext(fd, buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int pmuk_kfile_u64(int *fd, uint64_t *v, const char *fmt, ...)
{
	char buf[32], *end;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vtext(fd, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return n;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno || end == buf ? PMU_EFORMAT : 0;
}

/* pread from 0 until end of file, growing *buf. */
static long slurp(int fd, char **buf, size_t *cap)
{
	size_t n = 0;
	ssize_t r;

	for (;;) {
		if (pmuk_grow((void **)buf, cap, n + 4096, 1))
			return PMU_ENOMEM;
		if ((r = pread(fd, *buf + n, *cap - n - 1, (off_t)n)) == 0)
			break;
		if (r < 0 && errno != EINTR)
			return -1;
		n += r > 0 ? (size_t)r : 0;
	}
	(*buf)[n] = '\0';
	return (long)n;
}

long pmuk_kfile_all(int *fd, char **buf, size_t *cap, const char *path)
{
	long n = -1;
	int err, e;

	if (*fd >= 0 && replaced(*fd, path))
		pmuk_kfile_close(fd);
	if (*fd >= 0 && (n = slurp(*fd, buf, cap)) == -1)
		pmuk_kfile_close(fd);
	if (n == -1) {
		if ((err = reopen(fd, path)))
			return err;
		n = slurp(*fd, buf, cap);
		e = errno;
		if (n < 0 || !may_keep())
			pmuk_kfile_close(fd);
		if (n == -1)
			return code(e);
	}
	return n;
}

int pmuk_kfile_proc(int *fd, char **buf, size_t *cap, const char *path)
{
	char why[600];
	long n = pmuk_kfile_all(fd, buf, cap, path);

	if (n >= 0)
		return 0;
	if (n == PMU_ENOMEM)
		return pmuk_fail(PMU_ENOMEM, "out of memory reading %s", path);
	/* under PMUKIT_SYSROOT no mount would help: say what is wrong with it */
	return pmuk_fail(PMU_ENOENT, "cannot read %s: %s", path,
			 pmuk_sysroot_why(why, sizeof(why), "proc"));
}
