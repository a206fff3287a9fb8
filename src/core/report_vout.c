/* SPDX-License-Identifier: MIT */
/* perf report's text (and the same as JSON): the losses, then per event its
 * totals, the rows of the sort key set with Children/Self, and call graphs
 * drawn as perf draws them:
 *
 *       100.00%     0.00%  w        w                  [.] main
 *               |
 *               ---main
 *                  |
 *                  |--57.11%--leaf
 *                  |
 *                   --42.89%--bar
 *                             leaf
 */
#include "core/error.h"
#include "core/json.h"
#include "core/opts.h"
#include "core/report_view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX_MAX 4096

static const char *heading(enum rv_key k)
{
	static const char *const h[RV_NKINDS] = { "Command", "Shared Object", "Symbol",
						  "Tid:Command", "Pid:Command", "CPU",
						  "Source:Line" };
	return h[k];
}

static const char *event_name(const struct pmu_report *r, int32_t ev)
{
	return ev >= 0 && (uint32_t)ev < r->o.nr_events && r->o.event_names[ev] ?
	       r->o.event_names[ev] : "sample";
}

/* ---- call graphs ---- */

static int cmp_nodes(const void *a, const void *b)
{
	const struct rv_node *x = *(const struct rv_node *const *)a;
	const struct rv_node *y = *(const struct rv_node *const *)b;

	return x->p != y->p ? (x->p > y->p ? -1 : 1) : (x->sym > y->sym) - (x->sym < y->sym);
}

/* The siblings from first on that reach the threshold, heaviest first, in a
 * malloc'ed array (NULL when none or without memory). */
static const struct rv_node **visible(const struct rv_view *v, uint32_t first, size_t *n)
{
	size_t k = 0;

	*n = 0;
	for (uint32_t i = first; i != RP_NONE; i = v->nodes[i].next)
		k++;
	const struct rv_node **o = k ? malloc(k * sizeof(*o)) : NULL;
	if (!o)
		return NULL;
	for (uint32_t i = first; i != RP_NONE; i = v->nodes[i].next)
		if (pmuk_rv_pct(v, v->nodes[i].p) >= v->graph_pct)
			o[(*n)++] = &v->nodes[i];
	if (*n > 1)
		qsort(o, *n, sizeof(*o), cmp_nodes);
	return o;
}

/* buf: RP_ADDR_BUF bytes */
static const char *label(const struct rv_view *v, const struct rv_node *n, char *buf)
{
	return pmuk_rp_sym_label(v->r, n->sym, buf);
}

static void branches(FILE *f, const struct rv_view *v, const struct rv_node **k, size_t n,
		     char *prefix, size_t len);

/* A node's single-callee chain, one name a line, then its branches. */
static void chain(FILE *f, const struct rv_view *v, const struct rv_node *node, char *prefix,
		  size_t len)
{
	char lb[RP_ADDR_BUF];

	for (;;) {
		size_t n;
		const struct rv_node **k = visible(v, node->kids, &n);
		if (n == 1 && k[0]->p == node->p) {
			fprintf(f, "%.*s%s\n", (int)len, prefix, label(v, k[0], lb));
			node = k[0];
			free(k);
			continue;
		}
		if (n)
			branches(f, v, k, n, prefix, len);
		free(k);
		return;
	}
}

static void branches(FILE *f, const struct rv_view *v, const struct rv_node **k, size_t n,
		     char *prefix, size_t len)
{
	char lb[RP_ADDR_BUF];

	for (size_t i = 0; i < n; i++) {
		int last = i + 1 == n;
		fprintf(f, "%.*s|          \n", (int)len, prefix);
		fprintf(f, "%.*s%c--%.2f%%--%s\n", (int)len, prefix, last ? ' ' : '|',
			pmuk_rv_pct(v, k[i]->p), label(v, k[i], lb));
		if (len + 11 >= PREFIX_MAX)
			continue;	/* deeper than a screen is wide many times over */
		memcpy(prefix + len, last ? "           " : "|          ", 11);
		chain(f, v, k[i], prefix, len + 11);
	}
}

/* A single root: "---name" and its chain. perf leaves out the root when it is
 * the row's own symbol and the sort starts with sym (it would read twice). */
