/* SPDX-License-Identifier: MIT */
/* The symbolizer's recording mode: the module maps of many processes, built from a
 * recording's MMAP records. Each distinct file (path + build-id) is one image, read
 * once by the backend; a process holds sorted, non-overlapping mappings of images.
 * Kernel mappings go to kallsyms, anonymous code to perf-PID.map. */
#include "core/bsearch.h"
#include "core/symbols_int.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/hash.h"

#include <pmukit/trace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct img_key {
	const char *path;
	const uint8_t *id;
	uint8_t idn;
};

static int img_eq(const void *key, uint32_t i, const void *ctx)
{
	const struct img_key *k = key;
	const struct pmuk_sym_image *m = &((const struct pmu_symbolizer *)ctx)->imgs[i];

	return m->idn == k->idn && !memcmp(m->id, k->id, k->idn) && !strcmp(m->path, k->path);
}

static int want_eq(const void *key, uint32_t i, const void *ctx)
{
	const struct img_key *k = key;
	const struct pmuk_sym_want *w = &((const struct pmu_symbolizer *)ctx)->want[i];

	return w->idn == k->idn && !memcmp(w->id, k->id, k->idn) && !strcmp(w->path, k->path);
}

/* An image's key hash, for imgix and wantix alike. */
static uint64_t img_hash(const char *path, const uint8_t *id, uint8_t idn)
{
	return pmuk_hash_bytes(path, strlen(path), pmuk_hash_bytes(id, idn, 7));
}

/* Whether samples of t carry user stacks (--call-graph dwarf): unwinding them
 * asks for every image a stack passes through (libc's thread start, mostly
 * never sampled itself), which no list of the sampled images names. */
static int user_stacks(const struct pmu_trace *t)
{
	for (size_t i = 0; i < pmu_trace_event_count(t); i++)
		if (pmu_trace_event(t, i)->stack_user)
			return 1;
	return 0;
}

int pmuk_sym_rec_want(struct pmu_symbolizer *s)
{
	size_t n = pmu_trace_build_id_count(s->opts.trace);

	if (user_stacks(s->opts.trace))
		n = 0;   /* every image may be asked for: all read ahead */
	for (size_t i = 0; i < n; i++) {
		const struct pmu_trace_build_id *b = pmu_trace_build_id(s->opts.trace, i);
		struct pmuk_sym_want *w;
		uint8_t idn = b->build_id_size > 20 ? 20 : b->build_id_size;
		uint64_t h = img_hash(b->path, b->build_id, idn);
		struct img_key k = { b->path, b->build_id, idn };

		if (pmuk_index_find(&s->wantix, h, want_eq, &k, s) != PMUK_INDEX_NONE)
			continue;   /* listed for several pids */
		if (pmuk_grow((void **)&s->want, &s->capwant, s->nwant + 1, sizeof(*s->want)))
			return PMU_ENOMEM;
		w = &s->want[s->nwant];
		*w = (struct pmuk_sym_want){ .idn = idn };
		memcpy(w->id, b->build_id, idn);
		if (!(w->path = pmuk_sym_intern(s, b->path, strlen(b->path))) ||
		    pmuk_index_add(&s->wantix, h) == PMUK_INDEX_NONE)
			return PMU_ENOMEM;
		s->nwant++;
	}
	s->opts.trace = NULL;   /* copied: the recording may close before us */
	return 0;
}

