/* SPDX-License-Identifier: MIT */
/* Options structs that can grow (pmukit/opts.h): the validator and loader on
 * their own, then every opts struct through its public entry point, as an old
 * caller (sz cut before the last field), a new caller (a longer struct, its
 * tail zero or not), NULL and sz 0; and structs copied out by the caller's size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/pmukit.h>
#include "core/opts.h"

/* A stand-in with trailing padding: known is 12, sizeof 16 on LP64. */
struct t_opts {
	size_t sz;
	int a;
};
#define t_opts__last_field a

static void assert_detail(const char *type, size_t offset)
{
	char want[64];

	assert_non_null(strstr(pmu_error_detail(), type));
	snprintf(want, sizeof(want), "offset %zu", offset);
	if (!strstr(pmu_error_detail(), want))
		fail_msg("'%s' does not say '%s'", pmu_error_detail(), want);
}

static void test_validator(void **state)
{
	struct t_big { struct t_opts o; uint64_t next; } big;
	struct t_opts d;

	(void)state;
	assert_int_equal(PMUK_OPTS_KNOWN(t_opts), offsetof(struct t_opts, a) + sizeof(int));
	assert_int_equal(PMUK_OPTS_VALID((struct t_opts *)NULL, t_opts), 0);

	memset(&big, 0, sizeof(big));
	assert_int_equal(PMUK_OPTS_VALID(&big.o, t_opts), PMU_EINVAL); /* sz 0 */
	assert_non_null(strstr(pmu_error_detail(), "t_opts: sz is 0"));
	big.o.sz = sizeof(size_t) - 1;
	assert_int_equal(PMUK_OPTS_VALID(&big.o, t_opts), PMU_EINVAL);

	/* older caller: only sz */
	big.o.sz = sizeof(size_t);
	big.o.a = 7; /* beyond its sz: never read */
	assert_int_equal(PMUK_OPTS_LOAD(d, &big.o, t_opts), 0);
	assert_int_equal(d.sz, sizeof(d));
	assert_int_equal(d.a, 0);
	assert_int_equal(PMUK_OPTS_GET(&big.o, a, 42), 42);

	big.o.sz = sizeof(big.o);
	assert_int_equal(PMUK_OPTS_LOAD(d, &big.o, t_opts), 0);
	assert_int_equal(d.a, 7);
	assert_int_equal(PMUK_OPTS_GET(&big.o, a, 42), 7);

	/* newer caller: a zero tail is fine, a set byte is an option we would lose */
	big.o.sz = sizeof(big);
	assert_int_equal(PMUK_OPTS_LOAD(d, &big.o, t_opts), 0);
	assert_int_equal(d.sz, sizeof(d));
	assert_int_equal(d.a, 7);
	big.next = 1ull << 16;
	assert_int_equal(PMUK_OPTS_VALID(&big.o, t_opts), PMU_EINVAL);
	assert_detail("struct t_opts", offsetof(struct t_big, next) + 2);
	d.a = 5;
	assert_int_equal(PMUK_OPTS_LOAD(d, &big.o, t_opts), PMU_EINVAL);
	assert_int_equal(d.a, 0); /* no half-loaded options on failure */

	/* trailing padding is unknown: a newer pmukit may have put a field there */
	if (sizeof(struct t_opts) > PMUK_OPTS_KNOWN(t_opts)) {
		big.next = 0;
		big.o.sz = sizeof(big.o);
		((unsigned char *)&big.o)[PMUK_OPTS_KNOWN(t_opts)] = 1;
		assert_int_equal(PMUK_OPTS_VALID(&big.o, t_opts), PMU_EINVAL);
		assert_detail("struct t_opts", PMUK_OPTS_KNOWN(t_opts));
	}
}

static void test_macro(void **state)
{
	PMU_OPTS(pmu_sampler_opts, none);
	PMU_OPTS(pmu_sampler_opts, some, .period = 3, .pages = 4);
	static const struct pmu_sampler_opts zero;

	(void)state;
	assert_int_equal(none.sz, sizeof(struct pmu_sampler_opts));
	none.sz = 0;
	assert_memory_equal(&none, &zero, sizeof(zero));
	assert_int_equal(some.sz, sizeof(some));
	assert_int_equal(some.period, 3);
	assert_int_equal(some.pages, 4);
	assert_int_equal(some.callchain, 0);
	assert_int_equal(PMUK_OPTS_VALID(&some, pmu_sampler_opts), 0);
}

/* One opts struct and its entry point. call() runs the entry point with the
 * given opts (NULL allowed) and cleans up, returning its error code; ok is what
 * it returns when the options are accepted. */
