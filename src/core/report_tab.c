/* SPDX-License-Identifier: MIT */
/* Tables of the record report: threads and processes (an id reused after
 * EXIT starts a new entry), modules with their address maps per process, and
 * distinct code addresses with their names. */
#include "core/file.h"
#include "core/error.h"
#include "core/opts.h"
#include "core/grow.h"
#include "core/report_int.h"

#include <pmukit/symbols.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int pmu_report_new(const struct pmu_report_opts *opts, struct pmu_report **out)
{
	struct pmu_report *r;
	int err;

	*out = NULL;
	if ((err = PMUK_OPTS_VALID(opts, pmu_report_opts)) < 0)
		return err;
	if (!(r = calloc(1, sizeof(*r))))
		return pmuk_fail(PMU_ENOMEM, "no memory for a report");
	PMUK_OPTS_LOAD(r->o, opts, pmu_report_opts); /* checked above: cannot fail */
	if (pmuk_rp_intern(&r->str, "") != 0 || !r->str.n) {
		pmu_report_free(r);
		return pmuk_fail(PMU_ENOMEM, "no memory for a report");
	}
	*out = r;
	return 0;
}

void pmu_report_free(struct pmu_report *r)
{
	if (!r)
		return;
	pmuk_rp_strings_free(&r->str);
	for (size_t i = 0; i < r->n_maps; i++) {
		free(r->maps[i].v);
		pmuk_rp_jit_free(&r->maps[i]);
	}
	for (size_t i = 0; i < r->n_threads; i++)
		free(r->threads[i].pmc);
	for (size_t i = 0; i < r->n_procs; i++)
		free(r->procs[i].pmc);
	for (size_t i = 0; i < r->n_cpus; i++)
		free(r->cpus[i].pmc_in);
	for (int i = 0; i < 5; i++)
		free(r->order[i]);
	struct pmuk_index *ix[] = { &r->mod_ix, &r->map_ix, &r->frame_ix, &r->sym_ix,
				  &r->thread_ix, &r->proc_ix, &r->stack_ix, &r->moff_ix };
	for (size_t i = 0; i < sizeof(ix) / sizeof(ix[0]); i++)
		pmuk_index_free(ix[i]);
	free(r->mods), free(r->maps), free(r->frames), free(r->syms), free(r->threads);
	free(r->moffs);
	free(r->procs), free(r->cpus), free(r->stacks), free(r->scratch), free(r->sscratch);
	pmuk_rp_groups_free(r);
	pmuk_rp_arena_free(&r->mem);
	free(r->inl), free(r->escratch), free(r->uscratch), free(r->events);
	free(r);
}

/* ---- threads and processes: the live entry per id; an id reused after an
 * EXIT (or by another process) starts a new entry, the old one stays ---- */

static int live_tid_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct pmu_report *r = ctx;

	return r->threads[id].tid == *(const int32_t *)key && !r->threads[id].replaced;
}

static int live_pid_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct pmu_report *r = ctx;

	return r->procs[id].pid == *(const int32_t *)key && !r->procs[id].replaced;
}

uint64_t *pmuk_rp_pmc_array(const struct pmu_report *r)
{
	return r->o.nr_pmc ? calloc(r->o.nr_pmc, sizeof(uint64_t)) : NULL;
}

struct rp_process *pmuk_rp_process(struct pmu_report *r, int32_t pid)
{
	uint64_t h = pmuk_hash_u64((uint32_t)pid | 2ull << 32);
	uint32_t id = pmuk_index_find(&r->proc_ix, h, live_pid_eq, &pid, r);

	if (id != RP_NONE)
		return &r->procs[id];
	if (pmuk_grow((void **)&r->procs, &r->cap_procs, r->n_procs + 1, sizeof(*r->procs)) ||
	    (id = pmuk_index_add(&r->proc_ix, h)) == RP_NONE)
		return NULL;
	struct rp_process *p = &r->procs[r->n_procs++];
	p->pid = pid;
	p->pmc = pmuk_rp_pmc_array(r);
	return p;
}

struct rp_thread *pmuk_rp_thread(struct pmu_report *r, int32_t pid, int32_t tid)
{
	uint64_t h = pmuk_hash_u64((uint32_t)tid | 3ull << 32);
	uint32_t id = pmuk_index_find(&r->thread_ix, h, live_tid_eq, &tid, r);