static int pid_eq(const void *key, uint32_t i, const void *ctx)
{
	return ((const struct pmu_symbolizer *)ctx)->procs[i].pid == *(const int32_t *)key;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* What kind of memory a recorded path names. */
static int path_kind(const char *path, int32_t pid)
{
	if (!strncmp(path, "[kernel.kallsyms]", 17) || has_suffix(path, ".ko") ||
	    has_suffix(path, ".ko.xz") || has_suffix(path, ".ko.zst") ||
	    has_suffix(path, ".ko.gz") || (pid == -1 && path[0] == '['))
		return PMUK_SYM_KERNEL;
	if (!strncmp(path, "//anon", 6) || !strncmp(path, "[anon:", 6) ||
	    !strncmp(path, "/memfd:", 7) || !strncmp(path, "/tmp/perf-", 10) ||
	    !strcmp(path, "[heap]") || !strcmp(path, "[stack]") || !path[0])
		return PMUK_SYM_ANON;
	return PMUK_SYM_FILE;
}

/* "[name]" of a module mapping: "[ext4]" as is, "/lib/.../nf-tables.ko.xz" as
 * kallsyms spells it ("[nf_tables]"). NULL for the kernel itself. */
static const char *kmod_name(struct pmu_symbolizer *s, const char *path)
{
	char buf[80];
	const char *b = strrchr(path, '/');
	size_t n, i;

	if (!strncmp(path, "[kernel.kallsyms]", 17))
		return NULL;
	if (path[0] == '[')
		return pmuk_sym_intern(s, path, strlen(path));
	b = b ? b + 1 : path;
	n = strcspn(b, ".");
	if (n > sizeof(buf) - 3)
		n = sizeof(buf) - 3;
	buf[0] = '[';
	for (i = 0; i < n; i++)
		buf[i + 1] = b[i] == '-' ? '_' : b[i];
	buf[n + 1] = ']';
	return pmuk_sym_intern(s, buf, n + 2);
}

/* The image of mm (opened now when new); *first: it is new. UINT32_MAX without
 * memory. */
static uint32_t image_of(struct pmu_symbolizer *s, const struct pmu_record *r, int *first,
			 int *why)
{
	const struct pmu_mmap *mm = &r->mmap;
	struct img_key k = { mm->path, mm->build_id, mm->build_id_size };
	uint64_t h = img_hash(mm->path, mm->build_id, mm->build_id_size);
	uint32_t i = pmuk_index_find(&s->imgix, h, img_eq, &k, s);
	struct pmuk_sym_image *img;
	int told = 0;

	*first = 0;
	if (i != PMUK_INDEX_NONE)
		return i;
	if (pmuk_grow((void **)&s->imgs, &s->capimgs, s->nimgs + 1, sizeof(*s->imgs)))
		return UINT32_MAX;
	img = &s->imgs[s->nimgs];
	*img = (struct pmuk_sym_image){ .idn = mm->build_id_size,
					.kind = (uint8_t)path_kind(mm->path, r->pid) };
	if (!(img->path = pmuk_sym_intern(s, mm->path, strlen(mm->path))))
		return UINT32_MAX;
	memcpy(img->id, mm->build_id, mm->build_id_size);
	img->name = img->path;
	/* without a list of the sampled images, any may be asked for */
	img->ahead = !s->nwant || pmuk_index_find(&s->wantix, h, want_eq, &k, s) !=
		PMUK_INDEX_NONE;
	if (img->kind == PMUK_SYM_KERNEL) {
		img->kmod = kmod_name(s, mm->path);
		if (!img->kmod && strncmp(mm->path, "[kernel.kallsyms]", 17))
			return UINT32_MAX;
		img->name = img->kmod ? img->kmod : pmuk_sym_intern(s, "[kernel.kallsyms]", 17);
		if (!img->name)
			return UINT32_MAX;
		*why = pmuk_sym_kernel_image(s, img, mm, &told);
	} else if (img->kind == PMUK_SYM_FILE) {
		*why = mm->build_id_kind == PMU_BUILD_ID_BYTES ? pmuk_sym_backend_image(s, img) :
			pmuk_sym_pe_image(s, img, mm);
	}
	img->state = *why;
	if ((i = pmuk_index_add(&s->imgix, h)) == PMUK_INDEX_NONE) {
		pmuk_sym_pe_image_close(s, img);
		pmuk_sym_backend_image_close(s, img);
		return UINT32_MAX;
	}
	s->nimgs++;
	*first = !told;
	return i;
}

static struct pmuk_sym_proc *proc_of(struct pmu_symbolizer *s, int32_t pid, int create)
{
	/* every lookup asks for the sample's process and the kernel: remembered */
	uint32_t *hint = &s->proc_hint[pid != -1];
	uint64_t h;
	uint32_t i;

	if (*hint && s->procs[*hint - 1].pid == pid)
		return &s->procs[*hint - 1];
	h = pmuk_hash_u64((uint64_t)(int64_t)pid);
	i = pmuk_index_find(&s->procix, h, pid_eq, &pid, s);
	if (i == PMUK_INDEX_NONE && !create)
		return NULL;
	if (i == PMUK_INDEX_NONE) {
		if (pmuk_grow((void **)&s->procs, &s->capprocs, s->nprocs + 1,
			      sizeof(*s->procs)) ||
		    (i = pmuk_index_add(&s->procix, h)) == PMUK_INDEX_NONE)
			return NULL;
		s->procs[i] = (struct pmuk_sym_proc){ .pid = pid };
		s->nprocs++;
	}
	*hint = i + 1;   /* entries never move in the array nor leave it */
	return &s->procs[i];
}

/* Where offset pgoff of img lands: the bias of a mapping of it at start. A file
 * without segments (or no segment holding pgoff) is placed by offset. */
static uint64_t map_bias(const struct pmuk_sym_image *img, uint64_t start, uint64_t pgoff)
{
	for (unsigned i = 0; i < img->nseg; i++) {
		const struct pmuk_sym_seg *g = &img->seg[i];

		if (pgoff >= (g->offset & ~(uint64_t)0xfff) && pgoff < g->offset + g->filesz)
			return start - (g->vaddr - g->offset + pgoff);
	}
	return start - pgoff;
}

/* Where the first mapping above start begins, UINT64_MAX when none. */
static uint64_t next_start(const struct pmuk_sym_proc *p, uint64_t start)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].start > start)
			return p->maps[i].start;
	return UINT64_MAX;
}