struct api {
	const char *type;
	size_t size, known, last; /* sizeof; end of the last field; its offset */
	void (*fill)(void *opts); /* the fields a valid call needs */
	int (*call)(const void *opts);
	int ok;
	int opts_required;        /* NULL is refused (PMU_EINVAL) */
};

static struct pmu_event_list *events(const char *spec)
{
	struct pmu_event_list *l;

	assert_int_equal(pmu_event_parse(spec, &l), 0);
	return l;
}

static int call_counters(const void *o)
{
	struct pmu_event_list *l = events("task-clock");
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	/* a failed open leaves no stale handle for the caller to close */
	struct pmu_counters *c = (struct pmu_counters *)&t;
	int err = pmu_counters_open(l, &t, o, &c);

	if (err)
		assert_null(c);
	pmu_counters_close(c);
	pmu_event_list_free(l);
	return err;
}

static int call_sampler(const void *o)
{
	struct pmu_event_list *l = events("cpu-clock");
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_sampler *s = NULL;
	int err = pmu_sampler_open(l, &t, o, &s);

	pmu_sampler_close(s);
	pmu_event_list_free(l);
	return err;
}

/* The options are read before the file is opened: accepted means ENOENT. */
static int call_etl(const void *o)
{
	struct pmu_etl *r = NULL;
	int err = pmu_etl_open("/nonexistent/pmukit-test.etl", o, &r);

	pmu_etl_close(r);
	return err;
}

static int call_report(const void *o)
{
	struct pmu_report *r = NULL;
	int err = pmu_report_new(o, &r);

	pmu_report_free(r);
	return err;
}

static int call_cpustat(const void *o)
{
	struct pmu_cpustat *s = NULL;
	int err = pmu_cpustat_open(o, &s);

	pmu_cpustat_close(s);
	return err;
}

static void fill_symbolizer(void *p)
{
	((struct pmu_symbolizer_opts *)p)->offline = 1;
}

static int call_symbolizer(const void *o)
{
	struct pmu_symbolizer *s = NULL;
	int err = pmu_symbolizer_open(o, &s);

	pmu_symbolizer_close(s);
	return err;
}

static void fill_module(void *p)
{
	struct pmu_symbolizer_module *m = p;

	m->path = "/nonexistent/libpmukit-test.so";
	m->start = 0x700000;
	m->len = 0x1000;
}

/* A missing file is still added (its frames say NOFILE): accepted means ENOENT. */
static int call_module(const void *m)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1);
	struct pmu_symbolizer *s;
	int err;

	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	err = pmu_symbolizer_add_module(s, m);
	pmu_symbolizer_close(s);
	return err;
}

static void fill_recording(void *p)
{
	((struct pmu_recording_opts *)p)->path = "/nonexistent/pmukit-test.etl";
}

/* Accepted means the file cannot be created (EIO): the path is required. */
static int call_recording(const void *o)
{
	struct pmu_recording *r = NULL;
	int err = pmu_recording_start(NULL, NULL, o, &r);

	pmu_recording_close(r);
	return err;
}

#define API(T, fill, call, ok, req) \
	{ #T, sizeof(struct T), PMUK_OPTS_KNOWN(T), offsetof(struct T, T##__last_field), \
	  fill, call, ok, req }

static const struct api apis[] = {
	API(pmu_counters_opts, NULL, call_counters, 0, 0),
	API(pmu_sampler_opts, NULL, call_sampler, 0, 0),
	API(pmu_etl_opts, NULL, call_etl, PMU_ENOENT, 0),
	API(pmu_report_opts, NULL, call_report, 0, 0),
	API(pmu_cpustat_opts, NULL, call_cpustat, 0, 0),
	API(pmu_symbolizer_opts, fill_symbolizer, call_symbolizer, 0, 0),
	API(pmu_symbolizer_module, fill_module, call_module, PMU_ENOENT, 1),
	API(pmu_recording_opts, fill_recording, call_recording, PMU_EIO, 1),
};

