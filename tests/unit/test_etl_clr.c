/* SPDX-License-Identifier: MIT */
/* .NET code in .etl files: the CLR method and module decoders on payloads
 * built here (versions 0-2, every truncation), and on the PerfView fixtures
 * the SYMBOL records of the record source: JIT samples that lie in no module
 * mapping and were [unknown] are now named by a method range of their process
 * valid at their time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/etl.h>
#include <pmukit/report.h>
#include <pmukit/symbols.h>
#include <pmukit/trace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIX PMUKIT_SOURCE_DIR "/../shared/fixtures/etl/"

static const struct pmu_guid runtime = { 0xe13c0d23, 0xccbc, 0x4e12,
	{ 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } };
static const struct pmu_guid rundown = { 0xa669021c, 0xc450, 0x4609,
	{ 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 } };

struct pay {
	uint8_t d[1024];
	size_t n;
};

static void put(struct pay *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p->d[p->n++] = (uint8_t)(v >> (8 * i));
}

static void wstr(struct pay *p, const char *s)
{
	do
		put(p, (uint8_t)*s, 2);
	while (*s++);
}

static struct pmu_etl_event event(const struct pmu_guid *g, unsigned id, unsigned version,
				  const struct pay *p)
{
	struct pmu_etl_event ev = { .kind = PMU_ETL_EVENT, .provider = *g, .id = id,
				    .version = version, .pid = 42, .tid = 43, .pointer_size = 8,
				    .payload = p->d, .payload_size = p->n };
	return ev;
}

static void method_payload(struct pay *p, unsigned version)
{
	p->n = 0;
	put(p, 0x1111, 8), put(p, 0x2222, 8), put(p, 0x7ff612340000ull, 8);
	put(p, 0x180, 4), put(p, 0x06000001, 4), put(p, 0x8, 4);
	wstr(p, "Ns.Type"), wstr(p, "Run"), wstr(p, "instance void  (int32,bool)");
	if (version >= 1)
		put(p, 7, 2);
	if (version >= 2)
		put(p, 3, 8);
}

static void decode_method_versions(void **state)
{
	struct pmu_etl_clr_method_ev m;
	struct pay p;

	(void)state;
	for (unsigned v = 0; v <= 2; v++) {
		method_payload(&p, v);
		struct pmu_etl_event ev = event(v == 1 ? &rundown : &runtime, 143, v, &p);
		assert_int_equal(pmu_etl_decode_clr_method(&ev, &m), 0);
		assert_int_equal(m.rundown, v == 1);
		assert_int_equal(m.unload, 0);
		assert_true(m.method_id == 0x1111 && m.module_id == 0x2222);
		assert_true(m.start == 0x7ff612340000ull && m.size == 0x180);
		assert_int_equal(m.token, 0x06000001);
		assert_string_equal(m.ns, "Ns.Type");
		assert_string_equal(m.name, "Run");
		assert_string_equal(m.signature, "instance void  (int32,bool)");
		assert_int_equal(m.clr_instance, v >= 1 ? 7 : 0);
		assert_int_equal(m.rejit_id, v >= 2 ? 3 : 0);
	}
	struct pmu_etl_event ev = event(&runtime, 144, 2, &p);
	assert_int_equal(pmu_etl_decode_clr_method(&ev, &m), 0);
	assert_int_equal(m.unload, 1);
	ev = event(&rundown, 144, 2, &p);	/* DCEnd: alive, not unloaded */
	assert_int_equal(pmu_etl_decode_clr_method(&ev, &m), 0);
	assert_int_equal(m.unload, 0);
	ev = event(&runtime, 145, 2, &p);	/* another event of the provider */
	assert_int_equal(pmu_etl_decode_clr_method(&ev, &m), PMU_EINVAL);
	ev = event(&runtime, 143, 2, &p);
	ev.kind = PMU_ETL_FULL;
	assert_int_equal(pmu_etl_decode_clr_method(&ev, &m), PMU_EINVAL);
}

