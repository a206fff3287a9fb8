/* SPDX-License-Identifier: MIT */
/* Tracepoint payloads by name: tracing data laid out as perf writes it
 * (HEADER_TRACING_DATA) from this kernel's own format files, sched_switch and
 * sched_process_exec payloads built from the offsets those files state, then
 * decoded field by field and printed as perf script does; corrupt tracing data
 * and short payloads give errors; without tracing data, tracefs stands in. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/trace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/trace_int.h"

#define EVDIR "/sys/kernel/tracing/events/"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	size_t n = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 4096 > cap && !(s = realloc(s, cap = n + 8192)))
			break;
		got = fread(s + n, 1, 4096, f);
		n += got;
	} while (got);
	fclose(f);
	if (s)
		s[n] = 0;
	*len = n;
	return s;
}

struct blob {
	unsigned char *p;
	size_t n;
};

static void put(struct blob *b, const void *p, size_t n)
{
	b->p = realloc(b->p, b->n + n);
	assert_non_null(b->p);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put4(struct blob *b, uint32_t v)
{
	put(b, &v, 4);   /* host order, which the blob declares */
}

static void put8(struct blob *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put_file(struct blob *b, const char *path, int size8)
{
	size_t n;
	char *s = slurp(path, &n);

	assert_non_null(s);
	if (size8)
		put8(b, n);
	else
		put4(b, (uint32_t)n);
	put(b, s, n);
	free(s);
}

/* Tracing data as perf writes it, with sched_switch and sched_process_exec. */
static struct blob tracing_data(void)
{
	static const unsigned char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct blob b = { 0 };
	unsigned char end_long[2] = { 0, sizeof(long) };
	union {
		uint16_t v;
		uint8_t b[2];
	} host = { 1 };

	put(&b, magic, sizeof(magic));
	put(&b, "0.6", 4);
	end_long[0] = host.b[0] == 0;   /* a big-endian host */
	put(&b, end_long, 2);
	put4(&b, 4096);
	put(&b, "header_page", 12);
	put_file(&b, EVDIR "header_page", 1);
	put(&b, "header_event", 13);
	put_file(&b, EVDIR "header_event", 1);
	put4(&b, 0);                    /* ftrace formats */
	put4(&b, 1);                    /* systems */
	put(&b, "sched", 6);
	put4(&b, 2);
	put_file(&b, EVDIR "sched/sched_switch/format", 1);
	put_file(&b, EVDIR "sched/sched_process_exec/format", 1);
	put4(&b, 0);                    /* kallsyms */
	put4(&b, 0);                    /* printk */
	put8(&b, 0);                    /* saved cmdlines */
	return b;
}

/* The offset and size a format file states for field name. */
static void field(const char *fmt, const char *name, int *off, int *size)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), " %s;", name);
	p = strstr(fmt, key);
	assert_non_null(p);
	assert_int_equal(sscanf(strstr(p, "offset:"), "offset:%d;\tsize:%d;", off, size), 2);
}

static uint64_t event_id(const char *ev)
{
	char path[256];
	size_t n;
	char *s;
	uint64_t id;

	snprintf(path, sizeof(path), EVDIR "sched/%s/id", ev);
	s = slurp(path, &n);
	assert_non_null(s);
	id = strtoull(s, NULL, 10);
	free(s);
	return id;
}

struct fixture {
	struct pmu_trace *t;
	struct pmu_trace_event ev[3];
	struct blob td;
	unsigned char sw[128], ex[128];
	uint32_t sw_size, ex_size;
	struct pmu_sample_ext x;
	struct pmu_record rec;
	int warned;
};

static void set(unsigned char *raw, const char *fmt, const char *name, const void *v, size_t n)
{
	int off, size;

	field(fmt, name, &off, &size);
	assert_true((size_t)size >= n && off + size <= 128);
	memcpy(raw + off, v, n);
}

/* sched_switch: bash (pid 4242, prio 120, state S) ==> swapper/0 (0, 120). */
static void build_switch(struct fixture *fx, uint16_t id)
{
	size_t n;
	char *fmt = slurp(EVDIR "sched/sched_switch/format", &n);
	int32_t pid = 4242, prio = 120, zero = 0;
	long state = 1;
	int off, size;

	assert_non_null(fmt);
	memcpy(fx->sw, &id, 2);
	set(fx->sw, fmt, "prev_comm[16]", "bash", 5);
	set(fx->sw, fmt, "prev_pid", &pid, 4);
	set(fx->sw, fmt, "prev_prio", &prio, 4);
	set(fx->sw, fmt, "prev_state", &state, sizeof(state));
	set(fx->sw, fmt, "next_comm[16]", "swapper/0", 10);
	set(fx->sw, fmt, "next_pid", &zero, 4);
	set(fx->sw, fmt, "next_prio", &prio, 4);
	field(fmt, "next_prio", &off, &size);
	fx->sw_size = (uint32_t)(off + size);
	free(fmt);
}

