/* SPDX-License-Identifier: MIT */
/* Event list syntax (a subset of perf's):
 *   list  := item (',' item)*
 *   item  := event | '{' event (',' event)* '}' [':' mods]
 *   event := name [':' mods]               cycles:u, INST_RETIRED:ANY_P:c=1:k, sched:sched_switch,
 *                                          sched:sched_wak* (a tracepoint glob)
 *          | pmu '/' term (',' term)* '/' [':' mods]     cpu/event=0x3c,umask=0/:pp
 *   mods  := [ukhp]+                       at most ppp
 * A name may itself contain ':' (libpfm4 umasks, tracepoints); only a last
 * ':'-segment made of modifier letters is taken as modifiers. */
#include "core/event_parse.h"
#include "core/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *s;
	int i;
	struct pmuk_ev_ast *ast;
};

#define SPEC_FMT "'%.200s%s'"
#define SPEC_ARG(p) (p)->s, strlen((p)->s) > 200 ? "..." : ""

/* '=' is for libpfm4 attributes: INST_RETIRED:ANY_P:c=1:i=1, ...:precise=2;
 * '*' and '?' for tracepoint globs (sched:*), which the resolver expands. */
static int name_char(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '.' || c == ':' || c == '@' || c == '+' ||
	       c == '=' || c == '*' || c == '?';
}

static int term_char(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '.' || c == '+';
}