/* Every payload cut short is PMU_EFORMAT, never a read past its end. */
static void decode_truncated(void **state)
{
	struct pmu_etl_clr_method_ev m;
	struct pmu_etl_clr_module_ev mod;
	struct pay p;

	(void)state;
	method_payload(&p, 2);
	for (size_t n = 0; n < p.n; n++) {
		struct pay cut = p;
		cut.n = n;
		struct pmu_etl_event ev = event(&runtime, 143, 2, &cut);
		assert_int_equal(pmu_etl_decode_clr_method(&ev, &m), PMU_EFORMAT);
	}
	p.n = 0;
	put(&p, 0x2222, 8), put(&p, 0x3333, 8), put(&p, 0x9, 4), put(&p, 0, 4);
	wstr(&p, "C:\\app\\App.dll"), wstr(&p, ""), put(&p, 7, 2);
	for (int k = 0; k < 2; k++) {
		put(&p, 0x01020304 + k, 4), put(&p, 0x0506, 2), put(&p, 0x0708, 2);
		put(&p, 0x1122334455667788ull, 8), put(&p, 5 + k, 4);
		wstr(&p, k ? "App.ni.pdb" : "App.pdb");
	}
	struct pmu_etl_event ev = event(&runtime, 152, 2, &p);
	assert_int_equal(pmu_etl_decode_clr_module(&ev, &mod), 0);
	assert_true(mod.module_id == 0x2222 && mod.assembly_id == 0x3333 && mod.flags == 9);
	assert_string_equal(mod.il_path, "C:\\app\\App.dll");
	assert_int_equal(mod.has_pdb, 1);
	assert_int_equal(mod.managed_pdb_guid.d1, 0x01020304);
	assert_int_equal(mod.native_pdb_guid.d1, 0x01020305);
	assert_int_equal(mod.managed_pdb_age, 5);
	assert_int_equal(mod.native_pdb_age, 6);
	assert_string_equal(mod.native_pdb, "App.ni.pdb");
	for (size_t n = 0; n < p.n; n++) {
		struct pay cut = p;
		cut.n = n;
		ev = event(&rundown, 154, 2, &cut);
		assert_int_equal(pmu_etl_decode_clr_module(&ev, &mod), PMU_EFORMAT);
	}
	ev = event(&rundown, 152, 2, &p);	/* rundown 152: DomainModuleDCEnd */
	assert_int_equal(pmu_etl_decode_clr_module(&ev, &mod), PMU_EINVAL);
}

static void add_sym(struct pmu_symbolizer *s, int32_t pid, uint64_t start, uint64_t len,
		    const char *name)
{
	struct pmu_record r = { .kind = PMU_RECORD_SYMBOL, .pid = pid, .tid = -1 };

	r.symbol = (struct pmu_symbol){ start, len, name, name ? "App.dll" : NULL };
	assert_int_equal(pmu_symbolizer_add_symbol(s, &r), 0);
}

/* The name at addr in pid, NULL when none. */
static const char *name_at(struct pmu_symbolizer *s, int32_t pid, uint64_t addr)
{
	struct pmu_frame f[4];
	size_t n;

	if (pmu_symbolizer_resolve_pid(s, pid, addr, f, 4, &n) || !n)
		return NULL;
	assert_string_equal(f[n - 1].module, "App.dll");
	return f[n - 1].function;
}

/* SYMBOL records in a symbolizer: per process, before the mappings, a newer
 * range replaces what it overlaps, an unload removes it. */
static void symbolizer_symbols(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_record mm = { .kind = PMU_RECORD_MMAP, .pid = 10, .tid = 10 };
	struct pmu_symbolizer *s;
	struct pmu_frame f[4];
	size_t n;

	(void)state;
	assert_int_equal(pmu_symbolizer_open(&so, &s), 0);
	mm.mmap = (struct pmu_mmap){ .start = 0x20000, .len = 0x10000, .path = "/nonexistent/App.dll" };
	pmu_symbolizer_add_mmap(s, &mm);	/* missing: a reason, still mapped */
	add_sym(s, 10, 0x1000, 0x100, "A.Run(int32)");
	add_sym(s, 10, 0x21000, 0x40, "A.InImage()");
	assert_string_equal(name_at(s, 10, 0x1080), "A.Run(int32)");
	assert_int_equal(pmu_symbolizer_resolve_pid(s, 10, 0x1080, f, 4, &n), 0);
	assert_int_equal(f[n - 1].symbol_offset, 0x80);
	assert_null(name_at(s, 11, 0x1080));		/* another process */
	assert_string_equal(name_at(s, 10, 0x21010), "A.InImage()");	/* before the map */
	add_sym(s, 10, 0x1080, 0x100, "B.Run()");	/* replaces A */
	assert_string_equal(name_at(s, 10, 0x1090), "B.Run()");
	assert_null(name_at(s, 10, 0x1010));
	add_sym(s, 10, 0x1080, 0x100, NULL);		/* unloaded */
	assert_null(name_at(s, 10, 0x1090));
	mm.kind = PMU_RECORD_FORK;
	assert_int_equal(pmu_symbolizer_add_symbol(s, &mm), PMU_EINVAL);
	pmu_symbolizer_close(s);
}