/* Inserts m into p, cutting away what older mappings it covers. */
static int map_insert(struct pmuk_sym_proc *p, const struct pmuk_sym_map *m)
{
	size_t i, j;

	if (pmuk_grow((void **)&p->maps, &p->capmaps, p->nmaps + 2, sizeof(*p->maps)))
		return -1;
	for (i = 0; i < p->nmaps && p->maps[i].end <= m->start; i++)
		;
	/* An older mapping straddling m->start keeps its head (and its tail when it
	 * also reaches past m->end: split in two). */
	if (i < p->nmaps && p->maps[i].start < m->start) {
		struct pmuk_sym_map tail = p->maps[i];

		p->maps[i].end = m->start;
		i++;
		if (tail.end > m->end) {
			tail.pgoff += m->end - tail.start;
			tail.start = m->end;
			memmove(&p->maps[i + 1], &p->maps[i], (p->nmaps - i) * sizeof(*p->maps));
			p->maps[i] = tail;
			p->nmaps++;
		}
	}
	for (j = i; j < p->nmaps && p->maps[j].end <= m->end; j++)
		;   /* [i, j): wholly covered */
	if (j < p->nmaps && p->maps[j].start < m->end) {
		p->maps[j].pgoff += m->end - p->maps[j].start;
		p->maps[j].start = m->end;
	}
	memmove(&p->maps[i + 1], &p->maps[j], (p->nmaps - j) * sizeof(*p->maps));
	p->maps[i] = *m;
	p->nmaps = p->nmaps - (j - i) + 1;
	p->unwind_stale = 1;
	return 0;
}

int pmu_symbolizer_add_mmap(struct pmu_symbolizer *s, const struct pmu_record *r)
{
	struct pmuk_sym_map m;
	struct pmuk_sym_proc *p;
	int first, why = 0;
	int32_t pid;
	uint32_t i;

	if (!s || !r || r->kind != PMU_RECORD_MMAP || !r->mmap.path)
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_add_mmap needs a symbolizer and an "
				 "MMAP record with a path");
	if (!s->opts.offline)
		return pmuk_fail(PMU_EINVAL, "MMAP records go to offline symbolizers only: a "
				 "live one reads the maps of process %d", s->opts.pid);
	if (!r->mmap.len || r->mmap.build_id_size > 20)
		return pmuk_fail(PMU_EINVAL, "%s: the mapping at 0x%llx is empty or has a "
				 "build-id longer than 20 bytes", r->mmap.path,
				 (unsigned long long)r->mmap.start);
	if ((i = image_of(s, r, &first, &why)) == UINT32_MAX)
		return pmuk_fail(PMU_ENOMEM, "out of memory adding mapping %s", r->mmap.path);
	pid = s->imgs[i].kind == PMUK_SYM_KERNEL ? -1 : r->pid;
	if (!(p = proc_of(s, pid, 1)))
		return pmuk_fail(PMU_ENOMEM, "out of memory adding mapping %s", r->mmap.path);
	m = (struct pmuk_sym_map){ .start = r->mmap.start, .end = r->mmap.start + r->mmap.len,
				   .pgoff = r->mmap.pgoff, .img = i };
	if (m.end < m.start)
		m.end = UINT64_MAX;   /* perf's kernel map may run to the end of memory */
	/* The kernel image's map says _text.._etext; perf stretches it to the next
	 * mapping (its modules) so init text (start_kernel in every idle stack)
	 * is named: the same here, modules mapped later cut it. */
	m.recorded_end = m.end;
	if (s->imgs[i].kind == PMUK_SYM_KERNEL && !s->imgs[i].kmod)
		m.end = next_start(p, m.start);
	m.bias = map_bias(&s->imgs[i], m.start, m.pgoff);
	if (map_insert(p, &m))
		return pmuk_fail(PMU_ENOMEM, "out of memory adding mapping %s", r->mmap.path);
	/* The reason was set when the image was opened: say it once. */
	return first ? why : 0;
}

