/* SPDX-License-Identifier: MIT */
/* Fixture trees for tests: files under a temporary root that pmu_sysroot_set() points
 * pmukit at. Paths are relative to the root ("sys/..." or "/sys/..." alike); parent
 * directories are made as needed. Any failure aborts the test program. */
#ifndef PMUKIT_TEST_FIXTURE_TREE_H
#define PMUKIT_TEST_FIXTURE_TREE_H

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static inline void fixture_die(const char *what, const char *path)
{
	fprintf(stderr, "fixture: %s %s: ", what, path);
	perror(NULL);
	abort();
}

/* Makes /tmp/pmukit-TAG-XXXXXX into root (size >= 64). */
static inline void fixture_create(char *root, size_t size, const char *tag)
{
	snprintf(root, size, "/tmp/pmukit-%s-XXXXXX", tag);
	if (!mkdtemp(root))
		fixture_die("mkdtemp", root);
}

/* root + "/" + rel into path, making the parent directories. */
static inline void fixture_path(const char *root, const char *rel, char *path, size_t size)
{
	size_t n = strlen(root);

	snprintf(path, size, "%s/%s", root, rel[0] == '/' ? rel + 1 : rel);
	for (char *p = path + n + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fixture_die("mkdir", path);
		*p = '/';
	}
}

static inline void fixture_vwrite(const char *root, const char *rel, int newline,
				  const char *fmt, va_list ap)
{
	char path[4096];
	FILE *f;

	fixture_path(root, rel, path, sizeof(path));
	if (!(f = fopen(path, "w")))
		fixture_die("fopen", path);
	vfprintf(f, fmt, ap);
	if (newline)
		fputc('\n', f);
	fclose(f);
}

/* Writes the formatted text as it is. */
static inline void fixture_write(const char *root, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void fixture_write(const char *root, const char *rel, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fixture_vwrite(root, rel, 0, fmt, ap);
	va_end(ap);
}

/* Writes the formatted text and a newline, as sysfs attributes read. */
static inline void fixture_writeln(const char *root, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void fixture_writeln(const char *root, const char *rel, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fixture_vwrite(root, rel, 1, fmt, ap);
	va_end(ap);
}

static inline void fixture_mkdir(const char *root, const char *rel)
{
	char path[4096];

	fixture_path(root, rel, path, sizeof(path));
	if (mkdir(path, 0755) && errno != EEXIST)
		fixture_die("mkdir", path);
}

static inline void fixture_symlink(const char *root, const char *rel, const char *target)
{
	char path[4096];

	fixture_path(root, rel, path, sizeof(path));
	if (symlink(target, path))
		fixture_die("symlink", path);
}

static inline int fixture_rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* Removes dir (a fixture root or a part of one) and everything below it. */
static inline int fixture_remove(const char *dir)
{
	return nftw(dir, fixture_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
