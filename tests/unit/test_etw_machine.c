/* SPDX-License-Identifier: MIT */
/* The machine-wide ETW settings through a recording fake of TraceQueryInformation /
 * TraceSetInformation: each is read before it is set, set with TraceId 0 (issue 13
 * item 1), and put back newest first; the error of a refused interval names the
 * interval, not the counter budget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include "core/etw_machine.h"
#include "core/le.h"

struct call {
	char op;                 /* 'q' query, 's' set */
	uint64_t trace_id;
	uint32_t cls, len;
	uint8_t data[64];
};

struct fake {
	struct call log[32];
	int n;
	uint32_t interval[64];   /* the "kernel's" interval of each source */
	uint32_t query_error, set_error;
	int set_fail_at;         /* the set call (1-based) that fails with set_error */
	int nset;
	int config_queryable;
	uint32_t config[4];
	size_t nconfig;
};

static uint32_t fake_query(void *ctx, uint32_t cls, void *buf, uint32_t len, uint32_t *ret)
{
	struct fake *f = ctx;
	struct call *c = &f->log[f->n++];
	uint8_t *b = buf;

	c->op = 'q';
	c->cls = cls;
	c->len = len;
	memcpy(c->data, buf, len < 64 ? len : 64);
	if (f->query_error)
		return f->query_error;
	if (cls == 5) {
		uint32_t v = f->interval[pmuk_le32(b) % 64];

		for (int i = 0; i < 4; i++)
			b[4 + i] = (uint8_t)(v >> (8 * i));
		*ret = 8;
		return 0;
	}
	if (cls == 6 && f->config_queryable) {
		for (size_t k = 0; k < f->nconfig; k++)
			for (int i = 0; i < 4; i++)
				b[4 * k + i] = (uint8_t)(f->config[k] >> (8 * i));
		*ret = (uint32_t)(4 * f->nconfig);
		return 0;
	}
	return PMUK_W32_NOT_SUPPORTED;
}

static uint32_t fake_set(void *ctx, uint64_t id, uint32_t cls, const void *buf, uint32_t len)
{
	struct fake *f = ctx;
	struct call *c = &f->log[f->n++];
	const uint8_t *b = buf;

	c->op = 's';
	c->trace_id = id;
	c->cls = cls;
	c->len = len;
	memcpy(c->data, buf, len < 64 ? len : 64);
	if (++f->nset == f->set_fail_at)
		return f->set_error;
	if (cls == 5)
		f->interval[pmuk_le32(b) % 64] = pmuk_le32(b + 4);
	if (cls == 6) {
		f->nconfig = len / 4;
		for (size_t k = 0; k < f->nconfig && k < 4; k++)
			f->config[k] = pmuk_le32(b + 4 * k);
	}
	return 0;
}

static struct pmuk_etw_ops ops_of(struct fake *f)
{
	return (struct pmuk_etw_ops){ .ctx = f, .query = fake_query, .set = fake_set };
}

static void test_interval_read_set_restore(void **state)
{
	struct fake f = { .interval = { [0] = 10000, [26] = 65536 } };
	struct pmuk_etw_ops ops = ops_of(&f);
	struct pmuk_etw_machine m = { 0 };

	(void)state;
	assert_int_equal(pmuk_etw_machine_interval(&ops, &m, 0, 1221), 0);
	assert_int_equal(pmuk_etw_machine_interval(&ops, &m, 26, 1000003), 0);
	/* Read, then set with TraceId 0, for each. */
	assert_int_equal(f.n, 4);
	assert_int_equal(f.log[0].op, 'q');
	assert_int_equal(f.log[0].cls, 5);
	assert_int_equal(f.log[0].len, 8);
	assert_int_equal(pmuk_le32(f.log[0].data), 0);
	assert_int_equal(f.log[1].op, 's');
	assert_int_equal(f.log[1].trace_id, 0);
	assert_int_equal(f.log[1].cls, 5);
	assert_int_equal(f.log[1].len, 8);
	assert_int_equal(pmuk_le32(f.log[1].data + 4), 1221);
	assert_int_equal(f.log[2].op, 'q');
	assert_int_equal(pmuk_le32(f.log[2].data), 26);
	assert_int_equal(f.log[3].trace_id, 0);
	assert_int_equal(f.interval[0], 1221);
	assert_int_equal(f.interval[26], 1000003);
	assert_int_equal(m.unrestorable, 0);
	/* Restore: newest first, TraceId 0, the values read. */
	assert_int_equal(pmuk_etw_machine_restore(&ops, &m), 0);
	assert_int_equal(f.n, 6);
	assert_int_equal(f.log[4].op, 's');
	assert_int_equal(f.log[4].trace_id, 0);
	assert_int_equal(pmuk_le32(f.log[4].data), 26);
	assert_int_equal(pmuk_le32(f.log[5].data), 0);
	assert_int_equal(f.interval[0], 10000);
	assert_int_equal(f.interval[26], 65536);
	/* A second restore (another exit path) changes nothing. */
	assert_int_equal(pmuk_etw_machine_restore(&ops, &m), 0);
	assert_int_equal(f.n, 6);
}

static void test_unreadable_not_restored(void **state)
{
	struct fake f = { .query_error = PMUK_W32_NOT_SUPPORTED, .interval = { [0] = 10000 } };
	struct pmuk_etw_ops ops = ops_of(&f);
	struct pmuk_etw_machine m = { 0 };

	(void)state;
	assert_int_equal(pmuk_etw_machine_interval(&ops, &m, 0, 5000), 0);
	assert_int_equal(m.unrestorable, 1);
	assert_int_equal(pmuk_etw_machine_restore(&ops, &m), 0);
	assert_int_equal(f.n, 2);  /* nothing invented to set back */
}