/* sched_process_exec: filename "/bin/true" behind a __data_loc. */
static void build_exec(struct fixture *fx, uint16_t id)
{
	size_t n;
	char *fmt = slurp(EVDIR "sched/sched_process_exec/format", &n);
	int32_t pid = 77;
	int off, size, loc_off, loc_size;
	uint32_t loc;

	assert_non_null(fmt);
	memcpy(fx->ex, &id, 2);
	set(fx->ex, fmt, "pid", &pid, 4);
	set(fx->ex, fmt, "old_pid", &pid, 4);
	field(fmt, "old_pid", &off, &size);
	field(fmt, "filename", &loc_off, &loc_size);
	memcpy(fx->ex + off + size, "/bin/true", 10);
	loc = (uint32_t)(off + size) | 10u << 16;
	if (strstr(fmt, "__rel_loc"))   /* relative to the field's end */
		loc = (uint32_t)(off + size - loc_off - loc_size) | 10u << 16;
	memcpy(fx->ex + loc_off, &loc, 4);
	fx->ex_size = (uint32_t)(off + size + 10);
	free(fmt);
}

static int setup(void **state)
{
	struct fixture *fx;
	FILE *f = fopen(EVDIR "sched/sched_switch/format", "r");

	if (!f)
		return 0; /* each test skips */
	fclose(f);
	fx = calloc(1, sizeof(*fx));
	fx->t = calloc(1, sizeof(*fx->t));
	fx->td = tracing_data();
	fx->ev[0] = (struct pmu_trace_event){ .name = "sched:sched_switch", .type = 2,
					      .config = event_id("sched_switch") };
	fx->ev[1] = (struct pmu_trace_event){ .name = "sched:sched_process_exec", .type = 2,
					      .config = event_id("sched_process_exec") };
	fx->ev[2] = (struct pmu_trace_event){ .name = "cpu-clock", .type = 1 };
	fx->t->events = fx->ev;
	fx->t->nr_events = 3;
	fx->t->info.tracing_data = fx->td.p;
	fx->t->info.tracing_data_size = fx->td.n;
	build_switch(fx, (uint16_t)fx->ev[0].config);
	build_exec(fx, (uint16_t)fx->ev[1].config);
	fx->x.sz = sizeof(fx->x);
	fx->rec.kind = PMU_RECORD_SAMPLE;
	fx->rec.has = PMU_HAS_RAW | PMU_HAS_CPU;
	fx->rec.cpu = 1;
	fx->rec.sample.ext = &fx->x;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	if (fx) {
		pmu_trace_close(fx->t);
		free(fx->td.p);
		free(fx);
	}
	return 0;
}

static struct fixture *get(void **state)
{
	if (!*state)
		skip(); /* no readable tracefs: these format files are this kernel's */
	return *state;
}

static const struct pmu_record *as(struct fixture *fx, int ev, const void *raw, uint32_t n)
{
	fx->rec.event = ev;
	fx->x.raw = raw;
	fx->x.raw_size = n;
	return &fx->rec;
}

static void test_format_switch(void **state)
{
	struct fixture *fx = get(state);
	char buf[512];

	assert_int_equal(pmu_trace_tp_format(fx->t, as(fx, 0, fx->sw, fx->sw_size), buf,
					     sizeof(buf)), 0);
	assert_string_equal(buf, "prev_comm=bash prev_pid=4242 prev_prio=120 prev_state=S ==> "
				 "next_comm=swapper/0 next_pid=0 next_prio=120");
	/* too small a buffer: PMU_ERANGE, what fits is there */
	assert_int_equal(pmu_trace_tp_format(fx->t, &fx->rec, buf, 10), PMU_ERANGE);
	assert_string_equal(buf, "prev_comm");
}

static void test_format_dynamic(void **state)
{
	struct fixture *fx = get(state);
	char buf[256];

	assert_int_equal(pmu_trace_tp_format(fx->t, as(fx, 1, fx->ex, fx->ex_size), buf,
					     sizeof(buf)), 0);
	assert_string_equal(buf, "filename=/bin/true pid=77 old_pid=77");
}

struct seen {
	char text[512];
};

static int on_field(const struct pmu_tp_field *f, void *ctx)
{
	struct seen *s = ctx;
	size_t n = strlen(s->text);

	if (f->kind == PMU_TP_STRING)
		snprintf(s->text + n, sizeof(s->text) - n, "%s=s:%s ", f->name, f->str);
	else if (f->kind == PMU_TP_INT)
		snprintf(s->text + n, sizeof(s->text) - n, "%s=i:%lld ", f->name, (long long)f->i);
	else if (f->kind == PMU_TP_UINT)
		snprintf(s->text + n, sizeof(s->text) - n, "%s=u:%llu ", f->name,
			 (unsigned long long)f->u);
	else
		snprintf(s->text + n, sizeof(s->text) - n, "%s=b:%zu ", f->name, f->size);
	return 0;
}

static void test_fields(void **state)
{
	struct fixture *fx = get(state);
	struct seen s = { "" };

	assert_int_equal(pmu_trace_tp_fields(fx->t, as(fx, 0, fx->sw, fx->sw_size), on_field,
					     &s), 0);
	assert_string_equal(s.text, "prev_comm=s:bash prev_pid=i:4242 prev_prio=i:120 "
				    "prev_state=i:1 next_comm=s:swapper/0 next_pid=i:0 "
				    "next_prio=i:120 ");
	s.text[0] = 0;
	assert_int_equal(pmu_trace_tp_fields(fx->t, as(fx, 1, fx->ex, fx->ex_size), on_field,
					     &s), 0);
	assert_string_equal(s.text, "filename=s:/bin/true pid=i:77 old_pid=i:77 ");
}

