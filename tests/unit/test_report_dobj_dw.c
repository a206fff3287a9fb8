/* SPDX-License-Identifier: MIT */
/* report --sort data_object's DWARF variables: this test's own global, file
 * static and function-local static found in its own debug info with their
 * sizes, at link-time addresses as far apart as they are at run time; the merge
 * with a symbol table (the symbol wins, but for GCC's "var.N" of a local static;
 * one name per address; sorted); a missing file gives none and no error; scopes
 * nested thousands deep (a generated program) do not exhaust a thread's stack;
 * clang's DWARF 5, whose addresses are DW_OP_addrx indexes into .debug_addr. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/report_node.h"

int64_t dwt_global[300];
static char dwt_file_static[5000];

static __attribute__((noinline)) char *dwt_holder(void)
{
	static short dwt_local[77];

	dwt_local[0]++;
	return (char *)dwt_local;
}

static const struct pmuk_dobj_sym *named(const struct pmuk_dobj_sym *v, size_t n,
					 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static void free_vars(struct pmuk_dobj_sym *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

static void test_own_variables(void **state)
{
	const struct pmuk_dobj_sym *g, *f, *l;
	struct pmuk_dobj_sym *v;
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t n;

	(void)state;
#ifndef PMUKIT_HAVE_DW
	skip();
#endif
	assert_true(len > 0);
	exe[len] = 0;
	assert_int_equal(pmuk_dobj_dw_vars(exe, NULL, &v, &n), 0);
	g = named(v, n, "dwt_global");
	f = named(v, n, "dwt_file_static");
	l = named(v, n, "dwt_holder::dwt_local");
	assert_non_null(g);
	assert_non_null(f);
	assert_non_null(l);
	assert_int_equal(g->size, sizeof(dwt_global));
	assert_int_equal(f->size, sizeof(dwt_file_static));
	assert_int_equal(l->size, 77 * sizeof(short));
	/* one load bias moves them all */
	assert_int_equal(f->addr - g->addr, (uintptr_t)dwt_file_static - (uintptr_t)dwt_global);
	assert_int_equal(l->addr - g->addr, (uintptr_t)dwt_holder() - (uintptr_t)dwt_global);
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1].addr <= v[i].addr);
	free_vars(v, n);
}

static struct pmuk_dobj_sym sym(uint64_t addr, uint64_t size, const char *name)
{
	struct pmuk_dobj_sym s = { .addr = addr, .size = size, .name = strdup(name) };

	assert_non_null(s.name);
	return s;
}

static void test_merge(void **state)
{
	struct pmuk_dobj_sym *s = malloc(3 * sizeof(*s)), *d = malloc(5 * sizeof(*d));
	size_t n = 3;

	(void)state;
	assert_non_null(s);
	assert_non_null(d);
	s[0] = sym(0x1000, 8, "x");
	s[1] = sym(0x2000, 8, "counter.3");
	s[2] = sym(0x5000, 8, "y.2");
	d[0] = sym(0x800, 4, "first");
	d[1] = sym(0x1000, 8, "x_alias");
	d[2] = sym(0x2000, 8, "fn::counter");
	d[3] = sym(0x3000, 16, "w");
	d[4] = sym(0x3000, 16, "w_again");
	assert_int_equal(pmuk_dobj_merge(&s, &n, d, 5), 0);
	assert_int_equal(n, 5);
	assert_string_equal(s[0].name, "first");
	assert_string_equal(s[1].name, "x");              /* the symbol wins */
	assert_string_equal(s[2].name, "fn::counter");    /* but not GCC's var.N */
	assert_string_equal(s[3].name, "w");              /* one name per address */
	assert_int_equal(s[3].size, 16);
	assert_string_equal(s[4].name, "y.2");            /* no DWARF there: kept */
	free_vars(s, n);
}

static void test_no_file(void **state)
{
	struct pmuk_dobj_sym *v = (void *)1;
	size_t n = 1;

	(void)state;
	assert_int_equal(pmuk_dobj_dw_vars("/nonexistent/pmukit-no-such-file", NULL, &v, &n), 0);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_int_equal(pmuk_dobj_dw_vars("relative", "/tmp", &v, &n), 0);
	assert_int_equal(n, 0);
}

