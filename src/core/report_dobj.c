/* SPDX-License-Identifier: MIT */
/* Address -> data object for report --sort data_object: the mappings of each
 * process from the recording's MMAP records (data mappings too: record -d asks
 * for them), a process's mappings copied at FORK and dropped at exec. An address
 * is a variable when a file mapped in its process has an STT_OBJECT symbol there
 * (report_dobj_elf.c) or a DWARF variable (report_dobj_dw.c), else it is named
 * by its mapping. */
#include "core/report_node.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

struct dmap {
	int32_t pid;
	uint64_t start, end, pgoff;
	uint32_t mod;            /* index into mods */
};

struct dmod {
	char *path;
	int loaded;
	struct pmuk_dobj_sym *syms;
	size_t nsyms;
	uint64_t load;           /* link-time address of the first segment */
};

struct pmuk_dobj {
	struct dmap *maps;
	size_t n, cap;
	struct dmod *mods;
	size_t nmods, capmods;
	char name[96];           /* the last anon range named */
	char *symfs;             /* where else separate debug files are */
};

int pmuk_dobj_new(struct pmuk_dobj **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : pmuk_fail(PMU_ENOMEM, "out of memory for the data objects");
}

int pmuk_dobj_set_symfs(struct pmuk_dobj *d, const char *symfs)
{
	free(d->symfs);
	d->symfs = NULL;
	if (symfs && !(d->symfs = strdup(symfs)))
		return pmuk_fail(PMU_ENOMEM, "out of memory for the data objects");
	return 0;
}

static int mod_of(struct pmuk_dobj *d, const char *path, uint32_t *out)
{
	for (size_t i = 0; i < d->nmods; i++)
		if (!strcmp(d->mods[i].path, path)) {
			*out = (uint32_t)i;
			return 0;
		}
	if (pmuk_grow((void **)&d->mods, &d->capmods, d->nmods + 1, sizeof(*d->mods)) < 0 ||
	    !(d->mods[d->nmods].path = strdup(path)))
		return pmuk_fail(PMU_ENOMEM, "out of memory for the data objects");
	*out = (uint32_t)d->nmods++;
	return 0;
}

static int add_map(struct pmuk_dobj *d, int32_t pid, uint64_t start, uint64_t end,
		   uint64_t pgoff, uint32_t mod)
{
	if (pmuk_grow((void **)&d->maps, &d->cap, d->n + 1, sizeof(*d->maps)) < 0)
		return pmuk_fail(PMU_ENOMEM, "out of memory for the data objects");
	d->maps[d->n++] = (struct dmap){ pid, start, end, pgoff, mod };
	return 0;
}

static int fork_maps(struct pmuk_dobj *d, int32_t pid, int32_t ppid)
{
	size_t n = d->n;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		if (d->maps[i].pid == ppid)
			err = add_map(d, pid, d->maps[i].start, d->maps[i].end, d->maps[i].pgoff,
				      d->maps[i].mod);
	return err;
}

static void drop_maps(struct pmuk_dobj *d, int32_t pid)
{
	size_t k = 0;

	for (size_t i = 0; i < d->n; i++)
		if (d->maps[i].pid != pid)
			d->maps[k++] = d->maps[i];
	d->n = k;
}

int pmuk_dobj_record(struct pmuk_dobj *d, const struct pmu_record *rec)
{
	uint32_t mod = 0;
	int err;

	switch (rec->kind) {
	case PMU_RECORD_MMAP:
		if (rec->pid < 0 || !rec->mmap.path || !rec->mmap.len)
			return 0;
		if ((err = mod_of(d, rec->mmap.path, &mod)) < 0)
			return err;
		return add_map(d, rec->pid, rec->mmap.start, rec->mmap.start + rec->mmap.len,
			       rec->mmap.pgoff, mod);
	case PMU_RECORD_FORK:
		return rec->pid != rec->task.ppid ? fork_maps(d, rec->pid, rec->task.ppid) : 0;
	case PMU_RECORD_COMM:
		if (rec->comm.exec && rec->pid == rec->tid)
			drop_maps(d, rec->pid);
		return 0;
	default:
		return 0;
	}
}

