/* SPDX-License-Identifier: MIT */
/* Kernel frames of recordings: /proc/kallsyms names them when the running kernel
 * (and each module) is the one recorded, by build-id (/sys/kernel/notes,
 * /sys/module/NAME/notes/.note.gnu.build-id), or another kernel's from the copy in
 * perf's build-id cache. The symbol of an address is the text symbol at or below
 * it, of the same module. Whether the addresses are shown is checked with the
 * first kernel mapping; the file is read with the first kernel address. */
#include "core/bsearch.h"
#include "core/symbols_int.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/num.h"
#include "linux/buildid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 0 when the running kernel (or module) is img's, else why not; *want, *have:
 * the recorded and running build-ids. */
static int same_kernel(const struct pmuk_sym_image *img, char *want, char *have,
		       char *path, size_t size)
{
	uint8_t id[20];
	char name[80];
	size_t n = 0;

	if (!img->idn)
		return 0;
	if (img->kmod) {
		snprintf(name, sizeof(name), "%.*s", (int)strlen(img->kmod) - 2, img->kmod + 1);
		snprintf(path, size, "/sys/module/%s/notes/.note.gnu.build-id", name);
		if (pmuk_build_id_module(name, id, &n))
			n = 0;
	} else {
		snprintf(path, size, "/sys/kernel/notes");
		if (pmuk_build_id_kernel(id, &n))
			n = 0;
	}
	if (n == img->idn && !memcmp(id, img->id, n))
		return 0;
	pmuk_sym_hex(img->id, img->idn, want);
	if (n)
		pmuk_sym_hex(id, n, have);
	return n ? PMU_EFORMAT : PMU_ENOENT;
}

/* The kallsyms of img: /proc/kallsyms for the running kernel, else the copy
 * perf's build-id cache keeps of another kernel's (DIR/[kernel.kallsyms]/ID/
 * kallsyms, written by perf record and perf buildid-cache). */
static int kallsyms_path(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
			 char *out, size_t size)
{
	char want[41], have[41] = "none", notes[160];
	const char *home = getenv("HOME");
	int err = same_kernel(img, want, have, notes, sizeof(notes));

	if (!err) {
		snprintf(out, size, "/proc/kallsyms");
		return 0;
	}
	if (!img->kmod) {
		if (s->buildid_dir)
			snprintf(out, size, "%s/[kernel.kallsyms]/%s/kallsyms", s->buildid_dir,
				 want);
		else
			snprintf(out, size, "%s/.debug/[kernel.kallsyms]/%s/kallsyms",
				 home ? home : "/root", want);
		if (!access(out, R_OK))
			return 0;
	}
	return pmuk_fail(err, "%s: the recording saw build-id %s but %s gives %s (another "
			 "kernel, or the module is not loaded)%s%s: its addresses resolve to "
			 "module + offset only", img->path, want, notes, have,
			 img->kmod ? "" : " and the build-id cache has no ", img->kmod ? "" : out);
}

