/* SPDX-License-Identifier: MIT */
/* The tracing data blob: its structure parsed field by field and compared with
 * tracefs's own files, then byte for byte with the HEADER_TRACING_DATA section
 * Debian's perf 6.1 stores for the same tracepoints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/error.h"
#include "linux/tracing_data.h"

#define TRACEFS "/sys/kernel/tracing"

struct cursor {
	const uint8_t *p;
	size_t n, at;
};

static const uint8_t *take(struct cursor *c, size_t n)
{
	const uint8_t *p = c->p + c->at;

	assert_true(n <= c->n - c->at);
	c->at += n;
	return p;
}

static uint64_t take_u(struct cursor *c, size_t n)
{
	uint64_t v = 0;
	uint32_t v32;

	if (n == 4) {
		memcpy(&v32, take(c, 4), 4);
		return v32;
	}
	memcpy(&v, take(c, 8), 8);
	return v;
}

static const char *take_str(struct cursor *c)
{
	const char *s = (const char *)c->p + c->at;
	size_t n = strnlen(s, c->n - c->at);

	assert_true(n < c->n - c->at);
	c->at += n + 1;
	return s;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;

	*n = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*n + 4096 > cap) {
			cap = (*n + 4096) * 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		size_t r = fread(buf + *n, 1, cap - *n, f);

		if (!r)
			break;
		*n += r;
	}
	fclose(f);
	return buf;
}

/* A u64-sized file in the blob equals the tracefs file rel. */
static void expect_file(struct cursor *c, const char *rel)
{
	char path[512];
	size_t n, size = (size_t)take_u(c, 8);
	char *want;

	snprintf(path, sizeof(path), TRACEFS "/%s", rel);
	want = slurp(path, &n);
	assert_non_null(want);
	assert_int_equal(size, n);
	assert_memory_equal(take(c, size), want, n);
	free(want);
}

static int have_tracefs(void)
{
	return access(TRACEFS "/events/sched/sched_switch/format", R_OK) == 0;
}

static int blob_of(const char *const *tps, size_t n, void **blob, size_t *size)
{
	int err = pmuk_tracing_data(tps, n, blob, size);

	if ((err == PMU_ENOENT || err == PMU_EPERM) && !have_tracefs())
		return 1; /* no tracefs here, or not ours to read */
	assert_int_equal(err, 0);
	if (!have_tracefs())
		return 1;
	return 0;
}

/* The fixed head: magic, version, byte order, long size, page size, header files. */
static void expect_head(struct cursor *c)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const uint16_t one = 1;

	assert_memory_equal(take(c, 10), magic, 10);
	assert_string_equal(take_str(c), "0.6");
	assert_int_equal(*take(c, 1), *(const uint8_t *)&one == 0);
	assert_int_equal(*take(c, 1), sizeof(long));
	assert_int_equal(take_u(c, 4), (uint64_t)sysconf(_SC_PAGESIZE));
	assert_string_equal(take_str(c), "header_page");
	expect_file(c, "events/header_page");
	assert_string_equal(take_str(c), "header_event");
	expect_file(c, "events/header_event");
}

/* kallsyms (empty), printk formats, saved_cmdlines, and nothing after them. */
static void expect_tail(struct cursor *c)
{
	size_t n;

	assert_int_equal(take_u(c, 4), 0);
	n = (size_t)take_u(c, 4);
	take(c, n);
	n = (size_t)take_u(c, 8);
	take(c, n);
	assert_int_equal(c->at, c->n);
}

static void test_one_tracepoint(void **state)
{
	const char *tps[] = { "sched:sched_switch" };
	struct cursor c = { 0 };
	void *blob;
	size_t size;

	(void)state;
	if (blob_of(tps, 1, &blob, &size))
		skip(); /* tracefs is not mounted and cannot be here */
	c.p = blob;
	c.n = size;
	expect_head(&c);
	assert_int_equal(take_u(&c, 4), 0); /* no ftrace:* events */
	assert_int_equal(take_u(&c, 4), 1);
	assert_string_equal(take_str(&c), "sched");
	assert_int_equal(take_u(&c, 4), 1);
	expect_file(&c, "events/sched/sched_switch/format");
	expect_tail(&c);
	free(blob);
}

/* Several systems, a duplicate, and an ftrace event: each format once, per system. */
static void test_several(void **state)
{
	const char *tps[] = { "sched:sched_wakeup", "irq:irq_handler_entry",
			      "sched:sched_switch", "sched:sched_wakeup", "ftrace:print" };
	int seen_sched = 0, seen_irq = 0;
	struct cursor c = { 0 };
	uint64_t nsys;
	void *blob;
	size_t size;

	(void)state;
	if (blob_of(tps, 5, &blob, &size))
		skip(); /* tracefs is not mounted and cannot be here */
	c.p = blob;
	c.n = size;
	expect_head(&c);
	assert_int_equal(take_u(&c, 4), 1);
	expect_file(&c, "events/ftrace/print/format");
	nsys = take_u(&c, 4);
	assert_int_equal(nsys, 2);
	for (uint64_t i = 0; i < nsys; i++) {
		const char *sys = take_str(&c);
		uint64_t n = take_u(&c, 4);

		if (!strcmp(sys, "irq")) {
			seen_irq++;
			assert_int_equal(n, 1);
			expect_file(&c, "events/irq/irq_handler_entry/format");
			continue;
		}
		assert_string_equal(sys, "sched");
		seen_sched++;
		assert_int_equal(n, 2);
		for (uint64_t k = 0; k < n; k++) {
			const uint8_t *fmt = c.p + c.at + 8;

			expect_file(&c, !memcmp(fmt, "name: sched_switch\n", 19)
				    ? "events/sched/sched_switch/format"
				    : "events/sched/sched_wakeup/format");
		}
	}
	assert_int_equal(seen_irq, 1);
	assert_int_equal(seen_sched, 1);
	expect_tail(&c);
	free(blob);
}