/* One SAMPLE of pid at ip into the report, at time t. */
static void sample_at(struct pmu_report *rp, int32_t pid, uint64_t ip, uint64_t t)
{
	struct pmu_record r = { .kind = PMU_RECORD_SAMPLE, .pid = pid, .tid = pid, .cpu = -1,
				.cpumode = PMU_CPUMODE_USER, .time = t };

	r.has = PMU_HAS_TID | PMU_HAS_IP | PMU_HAS_TIME;
	r.sample.ip = ip;
	assert_int_equal(pmu_report_record(&r, rp), 0);
}

static void report_sym(struct pmu_report *rp, int32_t pid, uint64_t start, const char *name)
{
	struct pmu_record r = { .kind = PMU_RECORD_SYMBOL, .pid = pid, .tid = -1 };

	r.symbol = (struct pmu_symbol){ start, 0x100, name, name ? "App.dll" : NULL };
	assert_int_equal(pmu_report_record(&r, rp), 0);
}

/* Samples of the report's row name, 0 when no row has it. */
static uint64_t row_samples(struct pmu_report *rp, const char *name)
{
	struct pmu_report_row row;

	for (size_t i = 0; i < pmu_report_count(rp, PMU_REPORT_SYM); i++) {
		assert_int_equal(pmu_report_row(rp, PMU_REPORT_SYM, i, &row), 0);
		if (!strcmp(row.name, name))
			return row.samples;
	}
	return 0;
}

/* The report names each address once: JIT code at the same address in two
 * processes, and an address another method took after an unload, are distinct
 * names (the frame cache must not hand the first name to the others). */
static void report_jit_frames(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_symbolizer *s;
	struct pmu_report *rp;

	(void)state;
	assert_int_equal(pmu_symbolizer_open(&so, &s), 0);
	PMU_OPTS(pmu_report_opts, o, .symbolizer = s);
	assert_int_equal(pmu_report_new(&o, &rp), 0);
	sample_at(rp, 10, 0x5010, 1);			/* before any load: unknown */
	report_sym(rp, 10, 0x5000, "A.Foo()");
	report_sym(rp, 20, 0x5000, "B.Bar()");
	sample_at(rp, 10, 0x5010, 2);
	sample_at(rp, 20, 0x5010, 3);
	report_sym(rp, 10, 0x5000, NULL);		/* A.Foo unloaded */
	report_sym(rp, 10, 0x5000, "A.Baz()");		/* the address reused */
	sample_at(rp, 10, 0x5010, 4);
	sample_at(rp, 10, 0x5010, 5);
	assert_int_equal(row_samples(rp, "App.dll!A.Foo()"), 1);
	assert_int_equal(row_samples(rp, "App.dll!B.Bar()"), 1);
	assert_int_equal(row_samples(rp, "App.dll!A.Baz()"), 2);
	assert_int_equal(row_samples(rp, "0x5010"), 1);
	/* the same in anonymous memory (perf's "//anon" JIT mappings) */
	for (int32_t pid = 30; pid <= 40; pid += 10) {
		struct pmu_record mm = { .kind = PMU_RECORD_MMAP, .pid = pid, .tid = pid };
		mm.mmap = (struct pmu_mmap){ .start = 0x40000, .len = 0x10000, .path = "//anon" };
		assert_int_equal(pmu_report_record(&mm, rp), 0);
		report_sym(rp, pid, 0x41000, pid == 30 ? "C.Anon()" : "D.Anon()");
		sample_at(rp, pid, 0x41010, 6);
	}
	assert_int_equal(row_samples(rp, "anon!C.Anon()"), 1);
	assert_int_equal(row_samples(rp, "anon!D.Anon()"), 1);
	pmu_report_free(rp);
	pmu_symbolizer_close(s);
}

