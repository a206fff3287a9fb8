/* SPDX-License-Identifier: MIT */
/* The report as pprof reads it: a profile.proto message (github.com/google/pprof,
 * proto/profile.proto), gzip'd. A symbol of the report is one Function and one
 * Location (at the first address seen of it), a folded stack one Sample with
 * its count and period and the process name as a label, a module mapping one
 * Mapping. Calls inlined at an address are not Locations of their own: the
 * run of a stack's inlined symbols and the symbol holding them is one
 * Location (at the holder's address) with a Line per symbol, innermost first,
 * as pprof has them (go tool pprof -noinlines counts the holder, as the text
 * report does). The message is streamed through gzip field by field. */
#include "core/error.h"
#include "core/grow.h"
#include "core/gzout.h"
#include "core/pb.h"
#include "core/report_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* profile.proto field numbers */
enum { P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRING,
       P_PERIOD_TYPE = 11, P_PERIOD, P_COMMENT };
enum { VT_TYPE = 1, VT_UNIT };
enum { S_LOCATION = 1, S_VALUE, S_LABEL };
enum { LB_KEY = 1, LB_STR };
enum { M_ID = 1, M_START, M_LIMIT, M_OFFSET, M_FILENAME, M_BUILD_ID, M_HAS_FUNCTIONS };
enum { LOC_ID = 1, LOC_MAPPING, LOC_ADDRESS, LOC_LINE };
enum { LN_FUNCTION = 1 };
enum { F_ID = 1, F_NAME, F_SYSTEM_NAME };

#define FLUSH_AT 65536

enum {
	U_LOC = 1,               /* a Location of its own (id symbol + 1) */
	U_FUNC = 2,              /* a Function (a Line of some Location) */
	U_MAP = 4,               /* a Location is at its address: its mapping is needed */
};

struct pp_map {
	uint64_t start, end, pgoff;
	uint32_t module;
	uint32_t id;             /* Mapping.id, 0 while no location uses it */
	int unresolved;          /* a location in it has no function name */
};

struct pp {
	struct pmu_report *r;
	struct pmuk_gz *gz;
	struct pmuk_pb out, msg, sub;
	const char **str;        /* the string table; pointers into the report */
	size_t n_str, cap_str;
	struct pmuk_index str_ix;
	struct pp_map *maps;     /* distinct module mappings, sorted */
	size_t n_maps;
	uint32_t *rep;           /* per symbol: its first address (frame id) */
	uint32_t *map_of;        /* per symbol: index of its mapping + 1, 0 none */
	uint8_t *used;           /* per symbol: U_* */
	uint32_t *chain;         /* the inlined runs: their symbols, innermost first */
	size_t n_chain, cap_chain;
	struct pp_run { uint32_t at, n; } *runs;   /* Location id n_syms + 1 + index */
	size_t n_runs, cap_runs;
	struct pmuk_index run_ix;
	uint64_t *ids;
	size_t ids_cap;
	char note[256];
	int err;
};

static int str_eq(const void *key, uint32_t id, const void *ctx)
{
	return !strcmp(key, ((const struct pp *)ctx)->str[id]);
}

/* The string table index of s (which must outlive the writer). */
static uint64_t str(struct pp *pp, const char *s)
{
	uint64_t h = pmuk_hash_bytes(s, strlen(s), 7);
	uint32_t id = pmuk_index_find(&pp->str_ix, h, str_eq, s, pp);

	if (id != RP_NONE)
		return id;
	if (pmuk_grow((void **)&pp->str, &pp->cap_str, pp->n_str + 1, sizeof(*pp->str)) ||
	    (id = pmuk_index_add(&pp->str_ix, h)) == RP_NONE) {
		if (!pp->err)
			pp->err = pmuk_fail(PMU_ENOMEM, "no memory for the pprof string table");
		return 0;
	}
	pp->str[pp->n_str++] = s;
	return id;
}

static void flush(struct pp *pp, int always)
{
	if (pp->out.err && !pp->err)
		pp->err = pmuk_fail(PMU_ENOMEM, "no memory for the pprof profile");
	if (!pp->err && (always || pp->out.n >= FLUSH_AT)) {
		pp->err = pmuk_gz_write(pp->gz, pp->out.b, pp->out.n);
		pmuk_pb_reset(&pp->out);
	}
}