	if (id != RP_NONE) {
		struct rp_thread *t = &r->threads[id];
		if (t->pid < 0 && pid >= 0)
			t->pid = pid;
		if (pid < 0 || t->pid == pid)
			return t;
		t->replaced = 1;	/* the tid now belongs to another process */
	}
	if (pmuk_grow((void **)&r->threads, &r->cap_threads, r->n_threads + 1, sizeof(*r->threads)) ||
	    pmuk_index_add(&r->thread_ix, h) == RP_NONE)
		return NULL;
	struct rp_thread *t = &r->threads[r->n_threads++];
	t->pid = pid;
	t->tid = tid;
	t->pmc = pmuk_rp_pmc_array(r);
	return t;
}

const char *pmuk_rp_process_name(struct pmu_report *r, int32_t pid)
{
	uint64_t h = pmuk_hash_u64((uint32_t)pid | 2ull << 32);
	uint32_t id = pmuk_index_find(&r->proc_ix, h, live_pid_eq, &pid, r);

	const char *name = id == RP_NONE ? "" : pmuk_rp_str(r, r->procs[id].name);

	/* the idle task has no COMM record: perf (and pmukit script) call it swapper */
	return !*name && pid == 0 ? "swapper" : name;
}

const char *pmuk_rp_thread_name(struct pmu_report *r, const struct rp_thread *t)
{
	return t->comm ? pmuk_rp_str(r, t->comm) : pmuk_rp_process_name(r, t->pid);
}

/* ---- modules and address maps ---- */

/* A module is its file name and build id when it has one (the same binary
 * shows up under an NT device path at rundown and a plain path at load),
 * else its path. */
struct mod_key {
	uint32_t name;           /* interned: file name with a build id, else path */
	uint8_t bid_size;        /* at most 20 */
	const struct pmu_mmap *m;
};

static int mod_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct mod_key *k = key;
	const struct rp_module *m = &((const struct pmu_report *)ctx)->mods[id];

	return (k->bid_size ? m->base : m->path) == k->name && m->bid_size == k->bid_size &&
	       m->bid_kind == k->m->build_id_kind &&
	       !memcmp(m->build_id, k->m->build_id, m->bid_size);
}

static void build_id_text(struct rp_module *m)
{
	static const char hex[] = "0123456789ABCDEF";
	const uint8_t *b = m->build_id;
	char *o = m->bid_text;

	if (m->bid_kind == PMU_BUILD_ID_PDB && m->bid_size == 20) {
		/* symbol-server key: GUID fields as numbers, then Age in hex */
		static const int order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
		for (int i = 0; i < 16; i++) {
			*o++ = hex[b[order[i]] >> 4];
			*o++ = hex[b[order[i]] & 15];
		}
		uint32_t age = b[16] | b[17] << 8 | b[18] << 16 | (uint32_t)b[19] << 24;
		snprintf(o, sizeof(m->bid_text) - 32, "%" PRIX32, age);
		return;
	}
	for (unsigned i = 0; i < m->bid_size && i < 20; i++) {
		*o++ = "0123456789abcdef"[b[i] >> 4];
		*o++ = "0123456789abcdef"[b[i] & 15];
	}
	*o = '\0';
}

/* perf records the kernel's map as "[kernel.kallsyms]_text" (the symbol its
 * start is relative to); perf report and script call it "[kernel.kallsyms]"
 * (likewise "[guest.kernel.kallsyms]"), and so does every output here. */
static const char *module_path(const char *p, char *buf, size_t size)
{
	const char *end = p[0] == '[' ? strchr(p, ']') : NULL;

	if (!end || !end[1] || (size_t)(end - p) + 2 > size)
		return p;
	memcpy(buf, p, (size_t)(end - p) + 1);
	buf[end - p + 1] = '\0';
	return buf;
}

static uint32_t module_of(struct pmu_report *r, const struct pmu_mmap *mm)
{
	char buf[64];
	const char *path = module_path(mm->path ? mm->path : "", buf, sizeof(buf));
	uint8_t n = mm->build_id_size > 20 ? 20 : mm->build_id_size;
	struct mod_key k = { pmuk_rp_intern(&r->str, n ? pmuk_path_base(path) : path), n, mm };
	uint64_t h = pmuk_hash_bytes(&k.name, sizeof(k.name), 4);

	h = pmuk_hash_bytes(mm->build_id, n, h);
	uint32_t id = pmuk_index_find(&r->mod_ix, h, mod_eq, &k, r);
	if (id != RP_NONE)
		return id;
	if (pmuk_grow((void **)&r->mods, &r->cap_mods, r->n_mods + 1, sizeof(*r->mods)) ||
	    (id = pmuk_index_add(&r->mod_ix, h)) == RP_NONE)
		return RP_NONE;
	struct rp_module *m = &r->mods[r->n_mods++];
	m->path = pmuk_rp_intern(&r->str, path);
	m->base = pmuk_rp_intern(&r->str, pmuk_path_base(path));
	m->debug = mm->debug_path ? pmuk_rp_intern(&r->str, mm->debug_path) : 0;
	memcpy(m->build_id, mm->build_id, n);
	m->bid_size = n;
	m->bid_kind = mm->build_id_kind;
	m->anon = (uint8_t)pmuk_rp_anon_path(path);
	build_id_text(m);
	return id;
}