static void single_root(FILE *f, const struct rv_view *v, const struct rv_row *w,
			const struct rv_node *root, char *prefix)
{
	char lb[RP_ADDR_BUF];
	size_t n;
	const struct rv_node **k;

	if (v->key[0] != RV_SYM || root->sym != w->k[0]) {
		fprintf(f, "%12s|\n%12s---%s\n", "", "", label(v, root, lb));
		chain(f, v, root, prefix, 15);
		return;
	}
	k = visible(v, root->kids, &n);
	if (n == 1 && k[0]->p == root->p)
		single_root(f, v, w, k[0], prefix);
	else if (n)
		branches(f, v, k, n, prefix, 12);
	free(k);
}

static void graph(FILE *f, const struct rv_view *v, const struct rv_row *w)
{
	char prefix[PREFIX_MAX];
	size_t n;
	uint64_t all = 0;
	const struct rv_node **k = visible(v, w->roots, &n);

	for (uint32_t i = w->roots; i != RP_NONE; i = v->nodes[i].next)
		all += v->nodes[i].p;
	memset(prefix, ' ', 15);
	if (n == 1 && k[0]->p == all) {
		size_t kids;
		const struct rv_node **c = visible(v, k[0]->kids, &kids);
		int alone = v->key[0] == RV_SYM && k[0]->sym == w->k[0] && !kids;
		free(c);
		if (alone) {	/* nothing but the row itself */
			free(k);
			return;
		}
		single_root(f, v, w, k[0], prefix);
	} else if (n) {
		branches(f, v, k, n, prefix, 12);
	}
	if (n)
		fputc('\n', f);
	free(k);
}

/* ---- text ---- */

static void columns(FILE *f, const struct rv_view *v, const size_t *width, int dots)
{
	fputs("# ", f);
	if (v->children)
		fprintf(f, dots ? "........  " : "Children  ");
	fprintf(f, dots ? "........" : v->children ? "    Self" : "Overhead");
	for (size_t i = 0; i < v->nk; i++) {
		const char *h = heading(v->key[i]);
		int last = i + 1 == v->nk;
		fputs("  ", f);
		if (dots)
			for (size_t c = 0; c < width[i]; c++)
				fputc('.', f);
		else
			fprintf(f, "%-*s", last ? 0 : (int)width[i], h);
	}
	fputc('\n', f);
}

/* "%9.2f%%" of a period. A report's rows share few distinct periods (most
 * rows are a sample or two), so their texts are kept in a small cache
 * indexed by the period's low bits: printf runs once per period seen. */
#define PCT_CACHE 256

struct pct {
	uint64_t p;
	uint8_t len;
	char s[47];
};

static const struct pct *pct_text(const struct rv_view *v, struct pct *cache, uint64_t p)
{
	struct pct *c = &cache[pmuk_hash_u64(p) % PCT_CACHE];

	if (c->p != p || !c->len) {
		int n = snprintf(c->s, sizeof(c->s), "%9.2f%%", pmuk_rv_pct(v, p));
		c->p = p;
		c->len = (uint8_t)(n < 0 ? 0 : (size_t)n < sizeof(c->s) ? (size_t)n : sizeof(c->s) - 1);
	}
	return c;
}

/* One row's text into o (room for 2 percentages and nk values of up to
 * width/buffer size each): its length. */
static size_t row_text(const struct rv_view *v, const struct rv_row *w, const size_t *width,
		       struct pct *cache, char *o)
{
	char buf[700];
	size_t at = 0;
	const struct pct *c;

	if (v->children) {
		c = pct_text(v, cache, w->ch_p);
		memcpy(o, c->s, c->len), at = c->len;
	}
	c = pct_text(v, cache, w->self_p);
	memcpy(o + at, c->s, c->len), at += c->len;
	for (size_t i = 0; i < v->nk; i++) {
		const char *s = pmuk_rv_value(v, w, i, buf, sizeof(buf));
		size_t len = strlen(s);
		memcpy(o + at, "  ", 2);
		memcpy(o + at + 2, s, len);
		at += 2 + len;
		if (i + 1 < v->nk && len < width[i]) {   /* "%-*s" */
			memset(o + at, ' ', width[i] - len);
			at += width[i] - len;
		}
	}
	o[at++] = '\n';
	return at;
}