static void skip_ws(struct parser *p)
{
	while (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n')
		p->i++;
}

static int unexpected(struct parser *p, const char *want)
{
	unsigned char c = (unsigned char)p->s[p->i];

	if (!c)
		return pmuk_fail(PMU_EPARSE, "expected %s at position %d in " SPEC_FMT, want, p->i,
				 SPEC_ARG(p));
	if (isprint(c))
		return pmuk_fail(PMU_EPARSE, "unexpected '%c' at position %d in " SPEC_FMT
				 " (expected %s)", c, p->i, SPEC_ARG(p), want);
	return pmuk_fail(PMU_EPARSE, "unexpected byte 0x%02x at position %d (expected %s)", c, p->i,
			 want);
}

int pmuk_ev_mods_parse(const char *s, struct pmuk_ev_mods *m)
{
	memset(m, 0, sizeof(*m));
	if (!*s)
		return -1;
	for (; *s; s++) {
		switch (*s) {
		case 'u': m->u = 1; break;
		case 'k': m->k = 1; break;
		case 'h': m->h = 1; break;
		case 'p':
			if (++m->p > 3)
				return -1;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

void pmuk_ev_mods_merge(struct pmuk_ev_mods *m, const struct pmuk_ev_mods *g)
{
	m->u |= g->u;
	m->k |= g->k;
	m->h |= g->h;
	m->p += g->p;
}

void pmuk_ev_mods_text(const struct pmuk_ev_term *t, const struct pmuk_ev_mods *m, char *out)
{
	char *p = out;

	if (!t->gmods[0]) { /* as written: perf prints "faults:ku" for faults:ku */
		strcpy(out, t->mods);
		return;
	}
	if (m->u)
		*p++ = 'u';
	if (m->k)
		*p++ = 'k';
	if (m->h)
		*p++ = 'h';
	for (int i = 0; i < m->p; i++)
		*p++ = 'p';
	*p = '\0';
}

/* perf's numbers: decimal, or hex after 0x ("010" is ten, not eight). */
int pmuk_ev_number(const char *s, unsigned long long *v)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!isxdigit((unsigned char)*s))
			return -1;
	} else if (!isdigit((unsigned char)*s)) {
		return -1;
	}
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

static int bad_mods(struct parser *p, int pos, const char *mods)
{
	return pmuk_fail(PMU_EPARSE, "bad modifier ':%s' at position %d in " SPEC_FMT
			 "; modifiers are u (user), k (kernel), h (hypervisor), p, pp, ppp (precise)",
			 mods, pos, SPEC_ARG(p));
}

/* ':' mods after an event or group, letters only; stores them in out[16]. */
static int parse_mods(struct parser *p, char *out, int *mod_pos)
{
	struct pmuk_ev_mods m;
	int start = ++p->i, n = 0;

	while (isalpha((unsigned char)p->s[p->i]))
		p->i++;
	n = p->i - start;
	if (!n)
		return unexpected(p, "modifier letters after ':'");
	if (n >= 16)
		return bad_mods(p, start, "(too many letters)");
	memcpy(out, p->s + start, n);
	out[n] = '\0';
	if (pmuk_ev_mods_parse(out, &m))
		return bad_mods(p, start, out);
	if (mod_pos)
		*mod_pos = start;
	return 0;
}

static int copy_field(struct parser *p, char *dst, size_t size, int start, const char *what)
{
	size_t n = (size_t)(p->i - start);

	if (n >= size)
		return pmuk_fail(PMU_EPARSE, "%s too long at position %d (%zu bytes, at most %zu)", what,
				 start, n, size - 1);
	memcpy(dst, p->s + start, n);
	dst[n] = '\0';
	return 0;
}

static int parse_terms(struct parser *p, struct pmuk_ev_term *t)
{
	int ret, start;

	p->i++; /* the opening '/' */
	for (;;) {
		struct pmuk_ev_kv *kv;

		skip_ws(p);
		if (t->nkv == PMUK_EV_KV_MAX)
			return pmuk_fail(PMU_EPARSE, "too many terms in %s/.../ at position %d (at most %d)",
					 t->pmu, p->i, PMUK_EV_KV_MAX);
		kv = &t->kv[t->nkv];
		kv->pos = start = p->i;
		while (term_char((unsigned char)p->s[p->i]))
			p->i++;
		if (p->i == start)
			return unexpected(p, "a term name");
		if ((ret = copy_field(p, kv->key, sizeof(kv->key), start, "term name")))
			return ret;
		if (p->s[p->i] == '=') {
			start = ++p->i;
			while (term_char((unsigned char)p->s[p->i]))
				p->i++;
			if (p->i == start)
				return unexpected(p, "a value after '='");
			if ((ret = copy_field(p, kv->val, sizeof(kv->val), start, "term value")))
				return ret;
			kv->has_val = 1;
		}
		t->nkv++;
		skip_ws(p);
		if (p->s[p->i] == '/') {
			p->i++;
			return 0;
		}
		if (p->s[p->i] != ',')
			return unexpected(p, "',' or '/'");
		p->i++;
	}
}

/* Splits a trailing ":mods" off a plain name when the last segment is made of
 * modifier letters (so "sched:sched_switch" and "INST_RETIRED:ANY_P" stay whole). */
static void split_mods(struct pmuk_ev_term *t)
{
	char *c = strrchr(t->text, ':');
	struct pmuk_ev_mods m;

	if (!c || c == t->text || strlen(c + 1) >= sizeof(t->mods) || pmuk_ev_mods_parse(c + 1, &m))
		return;
	strcpy(t->mods, c + 1);
	t->mod_pos = t->pos + (int)(c + 1 - t->text);
	*c = '\0';
}

static int parse_event(struct parser *p, struct pmuk_ev_term *t)
{
	int start = p->i, ret;

	memset(t, 0, sizeof(*t));
	t->pos = start;
	t->mod_pos = -1;
	while (name_char((unsigned char)p->s[p->i]))
		p->i++;
	if (p->i == start)
		return unexpected(p, "an event name");
	if (p->s[p->i] == '/') {
		if (memchr(p->s + start, ':', p->i - start))
			return pmuk_fail(PMU_EPARSE, "bad PMU name at position %d in " SPEC_FMT
					 " (a PMU name has no ':')", start, SPEC_ARG(p));
		if ((ret = copy_field(p, t->pmu, sizeof(t->pmu), start, "PMU name")) ||
		    (ret = parse_terms(p, t)))
			return ret;
		if (p->s[p->i] == ':')
			return parse_mods(p, t->mods, &t->mod_pos);
		return 0;
	}
	if (p->s[p->i - 1] == ':')
		return pmuk_fail(PMU_EPARSE, "expected modifier letters after ':' at position %d in "
				 SPEC_FMT, p->i, SPEC_ARG(p));
	if ((ret = copy_field(p, t->text, sizeof(t->text), start, "event name")))
		return ret;
	split_mods(t);
	return 0;
}

static struct pmuk_ev_term *new_term(struct parser *p)
{
	struct pmuk_ev_ast *a = p->ast;
	struct pmuk_ev_term *v;

	/* Grow by doubling; an event list long enough to overflow int is refused. */
	if ((a->nterms & (a->nterms - 1)) == 0) {
		size_t cap = a->nterms ? (size_t)a->nterms * 2 : 1;

		if (a->nterms >= (1 << 20))
			return NULL;
		v = realloc(a->terms, cap * sizeof(*v));
		if (!v)
			return NULL;
		a->terms = v;
	}
	return &a->terms[a->nterms++];
}

#define NEW_TERM(p, t)                                                                       \
	do {                                                                                 \
		if (!((t) = new_term(p)))                                                    \
			return pmuk_fail(PMU_ENOMEM, "out of memory parsing the event list"); \
	} while (0)

static int parse_group(struct parser *p)
{
	int open = p->i, first = p->ast->nterms, ret;
	struct pmuk_ev_term *t;
	char gmods[16] = "";

	p->i++;
	for (;;) {
		skip_ws(p);
		if (p->s[p->i] == '{')
			return pmuk_fail(PMU_EPARSE, "groups cannot be nested: '{' at position %d in "
					 SPEC_FMT, p->i, SPEC_ARG(p));
		if (p->s[p->i] == '}' && p->ast->nterms == first)
			return pmuk_fail(PMU_EPARSE, "empty group at position %d in " SPEC_FMT, open,
					 SPEC_ARG(p));
		NEW_TERM(p, t);
		if ((ret = parse_event(p, t)))
			return ret;
		t->group = p->ast->ngroups;
		t->leader = p->ast->nterms - 1 == first;
		t->in_braces = 1;
		skip_ws(p);
		if (p->s[p->i] == '}')
			break;
		if (p->s[p->i] != ',')
			return p->s[p->i] ? unexpected(p, "',' or '}'")
					  : pmuk_fail(PMU_EPARSE, "expected '}' at position %d in "
						      SPEC_FMT " (group opened at position %d)",
						      p->i, SPEC_ARG(p), open);
		p->i++;
	}
	p->i++;
	if (p->s[p->i] == ':' && (ret = parse_mods(p, gmods, NULL)))
		return ret;
	for (int k = first; k < p->ast->nterms; k++) {
		struct pmuk_ev_term *e = &p->ast->terms[k];
		struct pmuk_ev_mods m, g;

		/* perf adds a group's p to each member's: {cycles:p}:p is precise 2. */
		if (!pmuk_ev_mods_parse(e->mods, &m) && !pmuk_ev_mods_parse(gmods, &g) &&
		    m.p + g.p > 3)
			return pmuk_fail(PMU_EPARSE, "precise level of '%s' at position %d adds up to "
					 "%d with its group's ':%s' in " SPEC_FMT "; at most 3 (ppp)",
					 e->text[0] ? e->text : e->pmu, e->pos, m.p + g.p, gmods,
					 SPEC_ARG(p));
		strcpy(e->gmods, gmods);
	}
	p->ast->ngroups++;
	return 0;
}

int pmuk_ev_parse(const char *spec, struct pmuk_ev_ast *ast)
{
	struct parser p = { .s = spec, .i = 0, .ast = ast };
	struct pmuk_ev_term *t;
	int ret;

	memset(ast, 0, sizeof(*ast));
	if (!spec)
		return pmuk_fail(PMU_EINVAL, "no event list given");
	skip_ws(&p);
	if (!spec[p.i])
		return pmuk_fail(PMU_EPARSE, "empty event list: name at least one event "
				 "(see 'pmukit list')");
	for (;;) {
		skip_ws(&p);
		if (spec[p.i] == '{') {
			if ((ret = parse_group(&p)))
				return ret;
		} else if (spec[p.i] == '}') {
			return pmuk_fail(PMU_EPARSE, "unexpected '}' at position %d in " SPEC_FMT
					 ": no group is open", p.i, SPEC_ARG(&p));
		} else {
			NEW_TERM(&p, t);
			if ((ret = parse_event(&p, t)))
				return ret;
			t->group = ast->ngroups++;
			t->leader = 1;
		}
		skip_ws(&p);
		if (!spec[p.i])
			return 0;
		if (spec[p.i] == '}')
			return pmuk_fail(PMU_EPARSE, "unexpected '}' at position %d in " SPEC_FMT
					 ": no group is open", p.i, SPEC_ARG(&p));
		if (spec[p.i] != ',')
			return unexpected(&p, "','");
		p.i++;
	}
}

void pmuk_ev_ast_free(struct pmuk_ev_ast *ast)
{
	free(ast->terms);
	memset(ast, 0, sizeof(*ast));
}
