/* SPDX-License-Identifier: MIT */
/* The .etl reader on the real files of ../shared/fixtures/etl: every file is
 * read completely and the counts SOURCES.md lists come out exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/etl.h>
#include <pmukit/error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIX PMUKIT_SOURCE_DIR "/../shared/fixtures/etl/"

struct counted {
	struct pmu_etl *r;
	struct pmu_etl_stats st;
};

static void read_all(const char *name, int order, struct counted *c)
{
	PMU_OPTS(pmu_etl_opts, o, .order = order);
	struct pmu_etl_event ev;
	int rc;

	assert_int_equal(pmu_etl_open(name, &o, &c->r), 0);
	while ((rc = pmu_etl_next(c->r, &ev)) > 0)
		assert_true(ev.payload_size == 0 || ev.payload != NULL);
	assert_int_equal(rc, 0);
	pmu_etl_stats(c->r, &c->st, sizeof(c->st));
	if (c->st.problems)
		fprintf(stderr, "%s: %s\n", name, c->st.last_problem);
	assert_int_equal(c->st.problems, 0);
	assert_int_equal(c->st.bytes_skipped, 0);
}

/* Count of events of one kernel group/opcode[/version] (version < 0: any). */
static uint64_t count_of(struct pmu_etl *r, const char *provider, unsigned opcode, int version)
{
	struct pmu_guid g;
	struct pmu_etl_stat s;
	uint64_t n = 0;

	assert_int_equal(pmu_etl_provider_lookup(provider, &g), 0);
	for (size_t i = 0; i < pmu_etl_stat_count(r); i++) {
		assert_int_equal(pmu_etl_stat_at(r, i, &s), 0);
		if (!memcmp(&s.provider, &g, sizeof(g)) && s.opcode == opcode &&
		    (version < 0 || s.version == (unsigned)version))
			n += s.count;
	}
	return n;
}

static void test_shutdown_perfdiag(void **state)
{
	struct counted c;
	(void)state;

	read_all(FIX "airbus-ShutdownPerfDiagLogger.etl", PMU_ETL_ORDER_TIME, &c);
	const struct pmu_etl_header *h = pmu_etl_header(c.r);
	assert_int_equal(h->os_build, 18362);
	assert_int_equal(h->os_major, 10);
	assert_int_equal(h->pointer_size, 8);
	assert_int_equal(h->cpus, 2);
	assert_int_equal(h->clock_type, 1);
	assert_int_equal(h->perf_freq, 10000000);
	assert_int_equal(h->buffer_size, 65536);
	assert_string_equal(h->logger_name, "PerfDiag Logger");
	assert_int_equal(c.st.events, 17078);
	assert_int_equal(c.st.buffers, 49);
	assert_int_equal(c.st.by_header_type[2], 8433);   /* SYSTEM64 */
	assert_int_equal(c.st.by_header_type[17], 8645);  /* PERFINFO64 */
	assert_int_equal(count_of(c.r, "Image", 3, -1), 6745);
	assert_int_equal(count_of(c.r, "Image", 2, -1), 4791);
	assert_int_equal(count_of(c.r, "Image", 4, -1), 2145);
	assert_int_equal(count_of(c.r, "Image", 10, -1), 72);
	assert_int_equal(count_of(c.r, "Thread", 3, 3), 1175);
	assert_int_equal(count_of(c.r, "Thread", 2, 3), 1032);
	assert_int_equal(count_of(c.r, "Thread", 4, 3), 501);
	assert_int_equal(count_of(c.r, "Thread", 1, 3), 350);
	assert_int_equal(count_of(c.r, "Process", 2, 4), 60);
	assert_int_equal(count_of(c.r, "Process", 3, 4), 94);
	assert_int_equal(count_of(c.r, "Process", 4, 4), 37);
	assert_int_equal(count_of(c.r, "Process", 11, 2), 60);
	assert_int_equal(count_of(c.r, "Process", 39, 5), 5);
	assert_int_equal(count_of(c.r, "Process", 1, -1), 0);

	/* 30 distinct thread names, resolvable also for threads that ended */
	char names[64][256];
	size_t nn = 0, ended_named = 0;
	struct pmu_etl_thread t, l;
	for (size_t i = 0; i < pmu_etl_thread_count(c.r); i++) {
		assert_int_equal(pmu_etl_thread_at(c.r, i, &t), 0);
		assert_non_null(t.name);
		if (!t.name[0])
			continue;
		size_t k;
		for (k = 0; k < nn && strcmp(names[k], t.name); k++)
			;
		if (k == nn && nn < 64)
			snprintf(names[nn++], sizeof(names[0]), "%s", t.name);
		if (t.ended) {
			assert_int_equal(pmu_etl_thread_lookup(c.r, t.tid, t.end_ns, &l), 0);
			assert_string_equal(l.name, t.name);
			ended_named++;
		}
		assert_true(t.process[0] != '\0');
	}
	assert_int_equal(nn, 30);
	int found = 0;
	for (size_t k = 0; k < nn; k++)
		found += !strcmp(names[k], "Win32k Raw Input Thread") ||
			 !strcmp(names[k], "DWM Compositor Thread") ||
			 !strcmp(names[k], "EventLog-Security");
	assert_int_equal(found, 3);
	(void)ended_named;
	pmu_etl_close(c.r);
}

