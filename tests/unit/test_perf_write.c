/* SPDX-License-Identifier: MIT */
/* The perf.data writer (formats/perf_write.h): the bytes of the file it writes,
 * section by section as perf.data-file-format.txt lays them out, its refusals,
 * and a small file of its own read back by Debian's perf when it is installed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include <pmukit/error.h>
#include "formats/perf_write.h"

static char path[64];
static uint8_t file[1 << 16];
static size_t file_size;

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/pmukit-pw-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void load(void)
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	file_size = fread(file, 1, sizeof(file), f);
	fclose(f);
}

static uint64_t u64_at(size_t off)
{
	uint64_t v;

	assert_true(off + 8 <= file_size);
	memcpy(&v, file + off, 8);
	return v;
}

static uint32_t u32_at(size_t off)
{
	uint32_t v;

	assert_true(off + 4 <= file_size);
	memcpy(&v, file + off, 4);
	return v;
}

/* A VER0 perf_event_attr: type, size, config, sample_period, sample_type. */
static void attr0(uint8_t a[PERF_ATTR_SIZE_VER0], uint32_t type, uint64_t config,
		  uint64_t sample_type)
{
	uint32_t size = PERF_ATTR_SIZE_VER0;
	uint64_t period = 1;

	memset(a, 0, PERF_ATTR_SIZE_VER0);
	memcpy(a, &type, 4);
	memcpy(a + 4, &size, 4);
	memcpy(a + 8, &config, 8);
	memcpy(a + 16, &period, 8);
	memcpy(a + 24, &sample_type, 8);
}

/* The header, the ids and attrs, the data verbatim, the features in bit order. */
static void test_layout(void **state)
{
	struct pmuk_perf_writer *w;
	struct pmuk_pw_buf b = { 0 };
	uint8_t a[PERF_ATTR_SIZE_VER0];
	uint64_t ids0[2] = { 11, 12 }, ids1[1] = { 13 }, bytes, rec[3];
	const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef };
	size_t attrs, data, feat;

	(void)state;
	assert_int_equal(pmuk_pw_open(path, &w), 0);
	attr0(a, 1, 0, 7);
	assert_int_equal(pmuk_pw_add_attr(w, a, sizeof(a), ids0, 2), 0);
	attr0(a, 1, 2, 7);
	assert_int_equal(pmuk_pw_add_attr(w, a, sizeof(a), ids1, 1), 0);
	rec[0] = 68 | (uint64_t)24 << 48; /* type FINISHED_ROUND, size 24 */
	rec[1] = 0x1111;
	rec[2] = 0x2222;
	assert_int_equal(pmuk_pw_write(w, rec, sizeof(rec)), 0);
	assert_int_equal(pmuk_pw_data_size(w), 24);
	pmuk_pw_str(&b, "first");
	assert_int_equal(pmuk_pw_feature(w, HEADER_HOSTNAME, b.p, b.n), 0);
	b.n = 0;
	pmuk_pw_str(&b, "host");  /* replaces the first */
	assert_int_equal(pmuk_pw_feature(w, HEADER_HOSTNAME, b.p, b.n), 0);
	b.n = 0;
	pmuk_pwf_build_id(&b, PERF_REC_MISC_USER, -1, bid, 4, "/bin/x");
	assert_int_equal(pmuk_pw_feature(w, HEADER_BUILD_ID, b.p, b.n), 0);
	pmuk_pw_buf_free(&b);
	assert_int_equal(pmuk_pw_finish(w, &bytes), 0);
	load();
	assert_int_equal(bytes, file_size);

	assert_int_equal(u64_at(0), PERF_FILE_MAGIC);
	assert_int_equal(u64_at(8), PERF_FILE_HEADER_SIZE);
	assert_int_equal(u64_at(16), PERF_ATTR_SIZE_VER0 + 16);
	attrs = u64_at(24);
	assert_int_equal(u64_at(32), 2 * (PERF_ATTR_SIZE_VER0 + 16));
	/* attr 1: config 2, its ids section holds 13 */
	assert_int_equal(u64_at(attrs + PERF_ATTR_SIZE_VER0 + 16 + 8), 2);
	assert_int_equal(u64_at(u64_at(attrs + PERF_ATTR_SIZE_VER0)), 11);
	assert_int_equal(u64_at(u64_at(attrs + PERF_ATTR_SIZE_VER0) + 8), 12);
	assert_int_equal(u64_at(attrs + PERF_ATTR_SIZE_VER0 + 8), 16);
	assert_int_equal(u64_at(u64_at(attrs + 2 * PERF_ATTR_SIZE_VER0 + 16)), 13);
	data = u64_at(40);
	assert_int_equal(u64_at(48), 24);
	assert_memory_equal(file + data, rec, 24);
	/* features: bits 2 (BUILD_ID) and 3 (HOSTNAME), the index right after the data */
	assert_int_equal(u64_at(72), (1u << HEADER_BUILD_ID) | (1u << HEADER_HOSTNAME));
	feat = data + 24;
	assert_int_equal(u64_at(feat + 8), 8 + 4 + 24 + 64);    /* the build-id entry */
	assert_int_equal(u64_at(feat + 24), 4 + 64);           /* the hostname string */
	assert_int_equal(u64_at(feat + 16), u64_at(feat) + u64_at(feat + 8));
	assert_int_equal(u64_at(feat + 16) + u64_at(feat + 24), file_size);
	size_t be = u64_at(feat);
	assert_int_equal(u32_at(be + 4) & 0xffff, PERF_REC_MISC_USER | PERF_REC_MISC_BUILD_ID_SIZE);
	assert_int_equal(u32_at(be + 4) >> 16, 8 + 4 + 24 + 64);
	assert_int_equal((int32_t)u32_at(be + 8), -1);
	assert_memory_equal(file + be + 12, bid, 4);
	assert_int_equal(file[be + 12 + 20], 4);
	assert_string_equal((const char *)file + be + 36, "/bin/x");
	size_t hn = u64_at(feat + 16);
	assert_int_equal(u32_at(hn), 64);
	assert_string_equal((const char *)file + hn + 4, "host");
}

