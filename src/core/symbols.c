/* SPDX-License-Identifier: MIT */
/* The symbolizer's portable half: arguments, the offline module table, the string
 * pool behind every name a frame carries, and the inline-chain truncation rule.
 * The OS backends (libdwfl, DbgHelp) fill s->chain. */
#include "core/bsearch.h"
#include "core/symbols_int.h"
#include "core/error.h"
#include "core/opts.h"
#include "core/grow.h"
#include "core/hash.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK 16384

struct pmuk_sym_chunk {
	struct pmuk_sym_chunk *next;
	size_t used, size;
	char data[];
};

static char *pool_alloc(struct pmu_symbolizer *s, size_t n)
{
	struct pmuk_sym_chunk *c = s->chunks;

	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK ? n : CHUNK;

		if (!(c = malloc(sizeof(*c) + size)))
			return NULL;
		c->used = 0;
		c->size = size;
		c->next = s->chunks;
		s->chunks = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

struct str_key {
	const char *str;
	size_t len;
};

static int str_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct str_key *k = key;
	const char *t = ((const struct pmu_symbolizer *)ctx)->strings[id];

	return !strncmp(t, k->str, k->len) && !t[k->len];
}

const char *pmuk_sym_intern(struct pmu_symbolizer *s, const char *str, size_t len)
{
	struct str_key k = { str, len };
	uint64_t h = pmuk_hash_bytes(str, len, 0);
	uint32_t id = pmuk_index_find(&s->strix, h, str_eq, &k, s);
	char *copy;

	if (id != PMUK_INDEX_NONE)
		return s->strings[id];
	if (pmuk_grow((void **)&s->strings, &s->cap_strings, s->strix.n + 1, sizeof(*s->strings)) ||
	    !(copy = pool_alloc(s, len + 1)))
		return NULL;
	memcpy(copy, str, len);
	copy[len] = 0;
	if ((id = pmuk_index_add(&s->strix, h)) == PMUK_INDEX_NONE)
		return NULL;	/* copy stays in the pool, freed at close */
	return s->strings[id] = copy;
}

void pmuk_sym_hex(const uint8_t *id, size_t n, char *buf)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 15];
	}
	buf[2 * n] = 0;
}

struct pmuk_sym_module *pmuk_sym_module_add(struct pmu_symbolizer *s, const char *path,
					    uint64_t bias, uint64_t start, uint64_t end,
					    int *merged)
{
	struct pmuk_sym_module *m;
	size_t i;

	*merged = 0;
	for (i = 0; i < s->nmods; i++) {
		m = &s->mods[i];
		if (m->bias != bias || strcmp(m->path, path))
			continue;
		/* Another mapping of the same image: widen the entry, keep it sorted. */
		*merged = 1;
		if (start < m->start)
			m->start = start;
		if (end > m->end)
			m->end = end;
		for (; i > 0 && s->mods[i - 1].start > s->mods[i].start; i--) {
			struct pmuk_sym_module t = s->mods[i];

			s->mods[i] = s->mods[i - 1];
			s->mods[i - 1] = t;
		}
		return &s->mods[i];
	}
	if (pmuk_grow((void **)&s->mods, &s->capmods, s->nmods + 1, sizeof(*s->mods)))
		return NULL;
	if (!(path = pmuk_sym_intern(s, path, strlen(path))))
		return NULL;
	for (i = s->nmods; i > 0 && s->mods[i - 1].start > start; i--)
		s->mods[i] = s->mods[i - 1];
	s->nmods++;
	m = &s->mods[i];
	*m = (struct pmuk_sym_module){ .start = start, .end = end, .bias = bias, .path = path };
	return m;
}

struct pmuk_sym_module *pmuk_sym_module_at(struct pmu_symbolizer *s, uint64_t addr)
{
	/* The last module starting at or below addr; a later mapping laid over an
	 * earlier one wins, so look back past entries that end too soon. */
	size_t lo = PMUK_BSEARCH_UPPER(s->mods, s->nmods, start, addr);

	while (lo-- > 0)
		if (addr < s->mods[lo].end)
			return &s->mods[lo];
	return NULL;
}

void pmuk_sym_module_frame(const struct pmuk_sym_module *m, uint64_t addr, struct pmu_frame *f)
{
	*f = (struct pmu_frame){ .module = m->path, .module_offset = addr - m->bias };
	if (m->state == PMU_EFORMAT)
		f->flags = PMU_FRAME_STALE;
	else if (m->state)
		f->flags = PMU_FRAME_NOFILE;
}

