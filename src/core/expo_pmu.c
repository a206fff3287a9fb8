/* SPDX-License-Identifier: MIT */
/* The pmu collector: each event counted on every online CPU, opened once at
 * pmu_exporter_open and read on each scrape (no perf_event_open per scrape).
 * An event this host cannot count is shown as pmukit_pmu_available{event,
 * reason} 0, once at open, not as an error on every scrape. Enabled and
 * running time are exported so the scraper sees multiplexing. */
#include "core/error.h"
#include "core/exporter_int.h"

#include <pmukit/error.h>
#include <pmukit/events.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_EVENTS "cycles,instructions,ref-cycles,branch-misses,cache-misses"

struct pmu_ev {
	char name[64];
	char why[200];               /* "" when counting */
	struct pmu_counters *c;
};

struct pmuk_expo_pmu {
	struct pmu_ev *ev;
	size_t n;
};

static void open_one(struct pmu_ev *ev)
{
	struct pmu_target t = { .kind = PMU_TARGET_CPUS };
	struct pmu_event_list *list = NULL;
	int err;

	if (!(err = pmu_event_parse(ev->name, &list)))
		err = pmu_counters_open(list, &t, NULL, &ev->c);
	if (err) {
		snprintf(ev->why, sizeof(ev->why), "%s", pmu_error_detail());
		if (!ev->why[0])
			snprintf(ev->why, sizeof(ev->why), "error %d", err);
		ev->c = NULL;
	}
	pmu_event_list_free(list);
	pmuk_clear_detail();
}

int pmuk_expo_pmu_open(struct pmu_exporter *e)
{
	const char *spec = e->o.pmu_events ? e->o.pmu_events : DEFAULT_EVENTS, *p;
	struct pmuk_expo_pmu *m;

	if (!(m = calloc(1, sizeof(*m))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening the pmu collector");
	e->pmu = m;
	for (p = spec; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		m->n += strcspn(p, ",") > 0;
	if (!m->n)
		return pmuk_fail(PMU_EINVAL, "the pmu collector's event list \"%s\" is empty", spec);
	if (!(m->ev = calloc(m->n, sizeof(*m->ev))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening the pmu collector");
	m->n = 0;
	for (p = spec; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t len = strcspn(p, ",");

		if (!len)
			continue;
		if (len >= sizeof(m->ev[0].name))
			return pmuk_fail(PMU_EINVAL, "pmu collector event \"%.*s\" is longer "
					 "than %zu bytes", (int)len, p, sizeof(m->ev[0].name) - 1);
		memcpy(m->ev[m->n].name, p, len);
		open_one(&m->ev[m->n++]);
	}
	return 0;
}

void pmuk_expo_pmu_close(struct pmu_exporter *e)
{
	if (!e->pmu)
		return;
	for (size_t i = 0; i < e->pmu->n; i++)
		pmu_counters_close(e->pmu->ev[i].c);
	free(e->pmu->ev);
	free(e->pmu);
	e->pmu = NULL;
}

static int available(struct pmu_exporter *e)
{
	struct pmuk_expo_pmu *m = e->pmu;
	struct pmu_mfamily *f;
	size_t nopen = 0;
	int err;

	for (size_t i = 0; i < m->n; i++)
		nopen += m->ev[i].c != NULL;
	if ((err = pmuk_expo_family(e, "pmukit_pmu_available", PMU_MTYPE_GAUGE,
				    "1 when the event is counted on every CPU; 0 with the "
				    "reason when this host cannot count it.", NULL, &f)))
		return err;
	if (!nopen) {  /* no PMU at all: one gauge */
		const char *l[] = { "reason", m->ev[0].why, NULL };

		return pmuk_expo_gauge(e, f, l, 0);
	}
	for (size_t i = 0; i < m->n && !err; i++) {
		const char *l[] = { "event", m->ev[i].name, "reason", m->ev[i].why, NULL };

		if (m->ev[i].c)
			l[2] = NULL;
		err = pmuk_expo_gauge(e, f, l, m->ev[i].c ? 1 : 0);
	}
	return err;
}

static int read_event(struct pmu_exporter *e, struct pmu_ev *ev, struct pmu_mfamily *f[3])
{
	int err = 0;

	for (size_t k = 0; k < pmu_counters_cpu_count(ev->c) && !err; k++) {
		struct pmu_reading r;
		char cpu[24];

		if (pmu_counters_read_cpu(ev->c, k, &r, 1) < 0) {
			pmuk_clear_detail();  /* an offline CPU: its series disappear */
			continue;
		}
		if (r.flags & PMU_READING_UNSUPPORTED)
			continue;
		pmuk_expo_cpu_label(e, pmu_counters_cpu(ev->c, k), cpu, sizeof(cpu));
		const char *l[] = { "cpu", cpu, "event", ev->name, NULL };

		err = pmuk_expo_counter(e, f[0], l, (double)r.value, e->created);
		if (!err)
			err = pmuk_expo_counter(e, f[1], l, (double)r.time_enabled / 1e9, e->created);
		if (!err)
			err = pmuk_expo_counter(e, f[2], l, (double)r.time_running / 1e9,
						e->created);
	}
	return err;
}

int pmuk_expo_collect_pmu(struct pmu_exporter *e)
{
	struct pmu_mfamily *f[3];
	int err;

	if ((err = available(e)))
		return err;
	err = pmuk_expo_family(e, "pmukit_pmu_events", PMU_MTYPE_COUNTER,
			       "Events counted on each CPU (raw: only while running, see "
			       "pmukit_pmu_running_seconds_total).", NULL, &f[0]);
	if (!err)
		err = pmuk_expo_family(e, "pmukit_pmu_enabled_seconds", PMU_MTYPE_COUNTER,
				       "Seconds each event was enabled on each CPU.", "seconds", &f[1]);
	if (!err)
		err = pmuk_expo_family(e, "pmukit_pmu_running_seconds", PMU_MTYPE_COUNTER,
				       "Seconds each event had a hardware counter on each CPU "
				       "(less than enabled: multiplexed).", "seconds", &f[2]);
	for (size_t i = 0; i < e->pmu->n && !err; i++)
		if (e->pmu->ev[i].c)
			err = read_event(e, &e->pmu->ev[i], f);
	return err;
}