static int by_addr(const void *a, const void *b)
{
	const struct pmuk_sym_ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Hex digits of p into *v; the first character after them. */
static char *hex(char *p, uint64_t *v)
{
	uint64_t x = 0;
	int d;

	for (;; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			d = (*p | 0x20) - 'a' + 10;
		else
			break;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return p;
}

/* The whole file (procfs files have no size: read to the end); NULL without
 * memory or on a read error (errno). */
static char *slurp(FILE *f, size_t *len)
{
	size_t cap = 0, n = 0, got;
	char *buf = NULL;

	do {
		if (pmuk_grow((void **)&buf, &cap, n + 65537, 1)) {
			free(buf);
			return NULL;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* One "ffffffff81000000 T _text\t[module]" line at p, cut in place; the next
 * line. *k filled and *text set when it is a text symbol. */
static char *parse_line(struct pmu_symbolizer *s, char *p, struct pmuk_sym_ksym *k,
			int *text, const char **lastmod)
{
	char *end = strchr(p, '\n'), *name, *mod;

	if (end)
		*end++ = 0;
	else
		end = p + strlen(p);
	*text = 0;
	name = hex(p, &k->addr);
	if (name == p || name[0] != ' ' || !name[1] || name[2] != ' ' || !strchr("tTwW", name[1]))
		return end;
	name += 3;
	k->name = name;
	k->kmod = NULL;
	if ((mod = strchr(name, '\t'))) {
		*mod++ = 0;
		/* a module's symbols are consecutive: one interned name for them */
		if (!*lastmod || strcmp(*lastmod, mod))
			*lastmod = pmuk_sym_intern(s, mod, strlen(mod));
		if (!(k->kmod = *lastmod))
			return NULL;
	}
	*text = 1;
	return end;
}

/* Every text symbol of the kernel's kallsyms, sorted; the names point into the
 * file's text, kept. 0 or why not. */
static int load(struct pmu_symbolizer *s)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	const char *lastmod = NULL;
	size_t cap = 0, len;
	char *p;
	FILE *f = fopen(k->path, "r");
	int text;

	if (!f || !(k->buf = slurp(f, &len))) {
		if (f)
			fclose(f);
		return pmuk_fail(PMU_ENOENT, "cannot read %s: kernel addresses resolve to "
				 "module + offset only", k->path);
	}
	fclose(f);
	for (p = k->buf; p && *p;) {
		if (pmuk_grow((void **)&k->v, &cap, k->n + 1, sizeof(*k->v)))
			p = NULL;
		else if ((p = parse_line(s, p, &k->v[k->n], &text, &lastmod)))
			k->n += (size_t)text;
	}
	if (!p)
		return pmuk_fail(PMU_ENOMEM, "out of memory reading %s", k->path);
	/* the kernel lists its text symbols in address order: sort only when not */
	for (size_t i = 1; i < k->n; i++)
		if (k->v[i].addr < k->v[i - 1].addr) {
			qsort(k->v, k->n, sizeof(*k->v), by_addr);
			break;
		}
	return 0;
}

/* Whether the addresses are shown: the first text symbol's is not 0 (the
 * percpu symbols before it are 0 when shown too). 0 or why not. */
static int probe(struct pmu_symbolizer *s)
{
	const char *path = s->kernel.path;
	char line[512], *t;
	uint64_t addr = 0;
	int found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return pmuk_fail(PMU_ENOENT, "cannot read %s: kernel addresses resolve to "
				 "module + offset only", path);
	while (!found && fgets(line, sizeof(line), f)) {
		t = hex(line, &addr);
		found = t != line && t[0] == ' ' && t[1] && strchr("tTwW", t[1]);
	}
	fclose(f);
	if (found && addr)
		return 0;
	return pmuk_fail(PMU_ENOENT, "%s shows every address as 0 (kernel.kptr_restrict hides "
			 "them from this user): kernel frames resolve to module + offset "
			 "only; run as root with CAP_SYSLOG or set sysctl "
			 "kernel.kptr_restrict=0", path);
}

int pmuk_sym_kernel_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img, int *told)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	char path[4200];
	int err;

	*told = 0;
	if ((err = kallsyms_path(s, img, path, sizeof(path))))
		return err;
	if (k->probed) {
		*told = k->state != 0;  /* with the first kernel mapping */
		return k->state;
	}
	/* Read at the first kernel address: a recording without kernel samples
	 * never pays for the ~100k lines. */
	k->probed = 1;
	if (!(k->path = pmuk_sym_intern(s, path, strlen(path))))
		return k->state = pmuk_fail(PMU_ENOMEM, "out of memory");
	return k->state = probe(s);
}

void pmuk_sym_kernel_resolve(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
			     const struct pmuk_sym_map *m, uint64_t addr)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	struct pmu_frame *f = &s->chain[0];
	size_t lo;

	*f = (struct pmu_frame){ .module = img->name,
				 .module_offset = addr - m->bias };
	if (!k->loaded) {
		k->loaded = 1;
		if (load(s))
			return;   /* said once; the frames stay module + offset */
	}
	lo = PMUK_BSEARCH_UPPER(k->v, k->n, addr, addr);
	/* The nearest symbol below of the same module (kernel and modules interleave
	 * in kallsyms' address order only by accident), inside the mapping. */
	while (lo-- > 0 && k->v[lo].addr >= m->start) {
		/* past a module's symbol, the part of the kernel's map stretched
		 * beyond the recorded end (pmu_symbolizer_add_mmap) is no longer
		 * kernel code: unnamed */
		if (k->v[lo].kmod && !img->kmod && addr >= m->recorded_end)
			return;
		if (k->v[lo].kmod != img->kmod)
			continue;
		f->function = k->v[lo].name;
		f->symbol_offset = addr - k->v[lo].addr;
		return;
	}
}

void pmuk_sym_kernel_free(struct pmu_symbolizer *s)
{
	free(s->kernel.v);
	free(s->kernel.buf);
	s->kernel = (struct pmuk_sym_kernel){ 0 };
}
