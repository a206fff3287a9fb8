/* SPDX-License-Identifier: MIT */
/* The flame graph SVG and pprof writers on a small synthetic report: the
 * protobuf wire bytes, the profile decoded back (string table, sample types,
 * samples, locations, functions, mappings), the SVG's frames, escaping and
 * sameness, reports without samples, and a full disk. Real readers (Chromium,
 * go tool pprof) check them in tests/integration. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if __has_include(<zlib.h>)
#include <zlib.h>
#define HAVE_ZLIB_H 1
#endif

#include "core/pb.h"
#include "pb_read.h"

/* ---- a report: app (pid 10) with libx.so, samples in two stacks ---- */

static const char *resolve(const struct pmu_report_module *mod, uint64_t addr, void *ctx)
{
	(void)ctx;
	if (!mod)
		return NULL;
	return addr == 0x1100 ? "tpl<a&b>::run" : addr == 0x1200 ? "main" : NULL;
}

static void add(struct pmu_report *rp, struct pmu_record *r)
{
	assert_int_equal(pmu_report_record(r, rp), 0);
}

static struct pmu_report *scenario_p(int samples, int period)
{
	static const uint64_t a[] = { 0x1100, 0x1200 }, b[] = { 0x1300, 0x1200 };
	static const char *const ev[] = { "cpu-clock" };
	struct pmu_report *rp;
	struct pmu_record r = { .kind = PMU_RECORD_COMM, .pid = 10, .tid = 10, .cpu = -1 };

	PMU_OPTS(pmu_report_opts, o, .event_names = ev, .nr_events = 1, .resolve = resolve);
	assert_int_equal(pmu_report_new(&o, &rp), 0);
	strcpy(r.comm.name, "app");
	add(rp, &r);
	r = (struct pmu_record){ .kind = PMU_RECORD_MMAP, .pid = 10, .tid = 10, .cpu = -1 };
	r.mmap.start = 0x1000, r.mmap.len = 0x1000, r.mmap.pgoff = 0x2000;
	r.mmap.path = "/usr/lib/libx.so";
	r.mmap.build_id[0] = 0xab, r.mmap.build_id_size = 1;
	add(rp, &r);
	for (int i = 0; i < samples; i++) {
		const uint64_t *c = i % 4 ? a : b;	/* 3 of 4 in tpl<a&b>::run */
		r = (struct pmu_record){ .kind = PMU_RECORD_SAMPLE, .pid = 10, .tid = 10, .cpu = 0,
			.has = PMU_HAS_IP | PMU_HAS_CALLCHAIN | (period ? PMU_HAS_PERIOD : 0) };
		r.sample.ip = c[0], r.sample.callchain = c, r.sample.nr_callchain = 2;
		r.sample.period = 1000;
		add(rp, &r);
	}
	return rp;
}

static struct pmu_report *scenario(int samples)
{
	return scenario_p(samples, 1);
}

static char *written(struct pmu_report *rp, int svg, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	assert_non_null(f);
	err = svg ? pmu_report_write_svg(rp, f, "t<&>") : pmu_report_write_pprof(rp, f);
	fclose(f);
	if (err == PMU_ENOTSUP) {	/* built without zlib: said so */
		free(buf);
		pmu_report_free(rp);
		skip();
	}
	assert_int_equal(err, 0);
	return buf;
}

/* ---- protobuf wire format ---- */