static void test_sources_restore(void **state)
{
	static const uint32_t ids[] = { 19, 26 };
	struct fake f = { .config_queryable = 1, .config = { 2 }, .nconfig = 1 };
	struct pmuk_etw_ops ops = ops_of(&f);
	struct pmuk_etw_machine m = { 0 };

	(void)state;
	assert_int_equal(pmuk_etw_machine_sources(&ops, &m, ids, 2), 0);
	assert_int_equal(f.log[0].op, 'q');
	assert_int_equal(f.log[0].cls, 6);
	assert_int_equal(f.log[1].op, 's');
	assert_int_equal(f.log[1].trace_id, 0);
	assert_int_equal(f.log[1].len, 8);
	assert_int_equal(pmuk_le32(f.log[1].data + 4), 26);
	assert_int_equal(pmuk_etw_machine_restore(&ops, &m), 0);
	assert_int_equal(f.log[2].op, 's');
	assert_int_equal(f.log[2].trace_id, 0);
	assert_int_equal(f.log[2].len, 4);
	assert_int_equal(pmuk_le32(f.log[2].data), 2);
	/* Not queryable: set, counted as unrestorable, and restore leaves it. */
	memset(&f, 0, sizeof(f));
	assert_int_equal(pmuk_etw_machine_sources(&ops, &m, ids, 2), 0);
	assert_int_equal(m.unrestorable, 1);
	assert_int_equal(pmuk_etw_machine_restore(&ops, &m), 0);
	assert_int_equal(f.n, 2);
}

static void test_refused_interval_text(void **state)
{
	struct fake f = { .interval = { [0] = 10000 }, .set_fail_at = 1,
			  .set_error = PMUK_W32_INVALID_PARAMETER };
	struct pmuk_etw_ops ops = ops_of(&f);
	struct pmuk_etw_machine m = { 0 };

	(void)state;
	assert_int_equal(pmuk_etw_machine_interval(&ops, &m, 0, 50), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "interval"));
	assert_null(strstr(pmu_error_detail(), "too many counters"));
	assert_int_equal(m.n, 0);  /* nothing set, nothing to restore */
	/* The counter list may blame the counters. */
	assert_int_equal(pmuk_etw_set_error(PMUK_W32_INVALID_PARAMETER, 9,
					    "TracePmcCounterListInfo", NULL), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "too many counters"));
	/* Wine's answer keeps its sentence. */
	assert_int_equal(pmuk_etw_set_error(PMUK_W32_CALL_NOT_IMPLEMENTED, 5,
					    "TraceSampledProfileIntervalInfo", "8.0"), PMU_ENOTSUP);
	assert_non_null(strstr(pmu_error_detail(), "TraceSetInformation(TraceSampledProfile"
			       "IntervalInfo) returned ERROR_CALL_NOT_IMPLEMENTED (120)"));
	assert_int_equal(pmuk_etw_set_error(PMUK_W32_BUSY, 6, "x", NULL), PMU_EBUSY);
	assert_int_equal(pmuk_etw_set_error(PMUK_W32_ACCESS_DENIED, 6, "x", NULL), PMU_EPERM);
}

/* A failure in the middle: what was set is still restored. */
static void test_restore_after_failure(void **state)
{
	struct fake f = { .interval = { [0] = 10000, [2] = 4096 }, .set_fail_at = 2,
			  .set_error = PMUK_W32_BUSY };
	struct pmuk_etw_ops ops = ops_of(&f);
	struct pmuk_etw_machine m = { 0 };

	(void)state;
	assert_int_equal(pmuk_etw_machine_interval(&ops, &m, 0, 2000), 0);
	assert_int_equal(pmuk_etw_machine_interval(&ops, &m, 2, 100000), PMU_EBUSY);
	assert_int_equal(pmuk_etw_machine_restore(&ops, &m), 0);
	assert_int_equal(f.interval[0], 10000);
	assert_int_equal(f.interval[2], 4096);
}

/* The end of a counting session (item 11): stop, join the consumer, then close. */
struct seq {
	char log[16];
	int n;
	int join_fails;          /* joins that time out before one succeeds */
};

static int seq_stop(void *ctx)
{
	struct seq *q = ctx;

	q->log[q->n++] = 'S';
	return 0;
}

static int seq_join(void *ctx, unsigned ms)
{
	struct seq *q = ctx;

	q->log[q->n++] = ms >= 30000 ? 'J' : 'j';
	return q->join_fails-- > 0 ? -1 : 0;
}

static void seq_close(void *ctx)
{
	struct seq *q = ctx;

	q->log[q->n++] = 'C';
}

static void test_consumer_finish(void **state)
{
	struct seq q = { .n = 0 };
	struct pmuk_etw_finish_ops ops = { &q, seq_stop, seq_join, seq_close };

	(void)state;
	assert_int_equal(pmuk_etw_consumer_finish(&ops), 0);
	assert_string_equal(q.log, "SjC");   /* the consumer drained before CloseTrace */
	memset(&q, 0, sizeof(q));
	q.join_fails = 1;
	assert_int_equal(pmuk_etw_consumer_finish(&ops), 0);
	assert_string_equal(q.log, "SjCJ");  /* a stuck stream: CloseTrace ends it */
	memset(&q, 0, sizeof(q));
	q.join_fails = 2;
	assert_int_equal(pmuk_etw_consumer_finish(&ops), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_read_set_restore),
		cmocka_unit_test(test_unreadable_not_restored),
		cmocka_unit_test(test_sources_restore),
		cmocka_unit_test(test_refused_interval_text),
		cmocka_unit_test(test_restore_after_failure),
		cmocka_unit_test(test_consumer_finish),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
