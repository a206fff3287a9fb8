/* SPDX-License-Identifier: MIT */
/* GNU build-ids of ELF files (libelf/libdw), of the running kernel and of its
 * modules (the raw note sections sysfs exports). */
#include "linux/buildid.h"
#include "core/error.h"
#include "core/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef PMUKIT_HAVE_DW
#include <elfutils/libdwelf.h>
#include <gelf.h>
#endif

#define NT_GNU_BUILD_ID_TYPE 3u
#define NOTES_MAX 65536

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v)); /* notes from sysfs are in the kernel's byte order */
	return v;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static int take_id(const char *what, const uint8_t *desc, size_t n, uint8_t id[20], size_t *len)
{
	if (n == 0 || n > 20)
		return pmuk_fail(PMU_EFORMAT, "%s: the GNU build-id note holds %zu bytes, not 1 to "
				 "20 (perf's limit); the file is corrupt or uses an unknown scheme",
				 what, n);
	memcpy(id, desc, n);
	*len = n;
	return 0;
}

/* Walks a sequence of ELF notes (namesz, descsz, type, name, desc; 4-byte aligned) for
 * the NT_GNU_BUILD_ID note of owner "GNU". */
static int notes_find(const char *what, const uint8_t *p, size_t n, uint8_t id[20], size_t *len)
{
	size_t off = 0;

	while (n - off >= 12) {
		uint32_t namesz = u32_at(p + off), descsz = u32_at(p + off + 4);
		uint32_t type = u32_at(p + off + 8);
		size_t name = off + 12, desc = name + align4(namesz);

		if (namesz > n || descsz > n || desc > n || n - desc < descsz)
			return pmuk_fail(PMU_EFORMAT, "%s: an ELF note at byte %zu runs past the end "
					 "(%zu bytes): the notes are corrupt", what, off, n);
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 && !memcmp(p + name, "GNU", 4))
			return take_id(what, p + desc, descsz, id, len);
		off = desc + align4(descsz);
	}
	return pmuk_fail(PMU_ENOENT, "%s has no GNU build-id note (linked without "
			 "--build-id?)", what);
}

static int notes_file(const char *path, uint8_t id[20], size_t *len)
{
	uint8_t *buf;
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0) {
		err = errno;
		return pmuk_fail(err == EACCES || err == EPERM ? PMU_EPERM : PMU_ENOENT,
				 "cannot read %s: %s%s", path, strerror(err), err == EACCES ?
				 " (run as root)" : "");
	}
	buf = malloc(NOTES_MAX);
	if (!buf) {
		close(fd);
		return pmuk_fail(PMU_ENOMEM, "out of memory reading %s", path);
	}
	/* sysfs note files report no size: read until EOF */
	while (n < NOTES_MAX && (r = read(fd, buf + n, NOTES_MAX - n)) > 0)
		n += (size_t)r;
	close(fd);
	err = notes_find(path, buf, n, id, len);
	free(buf);
	return err;
}

int pmuk_build_id_kernel(uint8_t id[20], size_t *len)
{
	char path[PATH_MAX];

	if (pmuk_path(path, sizeof(path), "/sys/kernel/notes"))
		return pmuk_fail(PMU_ERANGE, "the sysroot path is too long for /sys/kernel/notes");
	return notes_file(path, id, len);
}

int pmuk_build_id_module(const char *name, uint8_t id[20], size_t *len)
{
	char path[PATH_MAX];

	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return pmuk_fail(PMU_EINVAL, "'%s' is not a kernel module name (as /proc/modules "
				 "lists them)", name ? name : "(null)");
	if (pmuk_path(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name))
		return pmuk_fail(PMU_ERANGE, "module name '%s' is too long", name);
	return notes_file(path, id, len);
}

#ifdef PMUKIT_HAVE_DW
int pmuk_build_id_of_file(const char *path, uint8_t id[20], size_t *len)
{
	const void *note;
	struct stat st;
	ssize_t n;
	Elf *elf;
	int fd, err;

	if (!path || !*path)
		return pmuk_fail(PMU_EINVAL, "no file name given for a build-id");
	/* mapped files include devices (/dev/dri/...) and the recorder walks every
	 * process: opening one may block (a FIFO) or act (a device), so only
	 * regular files are opened, without waiting */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return pmuk_fail(PMU_ENOENT, "%s is not a regular file, so it has no build-id",
				 path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err = errno;
		return pmuk_fail(err == EACCES || err == EPERM ? PMU_EPERM : PMU_ENOENT,
				 "cannot open %s for its build-id: %s", path, strerror(err));
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return pmuk_fail(PMU_ENOENT, "%s is not a regular file, so it has no build-id",
				 path);
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = pmuk_fail(PMU_EFORMAT, "%s is not an ELF file, so it has no build-id", path);
	} else {
		n = dwelf_elf_gnu_build_id(elf, &note);
		if (n > 0)
			err = take_id(path, note, (size_t)n, id, len);
		else if (n == 0)
			err = pmuk_fail(PMU_ENOENT, "%s has no GNU build-id note (linked without "
					"--build-id?)", path);
		else
			err = pmuk_fail(PMU_EFORMAT, "%s: its ELF notes cannot be read (%s)",
					path, elf_errmsg(-1));
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}
#else
int pmuk_build_id_of_file(const char *path, uint8_t id[20], size_t *len)
{
	(void)id;
	(void)len;
	return pmuk_fail(PMU_ENOTSUP, "cannot read the build-id of %s: pmukit was built "
			 "without libdw (install libdw-dev and rebuild)", path ? path : "(null)");
}
#endif