int pmu_symbolizer_open(const struct pmu_symbolizer_opts *opts, struct pmu_symbolizer **out)
{
	struct pmu_symbolizer *s;
	int err, pid;

	if (!out)
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_open needs somewhere to store the "
				 "symbolizer");
	*out = NULL;
	if ((err = PMUK_OPTS_VALID(opts, pmu_symbolizer_opts)) < 0)
		return err;
	if ((pid = PMUK_OPTS_GET(opts, pid, 0)) < 0)
		return pmuk_fail(PMU_EINVAL, "pid %d: give a process id, or 0 for this process",
				 pid);
	if (!(s = calloc(1, sizeof(*s))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening a symbolizer");
	PMUK_OPTS_LOAD(s->opts, opts, pmu_symbolizer_opts); /* checked above: cannot fail */
	if ((s->opts.debug_path && !(s->debug_path = strdup(s->opts.debug_path))) ||
	    (s->opts.buildid_dir && !(s->buildid_dir = strdup(s->opts.buildid_dir))) ||
	    (s->opts.symfs && !(s->symfs = strdup(s->opts.symfs))) ||
	    (s->opts.symbol_path && !(s->symbol_path = strdup(s->opts.symbol_path)))) {
		free(s->symfs);
		free(s->debug_path);
		free(s->buildid_dir);
		free(s);
		return pmuk_fail(PMU_ENOMEM, "out of memory opening a symbolizer");
	}
	s->opts.debug_path = s->debug_path;
	s->opts.buildid_dir = s->buildid_dir;
	s->opts.symfs = s->symfs;
	s->opts.symbol_path = s->symbol_path;
	if ((err = pmuk_sym_backend_open(s))) {
		free(s->debug_path);
		free(s->buildid_dir);
		free(s->symfs);
		free(s->symbol_path);
		free(s);
		return err;
	}
	if (s->opts.offline && pmuk_sym_rec_want(s)) {
		pmu_symbolizer_close(s);
		return pmuk_fail(PMU_ENOMEM, "out of memory opening a symbolizer");
	}
	*out = s;
	return 0;
}

int pmu_symbolizer_add_module(struct pmu_symbolizer *s,
			      const struct pmu_symbolizer_module *module)
{
	struct pmu_symbolizer_module mod, *m = &mod;
	int err;

	if (!s || !module)
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_add_module needs a symbolizer and "
				 "a module with a path");
	/* The backends read the library's own copy, never past the caller's sz. */
	if ((err = PMUK_OPTS_LOAD(mod, module, pmu_symbolizer_module)) < 0)
		return err;
	if (!m->path || !m->path[0])
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_add_module needs a symbolizer and "
				 "a module with a path");
	if (!s->opts.offline)
		return pmuk_fail(PMU_EINVAL, "modules are added to offline symbolizers only: a "
				 "live one reads the maps of process %d", s->opts.pid);
	if (m->start + m->len < m->start || m->build_id_size > 20 ||
	    (m->build_id_size && !m->build_id))
		return pmuk_fail(PMU_EINVAL, "%s: the mapping wraps around the address space or "
				 "its build-id is longer than 20 bytes", m->path);
#ifndef _WIN32	/* Windows: DbgHelp first, the portable PDB reader its fallback */
	if ((err = pmuk_sym_pe_add(s, m)) != PMUK_SYM_NOT_PE)
		return err;
#endif
	return pmuk_sym_backend_add(s, m);
}

int pmu_symbolizer_resolve(struct pmu_symbolizer *s, uint64_t addr, struct pmu_frame *frames,
			   size_t max, size_t *n)
{
	int k;

	if (n)
		*n = 0;
	if (!s || !frames || !max || !n)
		return pmuk_fail(PMU_EINVAL, "pmu_symbolizer_resolve needs a symbolizer, room "
				 "for at least one frame and a count");
	s->perf_names = 0;
	if ((k = pmuk_sym_pe_resolve(s, addr)) == PMUK_SYM_NOT_PE)
		k = pmuk_sym_backend_resolve(s, addr);
	if (k < 0)
		return k;
	return pmuk_sym_finish(s, k, frames, max, n);
}

int pmuk_sym_finish(struct pmu_symbolizer *s, int k, struct pmu_frame *frames, size_t max,
		    size_t *n)
{
	if (s->opts.no_inline)
		max = 1;
	/* Keep the innermost frames (the exact source position) and always the
	 * function that owns the code, which is outermost. */
	if ((size_t)k > max) {
		s->chain[max - 1] = s->chain[k - 1];
		k = (int)max;
	}
	if (k == 1)
		s->chain[0].flags &= ~(unsigned)PMU_FRAME_INLINED;
	for (int i = 0; i < k && !s->opts.no_demangle; i++)
		if (s->chain[i].function)
			s->chain[i].function = pmuk_sym_demangle(s, s->chain[i].function);
	for (int i = 0; i < k && s->opts.no_lines; i++) {   /* whatever the backend */
		s->chain[i].file = NULL;
		s->chain[i].line = s->chain[i].column = 0;
	}
	memcpy(frames, s->chain, (size_t)k * sizeof(*frames));
	*n = (size_t)k;
	return 0;
}

void pmu_symbolizer_close(struct pmu_symbolizer *s)
{
	if (!s)
		return;
	pmuk_sym_rec_free(s);
	pmuk_sym_pe_close(s);
	pmuk_sym_backend_close(s);
	while (s->chunks) {
		struct pmuk_sym_chunk *c = s->chunks;

		s->chunks = c->next;
		free(c);
	}
	pmuk_index_free(&s->strix);
	free(s->strings);
	free(s->mods);
	free(s->debug_path);
	free(s->buildid_dir);
	free(s->symfs);
	free(s->symbol_path);
	free(s);
}
