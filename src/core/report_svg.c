/* SPDX-License-Identifier: MIT */
/* The report as an interactive flame graph: one SVG holding its frames and
 * its script (report_svg_page.c), no external resources. The folded stacks
 * are sorted by their frames' names, root first, so stacks sharing a prefix
 * are adjacent; one walk over them then merges equal prefixes into the tree
 * (the same tree as the collapsed format gives flamegraph tools: all ->
 * process -> root ... leaf), holding only the open path. A frame is written
 * when its subtree ends, if it is at least SVG_MIN_PX wide; narrower ones are
 * counted. A first walk measures (depth, counts), the second writes. */
#include "core/error.h"
#include "core/report_int.h"
#include "core/report_svg.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_ROOT, K_PROC, K_USER, K_KERNEL, K_JIT, K_UNKNOWN };
static const char *const kind_name[] = { "root", "proc", "user", "kernel", "jit", "unknown" };

struct node {                    /* an open frame of the walk */
	const char *name;
	uint32_t sym;            /* RP_NONE: the root or a process */
	uint64_t x, n;           /* first sample, samples */
};

struct sv {
	struct pmu_report *r;
	FILE *f;                 /* NULL: measuring */
	struct key *order;       /* stacks, sorted */
	struct node *path;       /* path[0] the root, path[d] the open frame at depth d */
	size_t top;              /* deepest open depth */
	uint64_t total;
	double scale;            /* pixels per sample */
	size_t depth;            /* deepest frame drawn */
	uint64_t kept, omitted;
	int height;
};

/* ---- the tree walk ---- */

/* The name at depth d (1: the process, 2: the root frame) of stack s. */
static const char *level_name(const struct pmu_report *r, const struct rp_stack *s, size_t d)
{
	if (d == 1) {
		const char *p = pmuk_rp_str(r, s->proc);
		return *p ? p : "[unknown]";
	}
	return pmuk_rp_str(r, r->syms[s->frames[s->n - (d - 1)]].name);
}

struct key {                     /* qsort has no context argument: each key has it */
	const struct pmu_report *r;
	uint32_t id;
};

static int cmp_stack(const void *a, const void *b)
{
	const struct key *ka = a, *kb = b;
	const struct pmu_report *r = ka->r;
	uint32_t x = ka->id, y = kb->id;
	const struct rp_stack *s = &r->stacks[x], *t = &r->stacks[y];
	size_t d;

	for (d = 1; d <= s->n + 1 && d <= t->n + 1; d++) {
		const char *p = level_name(r, s, d), *q = level_name(r, t, d);
		int c = p == q ? 0 : strcmp(p, q);
		if (c)
			return c;
	}
	if (s->n != t->n)
		return s->n < t->n ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void put_frame(struct sv *v, const struct node *nd, size_t d, uint64_t id);

static void close_frame(struct sv *v, size_t d)
{
	const struct node *nd = &v->path[d];

	if ((double)nd->n * v->scale < SVG_MIN_PX) {
		v->omitted++;
		return;
	}
	if (d > v->depth)
		v->depth = d;
	if (v->f)
		put_frame(v, nd, d, v->kept);
	v->kept++;
}

static void walk(struct sv *v)
{
	const struct pmu_report *r = v->r;
	uint64_t at = 0;

	v->top = 0;
	v->kept = v->omitted = 0;
	v->path[0] = (struct node){ "all", RP_NONE, 0, v->total };
	for (size_t i = 0; i < r->n_stacks; i++) {
		const struct rp_stack *s = &r->stacks[v->order[i].id];
		size_t len = (size_t)s->n + 1, d = 1;
		while (d <= v->top && d <= len && !strcmp(v->path[d].name, level_name(r, s, d)))
			d++;
		for (size_t k = v->top; k >= d; k--)
			close_frame(v, k);
		for (size_t k = d; k <= len; k++)
			v->path[k] = (struct node){ level_name(r, s, k),
				k == 1 ? RP_NONE : s->frames[s->n - (k - 1)], at, 0 };
		for (size_t k = 1; k <= len; k++)
			v->path[k].n += s->count;
		v->top = len;
		at += s->count;
	}
	for (size_t k = v->top; k >= 1; k--)
		close_frame(v, k);
	close_frame(v, 0);
}

/* ---- text ---- */

/* The code point at s (its length in *len), or -1 for bytes that are not
 * UTF-8 or not allowed in XML. */
static long utf8_char(const unsigned char *s, size_t *len)
{
	static const long min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xF0 && s[0] < 0xF5 ? 4 : s[0] >= 0xE0 ? 3 :
		   s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
	long c = n == 1 ? s[0] : n ? s[0] & (0x7F >> n) : 0;

	*len = 1;
	if (!n)
		return -1;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return -1;
		c = c << 6 | (s[i] & 0x3F);
	}
	if (c < min[n] || (c >= 0xD800 && c < 0xE000) || c == 0xFFFE || c == 0xFFFF ||
	    (c < 0x20 && c != '\t'))
		return -1;
	*len = n;
	return c;
}

