/* SPDX-License-Identifier: MIT */
/* perf.data header features (tools/perf/util/header.c): the same bytes as a
 * file-mode section or the body of a pipe's HEADER_FEATURE record. */
#include "formats/perf_read_int.h"
#include "core/cursor.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

/* strndup is missing from the Windows C runtime. */
static char *dupn(const char *p, size_t max)
{
	size_t n = strnlen(p, max);
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, p, n);
		d[n] = 0;
	}
	return d;
}

/* {u32 len; char str[len]} (NUL-padded): a copy, NULL when it does not fit. */
static char *fstr(struct pmuk_cursor *c)
{
	uint32_t len;
	const uint8_t *p;

	if (pmuk_cursor_take(c, &len, 4) || len > c->left)
		return NULL;
	p = c->p;
	pmuk_cursor_take(c, NULL, len);
	return dupn((const char *)p, len);
}

static int set_str(struct perf_src *s, int feat, struct pmuk_cursor *c)
{
	char *v = fstr(c);

	if (!v)
		return -1;
	free(s->str[feat]);
	s->str[feat] = v;
	return 0;
}

/* The command line's words joined by spaces. */
static int cmdline(struct perf_src *s, struct pmuk_cursor *c)
{
	uint32_t nr;
	size_t len = 0;
	char *out = NULL, *w;

	if (pmuk_cursor_take(c, &nr, 4) || nr > c->left / 4)
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		if (!(w = fstr(c))) {
			free(out);
			return -1;
		}
		size_t wl = strlen(w);
		char *n = realloc(out, len + wl + 2);
		if (!n) {
			free(w);
			free(out);
			return -1;
		}
		out = n;
		if (len)
			out[len++] = ' ';
		memcpy(out + len, w, wl + 1);
		len += wl;
		free(w);
	}
	free(s->str[HEADER_CMDLINE]);
	s->str[HEADER_CMDLINE] = out ? out : strdup("");
	return 0;
}

/* {u32 nr, attr_size; {attr; u32 nr_ids; str name; u64 ids[nr_ids]}[nr]}, in the
 * order of the attrs. */
static int event_desc(struct perf_src *s, struct pmuk_cursor *c)
{
	uint32_t nr, asz, nids;

	if (pmuk_cursor_take(c, &nr, 4) || pmuk_cursor_take(c, &asz, 4) || asz < 8 || nr > c->left / asz)
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		char *name;

		if (pmuk_cursor_take(c, NULL, asz) || pmuk_cursor_take(c, &nids, 4) || !(name = fstr(c)))
			return -1;
		if (nids > c->left / 8) {
			free(name);
			return -1;
		}
		if (i < s->nr_evs) {
			/* pipe mode: the attrs' HEADER_ATTR records may not carry ids */
			if (!s->evs[i].nr_ids)
				perf_ev_add_ids(s, i, (const uint64_t *)(const void *)c->p, nids);
			free(s->evs[i].name);
			s->evs[i].name = name;
		} else {
			free(name);
		}
		pmuk_cursor_take(c, NULL, (size_t)nids * 8);
	}
	s->feat_event_desc = 1;
	return 0;
}

static int path_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct perf_src *s = ctx;

	return !strcmp(s->bids[s->bid_heads[id]].path, key);
}

static uint64_t path_hash(const char *path)
{
	return pmuk_hash_bytes(path, strlen(path), 11);
}

/* The first entry of path's chain, or PMUK_INDEX_NONE. */
static uint32_t bid_first(const struct perf_src *s, const char *path)
{
	uint32_t h = pmuk_index_find(&s->bid_ix, path_hash(path), path_eq, path, s);

	return h == PMUK_INDEX_NONE ? h : s->bid_heads[h];
}

/* Links entry nr_bids (path): a new chain, or the end of its path's. */
static int bid_link(struct perf_src *s, const char *path)
{
	uint32_t i = bid_first(s, path), me = (uint32_t)s->nr_bids;

	s->bid_next[me] = PMUK_INDEX_NONE;
	if (i != PMUK_INDEX_NONE) {
		while (s->bid_next[i] != PMUK_INDEX_NONE)
			i = s->bid_next[i];
		s->bid_next[i] = me;
		return 0;
	}
	if (pmuk_grow((void **)&s->bid_heads, &s->cap_bid_heads, s->nr_bid_heads + 1,
		      sizeof(*s->bid_heads)) || pmuk_index_add(&s->bid_ix, path_hash(path)) ==
		      PMUK_INDEX_NONE)
		return -1;
	s->bid_heads[s->nr_bid_heads++] = me;
	return 0;
}