int pmu_symbolizer_add_fork(struct pmu_symbolizer *s, const struct pmu_record *r)
{
	struct pmuk_sym_proc *child, *parent;
	size_t n;

	if (!s || !r || r->kind != PMU_RECORD_FORK || !s->opts.offline)
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_add_fork needs an offline "
				 "symbolizer and a FORK record");
	if (r->pid == r->task.ppid || r->pid == -1)
		return 0;   /* a thread: it shares its process's mappings */
	if (!(child = proc_of(s, r->pid, 1)))
		return pmuk_fail(PMU_ENOMEM, "out of memory adding process %d", (int)r->pid);
	child->nmaps = 0;   /* a pid used again: the old process is gone */
	child->unwind_stale = 1;
	parent = proc_of(s, r->task.ppid, 0);
	if (!parent || !(n = parent->nmaps))
		return 0;
	if (pmuk_grow((void **)&child->maps, &child->capmaps, n, sizeof(*child->maps)))
		return pmuk_fail(PMU_ENOMEM, "out of memory adding process %d", (int)r->pid);
	memcpy(child->maps, parent->maps, n * sizeof(*child->maps));
	child->nmaps = n;
	return 0;
}

static const struct pmuk_sym_map *map_at(const struct pmuk_sym_proc *p, uint64_t addr)
{
	size_t lo = PMUK_BSEARCH_UPPER(p->maps, p->nmaps, start, addr);

	return lo && addr < p->maps[lo - 1].end ? &p->maps[lo - 1] : NULL;
}

/* The frame of an address in an image without symbols (or of unknown code). */
static int bare_frame(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
		      const struct pmuk_sym_map *m, uint64_t addr)
{
	struct pmu_frame *f = &s->chain[0];

	*f = (struct pmu_frame){ .module = img->name, .module_offset = addr - m->bias };
	if (img->state == PMU_EFORMAT)
		f->flags = PMU_FRAME_STALE;
	else if (img->state)
		f->flags = PMU_FRAME_NOFILE;
	return 1;
}

static int jit_frame(struct pmu_symbolizer *s, struct pmuk_sym_proc *p, uint64_t addr)
{
	const struct pmuk_sym_jit *j = pmuk_sym_jit_find(s, p, addr);

	if (!j)
		return 0;
	s->chain[0] = (struct pmu_frame){ .function = j->name,
					  .module = j->module ? j->module : p->jit_path,
					  .module_offset = addr, .symbol_offset = addr - j->start };
	return 1;
}

static int resolve_map(struct pmu_symbolizer *s, struct pmuk_sym_proc *p,
		       const struct pmuk_sym_map *m, uint64_t addr)
{
	struct pmuk_sym_image *img = &s->imgs[m->img];

	switch (img->kind) {
	case PMUK_SYM_KERNEL:
		if (img->state)
			return bare_frame(s, img, m, addr);
		pmuk_sym_kernel_resolve(s, img, m, addr);
		return 1;
	case PMUK_SYM_ANON:
		return jit_frame(s, p, addr) ? 1 : bare_frame(s, img, m, addr);
	default:
		if (img->pe)
			return pmuk_sym_pe_resolve_image(s, img, addr - m->bias);
		if (img->state || !img->handle)
			return bare_frame(s, img, m, addr);
		return pmuk_sym_backend_resolve_image(s, img, addr - m->bias);
	}
}

struct unmapped {
	uint64_t addr;
	int32_t pid;
};

static void unmapped_detail(char *buf, size_t size, const void *args)
{
	const struct unmapped *u = args;

	snprintf(buf, size, "0x%llx lies in no mapping of process %d nor of the kernel, and "
		 "no /tmp/perf-%d.map names it", (unsigned long long)u->addr, (int)u->pid,
		 (int)u->pid);
}

