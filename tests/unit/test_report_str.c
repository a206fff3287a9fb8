/* SPDX-License-Identifier: MIT */
/* The report's interned strings (report_str.c): an address's name and label
 * get ids without text, the same ids interning the texts would give (rows
 * that tie are ordered by ids), whichever comes first; their text is made
 * when written or kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/report_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pmu_report *report(void)
{
	struct pmu_report *r;

	assert_int_equal(pmu_report_new(NULL, &r), 0);
	return r;
}

/* Ids come in order, a text's id is found again, an address's texts
 * take the ids interning would have given them. */
static void test_ids_as_interning(void **state)
{
	struct pmu_report *r = report();
	struct rp_strings *t = &r->str;
	int made;
	(void)state;

	uint32_t a = pmuk_rp_intern(t, "main");
	uint32_t n = pmuk_rp_addr_name(t, 0x7f001234, &made);
	assert_true(made);
	uint32_t l = pmuk_rp_addr_label(t, 0x7f001234);
	uint32_t b = pmuk_rp_intern(t, "after");
	assert_int_equal(n, a + 1);
	assert_int_equal(l, a + 2);
	assert_int_equal(b, a + 3);
	assert_int_equal(pmuk_rp_addr_name(t, 0x7f001234, &made), n);
	assert_false(made);
	/* the texts interned later: the same ids, now with text */
	assert_int_equal(pmuk_rp_intern(t, "0x7f001234"), n);
	assert_int_equal(pmuk_rp_intern(t, "0x000000007f001234"), l);
	assert_string_equal(pmuk_rp_str(r, l), "0x000000007f001234");
	assert_int_equal(pmuk_rp_intern(t, "0x7f001234"), n);
	/* interned first, then asked by address: the same id, no new one */
	uint32_t x = pmuk_rp_intern(t, "0x00000000000a07e7");
	assert_int_equal(pmuk_rp_addr_label(t, 0xa07e7), x);
	assert_int_equal(pmuk_rp_addr_name(t, 0xa07e7, &made), x + 1);
	assert_int_equal(pmuk_rp_intern(t, "next"), x + 2);
	/* not an address's text: upper case, too long, no digits */
	uint32_t u = pmuk_rp_intern(t, "0x7F001234");
	assert_true(u != n);
	assert_int_equal(pmuk_rp_intern(t, "0x0000000000007f001234"), u + 1);
	assert_int_equal(pmuk_rp_intern(t, "0x"), u + 2);
	pmu_report_free(r);
}

/* 16 digits with a first digit not 0: the name is the label (one text,
 * one id), whichever is asked first. */
static void test_long_address_one_text(void **state)
{
	struct pmu_report *r = report();
	struct rp_strings *t = &r->str;
	const uint64_t k = 0xffffffff81389be8ull, d = 0x2020202020202020ull;
	int made;
	(void)state;

	uint32_t n = pmuk_rp_addr_name(t, k, &made);
	assert_true(made);
	assert_int_equal(pmuk_rp_addr_label(t, k), n);
	uint32_t l = pmuk_rp_addr_label(t, d);
	assert_int_equal(pmuk_rp_addr_name(t, d, &made), l);
	assert_false(made);   /* the label's id: something may be named by it */
	assert_int_equal(l, n + 1);
	assert_int_equal(pmuk_rp_intern(t, "0xffffffff81389be8"), n);
	/* a module offset's label interned first is the address's name too */
	uint32_t o = pmuk_rp_intern(t, "0xffffffffc0001000");
	assert_int_equal(pmuk_rp_addr_name(t, 0xffffffffc0001000ull, &made), o);
	assert_false(made);
	assert_int_equal(pmuk_rp_addr_label(t, 0xffffffffc0001000ull), o);
	pmu_report_free(r);
}

/* A symbol of an address alone: its texts made in a buffer, or kept. */
static void test_symbol_texts(void **state)
{
	struct pmu_report *r = report();
	char buf[RP_ADDR_BUF];
	int made;
	(void)state;

	r->syms = calloc(1, sizeof(*r->syms));
	assert_non_null(r->syms);
	r->n_syms = r->cap_syms = 1;
	r->syms[0] = (struct rp_sym){ pmuk_rp_addr_name(&r->str, 0x40, &made), RP_NONE, 0, 0,
				      pmuk_rp_addr_label(&r->str, 0x40), 0, 1, 0x40 };
	assert_string_equal(pmuk_rp_sym_name(r, 0, buf), "0x40");
	assert_string_equal(pmuk_rp_sym_label(r, 0, buf), "0x0000000000000040");
	assert_string_equal(pmuk_rp_str(r, r->syms[0].name), "");   /* not made yet */
	assert_int_equal(pmuk_rp_sym_keep(r, RP_NONE), 0);
	assert_string_equal(pmuk_rp_str(r, r->syms[0].name), "0x40");
	assert_string_equal(pmuk_rp_str(r, r->syms[0].label), "0x0000000000000040");
	assert_int_equal(pmuk_rp_intern(&r->str, "0x40"), r->syms[0].name);
	pmu_report_free(r);
}

