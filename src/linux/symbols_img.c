/* SPDX-License-Identifier: MIT */
/* Recording mode's images on Linux: the file a mapping names, found by build-id
 * (at its path, a "(deleted)" path's file back in place, perf's build-id cache,
 * the distribution's debug files), each read once into a Dwfl of its own at its
 * link-time addresses, so that any number of processes share it whatever their
 * load addresses. */
#include "core/symbols_int.h"
#include "core/error.h"

#ifdef PMUKIT_HAVE_DW

#include "linux/symbols_dw.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

/* One Dwfl per image. */
struct dw_image {
	Dwfl *dwfl;
	Dwfl_Module *dm;
	int fd;                 /* a memory file this image was read from, or -1 */
	struct pmuk_dw_job job; /* its DWARF read ahead (dw_prefetch.h) */
	int owned;              /* the job waited for: dwfl is this thread's alone */
};

/* The image's Dwfl, once the worker is done with it. */
static Dwfl_Module *own(struct pmu_symbolizer *s, struct dw_image *h)
{
	if (!h->owned) {
		pmuk_dw_prefetch_wait(&((struct pmuk_dw *)s->backend)->prefetch, &h->job);
		h->owned = 1;
	}
	return h->dm;
}

/* Whether path is an ELF file with img's build-id (any when none was recorded);
 * its loadable segments into img. 1 yes, 0 another build-id, -1 not there, -2
 * no ELF file. */
static int try_file(struct pmuk_sym_image *img, const char *path, char *have)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;
	const void *id;
	ssize_t idn;
	size_t nph;
	GElf_Phdr ph;
	Elf *elf;

	if (fd < 0)
		return -1;
	pmuk_dw_elf_init();
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		idn = dwelf_elf_gnu_build_id(elf, &id);
		if (idn > 0 && idn <= 20)
			pmuk_sym_hex(id, (size_t)idn, have);
		ok = !img->idn || (idn == img->idn && !memcmp(id, img->id, img->idn));
		img->nseg = 0;
		for (size_t i = 0; ok && !elf_getphdrnum(elf, &nph) && i < nph; i++)
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    img->nseg < PMUK_SYM_SEGS)
				img->seg[img->nseg++] = (struct pmuk_sym_seg){
					ph.p_vaddr, ph.p_offset, ph.p_filesz };
	} else {
		ok = -2;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ok;
}

/* The build-id caches' names of img: perf's DIR/.build-id/xx/rest/elf, then the
 * distribution's debug file (under symfs when one is given). */
static void cache_paths(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
			char (*out)[4200])
{
	const char *home = getenv("HOME");
	char hex[41];

	pmuk_sym_hex(img->id, img->idn, hex);
	if (s->buildid_dir)
		snprintf(out[0], 4200, "%s/.build-id/%.2s/%s/elf", s->buildid_dir, hex, hex + 2);
	else
		snprintf(out[0], 4200, "%s/.debug/.build-id/%.2s/%s/elf", home ? home : "/root",
			 hex, hex + 2);
	/* under --symfs, as perf looks: the recording's root has its own debug files */
	snprintf(out[1], 4200, "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
		 s->symfs ? s->symfs : "", hex, hex + 2);
}

/* Whether libdwfl will find a separate debug file of build-id hex: it looks in
 * DIR/.build-id/xx/rest.debug for each absolute DIR of its debuginfo path (the
 * caller's debug_path, else libdwfl's default), never under symfs. */
static int debug_file_found(const struct pmu_symbolizer *s, const char *hex)
{
	const char *p = s->debug_path ? s->debug_path : ":.debug:/usr/lib/debug";
	char f[4200];

	for (size_t n; *p; p += n + (p[n] == ':')) {
		const char *dir = p + (*p == '+' || *p == '-');   /* CRC check flags */

		n = strcspn(p, ":");
		if (*dir == '/' && (size_t)snprintf(f, sizeof(f), "%.*s/.build-id/%.2s/%s.debug",
						    (int)(p + n - dir), dir, hex, hex + 2) <
		    sizeof(f) && !access(f, F_OK))
			return 1;
	}
	return 0;
}

/* Whether img's DWARF is read ahead: when the recording lists it among the
 * sampled images (or lists none), or when a separate debug file of it is
 * installed where libdwfl looks, or img's file is such a file: an image without
 * samples may still be asked for in call chains (libc's syscall wrappers and
 * thread start), and that file read late (libc6-dbg's: 10 MB to inflate) would
 * stall the report. The others cost little when asked for (their symbol
 * table), nothing when not. */
static int read_ahead(struct pmu_symbolizer *s, const struct pmuk_sym_image *img)
{
	char cache[2][4200], hex[41];

	if (img->ahead || !img->idn)
		return img->ahead;
	cache_paths(s, img, cache);
	pmuk_sym_hex(img->id, img->idn, hex);
	return !strcmp(img->file, cache[1]) || debug_file_found(s, hex);
}

static int image_found(struct pmu_symbolizer *s, struct pmuk_sym_image *img, const char *file)
{
	struct pmuk_dw *d = s->backend;
	struct dw_image *h = calloc(1, sizeof(*h));

	if (!h || !(img->file = pmuk_sym_intern(s, file, strlen(file))) ||
	    !(h->dwfl = dwfl_begin(&d->cb))) {
		free(h);
		return pmuk_fail(PMU_ENOMEM, "out of memory reading %s", file);
	}
	h->fd = -1;
	dwfl_report_begin(h->dwfl);
	h->dm = dwfl_report_elf(h->dwfl, img->path, img->file, -1, 0, true);
	dwfl_report_end(h->dwfl, NULL, NULL);
	if (!h->dm) {
		int err = pmuk_fail(PMU_EFORMAT, "libdwfl cannot load %s: %s; its addresses "
				    "resolve to module + offset only", file, dwfl_errmsg(-1));

		dwfl_end(h->dwfl);
		free(h);
		return err;
	}
	img->handle = h;
	if (read_ahead(s, img))   /* else read when first asked (job stays PMUK_PF_NONE) */
		pmuk_dw_prefetch_add(&d->prefetch, &h->job, h->dm);
	return 0;
}