/* Every V3 thread event carries bytes after its 72-byte fixed part. */
static void test_thread_name_tail(void **state)
{
	struct pmu_etl *r;
	struct pmu_etl_event ev;
	struct pmu_etl_thread_ev t;
	unsigned v3 = 0, tail = 0, named = 0;
	(void)state;

	assert_int_equal(pmu_etl_open(FIX "airbus-ShutdownPerfDiagLogger.etl", NULL, &r), 0);
	while (pmu_etl_next(r, &ev) > 0) {
		if (pmu_etl_decode_thread(&ev, &t))
			continue;
		v3 += ev.version == 3;
		tail += ev.payload_size >= 74;
		named += t.has_name;
	}
	assert_int_equal(v3, 3058);
	assert_int_equal(tail, 3058);
	assert_true(named > 0 && named < 3058);
	pmu_etl_close(r);
}

struct key { uint64_t time; uint32_t tid; };

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Samples and the stacks that name their timestamp and thread. */
static void stacks_attach(const char *file, unsigned long samples, unsigned *plain, unsigned *keyed)
{
	struct pmu_etl *r;
	struct pmu_etl_event ev;
	struct pmu_etl_sample_ev s;
	struct pmu_etl_stack_ev *sw = malloc(sizeof(*sw));
	struct pmu_etl_stack_key_ev *sk = malloc(sizeof(*sk));
	struct key *smp = malloc(samples * sizeof(*smp)), k;
	struct key *st = malloc(200000 * sizeof(*st)), *kt = malloc(200000 * sizeof(*kt));
	size_t ns = 0, nst = 0, nkt = 0;

	assert_non_null(sw);
	assert_non_null(sk);
	assert_non_null(smp);
	assert_int_equal(pmu_etl_open(file, NULL, &r), 0);
	while (pmu_etl_next(r, &ev) > 0) {
		if (!pmu_etl_decode_sampled_profile(&ev, &s)) {
			assert_true(ns < samples);
			smp[ns++] = (struct key){ ev.raw_time, s.tid };
		} else if (!pmu_etl_decode_stackwalk(&ev, sw)) {
			assert_true(sw->n_frames > 0);
			st[nst++] = (struct key){ sw->event_time, sw->tid };
		} else if (!pmu_etl_decode_stack_key(&ev, sk) && !sk->definition) {
			kt[nkt++] = (struct key){ sk->event_time, sk->tid };
		}
	}
	assert_int_equal(ns, samples);
	qsort(smp, ns, sizeof(*smp), cmp_key);
	size_t u = 0;
	for (size_t i = 0; i < ns; i++)	/* distinct (time, thread) samples */
		if (!u || cmp_key(&smp[u - 1], &smp[i]))
			smp[u++] = smp[i];
	*plain = *keyed = 0;
	for (size_t i = 0; i < u; i++) {
		k = smp[i];
		int p = 0, q = 0;
		for (size_t j = 0; j < nst && !p; j++)
			p = !cmp_key(&st[j], &k);
		for (size_t j = 0; j < nkt && !q; j++)
			q = !cmp_key(&kt[j], &k);
		*plain += p;
		*keyed += q;
	}
	free(sw), free(sk), free(smp), free(st), free(kt);
	pmu_etl_close(r);
}

