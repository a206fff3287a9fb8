/* SPDX-License-Identifier: MIT */
/* pmu_exporter: opens the collectors, and on each scrape refills the metrics
 * set from them and renders it. Counter samples go through one clamp so that
 * no series goes backwards between scrapes. */
#include "core/cpustat.h"
#include "core/error.h"
#include "core/exporter_int.h"
#include "core/grow.h"
#include "core/opts.h"

#include <pmukit/error.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const coll_names[PMUK_COLL_COUNT] = {
	"cpu", "cpuidle", "cpufreq", "interrupts", "pmu", "contention",
};

static int parse_collectors(const char *list, unsigned *mask)
{
	const char *p = list;

	if (!list) {
		*mask = (1u << PMUK_COLL_COUNT) - 1;
		return 0;
	}
	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ","), k;

		for (k = 0; k < PMUK_COLL_COUNT; k++)
			if (n && strlen(coll_names[k]) == n && !strncmp(p, coll_names[k], n))
				break;
		if (k == PMUK_COLL_COUNT)
			return pmuk_fail(PMU_EINVAL, "unknown collector \"%.*s\": the collectors "
					 "are cpu, cpuidle, cpufreq, interrupts, pmu, contention",
					 (int)n, p);
		*mask |= 1u << k;
		p += n + (p[n] == ',');
	}
	if (!*mask)
		return pmuk_fail(PMU_EINVAL, "the collector list is empty: name at least one "
				 "of cpu, cpuidle, cpufreq, interrupts, pmu, contention");
	return 0;
}

/* Only what the collectors show is read per scrape: idle states and
 * frequencies are most of the files on a big host. */
static unsigned cpustat_want(unsigned mask)
{
	return (mask & (1u << PMUK_COLL_CPUIDLE) ? PMUK_CPUSTAT_IDLE : 0) |
	       (mask & (1u << PMUK_COLL_CPUFREQ) ? PMUK_CPUSTAT_FREQ : 0);
}

int pmu_exporter_open(const struct pmu_exporter_opts *opts, struct pmu_exporter **out)
{
	struct pmu_exporter *e;
	int err;

	if (!out)
		return pmuk_fail(PMU_EINVAL, "pmu_exporter_open needs somewhere to put the exporter");
	*out = NULL;
	if (!(e = calloc(1, sizeof(*e))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening the exporter");
	if ((err = PMUK_OPTS_LOAD(e->o, opts, pmu_exporter_opts)))
		goto fail;
	if ((unsigned)e->o.compat > PMU_EXPORTER_COMPAT_WINDOWS) {
		err = pmuk_fail(PMU_EINVAL, "compat %d is not a pmu_exporter_compat",
				(int)e->o.compat);
		goto fail;
	}
	err = parse_collectors(e->o.collectors, &e->mask);
	e->o.collectors = NULL;  /* the caller's string is not kept */
	if (err)
		goto fail;
	e->created = (double)time(NULL);
	if ((err = pmu_mset_new(&e->set)) || (err = pmuk_expo_os_open(&e->os)))
		goto fail;
	e->boot = pmuk_expo_boot_time(e->os);
	if ((e->mask & ((1u << PMUK_COLL_CPU) | (1u << PMUK_COLL_CPUIDLE) |
			(1u << PMUK_COLL_CPUFREQ))) &&
	    (err = pmuk_cpustat_open_want(NULL, cpustat_want(e->mask), &e->cs)))
		goto fail;
	if ((e->mask & (1u << PMUK_COLL_PMU)) && (err = pmuk_expo_pmu_open(e)))
		goto fail;
	e->o.pmu_events = NULL;  /* nor this one */
	*out = e;
	return 0;
fail:
	pmu_exporter_close(e);
	return err;
}

void pmu_exporter_close(struct pmu_exporter *e)
{
	if (!e)
		return;
	pmuk_expo_pmu_close(e);
	pmu_cpustat_close(e->cs);
	pmuk_expo_os_close(e->os);
	pmu_mset_free(e->set);
	pmuk_index_free(&e->ix);
	free(e->ser);
	free(e->keys);
	free(e->resets);
	free(e);
}

static int resets_family(struct pmu_exporter *e)
{
	struct pmu_mfamily *f;
	int err;

	if (!e->nresets)
		return 0;
	if ((err = pmuk_expo_family(e, "pmukit_source_resets", PMU_MTYPE_COUNTER,
				    "Times a counter's source went back to a much lower value "
				    "(a reset), carried over so the series never goes back.",
				    NULL, &f)))
		return err;
	for (size_t i = 0; i < e->nresets && !err; i++) {
		const char *l[] = { "metric", e->resets[i].name, NULL };

		err = pmu_mfamily_add(f, l, (double)e->resets[i].n, e->created);
	}
	return err;
}

static int collect(struct pmu_exporter *e)
{
	static int (*const coll[PMUK_COLL_COUNT])(struct pmu_exporter *) = {
		pmuk_expo_collect_cpu, pmuk_expo_collect_cpuidle, pmuk_expo_collect_cpufreq,
		pmuk_expo_collect_interrupts, pmuk_expo_collect_pmu,
		pmuk_expo_collect_contention,
	};
	int err = 0;

	pmu_mset_clear(e->set);
	e->gen++;
	if (e->cs && (err = pmu_cpustat_sample(e->cs)))
		return err;
	for (int k = 0; k < PMUK_COLL_COUNT && !err; k++)
		if (e->mask & (1u << k))
			err = coll[k](e);
	return err ? err : resets_family(e);
}

int pmu_exporter_scrape(struct pmu_exporter *e, enum pmu_expo_format fmt, const char **text,
			size_t *len)
{
	int err;

	if (!e || !text || !len || !pmu_exporter_content_type(fmt))
		return pmuk_fail(PMU_EINVAL, "pmu_exporter_scrape needs an exporter, a known "
				 "format and somewhere to put the text");
	err = collect(e);
	return err ? err : pmu_mset_render(e->set, fmt, text, len);
}

int pmuk_exporter_collect(struct pmu_exporter *e, struct pmu_mset **set)
{
	if (!e || !set)
		return pmuk_fail(PMU_EINVAL, "pmuk_exporter_collect needs an exporter and "
				 "somewhere to put the set");
	*set = e->set;
	return collect(e);
}
