/* SPDX-License-Identifier: MIT */
/* The perf.data reader on damaged files: every error path names the byte
 * offset in its detail, what came before is delivered, bytes_skipped says how
 * much was lost; damage that can be stepped over is, with a warning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "perf_read_check.h"

static void test_data_damage(void **state)
{
	struct pfile f;
	struct pbuf out;
	size_t data_at, rec2;

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&f.data, 1, 1, 10);
	sample(&f.data, 1, 1, 11);
	sample(&f.data, 1, 1, 12);
	pfile_build(&f, &out);
	data_at = out.n - f.data.n;
	rec2 = data_at + 40;

	/* a zero size */
	struct pbuf z = { malloc(out.n), out.n, out.n };
	memcpy(z.b, out.b, out.n);
	memset(z.b + rec2 + 6, 0, 2);
	expect_damage(&z, rec2, 1, f.data.n - 40);
	/* a size past the data section */
	memcpy(z.b, out.b, out.n);
	z.b[rec2 + 7] = 0x10;
	expect_damage(&z, rec2, 1, f.data.n - 40);
	/* the file cut inside the third record */
	memcpy(z.b, out.b, out.n);
	z.n = data_at + 80 + 12;
	expect_damage(&z, data_at + 80, 2, 12);
	/* cut exactly after the second: the data section said more */
	z.n = data_at + 80;
	expect_damage(&z, data_at + 80, 2, 0);
	free(z.b);
	free(out.b);
	pfile_free(&f);
}

/* A sample whose size disagrees with sample_type: skipped with a warning
 * naming its offset, counted; the read goes on. */
static void test_bad_sample_skipped(void **state)
{
	struct pfile f;
	struct pbuf out;
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	struct got g;
	uint64_t w[3] = { 1, 1, 1 };
	char want[64];

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&f.data, 1, 1, 10);
	rec_words(&f.data, PERF_REC_SAMPLE, 0, w, 3);
	sample(&f.data, 1, 1, 12);
	rec_words(&f.data, 200, 0, w, 1);      /* unknown kind: skipped, counted */
	pfile_build(&f, &out);
	PMU_OPTS(pmu_trace_opts, o, .warn = on_warn, .warn_ctx = &g);
	assert_int_equal(pb_write(&out, path), 0);
	memset(&g, 0, sizeof(g));
	assert_int_equal(pmu_trace_open(path, &o, &t), 0);
	assert_int_equal(pmu_trace_read(t, collect, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.warns, 1);
	snprintf(want, sizeof(want), "offset %zu:", out.n - f.data.n + 40);
	assert_non_null(strstr(g.warn, want));
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.bytes_skipped, 32);
	assert_int_equal(st.skipped, 1);
	pmu_trace_close(t);
	free(out.b);
	pfile_free(&f);
}

static void test_header_damage(void **state)
{
	struct pfile f;
	struct pbuf out, z;
	struct perf_file_header h;

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&f.data, 1, 1, 10);
	pfile_build(&f, &out);
	z = (struct pbuf){ malloc(out.n), out.n, out.n };

	memcpy(z.b, out.b, out.n);
	memcpy(&h, z.b, sizeof(h));
	h.attr_size = 7;
	memcpy(z.b, &h, sizeof(h));
	expect_open(&z, PMU_EFORMAT, "offset 16: attr_size 7");
	h.attr_size = 1ull << 40;
	memcpy(z.b, &h, sizeof(h));
	expect_open(&z, PMU_EFORMAT, "offset 16:");
	memcpy(&h, out.b, sizeof(h));
	h.attrs.size = h.attr_size * 1000000;
	memcpy(z.b, &h, sizeof(h));
	expect_open(&z, PMU_EFORMAT, "offset 24: the attrs section");
	/* the ids section of the attr points past the end */
	memcpy(z.b, out.b, out.n);
	pb_set64(&z, h.attrs.offset + PERF_ATTR_SIZE_VER8, out.n + 8);
	expect_open(&z, PMU_EFORMAT, "the ids section");
	/* the data section starts past the end */
	memcpy(z.b, out.b, out.n);
	memcpy(&h, out.b, sizeof(h));
	h.data.offset = out.n + 100;
	memcpy(z.b, &h, sizeof(h));
	expect_open(&z, PMU_EFORMAT, "offset 40: the data section");
	/* too short, and the other byte order */
	z.n = 50;
	memcpy(z.b, out.b, 50);
	expect_open(&z, PMU_EFORMAT, "offset 0: a 104-byte perf.data header");
	z.n = out.n;
	memcpy(z.b, out.b, out.n);
	memcpy(z.b, "2ELIFREP", 8);
	expect_open(&z, PMU_ENOTSUP, "other byte order");
	free(z.b);
	free(out.b);
	pfile_free(&f);
}