static void test_pb(void **state)
{
	static const uint8_t want[] = { 0x08, 0x01, 0x10, 0xac, 0x02, 0x1a, 0x02, 'h', 'i',
					0x32, 0x00, 0x22, 0x03, 0x01, 0x80, 0x01,
					0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	const uint64_t packed[] = { 1, 128 };
	struct pmuk_pb p = { 0 };

	(void)state;
	pmuk_pb_uint(&p, 1, 1);
	pmuk_pb_uint(&p, 7, 0);		/* zero: left out */
	pmuk_pb_uint(&p, 2, 300);
	pmuk_pb_str(&p, 3, "hi");
	pmuk_pb_str(&p, 6, "");		/* an empty string keeps its place */
	pmuk_pb_packed(&p, 4, packed, 2);
	pmuk_pb_packed(&p, 9, packed, 0);
	pmuk_pb_uint(&p, 5, UINT64_MAX);
	assert_int_equal(p.err, 0);
	assert_int_equal(p.n, sizeof(want));
	assert_memory_equal(p.b, want, sizeof(want));
	pmuk_pb_free(&p);
}

/* ---- a minimal profile.proto reader ---- */

/* The value of field f of a message (the first of a packed one). */
static uint64_t get(struct pbm m, uint32_t f)
{
	uint64_t v;
	struct pbm s;

	while (m.p < m.end) {
		if (pb_field(&m, &v, &s) == f)
			return s.p ? pb_varint(&s) : v;
	}
	return 0;
}

#ifdef HAVE_ZLIB_H
static size_t gunzip(const char *in, size_t n, uint8_t **out)
{
	z_stream z = { 0 };
	size_t cap = 1 << 20;

	*out = malloc(cap);
	assert_non_null(*out);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (uint8_t *)in, z.avail_in = (uInt)n;
	z.next_out = *out, z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	size_t len = cap - z.avail_out;
	inflateEnd(&z);
	return len;
}
#else
static size_t gunzip(const char *in, size_t n, uint8_t **out)
{
	(void)in, (void)n, (void)out;
	skip();
	return 0;
}
#endif

/* The string table of profile pb[0, len), NUL-terminated in copy. */
static size_t strings(const uint8_t *pb, size_t len, char *copy, const char **str, size_t max)
{
	struct pbm m = { pb, pb + len }, s;
	size_t nstr = 0;
	uint64_t v;

	while (m.p < m.end)
		if (pb_field(&m, &v, &s) == 6) {
			assert_true(nstr < max);
			memcpy(copy + (s.p - pb), s.p, v);
			copy[s.p - pb + v] = '\0';
			str[nstr++] = copy + (s.p - pb);
		}
	return nstr;
}

static void test_pprof(void **state)
{
	struct pmu_report *rp = scenario(8);
	size_t n, len;
	char *gz = written(rp, 0, &n);
	uint8_t *pb;
	const char *str[64];
	size_t nstr, nsamples = 0, nloc = 0, nfn = 0, nmap = 0, counted = 0;
	struct pbm m, s;
	uint64_t v;

	(void)state;
	len = gunzip(gz, n, &pb);
	char *copy = malloc(len + 1);	/* strings NUL-terminated in place */
	nstr = strings(pb, len, copy, str, 64);
	assert_true(nstr > 0);
	assert_string_equal(str[0], "");
	m = (struct pbm){ pb, pb + len };
	while (m.p < m.end) {
		uint32_t f = pb_field(&m, &v, &s);
		if (f == 1 && nsamples == 0) {	/* sample types come first */
			assert_true(get(s, 1) < nstr && get(s, 2) < nstr);
		} else if (f == 2) {
			nsamples++;
			counted += get(s, 2);	/* value[0]: samples */
		} else if (f == 3) {
			nmap++;
			assert_int_equal(get(s, 2), 0x1000);
			assert_int_equal(get(s, 3), 0x2000);
			assert_int_equal(get(s, 4), 0x2000);
			assert_string_equal(str[get(s, 5)], "/usr/lib/libx.so");
			assert_string_equal(str[get(s, 6)], "ab");
		} else if (f == 4) {
			nloc++;
			assert_int_equal(get(s, 2), 1);	/* the mapping */
		} else if (f == 5) {
			const char *name = str[get(s, 2)];
			nfn++;
			assert_true(!strcmp(name, "tpl<a&b>::run") || !strcmp(name, "main") ||
				    !strcmp(name, "libx.so!+0x2300"));
		} else if (f == 11) {
			assert_string_equal(str[get(s, 1)], "cpu-clock");
			assert_string_equal(str[get(s, 2)], "nanoseconds");
		} else if (f == 12) {
			assert_int_equal(v, 1000);
		}
	}
	assert_int_equal(nsamples, 2);
	assert_int_equal(counted, 8);
	assert_int_equal(nloc, 3);
	assert_int_equal(nfn, 3);
	assert_int_equal(nmap, 1);
	free(copy), free(pb), free(gz);
	pmu_report_free(rp);
}

/* Samples without a period: each counted once, so the unit is a count. */
static void test_pprof_no_period(void **state)
{
	struct pmu_report *rp = scenario_p(4, 0);
	size_t n, len, types = 0;
	char *gz = written(rp, 0, &n);
	uint8_t *pb;
	const char *str[64];
	struct pbm m, s;
	uint64_t v;

	(void)state;
	len = gunzip(gz, n, &pb);
	char *copy = malloc(len + 1);
	size_t nstr = strings(pb, len, copy, str, 64);
	m = (struct pbm){ pb, pb + len };
	while (m.p < m.end)
		if (pb_field(&m, &v, &s) == 1 && types++ == 1) {
			assert_true(get(s, 1) < nstr && get(s, 2) < nstr);
			assert_string_equal(str[get(s, 1)], "cpu-clock");
			assert_string_equal(str[get(s, 2)], "count");
		}
	assert_int_equal(types, 2);
	free(copy), free(pb), free(gz);
	pmu_report_free(rp);
}

/* ---- SVG ---- */

static void test_svg(void **state)
{
	struct pmu_report *rp = scenario(8);
	size_t n, n2;
	char *a = written(rp, 1, &n), *b = written(rp, 1, &n2);

	(void)state;
	assert_int_equal(n, n2);
	assert_memory_equal(a, b, n);	/* the same report, the same bytes */
	assert_non_null(strstr(a, "data-total=\"8\" data-frames=\"5\" data-omitted=\"0\""));
	assert_non_null(strstr(a, "<text id=\"title\" x=\"600\" y=\"24\" text-anchor=\"middle\">"
				  "t&lt;&amp;&gt;</text>"));
	assert_non_null(strstr(a, "<title>libx.so!tpl&lt;a&amp;b&gt;::run (6 samples, 75.00%)"
				  "</title>"));
	assert_non_null(strstr(a, "<title>app (8 samples, 100.00%)</title>"));
	assert_non_null(strstr(a, "<title>all (8 samples, 100.00%)</title>"));
	assert_null(strstr(a, "<a&b>"));
	assert_non_null(strstr(a, "<script><![CDATA["));
	free(a), free(b);
	pmu_report_free(rp);
}

static void test_empty(void **state)
{
	struct pmu_report *rp = scenario(0);
	size_t n;
	char *svg = written(rp, 1, &n), *gz;

	(void)state;
	assert_non_null(strstr(svg, "data-total=\"0\" data-frames=\"0\""));
	assert_non_null(strstr(svg, "</svg>\n"));
	gz = written(rp, 0, &n);
	assert_true(n > 18);	/* a gzip header and trailer around the profile */
	free(svg), free(gz);
	pmu_report_free(rp);
}

static void test_errors(void **state)
{
	struct pmu_report *rp = scenario(4);
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	assert_int_equal(pmu_report_write_svg(NULL, stdout, NULL), PMU_EINVAL);
	assert_int_equal(pmu_report_write_pprof(rp, NULL), PMU_EINVAL);
	if (!f) {
		pmu_report_free(rp);
		skip();
	}
	setvbuf(f, NULL, _IONBF, 0);	/* the failure shows at once */
	assert_int_equal(pmu_report_write_svg(rp, f, NULL), PMU_EIO);
	clearerr(f);
	assert_int_equal(pmu_report_write_pprof(rp, f), PMU_EIO);
	assert_non_null(strstr(pmu_error_detail(), "writing the gzip output failed"));
	fclose(f);
	pmu_report_free(rp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pb),
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_pprof_no_period),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