static int pid_eq(const void *key, uint32_t id, const void *ctx)
{
	return ((const struct pmu_report *)ctx)->maps[id].pid == *(const int32_t *)key;
}

struct rp_mapset *pmuk_rp_mapset(struct pmu_report *r, int32_t pid, int create)
{
	uint64_t h = pmuk_hash_u64((uint32_t)pid | 5ull << 32);
	uint32_t id = pmuk_index_find(&r->map_ix, h, pid_eq, &pid, r);

	if (id != RP_NONE)
		return &r->maps[id];
	if (!create || pmuk_grow((void **)&r->maps, &r->cap_maps, r->n_maps + 1, sizeof(*r->maps)) ||
	    pmuk_index_add(&r->map_ix, h) == RP_NONE)
		return NULL;
	r->maps[r->n_maps].pid = pid;
	return &r->maps[r->n_maps++];
}

/* A forked process runs its parent's code until it execs: it starts with a
 * copy of the parent's mappings (perf does the same), else its samples name
 * no module. 0 or PMU_ENOMEM. */
int pmuk_rp_fork_maps(struct pmu_report *r, int32_t pid, int32_t ppid)
{
	struct rp_mapset *to, *from;

	if (pid < 0 || ppid < 0 || pid == ppid || !(from = pmuk_rp_mapset(r, ppid, 0)) ||
	    !from->n)
		return 0;
	if (!(to = pmuk_rp_mapset(r, pid, 1)))
		return PMU_ENOMEM;
	from = pmuk_rp_mapset(r, ppid, 0);   /* the set array may have moved */
	if (to->n)   /* mappings of its own already */
		return 0;
	if (pmuk_grow((void **)&to->v, &to->cap, from->n, sizeof(*to->v)))
		return PMU_ENOMEM;
	memcpy(to->v, from->v, from->n * sizeof(*to->v));
	to->n = from->n;
	return 0;
}

/* A new mapping replaces what it overlaps; the set stays sorted by start. */
int pmuk_rp_add_map(struct pmu_report *r, const struct pmu_record *rec)
{
	const struct pmu_mmap *mm = &rec->mmap;
	struct rp_mapset *s = pmuk_rp_mapset(r, rec->pid < 0 ? -1 : rec->pid, 1);
	uint32_t mod = module_of(r, mm);

	if (!s || mod == RP_NONE || mm->len == 0)
		return s && mod != RP_NONE ? 0 : PMU_ENOMEM;
	uint64_t start = mm->start, end = mm->start + mm->len;
	size_t w = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].end <= start || s->v[i].start >= end)
			s->v[w++] = s->v[i];
	s->n = w;
	if (pmuk_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)))
		return PMU_ENOMEM;
	size_t at = s->n;
	while (at > 0 && s->v[at - 1].start > start)
		at--;
	memmove(&s->v[at + 1], &s->v[at], (s->n - at) * sizeof(*s->v));
	s->v[at] = (struct rp_map){ start, end, mm->pgoff, mod };
	s->n++;
	return 0;
}

static const struct rp_map *find_map(const struct rp_mapset *s, uint64_t addr)
{
	size_t lo = 0, hi = s ? s->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < s->v[lo - 1].end ? &s->v[lo - 1] : NULL;
}

/* ---- code addresses ---- */

struct frame_key {
	uint32_t module;
	int32_t pid;             /* JIT code: the process and its generation */
	uint32_t gen;
	uint64_t addr, bias;
};

static int frame_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct frame_key *k = key;
	const struct rp_frame *f = &((const struct pmu_report *)ctx)->frames[id];

	return f->addr == k->addr && f->module == k->module && f->pid == k->pid &&
	       f->gen == k->gen && f->bias == k->bias;
}

struct sym_key {
	uint32_t name, module;
};