int perf_build_id_entry(struct perf_src *s, const uint8_t *p, size_t n)
{
	struct perf_rec_header h;
	struct pmu_trace_build_id *b;
	int32_t pid;
	size_t plen;
	char *path;

	if (n < 36)
		return -1;
	memcpy(&h, p, sizeof(h));
	if (h.size < 36 || h.size > n)
		return -1;
	memcpy(&pid, p + 8, 4);
	plen = strnlen((const char *)p + 36, h.size - 36);
	if (pmuk_grow((void **)&s->bids, &s->cap_bids, s->nr_bids + 1, sizeof(*s->bids)) ||
	    pmuk_grow((void **)&s->bid_next, &s->cap_bid_next, s->nr_bids + 1, sizeof(uint32_t)) ||
	    !(path = dupn((const char *)p + 36, plen)))
		return -1;
	if (bid_link(s, path) < 0) {
		free(path);
		return -1;
	}
	b = &s->bids[s->nr_bids++];
	b->path = path;
	b->pid = pid;
	memcpy(b->build_id, p + 12, 20);
	b->build_id_size = h.misc & PERF_REC_MISC_BUILD_ID_SIZE ? p[32] : 20;
	if (b->build_id_size > 20)
		b->build_id_size = 20;
	return h.size;
}

static int build_ids(struct perf_src *s, struct pmuk_cursor *c)
{
	while (c->left >= 8) {
		int n = perf_build_id_entry(s, c->p, c->left);

		if (n < 0)
			return -1;
		pmuk_cursor_take(c, NULL, (size_t)n);
	}
	return 0;
}

/* The tracepoint format files: kept whole, their ids name events. */
static int tracing(struct perf_src *s, struct pmuk_cursor *c)
{
	for (size_t i = 0; i < s->nr_tps; i++)
		free(s->tps[i].name);
	s->nr_tps = 0;
	free(s->tracing);
	s->tracing_size = 0;
	if (!(s->tracing = malloc(c->left ? c->left : 1)))
		return -1;
	memcpy(s->tracing, c->p, c->left);
	s->tracing_size = c->left;
	perf_tracing_ids(s);
	return 0;
}

/* {u32 nr; {u32 type; str name}[nr]}: names of the dynamic PMUs' types. */
static int pmu_mappings(struct perf_src *s, struct pmuk_cursor *c)
{
	uint32_t nr, type;
	char *name;

	if (pmuk_cursor_take(c, &nr, 4) || nr > c->left / 8)
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		if (pmuk_cursor_take(c, &type, 4) || !(name = fstr(c)))
			return -1;
		if (pmuk_grow((void **)&s->pmus, &s->cap_pmus, s->nr_pmus + 1, sizeof(*s->pmus))) {
			free(name);
			return -1;
		}
		s->pmus[s->nr_pmus].type = type;
		s->pmus[s->nr_pmus++].name = name;
	}
	return 0;
}

static int feat_body(struct perf_src *s, int feat, struct pmuk_cursor *c)
{
	struct pmu_trace_info *in = &s->t->info;
	uint32_t v[2];
	uint64_t q[2];

	switch (feat) {
	case HEADER_HOSTNAME: case HEADER_OSRELEASE: case HEADER_VERSION: case HEADER_ARCH:
	case HEADER_CPUDESC: case HEADER_CPUID:
		return set_str(s, feat, c);
	case HEADER_NRCPUS:
		if (pmuk_cursor_take(c, v, 8))
			return -1;
		in->nr_cpus_avail = v[0];
		in->nr_cpus_online = v[1];
		return 0;
	case HEADER_TOTAL_MEM:
		return pmuk_cursor_take(c, &in->total_mem_kb, 8);
	case HEADER_CMDLINE:
		return cmdline(s, c);
	case HEADER_EVENT_DESC:
		return event_desc(s, c);
	case HEADER_SAMPLE_TIME:
		if (pmuk_cursor_take(c, q, 16))
			return -1;
		in->first_sample_time = q[0];
		in->last_sample_time = q[1];
		return 0;
	case HEADER_CLOCK_DATA:   /* {u32 version, clockid; u64 tod_ns, clockid_ns} */
		if (pmuk_cursor_take(c, v, 8))
			return -1;
		in->clockid = (int)v[1];
		return 0;
	case HEADER_COMPRESSED:
		in->compressed = 1;
		return 0;
	case HEADER_BUILD_ID:
		return build_ids(s, c);
	case HEADER_PMU_MAPPINGS:
		return pmu_mappings(s, c);
	case HEADER_TRACING_DATA:
		return tracing(s, c);
	default:
		return 0;   /* topology, caches, pmu mappings ...: not in the model */
	}
}