/* Appends message m as field of the profile (or of the message out). */
static void put_msg(struct pmuk_pb *out, uint32_t field, struct pmuk_pb *m)
{
	if (m->err)
		out->err = m->err;
	pmuk_pb_bytes(out, field, m->b, m->n);
	pmuk_pb_reset(m);
}

static void profile_field(struct pp *pp, uint32_t field)
{
	put_msg(&pp->out, field, &pp->msg);
	flush(pp, 0);
}

/* ---- sample types and period ---- */

/* Events whose sample period is a time in nanoseconds: perf's software clocks
 * and the ETW timer (its interval is converted to ns). */
static const char *unit_of(const char *event)
{
	static const char *const ns[] = { "cpu-clock", "task-clock", "Timer" };
	size_t n = strcspn(event, ":/");

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (strlen(ns[i]) == n && !strncmp(event, ns[i], n))
			return "nanoseconds";
	return "count";
}

static void value_type(struct pp *pp, uint32_t field, const char *type, const char *unit)
{
	pmuk_pb_uint(&pp->msg, VT_TYPE, str(pp, type));
	pmuk_pb_uint(&pp->msg, VT_UNIT, str(pp, unit));
	profile_field(pp, field);
}

/* The period of every sample when all have the same one, else 0. */
static uint64_t common_period(const struct pmu_report *r)
{
	uint64_t p;

	if (!r->sum.samples || r->sum.period % r->sum.samples)
		return 0;
	p = r->sum.period / r->sum.samples;
	for (size_t i = 0; i < r->n_stacks; i++)
		if (r->stacks[i].period != r->stacks[i].count * p)
			return 0;
	return p;
}

/* The name of the one event that has samples (perf record -a adds a dummy
 * event that has none), NULL when several or none have. */
static const char *sampled_event(const struct pmu_report *r)
{
	const char *one = NULL;

	for (size_t i = 0; i < r->n_events; i++) {
		if (!r->events[i].samples)
			continue;
		if (one || !i || i > r->o.nr_events || !r->o.event_names ||
		    !r->o.event_names[i - 1] || !*r->o.event_names[i - 1])
			return NULL;
		one = r->o.event_names[i - 1];
	}
	return one;
}

static void sample_types(struct pp *pp)
{
	const struct pmu_report *r = pp->r;
	const char *one = sampled_event(r);
	const char *ev = one ? one : "events";
	const char *unit = one ? unit_of(ev) : "count";
	uint64_t period = common_period(r);

	/* every period 1: the recording had none (the report counted each sample
	 * once), not a clock ticking every nanosecond */
	if (period == 1)
		unit = "count";

	value_type(pp, P_SAMPLE_TYPE, "samples", "count");
	value_type(pp, P_SAMPLE_TYPE, ev, unit);
	if (period) {
		value_type(pp, P_PERIOD_TYPE, ev, unit);
		pmuk_pb_uint(&pp->out, P_PERIOD, period);
	}
}

/* ---- samples ---- */

struct run_key {
	const uint32_t *f;
	uint32_t n;
};

static int run_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct run_key *k = key;
	const struct pp *pp = ctx;
	const struct pp_run *x = &pp->runs[id];

	return x->n == k->n && !memcmp(pp->chain + x->at, k->f, k->n * sizeof(*k->f));
}

/* The Location id of the n symbols at f: calls inlined into the last one. */
static uint64_t run_of(struct pp *pp, const uint32_t *f, uint32_t n)
{
	struct run_key k = { f, n };
	uint64_t h = pmuk_hash_words(f, n, 11);
	uint32_t id = pmuk_index_find(&pp->run_ix, h, run_eq, &k, pp);

	if (id == RP_NONE) {
		if (pmuk_grow((void **)&pp->chain, &pp->cap_chain, pp->n_chain + n,
			      sizeof(*pp->chain)) ||
		    pmuk_grow((void **)&pp->runs, &pp->cap_runs, pp->n_runs + 1, sizeof(*pp->runs)) ||
		    (id = pmuk_index_add(&pp->run_ix, h)) == RP_NONE) {
			if (!pp->err)
				pp->err = pmuk_fail(PMU_ENOMEM, "no memory for the pprof locations");
			return 0;
		}
		memcpy(pp->chain + pp->n_chain, f, n * sizeof(*f));
		pp->runs[pp->n_runs++] = (struct pp_run){ (uint32_t)pp->n_chain, n };
		pp->n_chain += n;
		for (uint32_t i = 0; i < n; i++)
			pp->used[f[i]] |= U_FUNC;
		pp->used[f[n - 1]] |= U_MAP;
	}
	return (uint64_t)pp->r->n_syms + 1 + id;
}