static const struct pmuk_dobj_sym *find_sym(struct dmod *m, uint64_t off)
{
	size_t lo = 0, hi = m->nsyms;

	while (lo < hi) {               /* the last symbol starting at or before off */
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* that one, or an earlier one still reaching off (a big array around it) */
	for (size_t i = lo; i-- > 0 && m->syms[i].reach > off;)
		if (off < m->syms[i].addr + m->syms[i].size)
			return &m->syms[i];
	return NULL;
}

static void free_syms(struct pmuk_dobj_sym *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(v[k].name);
	free(v);
}

/* The variables of mod's file, once: its symbols and what its DWARF adds (a
 * stripped file's debug info, local statics), sorted, each with its reach
 * (find_sym). A failure leaves what was read before it. */
static void load_syms(struct pmuk_dobj *d, struct dmod *mod)
{
	struct pmuk_dobj_sym *dw = NULL;
	size_t ndw = 0;

	mod->loaded = 1;
	if (pmuk_dobj_elf_syms(mod->path, &mod->syms, &mod->nsyms, &mod->load) < 0) {
		free_syms(mod->syms, mod->nsyms);
		mod->syms = NULL;
		mod->nsyms = 0;
	}
	if (!pmuk_dobj_dw_vars(mod->path, d->symfs, &dw, &ndw))
		pmuk_dobj_merge(&mod->syms, &mod->nsyms, dw, ndw);
	for (size_t k = 0; k < mod->nsyms; k++) {
		struct pmuk_dobj_sym *s = &mod->syms[k];

		s->reach = s->addr + s->size;
		if (k && mod->syms[k - 1].reach > s->reach)
			s->reach = mod->syms[k - 1].reach;
	}
}

static int is_file(const char *path)
{
	return path[0] == '/' && path[1] != '/';   /* not "//anon" */
}

/* The latest mapping of pid holding addr, NULL when none does. */
static const struct dmap *covering(const struct pmuk_dobj *d, int32_t pid, uint64_t addr)
{
	for (size_t i = d->n; i-- > 0;)
		if (d->maps[i].pid == pid && addr >= d->maps[i].start && addr < d->maps[i].end)
			return &d->maps[i];
	return NULL;
}

/* A variable of a file mapped (from offset 0) in pid holding addr: of the file
 * mapped there if one is (the latest mapping wins), else of any file (.bss past
 * the file's pages is anonymous memory). */
static const char *variable(struct pmuk_dobj *d, int32_t pid, uint64_t addr, const char **module)
{
	const struct dmap *cov = covering(d, pid, addr);
	int only = cov && is_file(d->mods[cov->mod].path) ? (int)cov->mod : -1;

	for (size_t i = d->n; i-- > 0;) {
		struct dmap *m = &d->maps[i];
		struct dmod *mod = &d->mods[m->mod];
		const struct pmuk_dobj_sym *s;

		if (m->pid != pid || m->pgoff || mod->path[0] != '/' ||
		    (only >= 0 && m->mod != (uint32_t)only))
			continue;
		if (!mod->loaded)
			load_syms(d, mod);
		if (mod->nsyms && addr >= m->start - mod->load &&
		    (s = find_sym(mod, addr - (m->start - mod->load)))) {
			*module = mod->path;
			return s->name;
		}
	}
	return NULL;
}

const char *pmuk_dobj_name(struct pmuk_dobj *d, int32_t pid, uint64_t addr, const char **module)
{
	const char *v;

	*module = "";
	if ((v = variable(d, pid, addr, module)))
		return v;
	for (size_t i = d->n; i-- > 0;) {      /* the latest mapping wins */
		struct dmap *m = &d->maps[i];
		const char *p;

		if (m->pid != pid || addr < m->start || addr >= m->end)
			continue;
		p = d->mods[m->mod].path;
		if (!strncmp(p, "[heap]", 6) || !strncmp(p, "[stack", 6))
			return !strncmp(p, "[heap]", 6) ? "[heap]" : "[stack]";
		/* "//anon": the kernel's name of anonymous memory (and of a heap whose
		 * first brk is all it saw: the kernel says [heap] from the second on) */
		if (p[0] == '/' && p[1] != '/' && strncmp(p, "/memfd:", 7) &&
		    strncmp(p, "/dev/zero", 9)) {
			*module = p;
			return p;
		}
		snprintf(d->name, sizeof(d->name), "[anon 0x%llx-0x%llx]",
			 (unsigned long long)m->start, (unsigned long long)m->end);
		return d->name;
	}
	return "[unknown]";
}

void pmuk_dobj_free(struct pmuk_dobj *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nmods; i++) {
		free_syms(d->mods[i].syms, d->mods[i].nsyms);
		free(d->mods[i].path);
	}
	free(d->mods);
	free(d->symfs);
	free(d->maps);
	free(d);
}