/* Feature damage is worked around: huge counts, sections outside the file. */
static void test_feature_damage(void **state)
{
	struct pfile f;
	struct pbuf out;
	struct pmu_trace *t;
	struct got g;

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&f.data, 1, 1, 10);
	f.has_feat[HEADER_CMDLINE] = 1;
	pb_u32(&f.feat[HEADER_CMDLINE], 0xffffffff);   /* a count no section holds */
	f.has_feat[HEADER_EVENT_DESC] = 1;
	pb_u32(&f.feat[HEADER_EVENT_DESC], 0xffffffff);
	pb_u32(&f.feat[HEADER_EVENT_DESC], 136);
	f.has_feat[HEADER_HOSTNAME] = 1;
	pb_u32(&f.feat[HEADER_HOSTNAME], 0x7fffffff);   /* a length past the section */
	f.has_feat[HEADER_BUILD_ID] = 1;
	uint64_t bogus[2] = { 0xffff000000000000ull, 0 };  /* an entry claiming 64 KiB */
	pb_put(&f.feat[HEADER_BUILD_ID], bogus, sizeof(bogus));
	pfile_build(&f, &out);
	assert_int_equal(run(&out, NULL, &g, &t), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.warns, 4);
	assert_non_null(strstr(g.warn, "offset "));
	assert_string_equal(pmu_trace_info(t)->hostname, "");
	assert_string_equal(pmu_trace_info(t)->cmdline, "");
	assert_string_equal(pmu_trace_event(t, 0)->name, "cpu-clock");
	pmu_trace_close(t);

	/* the feature table cut off: the records are still read */
	struct pbuf z = { out.b, out.n - 20, out.cap };
	assert_int_equal(run(&z, NULL, &g, NULL), 0);
	assert_int_equal(g.n, 1);
	assert_true(g.warns >= 1);
	free(out.b);
	pfile_free(&f);
}

/* Pipe-mode damage: the offset in the detail, the sample before delivered. */
static void test_pipe_damage(void **state)
{
	struct pbuf p;
	size_t at;
	uint8_t junk[24];

	(void)state;
	/* tracing data that ends before its size */
	pipe_start(&p);
	at = p.n;
	struct perf_rec_header th = { PERF_REC_HEADER_TRACING_DATA, 0, 12 };
	pb_put(&p, &th, 8);
	pb_u32(&p, 100);
	pb_put(&p, "0123456789", 10);
	expect_damage(&p, at, 1, 12 + 10);
	assert_non_null(strstr(pmu_error_detail(), "tracing data ends"));
	free(p.b);

	/* AUX trace data that ends before its size */
	pipe_start(&p);
	at = p.n;
	uint64_t aux[] = { 64, 0, 0, 0, 0 };
	rec_words(&p, PERF_REC_AUXTRACE, 0, aux, 5);
	pb_put(&p, "abc", 3);
	expect_damage(&p, at, 1, 48 + 3);
	free(p.b);

	/* a header cut short */
	pipe_start(&p);
	at = p.n;
	pb_put(&p, "\x09\0\0", 3);
	expect_damage(&p, at, 1, 3);
	assert_non_null(strstr(pmu_error_detail(), "record header (8 bytes)"));
	free(p.b);

	/* garbage as a compressed record: skipped with a warning, the read goes on */
	pipe_start(&p);
	at = p.n;
	memset(junk, 0x5a, sizeof(junk));
	rec_bytes(&p, PERF_REC_COMPRESSED, 0, junk, sizeof(junk));
	sample(&p, 1, 1, 11);
	struct got g;
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	char want[64];
	int err = run(&p, NULL, &g, &t);
#ifdef HAVE_ZSTD_H
	assert_int_equal(err, 0);
	assert_int_equal(g.n, 2);
	snprintf(want, sizeof(want), "offset %zu:", at);
	assert_non_null(strstr(g.warn, want));
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.bytes_skipped, 8 + sizeof(junk));
#else
	assert_int_equal(err, PMU_ENOTSUP);
	(void)want;
	(void)st;
#endif
	pmu_trace_close(t);
	free(p.b);

	/* an attr record too short for an attr: the open names it */
	memset(&p, 0, sizeof(p));
	uint64_t hdr[2] = { PERF_FILE_MAGIC, PERF_PIPE_HEADER_SIZE }, w[2] = { 0 };
	pb_put(&p, hdr, 16);
	rec_words(&p, PERF_REC_HEADER_ATTR, 0, w, 2);
	expect_open(&p, PMU_EFORMAT, "offset 16: an attr record of 24 bytes");
	free(p.b);
}