/* What the record stream of a fixture says of its JIT code. */
#define MAXR 40000
struct range { int32_t pid; uint64_t start, end; };
struct jit_count {
	struct range *maps, *syms;
	size_t n_maps, n_syms;
	uint64_t samples, unmapped, named, unloads;
};

static int in(const struct range *v, size_t n, int32_t pid, uint64_t a)
{
	for (size_t i = n; i-- > 0;)	/* newest first */
		if ((v[i].pid == pid || v[i].pid == -1) && a >= v[i].start && a < v[i].end)
			return 1;
	return 0;
}

static int on_rec(const struct pmu_record *rec, void *ctx)
{
	struct jit_count *c = ctx;

	if (rec->kind == PMU_RECORD_MMAP && c->n_maps < MAXR) {
		c->maps[c->n_maps++] = (struct range){ rec->pid, rec->mmap.start,
						       rec->mmap.start + rec->mmap.len };
	} else if (rec->kind == PMU_RECORD_SYMBOL && !rec->symbol.name) {
		c->unloads++;	/* the range is no more: drop it */
		for (size_t i = 0; i < c->n_syms; i++)
			if (c->syms[i].pid == rec->pid && c->syms[i].start == rec->symbol.start)
				c->syms[i].pid = -2;
	} else if (rec->kind == PMU_RECORD_SYMBOL) {
		assert_true(rec->symbol.name[0]);
		/* methods have arguments; JIT helpers ("@NewObject") none */
		assert_true(rec->symbol.name[0] == '@' || strchr(rec->symbol.name, '('));
		assert_non_null(rec->symbol.module);
		assert_true(rec->symbol.module[0] && rec->symbol.len > 0);
		assert_true(rec->pid >= 0);
		assert_true(c->n_syms < MAXR);
		c->syms[c->n_syms++] = (struct range){ rec->pid, rec->symbol.start,
						       rec->symbol.start + rec->symbol.len };
	} else if (rec->kind == PMU_RECORD_SAMPLE && rec->cpumode == PMU_CPUMODE_USER) {
		c->samples++;
		if (in(c->maps, c->n_maps, rec->pid, rec->sample.ip))
			return 0;
		c->unmapped++;
		c->named += in(c->syms, c->n_syms, rec->pid, rec->sample.ip);
	}
	return 0;
}

static void count_jit(const char *file, uint64_t at_least)
{
	struct jit_count c = { 0 };
	struct pmu_trace *t;

	c.maps = calloc(MAXR, sizeof(struct range));
	c.syms = calloc(MAXR, sizeof(struct range));

	if (access(file, R_OK))
		skip();
	assert_non_null(c.maps);
	assert_non_null(c.syms);
	assert_int_equal(pmu_trace_open(file, NULL, &t), 0);
	assert_int_equal(pmu_trace_read(t, on_rec, &c), 0);
	pmu_trace_close(t);
	printf("%s: %llu user-mode samples, %llu in no module (were [unknown]), %llu of them now "
	       "named by %zu .NET method ranges (%llu unloaded), %llu still [unknown]\n",
	       strrchr(file, '/') + 1, (unsigned long long)c.samples,
	       (unsigned long long)c.unmapped, (unsigned long long)c.named, c.n_syms,
	       (unsigned long long)c.unloads, (unsigned long long)(c.unmapped - c.named));
	assert_true(c.named >= at_least);
	assert_true(c.named <= c.unmapped);
	free(c.maps);
	free(c.syms);
}

/* Lower bounds a little under what was measured (x64: 4494 of the 4628
 * user-mode samples in no module named, x86: 2538 of 2585): a regression that
 * loses ranges shows. */
static void fixture_x64(void **state)
{
	(void)state;
	count_jit(FIX "perfview-net452-x64-compressed.etl", 4400);
}

static void fixture_x86(void **state)
{
	(void)state;
	count_jit(FIX "perfview-net452-x86-compressed.etl", 2450);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode_method_versions),
		cmocka_unit_test(decode_truncated),
		cmocka_unit_test(symbolizer_symbols),
		cmocka_unit_test(report_jit_frames),
		cmocka_unit_test(fixture_x64),
		cmocka_unit_test(fixture_x86),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