static void test_refusals(void **state)
{
	struct pmuk_perf_writer *w;
	uint8_t a[PERF_ATTR_SIZE_VER0 + 8];
	uint64_t rec[2] = { 68 | (uint64_t)16 << 48, 0 }, id = 1;

	(void)state;
	assert_int_equal(pmuk_pw_open(path, &w), 0);
	attr0(a, 1, 0, 7);
	assert_int_equal(pmuk_pw_add_attr(w, a, 60, &id, 1), PMU_EINVAL);   /* too small */
	assert_int_equal(pmuk_pw_add_attr(w, a, PERF_ATTR_SIZE_VER0, &id, 1), 0);
	assert_int_equal(pmuk_pw_add_attr(w, a, PERF_ATTR_SIZE_VER0 + 8, &id, 1), PMU_EINVAL);
	assert_int_equal(pmuk_pw_write(w, rec, 12), PMU_EINVAL);             /* not 8-aligned */
	assert_int_equal(pmuk_pw_write(w, rec, 8), PMU_EINVAL);              /* size says 16 */
	assert_int_equal(pmuk_pw_write(w, rec, 16), 0);
	assert_int_equal(pmuk_pw_add_attr(w, a, PERF_ATTR_SIZE_VER0, &id, 1), PMU_EINVAL);
	assert_int_equal(pmuk_pw_feature(w, 0, "x", 1), PMU_EINVAL);
	assert_int_equal(pmuk_pw_feature(w, PERF_FEAT_BITS, "x", 1), PMU_EINVAL);
	assert_int_equal(pmuk_pw_feature(w, HEADER_BRANCH_STACK, NULL, 0), 0); /* empty is a body */
	/* not finished: no magic, so no reader takes it for a whole recording */
	pmuk_pw_free(w);
	load();
	assert_int_equal(u64_at(0), 0);
	assert_int_equal(pmuk_pw_open("/nonexistent-dir/x.data", &w), PMU_EIO);
	assert_null(w);
}

