/* SPDX-License-Identifier: MIT */
/* Kernel frames of recordings: /proc/kallsyms names them when the running kernel
 * (and each module) is the one recorded, by build-id (/sys/kernel/notes,
 * /sys/module/NAME/notes/.note.gnu.build-id). The symbol of an address is the text
 * symbol at or below it, of the same module. */
#include "core/symbols_int.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/le.h"
#include "core/num.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The NT_GNU_BUILD_ID of a file of ELF notes (host byte order); its size or 0. */
static size_t notes_build_id(const char *path, uint8_t *id)
{
	uint8_t buf[4096];
	size_t len, off = 0;
	FILE *f = fopen(path, "rb");

	if (!f)
		return 0;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + 12 <= len) {
		uint32_t namesz = pmuk_le32(buf + off), descsz = pmuk_le32(buf + off + 4);
		uint32_t type = pmuk_le32(buf + off + 8);
		size_t name = off + 12, desc = name + ((namesz + 3) & ~3u);

		if (desc + descsz > len || namesz > len)
			break;
		if (type == 3 && namesz == 4 && !memcmp(buf + name, "GNU", 4) && descsz &&
		    descsz <= 20) {
			memcpy(id, buf + desc, descsz);
			return descsz;
		}
		off = desc + ((descsz + 3) & ~3u);
	}
	return 0;
}

/* 0 when the running kernel (or module) is img's, else why not. */
static int same_kernel(const struct pmuk_sym_image *img)
{
	char path[160], want[41], have[41] = "none";
	uint8_t id[20];
	size_t n;

	if (!img->idn)
		return 0;
	if (img->kmod)
		snprintf(path, sizeof(path), "/sys/module/%.*s/notes/.note.gnu.build-id",
			 (int)strlen(img->kmod) - 2, img->kmod + 1);
	else
		snprintf(path, sizeof(path), "/sys/kernel/notes");
	n = notes_build_id(path, id);
	if (n == img->idn && !memcmp(id, img->id, n))
		return 0;
	pmuk_sym_hex(img->id, img->idn, want);
	if (n)
		pmuk_sym_hex(id, n, have);
	return pmuk_fail(n ? PMU_EFORMAT : PMU_ENOENT, "%s: the recording saw build-id %s but "
			 "%s gives %s (another kernel, or the module is not loaded): its "
			 "addresses resolve to module + offset only", img->path, want, path,
			 have);
}

static int by_addr(const void *a, const void *b)
{
	const struct pmuk_sym_ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* One line "ffffffff81000000 T _text [module]"; 1 when it is a text symbol. */
static int parse_line(struct pmu_symbolizer *s, char *line, struct pmuk_sym_ksym *k)
{
	char *sp1 = strchr(line, ' '), *name, *mod;
	size_t n;

	if (!sp1 || !sp1[1] || sp1[2] != ' ' || !strchr("tTwW", sp1[1]))
		return 0;
	*sp1 = 0;
	if (pmuk_parse_u64(line, 16, &k->addr))
		return 0;
	name = sp1 + 3;
	name[strcspn(name, "\n")] = 0;
	n = strcspn(name, "\t");
	mod = name[n] ? name + n + 1 : NULL;
	k->name = pmuk_sym_intern(s, name, n);
	k->kmod = mod ? pmuk_sym_intern(s, mod, strlen(mod)) : NULL;
	return k->name && (!mod || k->kmod) ? 1 : -1;
}

static int load(struct pmu_symbolizer *s)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	char line[1024];
	size_t cap = 0, nonzero = 0;
	FILE *f = fopen("/proc/kallsyms", "r");
	int got;

	if (!f)
		return pmuk_fail(PMU_ENOENT, "cannot read /proc/kallsyms: kernel addresses "
				 "resolve to module + offset only");
	while (fgets(line, sizeof(line), f)) {
		if (pmuk_grow((void **)&k->v, &cap, k->n + 1, sizeof(*k->v)))
			break;
		if ((got = parse_line(s, line, &k->v[k->n])) < 0)
			break;
		if (got)
			nonzero += k->v[k->n++].addr != 0;
	}
	got = !feof(f);
	fclose(f);
	if (got)
		return pmuk_fail(PMU_ENOMEM, "out of memory reading /proc/kallsyms");
	if (!nonzero)
		return pmuk_fail(PMU_ENOENT, "/proc/kallsyms shows every address as 0 "
				 "(kernel.kptr_restrict hides them from this user): kernel "
				 "frames resolve to module + offset only; run as root with "
				 "CAP_SYSLOG or set sysctl kernel.kptr_restrict=0");
	qsort(k->v, k->n, sizeof(*k->v), by_addr);
	return 0;
}

int pmuk_sym_kernel_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img, int *told)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	int err;

	*told = 0;
	if ((err = same_kernel(img)))
		return err;
	if (!k->loaded) {
		k->state = load(s);
		k->loaded = 1;
		return k->state;
	}
	*told = k->state != 0;  /* with the first kernel mapping */
	return k->state;
}

void pmuk_sym_kernel_resolve(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
			     const struct pmuk_sym_map *m, uint64_t addr)
{
	const struct pmuk_sym_kernel *k = &s->kernel;
	struct pmu_frame *f = &s->chain[0];
	size_t lo = 0, hi = k->n;

	*f = (struct pmu_frame){ .module = img->name,
				 .module_offset = addr - m->bias };
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The nearest symbol below of the same module (kernel and modules interleave
	 * in kallsyms' address order only by accident), inside the mapping. */
	while (lo-- > 0 && k->v[lo].addr >= m->start) {
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
	s->kernel = (struct pmuk_sym_kernel){ 0 };
}