static void test_net452_x64(void **state)
{
	struct counted c;
	unsigned plain, keyed;
	(void)state;

	read_all(FIX "perfview-net452-x64-compressed.etl", PMU_ETL_ORDER_TIME, &c);
	const struct pmu_etl_header *h = pmu_etl_header(c.r);
	assert_int_equal(h->os_build, 9200);
	assert_int_equal(h->cpus, 8);
	assert_true(h->compressed);
	assert_int_equal(h->compression_format, 3);
	assert_int_equal(c.st.events, 179474);
	assert_int_equal(c.st.buffers, 360);
	assert_int_equal(c.st.by_header_type[17], 100157);
	assert_int_equal(c.st.by_header_type[2], 3189);
	assert_int_equal(c.st.by_header_type[19], 34765);
	assert_int_equal(c.st.by_header_type[18], 33378);
	assert_int_equal(c.st.by_header_type[20], 7956);
	assert_int_equal(c.st.by_header_type[10], 27);
	assert_int_equal(c.st.by_header_type[1], 2);
	assert_int_equal(count_of(c.r, "PerfInfo", 46, 2), 79528);
	assert_int_equal(count_of(c.r, "StackWalk", 32, 2), 252);
	assert_int_equal(count_of(c.r, "StackWalk", 38, 2), 7046);
	assert_int_equal(count_of(c.r, "StackWalk", 37, 2), 2061);
	assert_int_equal(count_of(c.r, "StackWalk", 35, 2), 1909);
	assert_int_equal(count_of(c.r, "StackWalk", 36, 2), 1012);
	assert_int_equal(count_of(c.r, "Thread", 1, 3) + count_of(c.r, "Thread", 2, 3) +
			 count_of(c.r, "Thread", 3, 3) + count_of(c.r, "Thread", 4, 3), 1358);
	pmu_etl_close(c.r);

	stacks_attach(FIX "perfview-net452-x64-compressed.etl", 79528, &plain, &keyed);
	assert_int_equal(plain, 244);
	assert_int_equal(keyed, 6174);
}