/* Out of ids or of memory: no id is given out that a later text could take,
 * string 0 stays "", and the id count is as before the failed call. */
static void test_no_dangling_id(void **state)
{
	struct pmu_report *r = report();
	struct rp_strings *t = &r->str;
	size_t n0 = t->n;
	int made;
	(void)state;

	t->n = RP_NONE - 1;   /* new_id has no id to give */
	assert_int_equal(pmuk_rp_addr_name(t, 0x1234, &made), 0);
	assert_false(made);
	assert_int_equal(pmuk_rp_addr_label(t, 0x5678), 0);
	t->n = n0;
	uint32_t a = pmuk_rp_intern(t, "0x1234"), b = pmuk_rp_intern(t, "0x0000000000005678");
	assert_int_not_equal(a, 0);
	assert_int_not_equal(b, 0);
	assert_string_equal(pmuk_rp_str(r, 0), "");
	assert_string_equal(pmuk_rp_str(r, a), "0x1234");
	assert_int_equal(pmuk_rp_addr_name(t, 0x1234, &made), a);
	assert_int_equal(pmuk_rp_addr_label(t, 0x5678), b);
	/* the text's index full: interning fails and takes no id */
	n0 = t->n;
	size_t ix_n = t->ix.n;
	t->ix.n = UINT32_MAX - 1;
	assert_int_equal(pmuk_rp_intern(t, "lost"), 0);
	t->ix.n = ix_n;
	assert_int_equal(t->n, n0);
	assert_int_equal(pmuk_rp_intern(t, "lost"), n0);
	assert_string_equal(pmuk_rp_str(r, 0), "");
	pmu_report_free(r);
}

/* A text longer than a block (a C++ symbol can be huge), and texts after it,
 * are whole and keep their ids and places as blocks are added. */
static void test_long_texts(void **state)
{
	struct pmu_report *r = report();
	size_t big = 200000;
	char *s = malloc(big + 1), small[32];
	uint32_t id[4000];
	const char *at[4000];
	(void)state;

	assert_non_null(s);
	memset(s, 'x', big);
	s[big] = '\0';
	uint32_t b = pmuk_rp_intern(&r->str, s);
	const char *bp = pmuk_rp_str(r, b);
	for (size_t i = 0; i < 4000; i++) {
		snprintf(small, sizeof(small), "fn_%zu_%s", i, i % 7 ? "a" : "bbbbbbbbbbbbbbbbbbbbbb");
		id[i] = pmuk_rp_intern(&r->str, small);
		at[i] = pmuk_rp_str(r, id[i]);
		assert_int_equal((uintptr_t)at[i] % 8, 0);
	}
	assert_int_equal(pmuk_rp_intern(&r->str, s), b);
	assert_ptr_equal(pmuk_rp_str(r, b), bp);
	assert_int_equal(strlen(bp), big);
	for (size_t i = 0; i < 4000; i++) {
		snprintf(small, sizeof(small), "fn_%zu_%s", i, i % 7 ? "a" : "bbbbbbbbbbbbbbbbbbbbbb");
		assert_int_equal(pmuk_rp_intern(&r->str, small), id[i]);
		assert_ptr_equal(pmuk_rp_str(r, id[i]), at[i]);
		assert_string_equal(at[i], small);
	}
	free(s);
	pmu_report_free(r);
}

/* "" is string 0 from the start: interned again it is 0, and takes no id
 * (the ids after it, which order tying rows, stay as before). */
static void test_empty_is_zero(void **state)
{
	struct pmu_report *r = report();
	(void)state;

	assert_int_equal(pmuk_rp_intern(&r->str, ""), 0);
	uint32_t a = pmuk_rp_intern(&r->str, "a");
	assert_int_equal(a, 1);
	assert_int_equal(pmuk_rp_intern(&r->str, ""), 0);
	assert_int_equal(pmuk_rp_intern(&r->str, "b"), a + 1);
	pmu_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_as_interning),
		cmocka_unit_test(test_long_address_one_text),
		cmocka_unit_test(test_symbol_texts),
		cmocka_unit_test(test_no_dangling_id),
		cmocka_unit_test(test_empty_is_zero),
		cmocka_unit_test(test_long_texts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