#ifdef HAVE_ZSTD_H
/* A zero-size record inside the compressed stream. */
static void test_compressed_damage(void **state)
{
	struct pfile f;
	struct pbuf plain = { 0 }, out;
	uint8_t z[1024];
	size_t zn, at;

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&plain, 0x1000, 3, 100);
	pb_u64(&plain, PERF_REC_SAMPLE);        /* type 9, size 0 */
	zn = ZSTD_compress(z, sizeof(z), plain.b, plain.n, 1);
	assert_false(ZSTD_isError(zn));
	struct perf_rec_header h = { PERF_REC_COMPRESSED, 0, (uint16_t)(8 + zn) };
	pb_put(&f.data, &h, sizeof(h));
	pb_put(&f.data, z, zn);
	pfile_build(&f, &out);
	at = out.n - f.data.n;
	expect_damage(&out, at, 1, 8);
	assert_non_null(strstr(pmu_error_detail(), "compressed record holds"));
	free(plain.b);
	free(out.b);
	pfile_free(&f);
}
#endif

#ifdef HAVE_ZSTD_H
/* A compressed record that does not decompress after one that ended inside a
 * record: that record's head is skipped too, and counted. */
static void test_compressed_carry_damage(void **state)
{
	struct pfile f;
	struct pbuf plain = { 0 }, out;
	struct pmu_trace *t;
	struct pmu_trace_stats st;
	struct got g;
	uint8_t z[1024], junk[24];
	size_t zn, cut = 40 + 13;    /* one 40-byte sample and 13 bytes of the next */

	(void)state;
	one_attr(&f, ST_BASIC);
	sample(&plain, 0x1000, 3, 100);
	sample(&plain, 0x1000, 3, 101);
	zn = ZSTD_compress(z, sizeof(z), plain.b, cut, 1);
	assert_false(ZSTD_isError(zn));
	struct perf_rec_header h = { PERF_REC_COMPRESSED, 0, (uint16_t)(8 + zn) };
	pb_put(&f.data, &h, sizeof(h));
	pb_put(&f.data, z, zn);
	memset(junk, 0x5a, sizeof(junk));
	h.size = 8 + sizeof(junk);
	pb_put(&f.data, &h, sizeof(h));
	pb_put(&f.data, junk, sizeof(junk));
	pfile_build(&f, &out);
	assert_int_equal(run(&out, NULL, &g, &t), 0);
	assert_int_equal(g.n, 1);
	assert_non_null(strstr(g.warn, "does not decompress"));
	assert_int_equal(pmu_trace_stats(t, &st, sizeof(st)), 0);
	assert_int_equal(st.bytes_skipped, 8 + sizeof(junk) + 13);
	pmu_trace_close(t);
	free(plain.b);
	free(out.b);
	pfile_free(&f);
}

/* A broken compressed stream: one warning where it broke, one for the rest
 * (perf.data of a long -z session has thousands of compressed records). */
static void test_compressed_broken_stream(void **state)
{
	struct pfile f;
	struct pbuf out;
	struct got g;
	uint8_t junk[24];

	(void)state;
	one_attr(&f, ST_BASIC);
	memset(junk, 0x5a, sizeof(junk));
	for (int i = 0; i < 5; i++) {
		struct perf_rec_header h = { PERF_REC_COMPRESSED, 0, 8 + sizeof(junk) };
		pb_put(&f.data, &h, sizeof(h));
		pb_put(&f.data, junk, sizeof(junk));
	}
	pfile_build(&f, &out);
	assert_int_equal(run(&out, NULL, &g, NULL), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(g.warns, 2);
	assert_non_null(strstr(g.warn, "4 more compressed records"));
	free(out.b);
	pfile_free(&f);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_damage),
		cmocka_unit_test(test_bad_sample_skipped),
		cmocka_unit_test(test_header_damage),
		cmocka_unit_test(test_feature_damage),
		cmocka_unit_test(test_pipe_damage),
#ifdef HAVE_ZSTD_H
		cmocka_unit_test(test_compressed_damage),
		cmocka_unit_test(test_compressed_carry_damage),
		cmocka_unit_test(test_compressed_broken_stream),
#endif
	};
	int ret;

	snprintf(path, sizeof(path), "/tmp/test_perf_read_damage_%d.data", (int)getpid());
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return ret;
}
