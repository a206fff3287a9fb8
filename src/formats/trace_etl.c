/* SPDX-License-Identifier: MIT */
/* The record source over .etl files: etl_records.c behind the trace ops. */
#include "formats/etl_records.h"
#include "formats/trace_int.h"
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>

struct etl_source {
	struct pmuk_etl_records *a;
	struct pmu_trace_event *events;
	char build[32];
	struct pmu_trace *t;       /* for the record callback */
	pmu_record_fn cb;
	void *ctx;
};

static void on_problem(const char *msg, void *ctx)
{
	pmuk_trace_warn(ctx, "%s", msg);
}

static int deliver(const struct pmu_record *rec, void *ctx)
{
	struct etl_source *es = ctx;

	pmuk_trace_count(es->t, rec);
	if (rec->kind == PMU_RECORD_LOST)
		es->t->st.bytes_skipped += rec->lost.bytes;
	return es->cb(rec, es->ctx);
}

static int etl_read(struct pmu_trace *t, pmu_record_fn cb, void *ctx)
{
	struct etl_source *es = t->be;

	es->t = t;
	es->cb = cb;
	es->ctx = ctx;
	return pmuk_etl_records_read(es->a, deliver, es);
}

static void etl_close(struct pmu_trace *t)
{
	struct etl_source *es = t->be;

	if (!es)
		return;
	pmuk_etl_records_close(es->a);
	free(es->events);
	free(es);
	t->be = NULL;
}

static const struct pmuk_trace_ops etl_ops = { .read = etl_read, .close = etl_close };

static void fill_info(struct pmu_trace *t, struct etl_source *es)
{
	const struct pmu_etl_header *h = pmuk_etl_records_header(es->a);

	snprintf(es->build, sizeof(es->build), "%u.%u.%u", h->os_major, h->os_minor, h->os_build);
	t->info.format = PMU_TRACE_ETL;
	t->info.os_release = es->build;
	t->info.arch = h->pointer_size == 4 ? "x86" : "x86_64";
	t->info.nr_cpus_online = t->info.nr_cpus_avail = h->cpus;
	t->info.time_zero = (uint64_t)h->start_ns;
	t->info.compressed = h->compressed;
}

int pmuk_trace_open_etl(struct pmu_trace *t, const char *path)
{
	struct etl_source *es = calloc(1, sizeof(*es));
	const char *const *names;
	int err;

	if (!es)
		return PMU_ENOMEM;
	t->ops = &etl_ops;
	t->be = es;
	PMU_OPTS(pmuk_etl_records_opts, ao, .on_problem = on_problem, .problem_ctx = t,
		 .stack_window_ns = t->o.reorder_window_ns);
	if ((err = pmuk_etl_records_open(path, &ao, &es->a)))
		return err;
	fill_info(t, es);
	t->nr_events = pmuk_etl_records_event_count(es->a);
	names = pmuk_etl_records_event_names(es->a);
	if (t->nr_events && !(es->events = calloc(t->nr_events, sizeof(*es->events))))
		return PMU_ENOMEM;
	for (size_t i = 0; i < t->nr_events; i++) {
		es->events[i].name = names[i];
		es->events[i].clockid = -1;
	}
	t->events = es->events;
	t->nr_pmc = pmuk_etl_records_pmc_count(es->a);
	t->pmc_names = pmuk_etl_records_pmc_names(es->a);
	return 0;
}
