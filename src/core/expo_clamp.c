/* SPDX-License-Identifier: MIT */
/* The exporter's sample helpers and its monotonic clamp. A series is keyed by
 * its family's index and rendered label set; the table only grows with distinct
 * series ever seen (CPUs x modes), never per scrape. */
#include "core/error.h"
#include "core/exporter_int.h"
#include "core/grow.h"

#include <pmukit/error.h>
#include <stdio.h>
#include <string.h>

int pmuk_expo_family(struct pmu_exporter *e, const char *name, enum pmu_mtype type,
		     const char *help, const char *unit, struct pmu_mfamily **out)
{
	return pmu_mset_family(e->set, name, type, help, unit, out);
}

void pmuk_expo_cpu_label(const struct pmu_exporter *e, int cpu, char *buf, size_t size)
{
	if (e->o.compat == PMU_EXPORTER_COMPAT_WINDOWS)
		snprintf(buf, size, "%d,%d", cpu / 64, cpu % 64);  /* PDH "group,index" */
	else
		snprintf(buf, size, "%d", cpu);
}

int pmuk_expo_gauge(struct pmu_exporter *e, struct pmu_mfamily *f,
		    const char *const *labels, double value)
{
	(void)e;
	return pmu_mfamily_add(f, labels, value, 0);
}

struct series_key {
	const char *p;
	size_t n;
	uint32_t fam;
};

static int series_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct series_key *k = key;
	const struct pmu_exporter *e = ctx;
	const struct pmuk_expo_series *s = &e->ser[id];

	return s->reset_id == k->fam && s->key_len == k->n &&
	       !memcmp(e->keys + s->key_off, k->p, k->n);
}

static size_t reset_id(struct pmu_exporter *e, const char *family)
{
	size_t i;

	for (i = 0; i < e->nresets; i++)
		if (!strcmp(e->resets[i].name, family))
			return i;
	if (pmuk_grow((void **)&e->resets, &e->resets_cap, i + 1, sizeof(*e->resets)))
		return SIZE_MAX;
	snprintf(e->resets[i].name, sizeof(e->resets[i].name), "%s", family);
	e->nresets++;
	return i;
}

/* The series of key k, made when new; NULL out of memory. */
static struct pmuk_expo_series *series_get(struct pmu_exporter *e, const struct series_key *k,
					   int *fresh)
{
	uint64_t h = pmuk_hash_bytes(k->p, k->n, 0x6578706fu + k->fam);
	uint32_t id = pmuk_index_find(&e->ix, h, series_eq, k, e);
	struct pmuk_expo_series *s;

	*fresh = id == PMUK_INDEX_NONE;
	if (!*fresh)
		return &e->ser[id];
	if (e->keys_len + k->n > UINT32_MAX ||
	    pmuk_grow((void **)&e->ser, &e->ser_cap, e->nser + 1, sizeof(*e->ser)) ||
	    pmuk_grow((void **)&e->keys, &e->keys_cap, e->keys_len + k->n, 1))
		return NULL;
	s = &e->ser[e->nser];
	*s = (struct pmuk_expo_series){ .key_off = (uint32_t)e->keys_len,
					.key_len = (uint32_t)k->n, .reset_id = k->fam };
	if (pmuk_index_add(&e->ix, h) == PMUK_INDEX_NONE)
		return NULL;
	memcpy(e->keys + e->keys_len, k->p, k->n);
	e->keys_len += k->n;
	e->nser++;
	return s;
}

static double clamp(struct pmu_exporter *e, struct pmuk_expo_series *s, double v, int fresh)
{
	double out;

	if (fresh || (uint32_t)(s->gen + 1) != (uint32_t)e->gen) {
		/* new, or back after missing a scrape (CPU offline): start afresh */
		s->offset = 0;
		out = v;
	} else if ((out = v + s->offset) < s->out) {
		if (v < s->raw / 2) {
			e->resets[s->reset_id].n++;
			s->offset = s->out - v;
		}
		out = s->out;
	}
	s->raw = v;
	s->out = out;
	s->gen = (uint32_t)e->gen;
	return out;
}

int pmuk_expo_counter(struct pmu_exporter *e, struct pmu_mfamily *f,
		      const char *const *labels, double value, double created)
{
	struct pmuk_expo_series *s;
	struct pmuk_msample *m;
	struct series_key k;
	size_t fam;
	int err, fresh;

	if ((err = pmu_mfamily_add(f, labels, value > 0 ? value : 0, created)))
		return err;
	m = &f->s[f->n - 1];
	if ((fam = reset_id(e, f->name)) == SIZE_MAX)
		return pmuk_fail(PMU_ENOMEM, "out of memory tracking counter %s", f->name);
	k = (struct series_key){ f->lab + m->lab_off, m->lab_len, (uint32_t)fam };
	if (!(s = series_get(e, &k, &fresh)))
		return pmuk_fail(PMU_ENOMEM, "out of memory tracking counter %s", f->name);
	m->value = clamp(e, s, m->value, fresh);
	return 0;
}