static int text_section(FILE *f, struct rv_view *v, const struct rp_event *ev)
{
	char buf[700];
	size_t width[RV_MAX_KEYS];

	fprintf(f, "#\n# Samples: %" PRIu64 " of event '%s'\n# Event count (approx.): %" PRIu64
		"\n#\n", ev->samples, event_name(v->r, v->event), ev->period);
	for (size_t i = 0; i < v->nk; i++) {
		width[i] = strlen(heading(v->key[i]));
		for (size_t j = 0; j < v->shown; j++) {
			size_t l = pmuk_rv_value_len(v, &v->rows[v->order[j]], i, sizeof(buf));
			width[i] = l > width[i] ? l : width[i];
		}
	}
	columns(f, v, width, 0);
	columns(f, v, width, 1);
	fputs("#\n", f);
	size_t room = 2 * sizeof(((struct pct *)0)->s) + 2;
	for (size_t i = 0; i < v->nk; i++)
		room += 2 + (width[i] > sizeof(buf) ? width[i] : sizeof(buf));
	struct pct *cache = calloc(PCT_CACHE, sizeof(*cache));
	char *line = malloc(room);
	if (!cache || !line) {
		free(cache), free(line);
		return pmuk_fail(PMU_ENOMEM, "no memory to write the report");
	}
	for (size_t j = 0; j < v->shown; j++) {
		const struct rv_row *w = &v->rows[v->order[j]];
		fwrite(line, 1, row_text(v, w, width, cache, line), f);
		if (v->graph)
			graph(f, v, w);
	}
	free(cache), free(line);
	fputc('\n', f);
	return 0;
}

/* ---- JSON ---- */

static void json_row(struct pmuk_json *j, const struct rv_view *v, const struct rv_row *w)
{
	char buf[700];
	struct pmu_report *r = v->r;

	pmuk_json_obj_begin(j, NULL);
	for (size_t i = 0; i < v->nk; i++) {
		uint32_t k = w->k[i];
		const char *name = pmuk_rv_key_name(v->key[i]);
		switch (v->key[i]) {
		case RV_SYM:
			pmuk_json_str(j, name, pmuk_rp_sym_label(r, k, buf));
			pmuk_json_str(j, "symbol", pmuk_rp_sym_name(r, k, buf));
			pmuk_json_bool(j, "kernel", r->syms[k].kernel);
			break;
		case RV_TID:
			pmuk_json_int(j, name, r->threads[k].tid);
			break;
		case RV_PID:
		case RV_CPU:
			pmuk_json_int(j, name, (int32_t)k);
			break;
		default:
			pmuk_json_str(j, name, pmuk_rv_value(v, w, i, buf, sizeof(buf)));
		}
	}
	pmuk_json_double(j, "self", pmuk_rv_pct(v, w->self_p));
	pmuk_json_uint(j, "self_samples", w->self_n);
	pmuk_json_uint(j, "self_period", w->self_p);
	if (v->children) {
		pmuk_json_double(j, "children", pmuk_rv_pct(v, w->ch_p));
		pmuk_json_uint(j, "children_samples", w->ch_n);
		pmuk_json_uint(j, "children_period", w->ch_p);
	}
	pmuk_json_obj_end(j);
}

static void json_section(struct pmuk_json *j, struct rv_view *v, const struct rp_event *ev)
{
	pmuk_json_obj_begin(j, NULL);
	pmuk_json_str(j, "event", event_name(v->r, v->event));
	pmuk_json_uint(j, "samples", ev->samples);
	pmuk_json_uint(j, "period", ev->period);
	pmuk_json_arr_begin(j, "rows");
	for (size_t i = 0; i < v->shown; i++)
		json_row(j, v, &v->rows[v->order[i]]);
	pmuk_json_arr_end(j);
	pmuk_json_obj_end(j);
}

/* ---- the view ---- */

static int setup(struct rv_view *v, struct pmu_report *r, const struct pmu_report_view *o)
{
	memset(v, 0, sizeof(*v));
	v->r = r;
	int err = pmuk_rv_parse(v, o->sort);
	if (err)
		return err;
	v->children = o->children == PMU_REPORT_CHILDREN ||
		      (o->children == PMU_REPORT_CHILDREN_AUTO && r->sum.with_callchain);
	v->graph = o->graph == PMU_REPORT_GRAPH_CALLER ? 1 : o->graph == PMU_REPORT_GRAPH_CALLEE ? 2 :
		   o->graph == PMU_REPORT_GRAPH_AUTO && r->sum.with_callchain ? (v->children ? 1 : 2) :
		   0;
	if (o->json)
		v->graph = 0;
	v->limit_pct = o->percent_limit > 0 ? o->percent_limit : 0;
	v->graph_pct = o->graph_limit < 0 ? 0 : o->graph_limit > 0 ? o->graph_limit :
		       o->percent_limit > 0 ? o->percent_limit : 0.5;
	v->limit = o->limit;
	return 0;
}

