/* SPDX-License-Identifier: MIT */
/* The report's memory blocks and interned strings. Addresses in no module
 * are named "0x<addr>" (label "0x<16 digits>"); most are a stack's data
 * words, each seen once, and most are never printed or printed once: their
 * texts get ids but are made only when written (pmuk_rp_sym_name). The ids
 * are the ones interning the texts would have given, so every order that
 * ties on ids stays the same; a text of that form interned later gets the
 * id already given to it. */
#include "core/error.h"
#include "core/grow.h"
#include "core/report_int.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK 65536

void *pmuk_rp_alloc(struct rp_arena *a, size_t n)
{
	if (n > SIZE_MAX - 8)
		return NULL;
	n = n ? (n + 7) & ~(size_t)7 : 8;
	if (n > a->free_n) {
		size_t size = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;   /* a big one alone */
		char *b;
		if (pmuk_grow((void **)&a->blocks, &a->cap_blocks, a->n_blocks + 1,
			      sizeof(*a->blocks)) || !(b = malloc(size)))
			return NULL;
		a->blocks[a->n_blocks++] = b;
		if (size != ARENA_BLOCK)
			return b;
		a->free_at = b, a->free_n = size;
	}
	char *o = a->free_at;
	a->free_at += n, a->free_n -= n;
	return o;
}

void pmuk_rp_arena_free(struct rp_arena *a)
{
	for (size_t i = 0; i < a->n_blocks; i++)
		free(a->blocks[i]);
	free(a->blocks);
	memset(a, 0, sizeof(*a));
}

void pmuk_rp_strings_free(struct rp_strings *t)
{
	pmuk_rp_arena_free(&t->text);
	free(t->s);
	free(t->hex);
	pmuk_index_free(&t->ix);
	pmuk_index_free(&t->hex_ix);
}

/* ---- "0x<hex>" texts by value ---- */

#define NAME_FORM 1              /* "0x%" PRIx64 */
#define LABEL_FORM 2             /* "0x%016" PRIx64 */

