/* SPDX-License-Identifier: MIT */
/* The view's row order (report_view.c pmuk_rv_sort): its inline merge sort
 * for up to 3 keys must give what qsort with the comparison of period, self
 * period and the keys' bytes gives, on random rows with many ties, keys of
 * every byte (memcmp order, not numeric), huge periods and hidden rows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/report_view.h"

#include <stdlib.h>
#include <string.h>

static int children;

/* The order the view has always had: written here from its description. */
static int by_period(const void *a, const void *b)
{
	const struct rv_row *x = a, *y = b;
	uint64_t px = children ? x->ch_p : x->self_p, py = children ? y->ch_p : y->self_p;

	if (px != py)
		return px > py ? -1 : 1;
	if (x->self_p != y->self_p)
		return x->self_p > y->self_p ? -1 : 1;
	return memcmp(x->k, y->k, sizeof(x->k));
}

static uint64_t rnd(void)
{
	return (uint64_t)rand() << 31 ^ (uint64_t)rand();
}

static void check(size_t nk, size_t want_n, int ch)
{
	static const uint32_t kv[] = { 0, 1, 255, 256, 0x10000, 0x01000000, 0x7fffffff, RP_NONE };
	static const uint64_t pv[] = { 0, 1, 2, 1000, UINT64_MAX - 1, UINT64_MAX };
	struct rv_view v;
	struct rv_row *w = calloc(want_n + 1, sizeof(*w)), *sorted;
	size_t n = 0;

	assert_non_null(w);
	while (n < want_n) {   /* distinct keys, as the view's rows are */
		struct rv_row *x = &w[n];
		memset(x, 0, sizeof(*x));
		for (size_t j = 0; j < nk; j++)
			x->k[j] = rnd() % 4 ? kv[rnd() % 8] : (uint32_t)rnd();
		size_t i = 0;
		while (i < n && memcmp(w[i].k, x->k, sizeof(x->k)))
			i++;
		if (i < n)
			continue;
		x->self_p = pv[rnd() % 6], x->ch_p = pv[rnd() % 6];
		x->self_n = rnd() % 5 != 0, x->ch_n = x->self_n || rnd() % 2;   /* some hidden */
		n++;
	}
	memset(&v, 0, sizeof(v));
	v.nk = nk, v.children = ch, v.rows = w, v.n = n, v.total_p = UINT64_MAX;
	children = ch;
	assert_int_equal(pmuk_rv_sort(&v), 0);
	assert_non_null(sorted = malloc((n + 1) * sizeof(*sorted)));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (w[i].self_n || w[i].ch_n)
			sorted[m++] = w[i];
	qsort(sorted, m, sizeof(*sorted), by_period);
	assert_int_equal(v.shown, m);
	for (size_t i = 0; i < m; i++)
		assert_memory_equal(&w[v.order[i]], &sorted[i], sizeof(*sorted));
	free(sorted);
	free(v.order);
	free(w);
}

static void test_sort_as_qsort(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 15, 16, 17, 31, 33, 64, 100, 257, 1500 };
	(void)state;

	srand(12345);
	for (size_t nk = 1; nk <= 4; nk++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (int ch = 0; ch < 2; ch++)
				check(nk, sizes[i], ch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_as_qsort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