/* Strings as perf reads them: u32 length rounded up to 64, NUL padding. */
static void test_strings(void **state)
{
	struct pmuk_pw_buf b = { 0 };
	const char *argv[2] = { "/usr/bin/pmukit", "record" };
	char long64[64];

	(void)state;
	memset(long64, 'a', 63);
	long64[63] = 0;
	pmuk_pw_str(&b, long64);     /* 63 + NUL fits 64 exactly */
	assert_int_equal(b.n, 4 + 64);
	b.n = 0;
	pmuk_pw_str(&b, "");
	assert_int_equal(b.n, 4 + 64);
	b.n = 0;
	pmuk_pwf_cmdline(&b, argv, 2);
	assert_int_equal(b.n, 4 + 2 * (4 + 64));
	assert_int_equal(*(uint32_t *)b.p, 2);
	assert_string_equal((char *)b.p + 4 + 4 + 64 + 4, "record");
	b.n = 0;
	pmuk_pwf_nrcpus(&b, 8, 4);
	assert_int_equal(((uint32_t *)b.p)[0], 8);
	assert_int_equal(((uint32_t *)b.p)[1], 4);
	pmuk_pw_buf_free(&b);
}

/* A file of the writer alone (one software event, a COMM and two samples) read
 * back by perf script. */
static void test_perf_reads(void **state)
{
	struct pmuk_perf_writer *w;
	struct pmuk_pw_buf b = { 0 };
	uint8_t a[PERF_ATTR_SIZE_VER0];
	uint64_t id = 42;
	const uint64_t st = 1 | 2 | 4;  /* IP | TID | TIME */
	char cmd[256], out[4096];
	FILE *p;
	size_t n;

	(void)state;
	if (system("perf version >/dev/null 2>&1") != 0)
		skip();
	assert_int_equal(pmuk_pw_open(path, &w), 0);
	attr0(a, 1, 0, st);
	assert_int_equal(pmuk_pw_add_attr(w, a, sizeof(a), &id, 1), 0);
	/* COMM {pid, tid, comm[16]} */
	struct { uint32_t type; uint16_t misc, size; int32_t pid, tid; char comm[16]; } c =
		{ 3, 0, sizeof(c), 77, 77, "pwtest" };
	assert_int_equal(pmuk_pw_write(w, &c, sizeof(c)), 0);
	for (int i = 0; i < 2; i++) {
		struct { uint32_t type; uint16_t misc, size; uint64_t ip; int32_t pid, tid;
			 uint64_t time; } s = { 9, 2, sizeof(s), 0x400000 + (uint64_t)i, 77, 77,
						1000000000ull * (uint64_t)(i + 1) };
		assert_int_equal(pmuk_pw_write(w, &s, sizeof(s)), 0);
	}
	pmuk_pw_str(&b, "pwhost");
	assert_int_equal(pmuk_pw_feature(w, HEADER_HOSTNAME, b.p, b.n), 0);
	pmuk_pw_buf_free(&b);
	assert_int_equal(pmuk_pw_finish(w, NULL), 0);
	snprintf(cmd, sizeof(cmd), "perf script -i %s -F comm,tid,time 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	assert_int_equal(pclose(p), 0);
	assert_non_null(strstr(out, "pwtest    77     1.000000"));
	assert_non_null(strstr(out, "pwtest    77     2.000000"));
	snprintf(cmd, sizeof(cmd), "perf report -i %s --header-only 2>&1", path);
	p = popen(cmd, "r");
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	assert_int_equal(pclose(p), 0);
	assert_non_null(strstr(out, "# hostname : pwhost"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test(test_strings),
		cmocka_unit_test_setup_teardown(test_perf_reads, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