struct deep_run {
	const char *path;
	struct pmuk_dobj_sym *v;
	size_t n;
	int ret;
};

static void *deep_vars(void *arg)
{
	struct deep_run *r = arg;

	r->ret = pmuk_dobj_dw_vars(r->path, NULL, &r->v, &r->n);
	return NULL;
}

/* A function whose blocks nest DEEP levels, each with a static: the walk over
 * them, run on a 512 KiB stack, returns (the recursion is bounded) and names the
 * statics of the outer levels. */
#define DEEP 20000
static void test_deep_scopes(void **state)
{
	char dir[] = "/tmp/pmukit-dw-deep-XXXXXX", src[64], exe[64], cmd[256];
	struct deep_run r = { exe, NULL, 0, -1 };
	pthread_attr_t attr;
	pthread_t th;
	FILE *f;

	(void)state;
#ifndef PMUKIT_HAVE_DW
	skip();
#endif
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/deep.c", dir);
	snprintf(exe, sizeof(exe), "%s/deep", dir);
	assert_non_null(f = fopen(src, "w"));
	fprintf(f, "int deep(void)\n{\n\tint s = 0;\n");
	for (int i = 0; i < DEEP; i++)
		fprintf(f, "{ static int v%d; s += ++v%d;\n", i, i);
	for (int i = 0; i < DEEP; i++)
		fputc('}', f);
	fprintf(f, "\n\treturn s;\n}\nint main(void) { return deep() & 1; }\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -g -O0 -o %s %s 2>/dev/null", exe, src);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		(void)!system(cmd);
		skip();  /* no C compiler here to build the deep program */
	}
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setstacksize(&attr, 512 << 10), 0);
	assert_int_equal(pthread_create(&th, &attr, deep_vars, &r), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	pthread_attr_destroy(&attr);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)!system(cmd);
	assert_int_equal(r.ret, 0);
	assert_non_null(named(r.v, r.n, "deep::v0"));
	assert_non_null(named(r.v, r.n, "deep::v99"));
	free_vars(r.v, r.n);
}

/* clang -gdwarf-5 locates variables by DW_OP_addrx (an index into .debug_addr),
 * not DW_OP_addr: the three kinds are found, with their sizes. */
static void test_clang_addrx(void **state)
{
	char dir[] = "/tmp/pmukit-dw-clang-XXXXXX", src[64], exe[64], cmd[256];
	struct pmuk_dobj_sym *v = NULL;
	const struct pmuk_dobj_sym *l;
	size_t n = 0;
	int ret;
	FILE *f;

	(void)state;
#ifndef PMUKIT_HAVE_DW
	skip();
#endif
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/a.c", dir);
	snprintf(exe, sizeof(exe), "%s/a", dir);
	assert_non_null(f = fopen(src, "w"));
	fprintf(f, "int cl_global[100];\nstatic int cl_file[50];\n"
		"__attribute__((noinline)) int cl_fn(void) { static int cl_local[30]; "
		"return cl_local[0]++ + cl_file[1]++; }\n"
		"int main(void) { return cl_global[0]++ + cl_fn(); }\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "clang -gdwarf-5 -O0 -o %s %s 2>/dev/null", exe, src);
	ret = system(cmd);
	if (!ret)
		ret = pmuk_dobj_dw_vars(exe, NULL, &v, &n) ? -1 : 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)!system(cmd);
	if (ret > 0)
		skip();  /* no clang here to build the program */
	assert_int_equal(ret, 0);
	assert_non_null(named(v, n, "cl_global"));
	assert_non_null(named(v, n, "cl_file"));
	assert_non_null(l = named(v, n, "cl_fn::cl_local"));
	assert_int_equal(l->size, 30 * sizeof(int));
	assert_int_equal(named(v, n, "cl_global")->size, 100 * sizeof(int));
	free_vars(v, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_variables),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_no_file),
		cmocka_unit_test(test_deep_scopes),
		cmocka_unit_test(test_clang_addrx),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