/* This process's vDSO image (the kernel maps the same one into every process of
 * its ABI) copied into a memory file, as perf reads its own: the file's fd or -1. */
static int own_vdso(void)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	int fd;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return -1;
	size = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size < sizeof(*eh) || size > (1u << 20) ||
	    (fd = memfd_create("pmukit-vdso", MFD_CLOEXEC)) < 0)
		return -1;
	if (write(fd, eh, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

/* "[vdso]": the copy in perf's build-id cache (DIR/.build-id/xx/rest/vdso), else
 * this process's own when its build-id is the recorded one. */
static int vdso_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img)
{
	char cache[2][4200], path[64], have[41] = "none", want[41] = "none";
	size_t n;
	int fd;

	if (img->idn) {
		cache_paths(s, img, cache);
		n = strlen(cache[0]);
		if (n > 4 && !strcmp(cache[0] + n - 4, "/elf")) {
			memcpy(cache[0] + n - 4, "/vdso", 6);
			if (try_file(img, cache[0], have) == 1)
				return image_found(s, img, cache[0]);
		}
		pmuk_sym_hex(img->id, img->idn, want);
	}
	if ((fd = own_vdso()) >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (try_file(img, path, have) == 1 && !image_found(s, img, path)) {
			((struct dw_image *)img->handle)->fd = fd;
			return 0;
		}
		close(fd);
	}
	return pmuk_fail(PMU_ENOENT, "[vdso]: the recording saw build-id %s, this kernel's "
			 "vDSO has %s and perf's build-id cache no copy of it: its addresses "
			 "resolve to module + offset only", want, have);
}

int pmuk_sym_backend_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img)
{
	char cache[2][4200], have[41] = "none", want[41], rooted[4200];
	size_t len = strlen(img->path);
	int at_path, e;

	if (!strcmp(img->path, "[vdso]"))
		return vdso_image(s, img);
	if (s->symfs && snprintf(rooted, sizeof(rooted), "%s/%s", s->symfs, img->path) <
	    (int)sizeof(rooted) && try_file(img, rooted, have) == 1)
		return image_found(s, img, rooted);
	at_path = try_file(img, img->path, have);
	e = errno;
	if (at_path == 1)
		return image_found(s, img, img->path);
	if (img->idn) {
		cache_paths(s, img, cache);
		/* "/usr/bin/x (deleted)": replaced since it was mapped; a file back at
		 * that path is taken when its build-id says it is the same. */
		if (len > 10 && !strcmp(img->path + len - 10, " (deleted)") && len - 10 < 4200) {
			char undeleted[4200], other[41];

			memcpy(undeleted, img->path, len - 10);
			undeleted[len - 10] = 0;
			if (try_file(img, undeleted, other) == 1)
				return image_found(s, img, undeleted);
		}
		for (int i = 0; i < 2; i++) {
			char other[41];

			if (try_file(img, cache[i], other) == 1)
				return image_found(s, img, cache[i]);
		}
	}
	if (at_path == -2)
		return pmuk_fail(PMU_EFORMAT, "%s is not an ELF file; its addresses resolve to "
				 "module + offset only", img->path);
	if (at_path < 0)
		return pmuk_fail(PMU_ENOENT, "cannot open %s: %s%s%s; its addresses resolve to "
				 "module + offset only", img->path, strerror(e),
				 img->idn ? ", nor its build-id in " : "",
				 img->idn ? cache[0] : "");
	pmuk_sym_hex(img->id, img->idn, want);
	return pmuk_fail(PMU_EFORMAT, "stale binary: %s has build-id %s but the recording saw "
			 "%s (rebuilt or replaced since) and no build-id cache holds it (%s): "
			 "its addresses resolve to module + offset only; find the matching "
			 "file (debuginfod-find executable %s)", img->path, have, want,
			 cache[0], want);
}

int pmuk_sym_backend_resolve_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
				   uint64_t addr)
{
	return pmuk_dw_resolve_in(s, own(s, img->handle), img->path, addr);
}

void pmuk_sym_backend_image_close(struct pmu_symbolizer *s, struct pmuk_sym_image *img)
{
	struct dw_image *h = img->handle;
	struct pmuk_dw *d = s->backend;

	if (!h)
		return;
	if (s->closing && d)   /* every image goes: nothing more to read ahead */
		pmuk_dw_prefetch_quit(&d->prefetch);
	own(s, h);
	/* The unit caches point into this Dwfl. */
	if (d)
		pmuk_dw_forget_units(d);
	dwfl_end(h->dwfl);
	if (h->fd >= 0)
		close(h->fd);
	free(h);
	img->handle = NULL;
}

#else /* !PMUKIT_HAVE_DW */

#define NO_DW "this pmukit was built without elfutils libdw, so it reads no ELF/DWARF: " \
	"rebuild with libdw-dev installed"

int pmuk_sym_backend_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img)
{
	(void)s;
	(void)img;
	return pmuk_fail(PMU_ENOTSUP, NO_DW);
}

int pmuk_sym_backend_resolve_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
				   uint64_t addr)
{
	(void)s;
	(void)img;
	(void)addr;
	return pmuk_fail(PMU_ENOTSUP, NO_DW);
}

void pmuk_sym_backend_image_close(struct pmu_symbolizer *s, struct pmuk_sym_image *img)
{
	(void)s;
	(void)img;
}

#endif