static int sym_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct sym_key *k = key;
	const struct rp_sym *s = &((const struct pmu_report *)ctx)->syms[id];

	return s->name == k->name && s->module == k->module;
}

/* The symbol k, RP_NONE when none (fresh: k's name is new, so no symbol has
 * it, and the lookup is skipped); *h: k's hash, for sym_add. */
static uint32_t sym_find(struct pmu_report *r, const struct sym_key *k, int fresh, uint64_t *h)
{
	*h = pmuk_hash_u64((uint64_t)k->name << 32 | k->module);
	return fresh ? RP_NONE : pmuk_index_find(&r->sym_ix, *h, sym_eq, k, r);
}

/* A new symbol row of hash h, for the caller to fill: its id, RP_NONE
 * without memory. */
static uint32_t sym_add(struct pmu_report *r, uint64_t h)
{
	uint32_t id;

	if (pmuk_grow_raw((void **)&r->syms, &r->cap_syms, r->n_syms + 1, sizeof(*r->syms)) ||
	    (id = pmuk_index_add(&r->sym_ix, h)) == RP_NONE)
		return RP_NONE;
	r->n_syms++;
	return id;
}

/* The symbol named name (shown as label) in module: RP_NONE without memory. */
static uint32_t sym_of(struct pmu_report *r, const char *name, const char *label, uint32_t module,
		       int kernel)
{
	struct sym_key k = { pmuk_rp_intern(&r->str, name), module };
	uint64_t h;
	uint32_t id = sym_find(r, &k, 0, &h);

	if (id == RP_NONE && (id = sym_add(r, h)) != RP_NONE)
		r->syms[id] = (struct rp_sym){ k.name, module, 0, 0,
			pmuk_rp_intern(&r->str, label), (uint8_t)kernel, 0, 0 };
	return id;
}

/* The symbol "0x<addr>" in no module, its texts not made: as sym_of would
 * find or make it, with the same string ids. */
static uint32_t addr_sym(struct pmu_report *r, uint64_t addr, int kernel)
{
	int made;
	struct sym_key k = { pmuk_rp_addr_name(&r->str, addr, &made), RP_NONE };
	uint64_t h;
	/* a new name names no symbol yet: most of these addresses are seen once */
	uint32_t id = sym_find(r, &k, made, &h);

	if (id == RP_NONE && (id = sym_add(r, h)) != RP_NONE)
		r->syms[id] = (struct rp_sym){ k.name, RP_NONE, 0, 0,
			pmuk_rp_addr_label(&r->str, addr), (uint8_t)kernel, 1, addr };
	return id;
}

/* What the symbolizer said of one address, innermost first. */
struct named {
	struct pmu_frame fr[16];
	size_t n;
};

/* The symbolizer's frames for addr; 0 when it named the function or said the
 * module is stale or missing, else the caller falls back. */
static int symbolize(struct pmu_report *r, int32_t pid, uint64_t addr, struct named *out)
{
	out->n = 0;
	if (!r->o.symbolizer ||
	    pmu_symbolizer_resolve_pid(r->o.symbolizer, pid, addr, out->fr, 16, &out->n) ||
	    !out->n)
		return -1;
	const struct pmu_frame *o = &out->fr[out->n - 1];
	return o->function || (o->flags & (PMU_FRAME_STALE | PMU_FRAME_NOFILE)) ? 0 : -1;
}

/* "file.c:12" of a symbolizer frame, 0 when it has no position. */
static uint32_t line_of(struct pmu_report *r, const struct pmu_frame *f)
{
	char buf[320];

	if (!f->file || !f->line)
		return 0;
	snprintf(buf, sizeof(buf), "%s:%u", pmuk_path_base(f->file), f->line);
	return pmuk_rp_intern(&r->str, buf);
}

/* The calls inlined at addr as (sym, line) pairs in r->inl; 0 or PMU_ENOMEM. */
static int add_inlined(struct pmu_report *r, struct rp_frame *fr, const struct named *nm,
		       const char *mod, uint32_t module, int kernel)
{
	char name[600];

	fr->inl = (uint32_t)(r->n_inl / 2);
	fr->n_inl = 0;
	for (size_t i = 0; i + 1 < nm->n; i++) {
		const char *fn = nm->fr[i].function ? nm->fr[i].function : "[inlined]";
		snprintf(name, sizeof(name), "%s!%s", mod, fn);
		uint32_t sym = sym_of(r, name, fn, module, kernel);
		if (sym == RP_NONE ||
		    pmuk_grow((void **)&r->inl, &r->cap_inl, r->n_inl + 2, sizeof(*r->inl)))
			return PMU_ENOMEM;
		r->inl[r->n_inl++] = sym;
		r->inl[r->n_inl++] = line_of(r, &nm->fr[i]);
		fr->n_inl++;
	}
	return 0;
}