static const char *const feat_names[HEADER_LAST_FEATURE] = {
	[HEADER_TRACING_DATA] = "tracing data", [HEADER_BUILD_ID] = "build-id table",
	[HEADER_HOSTNAME] = "hostname", [HEADER_OSRELEASE] = "os release",
	[HEADER_VERSION] = "perf version", [HEADER_ARCH] = "arch", [HEADER_NRCPUS] = "nrcpus",
	[HEADER_CPUDESC] = "cpu description", [HEADER_CPUID] = "cpuid",
	[HEADER_TOTAL_MEM] = "total memory", [HEADER_CMDLINE] = "command line",
	[HEADER_EVENT_DESC] = "event descriptions", [HEADER_SAMPLE_TIME] = "sample time",
	[HEADER_CLOCK_DATA] = "clock data", [HEADER_PMU_MAPPINGS] = "pmu mappings",
};

void perf_feat_parse(struct perf_src *s, int feat, const uint8_t *p, size_t n, uint64_t off)
{
	struct pmuk_cursor c = { p, n };

	if (feat <= 0 || feat >= HEADER_LAST_FEATURE)
		return;
	if (feat_body(s, feat, &c) < 0)
		pmuk_trace_warn(s->t, "%s: offset %llu: the %s header feature (%zu bytes) does "
				"not parse; it is left out", s->path, (unsigned long long)off,
				feat_names[feat] ? feat_names[feat] : "a", n);
}

void perf_info_finish(struct perf_src *s)
{
	struct pmu_trace_info *in = &s->t->info;
	const char **dst[] = {
		[HEADER_HOSTNAME] = &in->hostname, [HEADER_OSRELEASE] = &in->os_release,
		[HEADER_VERSION] = &in->version, [HEADER_ARCH] = &in->arch,
		[HEADER_CPUDESC] = &in->cpu_desc, [HEADER_CPUID] = &in->cpuid,
		[HEADER_CMDLINE] = &in->cmdline,
	};

	for (size_t i = 0; i < sizeof(dst) / sizeof(dst[0]); i++)
		if (dst[i] && s->str[i])
			*dst[i] = s->str[i];
	in->tracing_data = s->tracing;
	in->tracing_data_size = s->tracing_size;
	if (in->clockid < 0)
		for (size_t i = 0; i < s->t->nr_events && in->clockid < 0; i++)
			in->clockid = s->t->events[i].clockid;
	in->time_zero = in->first_sample_time;
	s->t->build_ids = s->bids;
	s->t->nr_build_ids = s->nr_bids;
}

void perf_build_id_fill(struct perf_src *s, struct pmu_record *r)
{
	const char *path;
	uint32_t i;

	if (r->kind != PMU_RECORD_MMAP || r->mmap.build_id_size || !r->mmap.path || !s->nr_bids)
		return;
	/* the kernel's mmap is "[kernel.kallsyms]_text" (or _stext), its entry
	 * "[kernel.kallsyms]" */
	path = strncmp(r->mmap.path, "[kernel.kallsyms]", 17) ? r->mmap.path : "[kernel.kallsyms]";
	for (i = bid_first(s, path); i != PMUK_INDEX_NONE; i = s->bid_next[i]) {
		const struct pmu_trace_build_id *b = &s->bids[i];

		if (b->pid == -1 || b->pid == r->pid) {
			memcpy(r->mmap.build_id, b->build_id, sizeof(b->build_id));
			r->mmap.build_id_size = b->build_id_size;
			r->mmap.build_id_kind = PMU_BUILD_ID_BYTES;
			return;
		}
	}
}

void perf_feat_free(struct perf_src *s)
{
	for (int i = 0; i < HEADER_LAST_FEATURE; i++)
		free(s->str[i]);
	for (size_t i = 0; i < s->nr_bids; i++)
		free((char *)s->bids[i].path);
	free(s->bids);
	free(s->bid_next);
	free(s->bid_heads);
	pmuk_index_free(&s->bid_ix);
	free(s->tracing);
	for (size_t i = 0; i < s->nr_tps; i++)
		free(s->tps[i].name);
	free(s->tps);
	for (size_t i = 0; i < s->nr_pmus; i++)
		free(s->pmus[i].name);
	free(s->pmus);
}
