/* SPDX-License-Identifier: MIT */
/* pmuk_pidtree: a command's processes followed through start/end events, as ETW
 * counting follows Process/Start ParentId (issue 13 item 6). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include "core/pidtree.h"

/* cmd /c build.bat: cmd (100) starts cl (200) and a nested cmd (300), which starts
 * link (400); an unrelated process (500, parent 1) starts meanwhile. */
static void test_follows_descendants(void **state)
{
	struct pmuk_pidtree *t;

	(void)state;
	assert_int_equal(pmuk_pidtree_new(100, &t), 0);
	assert_int_equal(pmuk_pidtree_has(t, 100), 1);
	assert_int_equal(pmuk_pidtree_start(t, 200, 100), 1);
	assert_int_equal(pmuk_pidtree_start(t, 500, 1), 0);
	assert_int_equal(pmuk_pidtree_start(t, 300, 100), 1);
	assert_int_equal(pmuk_pidtree_start(t, 400, 300), 1);
	assert_int_equal(pmuk_pidtree_start(t, 400, 300), 0);  /* seen twice: once */
	assert_int_equal(pmuk_pidtree_has(t, 400), 1);
	assert_int_equal(pmuk_pidtree_has(t, 500), 0);
	assert_int_equal(pmuk_pidtree_has(t, 1), 0);
	assert_int_equal(pmuk_pidtree_total(t), 4);
	/* the nested cmd ends before its child: the child is still the command's */
	pmuk_pidtree_end(t, 300);
	assert_int_equal(pmuk_pidtree_has(t, 300), 0);
	assert_int_equal(pmuk_pidtree_has(t, 400), 1);
	assert_int_equal(pmuk_pidtree_start(t, 600, 400), 1);
	assert_int_equal(pmuk_pidtree_total(t), 5);
	pmuk_pidtree_free(t);
}

/* Windows reuses ids: an ended member's id taken by an unrelated process is not the
 * command's; taken by a child of a member, it is again. */
static void test_reused_ids(void **state)
{
	struct pmuk_pidtree *t;

	(void)state;
	assert_int_equal(pmuk_pidtree_new(8, &t), 0);
	assert_int_equal(pmuk_pidtree_start(t, 12, 8), 1);
	pmuk_pidtree_end(t, 12);
	assert_int_equal(pmuk_pidtree_start(t, 16, 12), 0);  /* an ended parent adopts no one */
	assert_int_equal(pmuk_pidtree_has(t, 12), 0);
	assert_int_equal(pmuk_pidtree_start(t, 12, 8), 1);
	assert_int_equal(pmuk_pidtree_has(t, 12), 1);
	assert_int_equal(pmuk_pidtree_total(t), 3);
	assert_int_equal(pmuk_pidtree_start(t, 8, 8), 0);   /* its own parent: no change */
	pmuk_pidtree_free(t);
}

/* Many processes (a parallel build): the index grows. */
static void test_many(void **state)
{
	struct pmuk_pidtree *t;

	(void)state;
	assert_int_equal(pmuk_pidtree_new(4, &t), 0);
	for (uint32_t p = 8; p <= 40000; p += 4)
		assert_int_equal(pmuk_pidtree_start(t, p, p - 4), 1);
	assert_int_equal(pmuk_pidtree_total(t), 10000);
	assert_int_equal(pmuk_pidtree_has(t, 40000), 1);
	assert_int_equal(pmuk_pidtree_has(t, 40004), 0);
	pmuk_pidtree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follows_descendants),
		cmocka_unit_test(test_reused_ids),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