/* s (at most max characters of it) as XML text or attribute value: markup
 * characters as entities, what XML cannot hold as U+FFFD. */
static void put_xml(FILE *f, const char *s, size_t max)
{
	for (const unsigned char *p = (const unsigned char *)s; *p && max; max--) {
		size_t len;
		long c = utf8_char(p, &len);
		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c < 0)
			fputs("\xEF\xBF\xBD", f);
		else
			fwrite(p, 1, len, f);
		p += len;
	}
}

static size_t chars(const char *s)
{
	size_t n = 0, len;

	for (const unsigned char *p = (const unsigned char *)s; *p; p += len, n++)
		utf8_char(p, &len);
	return n;
}

/* A number with two decimals, the same in every locale. */
static void put_fixed(FILE *f, double v)
{
	uint64_t c = (uint64_t)(v * 100 + 0.5);

	fprintf(f, "%" PRIu64 ".%02u", c / 100, (unsigned)(c % 100));
}

/* The label drawn in a frame w pixels wide: as many characters as fit, cut
 * ones end in "..". */
static void put_label(FILE *f, const char *name, double w)
{
	double fit = (w - 6) / SVG_CHAR_W;
	size_t m = fit < 3 ? 0 : (size_t)fit, n = chars(name);

	if (m == 0)
		return;
	if (n <= m) {
		put_xml(f, name, n);
		return;
	}
	put_xml(f, name, m - 2);
	fputs("..", f);
}

/* ---- frames ---- */

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	if (n < t)
		return 0;
	for (size_t i = 0; i < t; i++)	/* ASCII case-insensitive: Windows names */
		if ((s[n - t + i] | 0x20) != (tail[i] | 0x20))
			return 0;
	return 1;
}

/* Kernel, JIT or user code, from the module's path. */
static enum kind kind_of(const struct pmu_report *r, uint32_t sym)
{
	uint32_t m = sym == RP_NONE ? RP_NONE : r->syms[sym].module;

	if (m == RP_NONE)
		return K_UNKNOWN;
	const char *path = pmuk_rp_str(r, r->mods[m].path), *base = pmuk_rp_str(r, r->mods[m].base);
	if (!strncmp(path, "[kernel", 7) || !strncmp(path, "\\SystemRoot\\", 12) ||
	    ends_with(base, ".ko") || strstr(base, ".ko.") || ends_with(base, ".sys") ||
	    ends_with(base, "ntoskrnl.exe") || ends_with(base, "ntkrnlmp.exe"))
		return K_KERNEL;
	if ((!strncmp(base, "perf-", 5) && ends_with(base, ".map")) || !strncmp(base, "jitted-", 7) ||
	    !strncmp(path, "//anon", 6) || !strncmp(path, "[anon", 5) || !strcmp(path, "[JIT]"))
		return K_JIT;
	return K_USER;
}

/* A fill for the frame: a hue band per kind, a shade per module, a little
 * variation per function so neighbours of one module stay apart. */
static void put_fill(FILE *f, const struct pmu_report *r, enum kind k, const struct node *nd)
{
	uint32_t m = nd->sym == RP_NONE ? RP_NONE : r->syms[nd->sym].module;
	const char *mod = m == RP_NONE ? "" : pmuk_rp_str(r, r->mods[m].base);
	uint64_t h = pmuk_hash_bytes(mod, strlen(mod), 11);
	unsigned v = (unsigned)(pmuk_hash_bytes(nd->name, strlen(nd->name), 12) % 24);
	unsigned a = (unsigned)(h % 40), b = (unsigned)(h >> 8) % 130, c = (unsigned)(h >> 16) % 40;
	unsigned rgb[3];

	switch (k) {
	case K_ROOT: rgb[0] = 205, rgb[1] = 205, rgb[2] = 205; break;
	case K_PROC: rgb[0] = 200, rgb[1] = 180, rgb[2] = 230; break;
	case K_KERNEL: rgb[0] = 80 + a, rgb[1] = 150 + b / 3 + v, rgb[2] = 215 + c; break;
	case K_JIT: rgb[0] = 60 + a, rgb[1] = 180 + b / 3 + v / 2, rgb[2] = 60 + c; break;
	case K_UNKNOWN: rgb[0] = rgb[1] = rgb[2] = 180 + v; break;
	default: rgb[0] = 205 + a, rgb[1] = 60 + b + v, rgb[2] = 30 + c; break;
	}
	fprintf(f, "rgb(%u,%u,%u)", rgb[0], rgb[1], rgb[2]);
}