static void test_errors(void **state)
{
	const char *bad[] = { "sched_switch" }, *slash[] = { "sched:../x" };
	const char *absent[] = { "sched:no_such_tracepoint" }, *nosys[] = { "nosuchsys:x" };
	void *blob = NULL;
	size_t size;

	(void)state;
	assert_int_equal(pmuk_tracing_data(bad, 1, &blob, &size), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "not a tracepoint name"));
	assert_int_equal(pmuk_tracing_data(slash, 1, &blob, &size), PMU_EINVAL);
	assert_int_equal(pmuk_tracing_data(bad, 0, &blob, &size), PMU_EINVAL);
	if (!have_tracefs())
		skip(); /* the lookups below need tracefs */
	assert_int_equal(pmuk_tracing_data(absent, 1, &blob, &size), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "sched:no_such_tracepoint"));
	assert_int_equal(pmuk_tracing_data(nosys, 1, &blob, &size), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "nosuchsys"));
	assert_null(blob);
}

/* The HEADER_TRACING_DATA section (feature bit 1) of a perf.data file: the header's
 * feature bitmap at byte 72, the section table after the data section
 * (tools/perf/Documentation/perf.data-file-format.txt). */
static uint8_t *perf_tracing_section(const char *file, size_t *n)
{
	size_t len, table;
	uint8_t *d = (uint8_t *)slurp(file, &len), *out;
	uint64_t data_off, data_size, bits, off, size;

	assert_non_null(d);
	assert_true(len >= 104 && !memcmp(d, "PERFILE2", 8));
	memcpy(&data_off, d + 40, 8);
	memcpy(&data_size, d + 48, 8);
	memcpy(&bits, d + 72, 8);
	assert_true(bits & 2); /* HEADER_TRACING_DATA; bit 0 (reserved) is never set */
	table = (size_t)(data_off + data_size);
	assert_true(table + 16 <= len);
	memcpy(&off, d + table, 8);
	memcpy(&size, d + table + 8, 8);
	assert_true(off + size <= len);
	out = malloc(size);
	assert_non_null(out);
	memcpy(out, d + off, size);
	*n = (size_t)size;
	free(d);
	return out;
}

/* Where printk formats begin: after the kallsyms size (0 in both). */
static size_t tail_at(const uint8_t *blob, size_t n)
{
	struct cursor c = { .p = blob, .n = n };
	uint64_t nsys;

	take(&c, 10);
	take_str(&c);
	take(&c, 6);
	for (int i = 0; i < 2; i++) {
		take_str(&c);
		take(&c, (size_t)take_u(&c, 8));
	}
	for (uint64_t k = take_u(&c, 4); k; k--)
		take(&c, (size_t)take_u(&c, 8));
	nsys = take_u(&c, 4);
	for (uint64_t i = 0; i < nsys; i++) {
		take_str(&c);
		for (uint64_t k = take_u(&c, 4); k; k--)
			take(&c, (size_t)take_u(&c, 8));
	}
	assert_int_equal(take_u(&c, 4), 0);
	return c.at;
}

/* perf 6.1 must find in our blob what it stores itself: everything up to the
 * printk formats byte for byte; printk_formats and saved_cmdlines are live kernel
 * state (they change as modules load and tasks are traced), so they are only
 * checked for shape. */
static void compare_with_perf(const char *events, const char *const *tps, size_t n)
{
	char dir[] = "/tmp/pmukit-td-XXXXXX", cmd[512], file[64];
	uint8_t *theirs;
	void *ours;
	size_t nt, no, at;

	if (blob_of(tps, n, &ours, &no))
		skip(); /* tracefs is not mounted and cannot be here */
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/perf.data", dir);
	snprintf(cmd, sizeof(cmd), "perf record -q -e %s -o %s -- true >/dev/null 2>&1", events,
		 file);
	if (system(cmd)) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
		free(ours);
		skip(); /* no perf (Debian linux-perf), or it may not record tracepoints here */
	}
	theirs = perf_tracing_section(file, &nt);
	at = tail_at(theirs, nt);
	assert_int_equal(tail_at(ours, no), at);
	assert_memory_equal(ours, theirs, at);
	free(theirs);
	free(ours);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_perf_one(void **state)
{
	const char *tps[] = { "sched:sched_switch" };

	(void)state;
	compare_with_perf("sched:sched_switch", tps, 1);
}

/* perf orders systems and formats as tracefs lists them, whatever the command line. */
static void test_perf_order(void **state)
{
	const char *tps[] = { "sched:sched_wakeup", "irq:irq_handler_entry", "sched:sched_switch" };

	(void)state;
	compare_with_perf("sched:sched_wakeup,irq:irq_handler_entry,sched:sched_switch", tps, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_tracepoint),
		cmocka_unit_test(test_several),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_perf_one),
		cmocka_unit_test(test_perf_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