static void samples(struct pp *pp)
{
	const struct pmu_report *r = pp->r;
	uint64_t key = str(pp, "process");

	for (size_t i = 0; i < r->n_stacks && !pp->err; i++) {
		const struct rp_stack *s = &r->stacks[i];
		const char *proc = pmuk_rp_str(r, s->proc);
		if (pmuk_grow((void **)&pp->ids, &pp->ids_cap, s->n + 1, sizeof(*pp->ids))) {
			pp->err = pmuk_fail(PMU_ENOMEM, "no memory for a stack of %u frames", s->n);
			break;
		}
		uint32_t n = 0;
		for (uint32_t k = 0; k < s->n; k++) {
			uint32_t j = k;
			while (j + 1 < s->n && pmuk_rp_stack_inlined(s, j))
				j++;
			if (j > k) {   /* k .. j-1 inlined into j: one address */
				pp->ids[n++] = run_of(pp, s->frames + k, j - k + 1);
				k = j;
				continue;
			}
			pp->ids[n++] = (uint64_t)s->frames[k] + 1;
			pp->used[s->frames[k]] |= U_LOC | U_FUNC | U_MAP;
		}
		pmuk_pb_packed(&pp->msg, S_LOCATION, pp->ids, n);
		uint64_t v[2] = { s->count, s->period };
		pmuk_pb_packed(&pp->msg, S_VALUE, v, 2);
		pmuk_pb_uint(&pp->sub, LB_KEY, key);
		pmuk_pb_uint(&pp->sub, LB_STR, str(pp, *proc ? proc : "[unknown]"));
		put_msg(&pp->msg, S_LABEL, &pp->sub);
		profile_field(pp, P_SAMPLE);
	}
}

/* ---- mappings ---- */

static int cmp_map(const void *a, const void *b)
{
	const struct pp_map *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->pgoff < y->pgoff ? -1 : x->pgoff > y->pgoff;
}

/* The distinct mappings of modules over every process, sorted. */
static int collect_maps(struct pp *pp)
{
	const struct pmu_report *r = pp->r;
	size_t n = 0, w = 0;

	for (size_t i = 0; i < r->n_maps; i++)
		n += r->maps[i].n;
	if (!(pp->maps = calloc(n + 1, sizeof(*pp->maps))))
		return pmuk_fail(PMU_ENOMEM, "no memory for %zu module mappings", n);
	for (size_t i = 0; i < r->n_maps; i++)
		for (size_t k = 0; k < r->maps[i].n; k++) {
			const struct rp_map *m = &r->maps[i].v[k];
			pp->maps[w++] = (struct pp_map){ m->start, m->end, m->pgoff, m->module, 0, 0 };
		}
	if (n > 1)
		qsort(pp->maps, n, sizeof(*pp->maps), cmp_map);
	w = 0;
	for (size_t i = 0; i < n; i++)
		if (!w || cmp_map(&pp->maps[w - 1], &pp->maps[i]))
			pp->maps[w++] = pp->maps[i];
	pp->n_maps = w;
	return 0;
}

/* Index + 1 of a mapping of module holding addr, 0 when none does (the
 * process that mapped it was reused and its maps dropped). */
