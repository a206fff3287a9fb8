/* SPDX-License-Identifier: MIT */
/* A small recursive-descent JSON reader for checking `pmukit ... --json` output.
 * Strings keep their escapes decoded for the ASCII range only (enough for keys and
 * the values the checks compare). */
#include "hwtest.h"

#include <stdlib.h>
#include <string.h>

struct jp {
	const char *s;
	int depth;
};

static void ws(struct jp *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static char *jstring(struct jp *p)
{
	size_t cap = 16, n = 0;
	char *out = malloc(cap), *nout;

	if (!out || *p->s != '"')
		goto bad;
	p->s++;
	while (*p->s != '"') {
		char c = *p->s++;

		if (c == '\0' || (unsigned char)c < 0x20)
			goto bad;
		if (c == '\\') {
			c = *p->s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u':
				for (int i = 0; i < 4; i++)
					if (!p->s[i] || !strchr("0123456789abcdefABCDEF", p->s[i]))
						goto bad;
				c = (char)strtol((char[]){ p->s[2], p->s[3], 0 }, NULL, 16);
				if (p->s[0] != '0' || p->s[1] != '0')
					c = '?';
				p->s += 4;
				break;
			case '"': case '\\': case '/': break;
			default: goto bad;
			}
		}
		if (n + 2 > cap) {
			nout = realloc(out, cap *= 2);
			if (!nout)
				goto bad;
			out = nout;
		}
		out[n++] = c;
	}
	p->s++;
	out[n] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static int value(struct jp *p, struct hj *v);

static int container(struct jp *p, struct hj *v, char close)
{
	size_t cap = 0;

	p->s++;
	ws(p);
	if (*p->s == close) {
		p->s++;
		return 0;
	}
	for (;;) {
		struct hj *k;

		if (v->n == cap) {
			struct hj *nk = realloc(v->kids, (cap = cap ? 2 * cap : 8) * sizeof(*nk));

			if (!nk)
				return -1;
			v->kids = nk;
		}
		k = &v->kids[v->n];
		memset(k, 0, sizeof(*k));
		v->n++;
		ws(p);
		if (close == '}') {
			if (!(k->key = jstring(p)))
				return -1;
			ws(p);
			if (*p->s++ != ':')
				return -1;
		}
		if (value(p, k) < 0)
			return -1;
		ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s++ != close)
			return -1;
		return 0;
	}
}

static int scalar(struct jp *p, struct hj *v);

static int value(struct jp *p, struct hj *v)
{
	int r;

	if (p->depth >= 64)
		return -1;
	ws(p);
	p->depth++;
	if (*p->s == '{') {
		v->type = HJ_OBJ;
		r = container(p, v, '}');
	} else if (*p->s == '[') {
		v->type = HJ_ARR;
		r = container(p, v, ']');
	} else {
		r = scalar(p, v);
	}
	p->depth--;
	return r;
}

static int scalar(struct jp *p, struct hj *v)
{
	char *end;

	switch (*p->s) {
	case '"':
		v->type = HJ_STR;
		return (v->str = jstring(p)) ? 0 : -1;
	case 't':
	case 'f':
	case 'n': {
		static const struct { const char *w; enum hj_type t; double v; } lit[] = {
			{ "true", HJ_BOOL, 1 }, { "false", HJ_BOOL, 0 }, { "null", HJ_NULL, 0 },
		};
		for (size_t i = 0; i < sizeof(lit) / sizeof(lit[0]); i++)
			if (!strncmp(p->s, lit[i].w, strlen(lit[i].w))) {
				v->type = lit[i].t;
				v->num = lit[i].v;
				p->s += strlen(lit[i].w);
				return 0;
			}
		return -1;
	}
	default:
		v->type = HJ_NUM;
		v->num = strtod(p->s, &end);
		if (end == p->s)
			return -1;
		p->s = end;
		return 0;
	}
}

static void release(struct hj *v)
{
	for (size_t i = 0; i < v->n; i++)
		release(&v->kids[i]);
	free(v->kids);
	free(v->key);
	free(v->str);
}

void hj_free(struct hj *v)
{
	if (v) {
		release(v);
		free(v);
	}
}

struct hj *hj_parse(const char *text)
{
	struct jp p = { text, 0 };
	struct hj *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	if (value(&p, v) < 0) {
		hj_free(v);
		return NULL;
	}
	return v;
}

const struct hj *hj_get(const struct hj *v, const char *key)
{
	if (!v || v->type != HJ_OBJ)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->kids[i].key, key))
			return &v->kids[i];
	return NULL;
}

const char *hj_str(const struct hj *v, const char *key)
{
	const struct hj *m = hj_get(v, key);

	return m && m->type == HJ_STR ? m->str : NULL;
}