static void check_api(const struct api *a)
{
	/* room for the struct and a newer pmukit's 64 more bytes */
	union { size_t sz; unsigned char b[512]; max_align_t align; } u;
	int err;

	fprintf(stderr, "%s: sizeof %zu, known %zu, last field at %zu\n", a->type, a->size,
		a->known, a->last);
	/* TYPE__last_field names the last field: only padding may follow it */
	assert_true(a->size - a->known < sizeof(size_t));
	assert_true(a->size + 64 <= sizeof(u.b));

	err = a->call(NULL);
	if (!a->opts_required && err != a->ok)
		fail_msg("%s NULL: %d (%s)", a->type, err, pmu_error_detail());
	if (a->opts_required)
		assert_int_equal(err, PMU_EINVAL);

	/* today's caller */
	memset(&u, 0, sizeof(u));
	u.sz = a->size;
	if (a->fill)
		a->fill(&u);
	if ((err = a->call(&u)) != a->ok)
		fail_msg("%s: %d (%s)", a->type, err, pmu_error_detail());

	/* an old caller: the struct ended before today's last field */
	u.sz = a->last;
	if ((err = a->call(&u)) != a->ok)
		fail_msg("%s sz %zu: %d (%s)", a->type, a->last, err, pmu_error_detail());

	/* a new caller whose newer fields are all zero */
	u.sz = a->size + 64;
	if ((err = a->call(&u)) != a->ok)
		fail_msg("%s sz %zu: %d (%s)", a->type, u.sz, err, pmu_error_detail());

	/* ... and one that set a newer option: refused, not lost */
	u.b[a->size + 40] = 1;
	assert_int_equal(a->call(&u), PMU_EINVAL);
	assert_detail(a->type, a->size + 40);
	u.b[a->size + 40] = 0;

	/* a newer field in today's trailing padding counts too */
	if (a->known < a->size) {
		u.sz = a->size;
		u.b[a->known] = 1;
		assert_int_equal(a->call(&u), PMU_EINVAL);
		assert_detail(a->type, a->known);
		u.b[a->known] = 0;
	}

	/* sz forgotten */
	u.sz = 0;
	assert_int_equal(a->call(&u), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "sz is 0"));
	assert_non_null(strstr(pmu_error_detail(), a->type));
}

static void test_counters(void **state) { (void)state; check_api(&apis[0]); }
static void test_sampler(void **state) { (void)state; check_api(&apis[1]); }
static void test_etl(void **state) { (void)state; check_api(&apis[2]); }
static void test_report(void **state) { (void)state; check_api(&apis[3]); }
static void test_cpustat(void **state) { (void)state; check_api(&apis[4]); }
static void test_symbolizer(void **state) { (void)state; check_api(&apis[5]); }
static void test_symbolizer_module(void **state) { (void)state; check_api(&apis[6]); }
static void test_recording(void **state) { (void)state; check_api(&apis[7]); }

/* A struct copied out by the caller's size: an older caller's shorter struct
 * gets only its bytes, a newer one's longer struct zeros past this library's. */
static void check_copy_out(const char *what, size_t size,
			   int (*get)(void *ctx, void *out, size_t size), void *ctx)
{
	unsigned char full[512], part[512];

	assert_true(size + 64 <= sizeof(full));
	memset(full, 0xa5, sizeof(full));
	assert_int_equal(get(ctx, full, size + 64), 0);
	for (size_t i = size; i < size + 64; i++)
		if (full[i])
			fail_msg("%s: byte %zu past the struct is %#x, not 0", what, i, full[i]);
	assert_int_equal(full[size + 64], 0xa5);

	memset(part, 0xa5, sizeof(part));
	assert_int_equal(get(ctx, part, size - 8), 0);
	assert_memory_equal(part, full, size - 8);
	assert_int_equal(part[size - 8], 0xa5);

	assert_int_equal(get(ctx, part, 0), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), what));
	assert_int_equal(get(ctx, NULL, size), PMU_EINVAL);
}

static int get_summary(void *ctx, void *out, size_t size)
{
	return pmu_report_summary(ctx, out, size);
}

static int get_sampler_stats(void *ctx, void *out, size_t size)
{
	return pmu_sampler_stats(ctx, out, size);
}

static void test_copy_out(void **state)
{
	struct pmu_record rec = { .kind = PMU_RECORD_SAMPLE, .pid = 1, .tid = 1, .cpu = 0 };
	struct pmu_event_list *l = events("cpu-clock");
	struct pmu_target t = { .kind = PMU_TARGET_SELF };
	struct pmu_report_summary sum;
	struct pmu_report *r;
	struct pmu_sampler *s;

	(void)state;
	assert_int_equal(pmu_report_new(NULL, &r), 0);
	assert_int_equal(pmu_report_record(&rec, r), 0);
	assert_int_equal(pmu_report_summary(r, &sum, sizeof(sum)), 0);
	assert_int_equal(sum.samples, 1);
	check_copy_out("pmu_report_summary", sizeof(sum), get_summary, r);
	pmu_report_free(r);

	assert_int_equal(pmu_sampler_open(l, &t, NULL, &s), 0);
	check_copy_out("pmu_sampler_stats", sizeof(struct pmu_sampler_stats),
		       get_sampler_stats, s);
	pmu_sampler_close(s);
	pmu_event_list_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validator),
		cmocka_unit_test(test_macro),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_sampler),
		cmocka_unit_test(test_etl),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_cpustat),
		cmocka_unit_test(test_symbolizer),
		cmocka_unit_test(test_symbolizer_module),
		cmocka_unit_test(test_recording),
		cmocka_unit_test(test_copy_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
