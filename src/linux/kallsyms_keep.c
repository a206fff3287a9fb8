/* SPDX-License-Identifier: MIT */
/* pmukit record's copy of /proc/kallsyms in perf's build-id cache (kallsyms.h). */
#include "core/error.h"
#include "core/symbols_int.h"
#include "core/sysroot.h"
#include "linux/buildid.h"
#include "linux/kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every directory above the file at path, made where missing. 0 or errno. */
static int make_parents(const char *path)
{
	char dir[4200];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		if (mkdir(dir, 0755) && errno != EEXIST)
			return errno;
		*p = '/';
	}
	return 0;
}

/* from to a new file at path; 0 or errno. */
static int copy_file(const char *from, const char *path)
{
	char buf[1 << 16];
	ssize_t got = 0;
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;

	if (in < 0)
		return errno;
	if ((out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		err = errno;
		close(in);
		return err;
	}
	while (!err && (got = read(in, buf, sizeof(buf))) != 0) {
		if (got < 0) {
			err = errno == EINTR ? 0 : errno;
			continue;
		}
		for (ssize_t done = 0, w; !err && done < got; done += w > 0 ? w : 0)
			if ((w = write(out, buf + done, (size_t)(got - done))) < 0 && errno != EINTR)
				err = errno;
	}
	/* on disk before the rename makes it the copy: a crash leaves none, not a
	 * part of one */
	if (!err && fsync(out))
		err = errno;
	if (close(out) && !err)
		err = errno;
	close(in);
	return err;
}

int pmuk_kallsyms_keep(const char *dir)
{
	char proc[4200], hexid[41], path[4200], tmp[4300];
	uint64_t first, now = 0;
	uint8_t id[20];
	size_t n = 0;
	int found, err;

	if (pmuk_path(proc, sizeof(proc), "/proc/kallsyms") || pmuk_build_id_kernel(id, &n) ||
	    !n || pmuk_kallsyms_head(proc, "_text", &first, &now, &found) || !first || !found)
		return 0;   /* nothing a report could use */
	pmuk_sym_hex(id, n, hexid);
	pmuk_kallsyms_cache_path(dir, hexid, path, sizeof(path));
	if (pmuk_kallsyms_fits(path, "_text", now))
		return 0;   /* kept in this boot already (and whole) */
	/* written aside, then renamed: a report never reads half a copy */
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	if (!(err = make_parents(path)) && !(err = copy_file(proc, tmp)) && rename(tmp, path))
		err = errno;
	if (!err)
		return 0;
	unlink(tmp);
	return pmuk_fail(PMU_EIO, "cannot keep a copy of %s as %s: %s (reports of this "
			 "recording read %s instead while this boot lasts)", proc, path,
			 strerror(err), proc);
}