static void put_frame(struct sv *v, const struct node *nd, size_t d, uint64_t id)
{
	FILE *f = v->f;
	enum kind k = d == 0 ? K_ROOT : d == 1 ? K_PROC : kind_of(v->r, nd->sym);
	double x = SVG_PAD + (double)nd->x * v->scale, w = (double)nd->n * v->scale;
	int y = SVG_TOP + (int)(v->depth - d) * SVG_FRAME_H;

	fprintf(f, "<g id=\"f%" PRIu64 "\" class=\"%s\" data-x=\"%" PRIu64 "\" data-n=\"%" PRIu64
		"\"><title>", id, kind_name[k], nd->x, nd->n);
	put_xml(f, nd->name, SIZE_MAX);
	fprintf(f, " (%" PRIu64 " samples, ", nd->n);
	put_fixed(f, 100.0 * (double)nd->n / (double)v->total);
	fputs("%)</title><rect x=\"", f);
	put_fixed(f, x);
	fputs("\" y=\"", f);
	fprintf(f, "%d\" width=\"", y);
	put_fixed(f, w);
	fprintf(f, "\" height=\"%d\" fill=\"", SVG_FRAME_H - 1);
	put_fill(f, v->r, k, nd);
	fputs("\"/><text x=\"", f);
	put_fixed(f, x + 3);
	fprintf(f, "\" y=\"%d\">", y + 12);
	put_label(f, nd->name, w);
	fputs("</text></g>\n", f);
}

/* ---- the page ---- */

static void head(struct sv *v, const char *title)
{
	FILE *f = v->f;
	int h = v->height;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" data-total=\"%" PRIu64 "\" data-frames=\"%"
		PRIu64 "\" data-omitted=\"%" PRIu64 "\">\n", SVG_WIDTH, h, SVG_WIDTH, h, v->total,
		v->kept, v->omitted);
	fprintf(f, "<style>\n%s</style>\n<script><![CDATA[\n%s]]></script>\n", pmuk_svg_style,
		pmuk_svg_script);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f4\"/>\n",
		SVG_WIDTH, h);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">", SVG_WIDTH / 2);
	put_xml(f, title, SIZE_MAX);
	fprintf(f, "</text>\n<text id=\"unzoom\" class=\"btn hide\" x=\"%d\" y=\"24\">Reset "
		"Zoom</text>\n<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\" "
		"text-anchor=\"end\">Search</text>\n", SVG_PAD, SVG_WIDTH - SVG_PAD);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n<text id=\"matched\" "
		"class=\"btn\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n", SVG_PAD,
		h - SVG_BOTTOM + 16, SVG_WIDTH - SVG_PAD, h - SVG_BOTTOM + 16);
	fprintf(f, "<text id=\"note\" x=\"%d\" y=\"%d\">%" PRIu64 " samples; %" PRIu64
		" frames drawn, %" PRIu64 " narrower than ", SVG_PAD, h - 6, v->total, v->kept,
		v->omitted);
	put_fixed(f, SVG_MIN_PX);
	fputs(" px left out (also when zoomed). Colours: user code warm, kernel blue, JIT "
	      "green, no module grey.</text>\n", f);
	fputs("<g id=\"frames\">\n", f);
}

int pmu_report_write_svg(struct pmu_report *r, FILE *f, const char *title)
{
	struct sv v = { .r = r };
	size_t deepest = 0;

	if (!r || !f)
		return pmuk_fail(PMU_EINVAL, "pmu_report_write_svg needs a report and a file");
	if (pmuk_rp_sym_keep(r, RP_NONE))   /* the walk holds names across stacks */
		return PMU_ENOMEM;
	for (size_t i = 0; i < r->n_stacks; i++) {
		v.total += r->stacks[i].count;
		if (r->stacks[i].n > deepest)
			deepest = r->stacks[i].n;
	}
	v.order = malloc((r->n_stacks + 1) * sizeof(*v.order));
	v.path = malloc((deepest + 2) * sizeof(*v.path));
	if (!v.order || !v.path) {
		free(v.order), free(v.path);
		return pmuk_fail(PMU_ENOMEM, "no memory to sort %zu stacks", r->n_stacks);
	}
	for (size_t i = 0; i < r->n_stacks; i++)
		v.order[i] = (struct key){ r, (uint32_t)i };
	if (r->n_stacks > 1)
		qsort(v.order, r->n_stacks, sizeof(*v.order), cmp_stack);
	v.scale = v.total ? (double)(SVG_WIDTH - 2 * SVG_PAD) / (double)v.total : 0;
	if (v.total)
		walk(&v);	/* measures: the deepest frame drawn sets the height */
	v.height = SVG_TOP + (int)(v.depth + 1) * SVG_FRAME_H + SVG_BOTTOM;
	v.f = f;
	head(&v, title ? title : "pmukit");
	if (v.total)
		walk(&v);	/* writes, with the depth measured */
	fputs("</g>\n</svg>\n", f);
	free(v.order), free(v.path);
	if (ferror(f))
		return pmuk_fail(PMU_EIO, "writing the flame graph failed (disk full, or a closed "
				 "pipe?)");
	return 0;
}