/* Sections in event order, the samples of no known event last. */
static int each_section(struct pmu_report *r, const struct rv_view *base, FILE *f,
			struct pmuk_json *j)
{
	for (size_t e = 1; e <= r->n_events; e++) {
		size_t at = e % r->n_events;	/* 1, 2, ..., then 0 */
		const struct rp_event *ev = &r->events[at];
		if (!ev->samples)
			continue;
		struct rv_view v = *base;
		v.event = (int32_t)at - 1;
		v.total_n = ev->samples;
		v.total_p = ev->period;
		int err = pmuk_rv_build(&v);
		if (!err && j)
			json_section(j, &v, ev);
		else if (!err)
			err = text_section(f, &v, ev);
		pmuk_rv_free(&v);
		if (err)
			return err;
	}
	return 0;
}

static void filtered_note(const struct pmu_report *r, FILE *f)
{
	if (r->sum.filtered)
		fprintf(f, "# %" PRIu64 " samples outside --cpu/--time are not counted\n",
			r->sum.filtered);
	if (r->sum.hidden)
		fprintf(f, "# %" PRIu64 " samples of other threads (--comm/--pid/--tid) count "
			"in the totals only\n", r->sum.hidden);
}

int pmu_report_write_view(struct pmu_report *r, FILE *f, const struct pmu_report_view *opts)
{
	struct pmu_report_view o;
	struct rv_view v;
	struct pmuk_json j;
	int err;

	if (!r || !f)
		return pmuk_fail(PMU_EINVAL, "pmu_report_write_view needs a report and a stream");
	if ((err = PMUK_OPTS_VALID(opts, pmu_report_view)) < 0)
		return err;
	memset(&o, 0, sizeof(o));
	PMUK_OPTS_LOAD(o, opts, pmu_report_view);
	if ((err = pmu_report_view_check(opts)) || (err = setup(&v, r, &o)))
		return err;
	if (!o.json) {
		pmuk_rp_text_losses(r, f);
		filtered_note(r, f);
		if (!r->sum.samples && r->sum.filtered)
			fprintf(f, "#\n# no samples left: all %" PRIu64 " were outside --cpu/"
				"--time\n", r->sum.filtered);
		else if (!r->sum.samples)
			fprintf(f, "#\n# no samples: nothing was sampled (a command shorter "
				"than one sampling period: raise -F; or a trace of other "
				"events only)\n");
		if (!(err = each_section(r, &v, f, NULL)))
			pmuk_rp_missing_pdbs_text(r, f);
		return err;
	}
	pmuk_json_init(&j, f, 1);
	pmuk_json_obj_begin(&j, NULL);
	pmuk_rp_json_tables(r, &j, o.limit, &err);
	if (err)
		return err;
	pmuk_json_arr_begin(&j, "sort");
	for (size_t i = 0; i < v.nk; i++)
		pmuk_json_str(&j, NULL, pmuk_rv_key_name(v.key[i]));
	pmuk_json_arr_end(&j);
	pmuk_json_bool(&j, "children", v.children);
	pmuk_json_arr_begin(&j, "sections");
	err = each_section(r, &v, f, &j);
	pmuk_json_arr_end(&j);
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
	return err;
}

int pmu_report_view_check(const struct pmu_report_view *opts)
{
	struct pmu_report_view o;
	struct rv_view v;
	int err;

	if ((err = PMUK_OPTS_VALID(opts, pmu_report_view)) < 0)
		return err;
	memset(&o, 0, sizeof(o));
	PMUK_OPTS_LOAD(o, opts, pmu_report_view);
	if (!(o.percent_limit >= 0 && o.percent_limit <= 100))
		return pmuk_fail(PMU_EINVAL, "a percent limit is 0 to 100, not %g", o.percent_limit);
	if (!(o.graph_limit <= 100))	/* NaN too */
		return pmuk_fail(PMU_EINVAL, "a graph threshold is at most 100 percent, not %g",
				 o.graph_limit);
	memset(&v, 0, sizeof(v));
	return pmuk_rv_parse(&v, o.sort);
}