int pmu_symbolizer_resolve_pid(struct pmu_symbolizer *s, int32_t pid, uint64_t addr,
			       struct pmu_frame *frames, size_t max, size_t *n)
{
	struct pmuk_sym_proc *p, *k;
	const struct pmuk_sym_map *m;
	int got;

	if (n)
		*n = 0;
	if (!s || !frames || !max || !n)
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_resolve_pid needs a symbolizer, "
				 "room for at least one frame and a count");
	if (!s->opts.offline)
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_resolve_pid needs an offline "
				 "symbolizer fed with MMAP records; a live one resolves with "
				 "pmu_symbolizer_resolve");
	s->perf_names = 1;
	p = proc_of(s, pid, 1);
	k = proc_of(s, -1, 0);
	if (p && p->jit_rec && jit_frame(s, p, addr))
		got = 1;	/* the recording's own names come first */
	else if (p && (m = map_at(p, addr)))
		got = resolve_map(s, p, m, addr);
	else if (k && (m = map_at(k, addr)))
		got = resolve_map(s, k, m, addr);
	else if (p && pid != -1 && jit_frame(s, p, addr))
		got = 1;
	else	/* common (stack garbage in frame-pointer chains): formatted if asked */
		return pmuk_fail_later(PMU_ENOENT, unmapped_detail,
				       &(struct unmapped){ addr, pid }, sizeof(struct unmapped));
	if (got < 0)
		return got;
	return pmuk_sym_finish(s, got, frames, max, n);
}

int pmu_symbolizer_add_symbol(struct pmu_symbolizer *s, const struct pmu_record *r)
{
	struct pmuk_sym_proc *p;

	if (!s || !r || r->kind != PMU_RECORD_SYMBOL || !s->opts.offline)
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_add_symbol needs an offline "
				 "symbolizer and a SYMBOL record");
	if (!(p = proc_of(s, r->pid, 1)) || pmuk_sym_jit_add(s, p, &r->symbol))
		return pmuk_fail(PMU_ENOMEM, "out of memory adding JIT code of process %d",
				 (int)r->pid);
	return 0;
}

int pmu_symbolizer_unwind(struct pmu_symbolizer *s, const struct pmu_record *r,
			  uint64_t *ips, size_t max, size_t *n)
{
	const uint32_t need = PMU_HAS_REGS_USER | PMU_HAS_STACK_USER;
	struct pmuk_sym_proc *p;

	if (n)
		*n = 0;
	if (!s || !r || !ips || !max || !n || r->kind != PMU_RECORD_SAMPLE)
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_unwind needs a symbolizer, a "
				 "sample record, room for at least one address and a count");
	if (!s->opts.offline)
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_unwind needs an offline symbolizer "
				 "fed with the recording's MMAP records");
	if ((r->has & need) != need || !r->sample.ext || !r->sample.ext->regs_abi)
		return pmuk_fail(PMU_EINVAL, "the sample carries no user registers and stack "
				 "(record with --call-graph dwarf), or was taken in a kernel "
				 "thread");
	if (!(p = proc_of(s, r->pid, 0)) || !p->nmaps)
		return pmuk_fail(PMU_ENOENT, "no mapping of process %d was added: unwinding "
				 "needs its modules (its MMAP records)", (int)r->pid);
	return pmuk_sym_backend_unwind(s, p, r, ips, max, n);
}

void pmuk_sym_rec_free(struct pmu_symbolizer *s)
{
	s->closing = 1;   /* the images' read-ahead is dropped, not waited for */
	for (size_t i = 0; i < s->nprocs; i++) {
		pmuk_sym_backend_unwind_free(s, &s->procs[i]);
		free(s->procs[i].maps);
		free(s->procs[i].jit);
	}
	for (size_t i = 0; i < s->nimgs; i++) {
		pmuk_sym_pe_image_close(s, &s->imgs[i]);
		pmuk_sym_backend_image_close(s, &s->imgs[i]);
	}
	pmuk_sym_kernel_free(s);
	free(s->procs);
	free(s->imgs);
	pmuk_index_free(&s->procix);
	pmuk_index_free(&s->imgix);
	free(s->dm);
	pmuk_index_free(&s->dmix);
	free(s->want);
	pmuk_index_free(&s->wantix);
}