static int stop_at_second(const struct pmu_tp_field *f, void *ctx)
{
	(void)f;
	return ++*(int *)ctx == 2 ? 42 : 0;
}

static void test_fields_stop(void **state)
{
	struct fixture *fx = get(state);
	int n = 0;

	assert_int_equal(pmu_trace_tp_fields(fx->t, as(fx, 0, fx->sw, fx->sw_size),
					     stop_at_second, &n), 42);
	assert_int_equal(n, 2);
}

static void test_short_payload(void **state)
{
	struct fixture *fx = get(state);
	char buf[256];
	struct seen s = { "" };

	assert_int_equal(pmu_trace_tp_format(fx->t, as(fx, 0, fx->sw, fx->sw_size - 1), buf,
					     sizeof(buf)), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "next_prio"));
	/* a __data_loc pointing past the end */
	assert_int_equal(pmu_trace_tp_fields(fx->t, as(fx, 1, fx->ex, fx->ex_size - 3),
					     on_field, &s), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "filename"));
}

static void test_not_tracepoint(void **state)
{
	struct fixture *fx = get(state);
	char buf[64];

	assert_int_equal(pmu_trace_tp_format(fx->t, as(fx, 2, fx->sw, fx->sw_size), buf,
					     sizeof(buf)), PMU_ENOENT);
	fx->rec.has = PMU_HAS_CPU;   /* no payload */
	assert_int_equal(pmu_trace_tp_format(fx->t, as(fx, 0, fx->sw, fx->sw_size), buf,
					     sizeof(buf)), PMU_ENOENT);
	fx->rec.has = PMU_HAS_RAW | PMU_HAS_CPU;
	assert_int_equal(pmu_trace_tp_format(fx->t, as(fx, -1, fx->sw, fx->sw_size), buf,
					     sizeof(buf)), PMU_ENOENT);
}

/* Every truncation of the tracing data is an error naming a byte, never a crash. */
static void test_truncated_tracing_data(void **state)
{
	struct fixture *fx = get(state);
	char buf[256];

	for (size_t cut = 1; cut < fx->td.n; cut += 1 + cut / 4) {
		struct pmu_trace *t = calloc(1, sizeof(*t));

		t->events = fx->ev;
		t->nr_events = 3;
		t->info.tracing_data = fx->td.p;
		t->info.tracing_data_size = cut;
		assert_int_equal(pmu_trace_tp_format(t, as(fx, 0, fx->sw, fx->sw_size), buf,
						     sizeof(buf)), PMU_EFORMAT);
		assert_non_null(strstr(pmu_error_detail(), "byte"));
		/* the failure is kept: a second call says the same */
		assert_int_equal(pmu_trace_tp_format(t, &fx->rec, buf, sizeof(buf)), PMU_EFORMAT);
		pmu_trace_close(t);
	}
}

static void on_warn(const char *msg, void *ctx)
{
	struct fixture *fx = ctx;

	assert_non_null(strstr(msg, "no tracepoint formats"));
	fx->warned++;
}

/* No tracing data in the recording: this machine's tracefs, said once. */
static void test_local_formats(void **state)
{
	struct fixture *fx = get(state);
	struct pmu_trace *t = calloc(1, sizeof(*t));
	char buf[512];

	t->events = fx->ev;
	t->nr_events = 3;
	t->o.warn = on_warn;
	t->o.warn_ctx = fx;
	assert_int_equal(pmu_trace_tp_format(t, as(fx, 0, fx->sw, fx->sw_size), buf,
					     sizeof(buf)), 0);
	assert_non_null(strstr(buf, "prev_comm=bash prev_pid=4242"));
	assert_int_equal(pmu_trace_tp_format(t, as(fx, 1, fx->ex, fx->ex_size), buf,
					     sizeof(buf)), 0);
	assert_string_equal(buf, "filename=/bin/true pid=77 old_pid=77");
	assert_int_equal(fx->warned, 1);
	pmu_trace_close(t);
}

/* Events without their names (a file whose event descriptions were lost): found
 * by id among every system this machine has. */
static void test_local_unnamed(void **state)
{
	struct fixture *fx = get(state);
	struct pmu_trace *t = calloc(1, sizeof(*t));
	struct pmu_trace_event ev = fx->ev[0];
	char buf[512];

	ev.name = "tracepoint:unnamed";
	t->events = &ev;
	t->nr_events = 1;
	assert_int_equal(pmu_trace_tp_format(t, as(fx, 0, fx->sw, fx->sw_size), buf,
					     sizeof(buf)), 0);
	assert_non_null(strstr(buf, "prev_comm=bash prev_pid=4242"));
	pmu_trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_format_switch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_format_dynamic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fields_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_payload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_tracepoint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_tracing_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_unnamed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