static uint32_t map_find(const struct pp *pp, uint32_t module, uint64_t addr)
{
	size_t lo = 0, hi = pp->n_maps;

	while (lo < hi) {	/* the first mapping past (module, addr) */
		size_t mid = (lo + hi) / 2;
		const struct pp_map *m = &pp->maps[mid];
		if (m->module < module || (m->module == module && m->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && pp->maps[lo].module == module)
		if (addr < pp->maps[lo].end)
			return (uint32_t)lo + 1;
	return 0;
}

/* The first address of every symbol, the mapping holding it, and which
 * mappings the profile uses. */
static int place_symbols(struct pp *pp)
{
	const struct pmu_report *r = pp->r;
	size_t n = r->n_syms + 1;

	pp->rep = malloc(n * sizeof(*pp->rep));
	pp->map_of = calloc(n, sizeof(*pp->map_of));
	pp->used = calloc(n, 1);
	if (!pp->rep || !pp->map_of || !pp->used)
		return pmuk_fail(PMU_ENOMEM, "no memory for %zu symbols", r->n_syms);
	for (size_t i = 0; i < n; i++)
		pp->rep[i] = RP_NONE;
	for (size_t i = 0; i < r->n_frames; i++)
		if (pp->rep[r->frames[i].sym] == RP_NONE)
			pp->rep[r->frames[i].sym] = (uint32_t)i;
	return collect_maps(pp);
}

/* Mapping ids in the order of the sorted table, the main program's first
 * (pprof takes mapping 1 for the binary profiled): the module named as the
 * process with the most samples. */
static void number_maps(struct pp *pp)
{
	const struct pmu_report *r = pp->r;
	const struct rp_process *top = NULL;
	uint32_t next = 2, first = 0;

	for (size_t i = 0; i < r->n_procs; i++)
		if (!top || r->procs[i].samples > top->samples)
			top = &r->procs[i];
	const char *name = top ? pmuk_rp_str(r, top->name) : "";
	for (size_t i = 0; i < pp->n_maps && *name && !first; i++)
		if (pp->maps[i].id && !strncmp(pmuk_rp_str(r, r->mods[pp->maps[i].module].base), name,
					       strlen(name)))
			first = (uint32_t)i + 1;
	/* a process that renamed itself: its lowest mapping with samples, the
	 * executable (mapped below its libraries) */
	const struct rp_mapset *ms = top && !first ? pmuk_rp_mapset((struct pmu_report *)r,
								     top->pid, 0) : NULL;
	for (size_t k = 0; ms && k < ms->n && !first; k++)
		for (size_t i = 0; i < pp->n_maps && !first; i++)
			if (pp->maps[i].id && pp->maps[i].module == ms->v[k].module &&
			    pp->maps[i].start == ms->v[k].start)
				first = (uint32_t)i + 1;
	for (size_t i = 0; i < pp->n_maps; i++)
		if (pp->maps[i].id)
			pp->maps[i].id = i + 1 == first ? 1 : next++;
	if (!first)	/* no main program: ids from 1 */
		for (size_t i = 0; i < pp->n_maps; i++)
			if (pp->maps[i].id)
				pp->maps[i].id--;
}

static void mapping(struct pp *pp, const struct pp_map *m)
{
	const struct rp_module *mo = &pp->r->mods[m->module];

	pmuk_pb_uint(&pp->msg, M_ID, m->id);
	pmuk_pb_uint(&pp->msg, M_START, m->start);
	pmuk_pb_uint(&pp->msg, M_LIMIT, m->end);
	pmuk_pb_uint(&pp->msg, M_OFFSET, m->pgoff);
	pmuk_pb_uint(&pp->msg, M_FILENAME, str(pp, pmuk_rp_str(pp->r, mo->path)));
	pmuk_pb_uint(&pp->msg, M_BUILD_ID, str(pp, mo->bid_text));
	/* else pprof may name its addresses itself from the file */
	pmuk_pb_uint(&pp->msg, M_HAS_FUNCTIONS, !m->unresolved);
	profile_field(pp, P_MAPPING);
}

static void mappings(struct pp *pp)
{
	const struct pmu_report *r = pp->r;

	for (size_t s = 0; s < r->n_syms; s++) {
		uint32_t f = pp->rep[s];
		if (!(pp->used[s] & U_MAP) || f == RP_NONE || r->frames[f].module == RP_NONE)
			continue;
		uint32_t m = map_find(pp, r->frames[f].module, r->frames[f].addr);
		pp->map_of[s] = m;
		if (m) {
			pp->maps[m - 1].id = 1;
			pp->maps[m - 1].unresolved |= !r->frames[f].func;
		}
	}
	number_maps(pp);
	/* in id order: pprof takes the first mapping of the file as the main
	 * binary (its "File:"), whatever its id */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < pp->n_maps; i++)
			if (pp->maps[i].id && (pp->maps[i].id == 1) == !pass)
				mapping(pp, &pp->maps[i]);
}

/* ---- locations and functions: a Function per symbol, id = symbol + 1; a
 * Location per symbol (the same id) and per inlined run (n_syms + 1 + run) ---- */

/* A Location at the address of symbol holder, with the functions of syms. */
static void location(struct pp *pp, uint64_t id, uint32_t holder, const uint32_t *syms, uint32_t n)
{
	const struct pmu_report *r = pp->r;
	uint32_t f = pp->rep[holder], m = pp->map_of[holder];

	pmuk_pb_uint(&pp->msg, LOC_ID, id);
	pmuk_pb_uint(&pp->msg, LOC_MAPPING, m ? pp->maps[m - 1].id : 0);
	pmuk_pb_uint(&pp->msg, LOC_ADDRESS, f != RP_NONE ? r->frames[f].addr : 0);
	for (uint32_t i = 0; i < n; i++) {
		pmuk_pb_uint(&pp->sub, LN_FUNCTION, (uint64_t)syms[i] + 1);
		put_msg(&pp->msg, LOC_LINE, &pp->sub);
	}
	profile_field(pp, P_LOCATION);
}

static void locations(struct pp *pp)
{
	const struct pmu_report *r = pp->r;

	for (uint32_t s = 0; s < r->n_syms && !pp->err; s++)
		if (pp->used[s] & U_LOC)
			location(pp, (uint64_t)s + 1, s, &s, 1);
	for (size_t i = 0; i < pp->n_runs && !pp->err; i++) {
		const struct pp_run *x = &pp->runs[i];
		location(pp, r->n_syms + 1 + i, pp->chain[x->at + x->n - 1], pp->chain + x->at, x->n);
	}
	for (size_t s = 0; s < r->n_syms && !pp->err; s++) {
		uint32_t f = pp->rep[s];
		if (!(pp->used[s] & U_FUNC))
			continue;
		/* the symbolizer's name; module!+0xoff (what the report shows) without
		 * one; a function only ever inlined (no address of its own) by its name */
		uint64_t name = f != RP_NONE && r->frames[f].func ?
			str(pp, pmuk_rp_str(r, r->frames[f].func)) :
			f == RP_NONE && r->syms[s].label && r->syms[s].module != RP_NONE ?
			str(pp, pmuk_rp_str(r, r->syms[s].label)) :
			str(pp, pmuk_rp_str(r, r->syms[s].name));
		pmuk_pb_uint(&pp->msg, F_ID, s + 1);
		pmuk_pb_uint(&pp->msg, F_NAME, name);
		pmuk_pb_uint(&pp->msg, F_SYSTEM_NAME, name);
		profile_field(pp, P_FUNCTION);
	}
}

/* What pprof cannot hold: losses, as comments (go tool pprof -comments). */
static void comments(struct pp *pp)
{
	const struct pmu_report_summary *s = &pp->r->sum;
	struct pmuk_rp_losses l = pmuk_rp_losses(pp->r);

	if (!l.lost_samples && !l.lost_records && !l.skipped_bytes && !s->lost_buffers &&
	    !s->lost_uncounted)
		return;
	snprintf(pp->note, sizeof(pp->note), "lost samples: %" PRIu64 ", lost records: %" PRIu64
		 ", buffers: %" PRIu64 ", losses of unknown size: %" PRIu64 ", skipped bytes: %"
		 PRIu64, l.lost_samples, l.lost_records, s->lost_buffers, s->lost_uncounted,
		 l.skipped_bytes);
	pmuk_pb_uint(&pp->out, P_COMMENT, str(pp, pp->note));
}

static int finish(struct pp *pp)
{
	for (size_t i = 0; i < pp->n_str && !pp->err; i++) {
		pmuk_pb_str(&pp->out, P_STRING, pp->str[i]);
		flush(pp, 0);
	}
	flush(pp, 1);
	return pp->err;
}

int pmu_report_write_pprof(struct pmu_report *r, FILE *f)
{
	struct pp pp = { .r = r };
	int err;

	if (!r || !f)
		return pmuk_fail(PMU_EINVAL, "pmu_report_write_pprof needs a report and a file");
	if ((err = pmuk_rp_sym_keep(r, RP_NONE)))   /* its string table holds them */
		return err;
	if ((err = pmuk_gz_open(f, &pp.gz)))
		return err;
	str(&pp, "");	/* string_table[0] is "" */
	err = place_symbols(&pp);
	if (!err) {
		sample_types(&pp);
		samples(&pp);
		mappings(&pp);
		locations(&pp);
		comments(&pp);
		err = finish(&pp);
	}
	int gz_err = pmuk_gz_close(pp.gz, !err);
	pmuk_pb_free(&pp.out), pmuk_pb_free(&pp.msg), pmuk_pb_free(&pp.sub);
	pmuk_index_free(&pp.str_ix);
	pmuk_index_free(&pp.run_ix);
	free(pp.chain), free(pp.runs);
	free(pp.str), free(pp.maps), free(pp.rep), free(pp.map_of), free(pp.used), free(pp.ids);
	return err ? err : gz_err;
}
