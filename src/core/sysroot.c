/* SPDX-License-Identifier: MIT */
#include "core/sysroot.h"
#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdatomic.h>

static char root[4096];
static int root_from_env;
/* ROOT_UNSET until the first pmu_sysroot() or pmu_sysroot_set(); threads that
 * meet ROOT_BUSY wait for the one reading the environment. */
enum { ROOT_UNSET, ROOT_BUSY, ROOT_SET };
static atomic_int root_state = ROOT_UNSET;

static int store_root(const char *r, int from_env)
{
	size_t n;

	if (!r)
		r = "";
	n = strlen(r);
	if (n >= sizeof(root))
		return pmuk_fail(PMU_ERANGE, "sysroot path is longer than %zu bytes", sizeof(root) - 1);
	memcpy(root, r, n + 1);
	root_from_env = from_env;
	while (n > 0 && root[n - 1] == '/')
		root[--n] = '\0';
	atomic_store(&root_state, ROOT_SET);
	return 0;
}

int pmu_sysroot_set(const char *r)
{
	return store_root(r, 0);
}

/* A setuid or setcap program must not let its caller redirect what it reads. */
static const char *sysroot_env(void)
{
#ifdef _WIN32
	return getenv("PMUKIT_SYSROOT");
#else
	return secure_getenv("PMUKIT_SYSROOT");
#endif
}

const char *pmu_sysroot(void)
{
	int unset = ROOT_UNSET;

	if (atomic_compare_exchange_strong(&root_state, &unset, ROOT_BUSY)) {
		const char *env = sysroot_env();

		if (store_root(env ? env : "", env && *env))
			store_root("", 0); /* too long: read the host, as an empty value does */
	}
	while (atomic_load(&root_state) != ROOT_SET)
		; /* another thread is copying the environment's value: a few hundred ns */
	return root;
}

/* A file is missing under the sysroot: blame the sysroot when one is set (the host's
 * own /sys was not read), else the mount. */
const char *pmuk_sysroot_why(char *buf, size_t n, const char *tree)
{
	const char *r = pmu_sysroot(), *who = root_from_env ? "PMUKIT_SYSROOT" : "the sysroot";
	const char *fs = strcmp(tree, "sys") ? "proc" : "sysfs";
	char sub[4200];

	snprintf(sub, sizeof(sub), "%s/%s", r, tree);
	if (!*r)
		snprintf(buf, n, "is %s mounted? (mount -t %s %s /%s)", fs, fs, fs, tree);
	else if (!pmuk_exists(r))
		snprintf(buf, n, "%s points to '%s', which does not exist: point it at a directory "
			 "holding a copy of /sys and /proc, or unset it to read this host", who, r);
	else if (!pmuk_exists(sub))
		snprintf(buf, n, "%s points to '%s', which has no %s/ tree: point it at a directory "
			 "holding a copy of /sys and /proc, or unset it to read this host", who, r,
			 tree);
	else
		snprintf(buf, n, "the tree %s points to ('%s') lacks it: unset %s to read this "
			 "host", who, r, who);
	return buf;
}

int pmuk_path(char *buf, size_t size, const char *fmt, ...)
{
	const char *r = pmu_sysroot();
	size_t n = strlen(r);
	va_list ap;
	int m;

	if (n >= size)
		return pmuk_fail(PMU_ERANGE, "path does not fit in %zu bytes", size);
	memcpy(buf, r, n);
	va_start(ap, fmt);
	m = vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= size - n)
		return pmuk_fail(PMU_ERANGE, "path does not fit in %zu bytes", size);
	return 0;
}

int pmuk_read_text(const char *path, char *buf, size_t size)
{
	FILE *f = pmuk_fopen(path, "r");
	size_t n;

	if (!f)
		return errno == ENOENT || errno == ENOTDIR ? PMU_ENOENT
		       : errno == EACCES || errno == EPERM ? PMU_EPERM : PMU_EIO;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}

int pmuk_read_u64(const char *path, uint64_t *out)
{
	char buf[64], *end;
	int n = pmuk_read_text(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	errno = 0;
	*out = strtoull(buf, &end, 0);
	if (errno || end == buf)
		return PMU_EFORMAT;
	return 0;
}

int pmuk_read_int(const char *path, int *out)
{
	char buf[64], *end;
	long v;
	int n = pmuk_read_text(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	errno = 0;
	v = strtol(buf, &end, 0);
	if (errno || end == buf)
		return PMU_EFORMAT;
	*out = (int)v;
	return 0;
}

int pmuk_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}