/* Names made as snprintf would make them (cut at size - 1 bytes), without its
 * format parsing: most of a report's addresses are named once each. */
struct txt {
	char *o;
	size_t n, size;
};

static void put(struct txt *t, const char *s)
{
	while (*s && t->n + 1 < t->size)
		t->o[t->n++] = *s++;
	t->o[t->n] = '\0';
}

/* "0x" and v in hex, at least `digits` digits: "0x%0*" PRIx64 */
static void put_hex(struct txt *t, uint64_t v, int digits)
{
	char d[RP_ADDR_BUF];

	put(t, pmuk_rp_hex_text(d, v, digits));
}

/* name ("module!function") and label ("function") of an address; 1 when
 * they are the address alone, in no mapping (nothing is written then). */
static int name_of(struct pmu_report *r, const struct rp_map *m, const struct named *nm,
		   const char *fn, uint64_t addr, char *name, char *label, size_t size)
{
	const char *mod = m ? pmuk_rp_str(r, r->mods[m->module].base) : "";
	uint64_t off = m ? addr - m->start + m->pgoff : addr;
	const struct pmu_frame *o = nm->n ? &nm->fr[nm->n - 1] : NULL;

	if (o && !o->function) {	/* the symbolizer found the module stale or gone */
		const char *why = o->flags & PMU_FRAME_STALE ? "[stale]" : "[missing]";
		if (!*mod)
			mod = pmuk_path_base(o->module ? o->module : "");
		snprintf(label, size, "0x%016" PRIx64 " %s", o->module_offset, why);
		snprintf(name, size, "%s!+0x%" PRIx64 " %s", mod, o->module_offset, why);
		return 0;
	}
	if (o)
		fn = o->function;
	if (!*mod && o && o->module)
		mod = pmuk_path_base(o->module);
	if (!m && !*mod && !(fn && *fn))
		return 1;
	struct txt l = { label, 0, size }, n = { name, 0, size };
	if (fn && *fn)
		put(&l, fn);
	else
		put_hex(&l, off, 16);
	if (*mod) {
		put(&n, mod);
		put(&n, "!");
	}
	if (fn && *fn)
		put(&n, fn);
	else if (*mod)
		put(&n, "+"), put_hex(&n, off, 1);
	else
		put_hex(&n, addr, 1);
	return 0;
}

/* The resolve callback's name for addr, NULL when none. */
static const char *callback(struct pmu_report *r, const struct rp_map *m, uint64_t addr)
{
	struct pmu_report_module pm = { 0 };

	if (!r->o.resolve)
		return NULL;
	if (m) {
		const struct rp_module *mo = &r->mods[m->module];
		pm = (struct pmu_report_module){ pmuk_rp_str(r, mo->path), m->start,
			m->end - m->start, m->pgoff, mo->build_id, mo->bid_size, mo->bid_kind,
			mo->debug ? pmuk_rp_str(r, mo->debug) : NULL };
	}
	return r->o.resolve(m ? &pm : NULL, addr, r->o.resolve_ctx);
}

/* ---- module offsets: an ELF file (it has a build-id) names an offset the
 * same in every process; JIT code and anonymous memory (no build-id) do not.
 * Only functions the symbolizer named are kept: the resolve callback sees the
 * absolute address, and a copy found stale at one path may be sound at
 * another. ---- */

static int moff_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct rp_moff *k = key, *m = &((const struct pmu_report *)ctx)->moffs[id];

	return m->off == k->off && m->module == k->module;
}

static uint64_t moff_hash(const struct rp_moff *k)
{
	return pmuk_hash_u64(k->off ^ (uint64_t)k->module << 40 ^ 0x6d6f6666ull << 8);
}

/* The key of addr in m, 0 when its names may depend on the process. */
static int moff_key(const struct pmu_report *r, const struct rp_map *m, uint64_t addr,
		    struct rp_moff *k)
{
	if (!m || !r->mods[m->module].bid_size)
		return 0;
	*k = (struct rp_moff){ m->module, RP_NONE, addr - m->start + m->pgoff };
	return 1;
}