/* Which of the two forms s (len bytes) has, with its value; 0: neither. */
static int hex_form(const char *s, size_t len, uint64_t *v)
{
	if (len < 3 || len > 18 || s[0] != '0' || s[1] != 'x')
		return 0;
	*v = 0;
	for (size_t i = 2; i < len; i++) {
		char c = s[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;
		if (d == 16)
			return 0;
		*v = *v << 4 | d;
	}
	return (len == 3 || s[2] != '0' ? NAME_FORM : 0) | (len == 18 ? LABEL_FORM : 0);
}

static int hex_eq(const void *key, uint32_t id, const void *ctx)
{
	return ((const struct rp_strings *)ctx)->hex[id].v == *(const uint64_t *)key;
}

/* The entry of value v, made when missing (then neither text has an id);
 * NULL without memory. */
static struct rp_hexname *hex_of(struct rp_strings *t, uint64_t v)
{
	uint64_t h = pmuk_hash_u64(v ^ 0x6865786e616d65ull);
	uint32_t id = pmuk_index_find(&t->hex_ix, h, hex_eq, &v, t);

	if (id != RP_NONE)
		return &t->hex[id];
	if (pmuk_grow_raw((void **)&t->hex, &t->cap_hex, t->hex_ix.n + 1, sizeof(*t->hex)) ||
	    (id = pmuk_index_add(&t->hex_ix, h)) == RP_NONE)
		return NULL;
	t->hex[id] = (struct rp_hexname){ v, RP_NONE, RP_NONE };
	return &t->hex[id];
}

const char *pmuk_rp_hex_text(char *buf, uint64_t v, int digits)
{
	size_t n = 1;

	for (uint64_t x = v >> 4; x; x >>= 4)
		n++;
	n = n < (size_t)digits ? (size_t)digits : n;
	buf[0] = '0', buf[1] = 'x';
	for (size_t i = n + 2; i-- > 2; v >>= 4)
		buf[i] = "0123456789abcdef"[v & 15];
	buf[n + 2] = '\0';
	return buf;
}

/* ---- interning ---- */

static int str_eq(const void *key, uint32_t id, const void *ctx)
{
	return !strcmp(key, ((const struct rp_strings *)ctx)->s[id]);
}

/* The next id, without text yet: RP_NONE without memory (0 is an id: the
 * first, given to ""). */
static uint32_t new_id(struct rp_strings *t)
{
	if (t->n >= RP_NONE - 1 || pmuk_grow_raw((void **)&t->s, &t->cap, t->n + 1, sizeof(*t->s)))
		return RP_NONE;
	t->s[t->n] = NULL;	/* no text yet: pmuk_rp_sym_name tells by this */
	return (uint32_t)t->n++;
}

/* Gives id (new, or an address's whose text was not made) the text s of len
 * bytes with hash h: 0, or -1 without memory. */
static int set_text(struct rp_strings *t, uint32_t id, const char *s, size_t len, uint64_t h)
{
	char *copy = pmuk_rp_alloc(&t->text, len + 1);

	if (!copy || pmuk_index_put(&t->ix, h, id))
		return -1;
	t->s[id] = memcpy(copy, s, len + 1);
	return 0;
}

uint32_t pmuk_rp_intern(struct rp_strings *t, const char *s)
{
	size_t len = strlen(s);
	uint64_t h = pmuk_hash_bytes(s, len, 1), v;
	uint32_t id = pmuk_index_find(&t->ix, h, str_eq, s, t);
	int form = id == RP_NONE ? hex_form(s, len, &v) : 0;
	struct rp_hexname *e = form ? hex_of(t, v) : NULL;

	if (id != RP_NONE)
		return id;
	if (form && !e)
		return 0;	/* out of memory: the name reads "" */
	/* an address's text given an id already: the same id */
	if (e && (id = form & NAME_FORM ? e->name : RP_NONE) == RP_NONE)
		id = form & LABEL_FORM ? e->label : RP_NONE;
	int fresh = id == RP_NONE;
	if (fresh && (id = new_id(t)) == RP_NONE)
		return 0;
	if (set_text(t, id, s, len, h)) {
		t->n -= fresh;	/* a new id goes back: none is left without text */
		return 0;
	}
	if (e && form & NAME_FORM)
		e->name = id;
	if (e && form & LABEL_FORM)
		e->label = id;
	return id;
}

/* Out of ids or memory these give 0 ("") and record nothing: an id kept
 * as 0 would later be given the address's text, over "". */
uint32_t pmuk_rp_addr_name(struct rp_strings *t, uint64_t addr, int *made)
{
	struct rp_hexname *e = hex_of(t, addr);

	*made = 0;
	if (!e)
		return 0;
	if (e->name == RP_NONE) {   /* 16 digits, the first not 0: the label's text too */
		int same = addr >> 60 && e->label != RP_NONE;
		uint32_t id = same ? e->label : new_id(t);
		if (id == RP_NONE)
			return 0;
		e->name = id;
		*made = !same;
	}
	return e->name;
}

uint32_t pmuk_rp_addr_label(struct rp_strings *t, uint64_t addr)
{
	struct rp_hexname *e = hex_of(t, addr);

	if (!e)
		return 0;
	if (e->label == RP_NONE) {
		uint32_t id = addr >> 60 && e->name != RP_NONE ? e->name : new_id(t);
		if (id == RP_NONE)
			return 0;
		e->label = id;
	}
	return e->label;
}

const char *pmuk_rp_str(const struct pmu_report *r, uint32_t id)
{
	return id < r->str.n && r->str.s[id] ? r->str.s[id] : "";
}

/* ---- symbols' names ---- */

const char *pmuk_rp_sym_name(const struct pmu_report *r, uint32_t sym, char *buf)
{
	const struct rp_sym *s = &r->syms[sym];

	return s->at_addr && !r->str.s[s->name] ? pmuk_rp_hex_text(buf, s->addr, 1) :
						  pmuk_rp_str(r, s->name);
}

const char *pmuk_rp_sym_label(const struct pmu_report *r, uint32_t sym, char *buf)
{
	const struct rp_sym *s = &r->syms[sym];

	return s->at_addr && !r->str.s[s->label] ? pmuk_rp_hex_text(buf, s->addr, 16) :
						   pmuk_rp_str(r, s->label);
}

size_t pmuk_rp_sym_label_len(const struct pmu_report *r, uint32_t sym)
{
	const struct rp_sym *s = &r->syms[sym];

	return s->at_addr && !r->str.s[s->label] ? 18 : strlen(pmuk_rp_str(r, s->label));
}

/* Makes the text of id, an address's: 0, or -1 without memory. */
static int make_text(struct rp_strings *t, uint32_t id, const char *s)
{
	size_t len = strlen(s);

	return t->s[id] || !id ? 0 : set_text(t, id, s, len, pmuk_hash_bytes(s, len, 1));
}

int pmuk_rp_sym_keep(struct pmu_report *r, uint32_t sym)
{
	size_t i = sym == RP_NONE ? 0 : sym, end = sym == RP_NONE ? r->n_syms : (size_t)sym + 1;
	char buf[RP_ADDR_BUF];

	for (; i < end && i < r->n_syms; i++) {
		const struct rp_sym *s = &r->syms[i];
		if (s->at_addr && (make_text(&r->str, s->name, pmuk_rp_hex_text(buf, s->addr, 1)) ||
				   make_text(&r->str, s->label, pmuk_rp_hex_text(buf, s->addr, 16))))
			return pmuk_fail(PMU_ENOMEM, "no memory for the names of the report's "
					 "symbols");
	}
	return 0;
}