static void test_net452_x86(void **state)
{
	struct counted c, f;
	(void)state;

	read_all(FIX "perfview-net452-x86-compressed.etl", PMU_ETL_ORDER_TIME, &c);
	assert_int_equal(c.st.events, 168298);
	assert_int_equal(c.st.buffers, 276);
	assert_int_equal(count_of(c.r, "PerfInfo", 46, 2), 88809);
	assert_int_equal(count_of(c.r, "Thread", 1, 3) + count_of(c.r, "Thread", 2, 3) +
			 count_of(c.r, "Thread", 3, 3) + count_of(c.r, "Thread", 4, 3), 1442);
	/* file order sees the same events */
	read_all(FIX "perfview-net452-x86-compressed.etl", PMU_ETL_ORDER_FILE, &f);
	assert_int_equal(f.st.events, c.st.events);
	for (size_t i = 0; i < pmu_etl_stat_count(c.r); i++) {
		struct pmu_etl_stat a, b;
		assert_int_equal(pmu_etl_stat_at(c.r, i, &a), 0);
		assert_int_equal(pmu_etl_stat_at(f.r, i, &b), 0);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	pmu_etl_close(c.r);
	pmu_etl_close(f.r);
}

static void test_small_files(void **state)
{
	struct counted c;
	struct pmu_etl_event ev;
	struct pmu_etl_tl_event tl;
	struct pmu_etl *r;
	(void)state;

	read_all(FIX "perfview-smallEtlFile-ptr32-compressed.etl", PMU_ETL_ORDER_TIME, &c);
	assert_int_equal(pmu_etl_header(c.r)->pointer_size, 4);
	assert_int_equal(pmu_etl_header(c.r)->os_build, 10586);
	assert_string_equal(pmu_etl_header(c.r)->logger_name, "PerfWatsonGCHeapETLSession688");
	assert_string_equal(pmu_etl_header(c.r)->log_file_name, "ReloggedFile.ETL");
	assert_int_equal(c.st.events, 2);
	assert_int_equal(c.st.by_header_type[1], 1);
	assert_int_equal(c.st.by_header_type[18], 1);
	pmu_etl_close(c.r);

	read_all(FIX "perfview-SelfDescribingSingleEvent-compressed.etl", PMU_ETL_ORDER_TIME, &c);
	assert_int_equal(c.st.events, 23);
	assert_int_equal(c.st.by_header_type[2], 4);
	assert_int_equal(c.st.by_header_type[20], 18);
	assert_int_equal(c.st.by_header_type[19], 1);
	assert_int_equal(pmu_etl_header(c.r)->os_build, 22000);
	pmu_etl_close(c.r);

	read_all(FIX "airbus-lxcore_kernel.etl", PMU_ETL_ORDER_TIME, &c);
	assert_int_equal(c.st.events, 4);
	assert_int_equal(pmu_etl_header(c.r)->cpus, 6);
	pmu_etl_close(c.r);

	/* TraceLogging field names, types and values */
	const char *planets[] = { "Mercury", "Venus", "Earth", "Mars", "Jupiter" };
	unsigned n = 0;
	assert_int_equal(pmu_etl_open(FIX "perfview-primitive-types.etl", NULL, &r), 0);
	while (pmu_etl_next(r, &ev) > 0) {
		if (ev.kind != PMU_ETL_EVENT)
			continue;
		assert_int_equal(pmu_etl_decode_tracelogging(&ev, &tl), 0);
		assert_string_equal(tl.event_name, "PrimitiveTypesTest");
		assert_string_equal(tl.provider_name, "solar_system");
		assert_int_equal(tl.n_fields, 12);
		assert_string_equal(tl.fields[0].name, "string_type");
		assert_string_equal(tl.fields[0].type_name, "ansistring");
		assert_string_equal(tl.fields[0].value, planets[n]);
		/* display types: TraceLoggingBoolean and TraceLoggingChar are uint8
		 * shown as true/false and as a character */
		char ch[2] = { planets[n][0], 0 };
		assert_string_equal(tl.fields[1].name, "boolean_type");
		assert_string_equal(tl.fields[1].value, n == 1 || n == 4 ? "true" : "false");
		assert_string_equal(tl.fields[2].name, "char_type");
		assert_string_equal(tl.fields[2].value, ch);
		assert_string_equal(tl.fields[3].name, "int16_type");
		assert_string_equal(tl.fields[3].type_name, "int16");
		assert_string_equal(tl.fields[11].name, "system_time_type");
		assert_memory_equal(tl.fields[11].value, "2021-09-09 14:59:", 17);
		n++;
	}
	assert_int_equal(n, 5);
	pmu_etl_close(r);
}

static void test_open_errors(void **state)
{
	struct pmu_etl *r = NULL;
	(void)state;

	assert_int_equal(pmu_etl_open(FIX "does-not-exist.etl", NULL, &r), PMU_ENOENT);
	assert_null(r);
	assert_int_equal(pmu_etl_open(FIX "SOURCES.md", NULL, &r), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "not an .etl file"));
}

int main(void)
{
	if (access(FIX "airbus-ShutdownPerfDiagLogger.etl", R_OK)) {
		fprintf(stderr, "skip: the .etl fixtures (%s) are absent\n", FIX);
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shutdown_perfdiag),
		cmocka_unit_test(test_thread_name_tail),
		cmocka_unit_test(test_net452_x64),
		cmocka_unit_test(test_net452_x86),
		cmocka_unit_test(test_small_files),
		cmocka_unit_test(test_open_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