/* Adds frame fr at hash h: its id, RP_NONE without memory. */
static uint32_t add_frame(struct pmu_report *r, const struct rp_frame *fr, uint64_t h)
{
	uint32_t id;

	if (pmuk_grow_raw((void **)&r->frames, &r->cap_frames, r->n_frames + 1, sizeof(*r->frames)) ||
	    (id = pmuk_index_add(&r->frame_ix, h)) == RP_NONE)
		return RP_NONE;
	r->frames[r->n_frames++] = *fr;
	return id;
}

/* Remembers frame id as the names of k (best effort: without memory the next
 * process symbolizes it again). */
static void add_moff(struct pmu_report *r, struct rp_moff k, uint32_t id)
{
	if (pmuk_grow_raw((void **)&r->moffs, &r->cap_moffs, r->moff_ix.n + 1, sizeof(*r->moffs)))
		return;
	uint32_t at = pmuk_index_add(&r->moff_ix, moff_hash(&k));
	if (at != RP_NONE)
		r->moffs[at] = (struct rp_moff){ k.module, id, k.off };
}

uint32_t pmuk_rp_frame(struct pmu_report *r, struct rp_mapset *own,
		       const struct rp_mapset *all, int32_t pid, uint64_t addr, int kernel)
{
	const struct rp_map *m = find_map(own, addr);

	if (!m && (m = find_map(all, addr)))
		kernel = 1;	/* maps of every process: the kernel's */
	int jit = pid >= 0 && !kernel && (!m || r->mods[m->module].anon);
	struct frame_key k = { m ? m->module : RP_NONE, jit ? pid : -1,
			       jit && own ? own->jit_gen : 0, addr, m ? m->start - m->pgoff : 0 };
	uint64_t h = pmuk_hash_u64(k.addr ^ (uint64_t)k.module << 47 ^ (uint64_t)k.gen << 32 ^
				   (uint64_t)(uint32_t)k.pid * 0x9E3779B97F4A7C15ull ^
				   k.bias * 0xC2B2AE3D27D4EB4Full);
	uint32_t id = pmuk_index_find(&r->frame_ix, h, frame_eq, &k, r);
	if (id != RP_NONE)
		return id;
	struct rp_moff mk = { 0, 0, 0 };
	int keyed = moff_key(r, m, addr, &mk);
	uint32_t seen = keyed ? pmuk_index_find(&r->moff_ix, moff_hash(&mk), moff_eq, &mk, r) :
		RP_NONE;
	if (seen != RP_NONE) {	/* named already: the same names at this address */
		struct rp_frame fr = r->frames[r->moffs[seen].frame];
		fr.addr = addr;
		fr.bias = k.bias;
		return add_frame(r, &fr, h);
	}
	static struct named none;
	struct named nm;
	int named = !symbolize(r, pid, addr, &nm);
	const char *fn = named ? NULL : callback(r, m, addr);
	const struct named *use = named ? &nm : &none;
	char name[600], label[600];
	int bare = name_of(r, m, use, fn, addr, name, label, sizeof(name));
	struct rp_frame fr = { .module = k.module, .pid = k.pid, .addr = addr, .bias = k.bias,
			       .line = use->n ? line_of(r, &use->fr[use->n - 1]) : 0, .gen = k.gen };
	const char *func = use->n ? use->fr[use->n - 1].function : fn;
	fr.func = func && *func ? pmuk_rp_intern(&r->str, func) : 0;
	uint32_t smod = k.module;	/* JIT code the symbolizer named: its module */
	if (smod == RP_NONE && use->n && func && use->fr[use->n - 1].module)
		smod = module_of(r, &(struct pmu_mmap){ .path = use->fr[use->n - 1].module });
	if (bare && smod == RP_NONE) {
		fr.sym = addr_sym(r, addr, kernel);
	} else if (bare) {   /* what name_of left out: the address in no mapping */
		struct txt n = { name, 0, sizeof(name) }, l = { label, 0, sizeof(label) };
		put_hex(&n, addr, 1);
		put_hex(&l, addr, 16);
		fr.sym = sym_of(r, name, label, smod, kernel);
	} else {
		fr.sym = sym_of(r, name, label, smod, kernel);
	}
	const char *mod = m ? pmuk_rp_str(r, r->mods[m->module].base) : "";
	if (fr.sym == RP_NONE || add_inlined(r, &fr, use, mod, k.module, kernel) ||
	    (jit && own && pmuk_rp_jit_seen(own, addr)) ||
	    (id = add_frame(r, &fr, h)) == RP_NONE)
		return RP_NONE;
	if (keyed && named && use->fr[use->n - 1].function)   /* not stale or missing */
		add_moff(r, mk, id);
	return id;
}
