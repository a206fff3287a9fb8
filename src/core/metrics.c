/* SPDX-License-Identifier: MIT */
#include <pmukit/metrics.h>

#include "core/error.h"

#include <string.h>

/* The perf hw-cache encoding: cache id | op << 8 | result << 16; result 0 = access. */
#define CACHE_RESULT_SHIFT 16
#define CACHE_RESULT_MASK (0xffull << CACHE_RESULT_SHIFT)

/* Same PMU (hybrid: cycles of cpu_atom do not divide instructions of cpu_core) and same
 * privilege filter, so a ratio compares like with like. */
static int alike(const struct pmu_event *a, const struct pmu_event *b)
{
	return !strcmp(a->pmu, b->pmu) && a->exclude_user == b->exclude_user &&
	       a->exclude_kernel == b->exclude_kernel;
}

static int find_generic(const struct pmu_event *ev, size_t n, size_t i, int generic)
{
	for (size_t k = 0; k < n; k++)
		if (ev[k].generic == generic && (generic == PMU_GENERIC_TASK_CLOCK ||
						 generic == PMU_GENERIC_CPU_CLOCK ||
						 alike(&ev[k], &ev[i])))
			return (int)k;
	return -1;
}

static int find_cache_access(const struct pmu_event *ev, size_t n, size_t i)
{
	uint64_t want = ev[i].config & ~CACHE_RESULT_MASK;

	for (size_t k = 0; k < n; k++)
		if (ev[k].generic == PMU_GENERIC_HW_CACHE && ev[k].config == want &&
		    alike(&ev[k], &ev[i]))
			return (int)k;
	return -1;
}

/* A reading that counted: a metric over one that did not would be made up. */
static int counted(const struct pmu_reading *r)
{
	return !(r->flags & (PMU_READING_NOT_COUNTED | PMU_READING_UNSUPPORTED |
			     PMU_READING_ERROR_STATE)) && r->time_enabled > 0;
}

/* An input's value; 0 (no metric: every divisor must be > 0) when it did not count. */
static double val(const struct pmu_reading *r)
{
	return counted(r) ? r->scaled : 0;
}

static int ratio(struct pmu_metric *m, double num, double den, const char *unit, int percent)
{
	if (den <= 0)
		return 0;
	m->value = percent ? 100.0 * num / den : num / den;
	m->unit = unit;
	m->percent = percent;
	return 1;
}

/* The time base for per-second rates: task-clock (or cpu-clock) when counted, else wall time. */
static double busy_ns(const struct pmu_event *ev, const struct pmu_reading *rd, size_t n,
		      size_t i, double elapsed_ns)
{
	int k = find_generic(ev, n, i, PMU_GENERIC_TASK_CLOCK);

	if (k < 0)
		k = find_generic(ev, n, i, PMU_GENERIC_CPU_CLOCK);
	return k >= 0 ? val(&rd[k]) : elapsed_ns;
}

static int rate(struct pmu_metric *m, double count, double ns)
{
	static const struct { double div; const char *unit; } scale[] = {
		{ 1e9, "G/sec" }, { 1e6, "M/sec" }, { 1e3, "K/sec" }, { 1, "/sec" },
	};
	double per_sec;

	if (ns <= 0)
		return 0;
	per_sec = count * 1e9 / ns;
	for (size_t s = 0; s < sizeof(scale) / sizeof(scale[0]); s++)
		if (per_sec >= scale[s].div || s + 1 == sizeof(scale) / sizeof(scale[0])) {
			m->value = per_sec / scale[s].div;
			m->unit = scale[s].unit;
			m->percent = 0;
			return 1;
		}
	return 0;
}

static int compute(const struct pmu_event *ev, const struct pmu_reading *rd, size_t n, size_t i,
		   double elapsed_ns, struct pmu_metric *m)
{
	double v = rd[i].scaled;
	int k;

	switch (ev[i].generic) {
	case PMU_GENERIC_TASK_CLOCK:
	case PMU_GENERIC_CPU_CLOCK:
		return ratio(m, v, elapsed_ns, "CPUs utilized", 0);
	case PMU_GENERIC_CYCLES:
		k = find_generic(ev, n, i, PMU_GENERIC_TASK_CLOCK);
		if (k < 0)
			k = find_generic(ev, n, i, PMU_GENERIC_CPU_CLOCK);
		return k >= 0 && ratio(m, v, val(&rd[k]), "GHz", 0);
	case PMU_GENERIC_INSTRUCTIONS:
		k = find_generic(ev, n, i, PMU_GENERIC_CYCLES);
		return k >= 0 && ratio(m, v, val(&rd[k]), "insn per cycle", 0);
	case PMU_GENERIC_BRANCH_MISSES:
		k = find_generic(ev, n, i, PMU_GENERIC_BRANCHES);
		return k >= 0 && ratio(m, v, val(&rd[k]), "of all branches", 1);
	case PMU_GENERIC_CACHE_MISSES:
		k = find_generic(ev, n, i, PMU_GENERIC_CACHE_REFERENCES);
		return k >= 0 && ratio(m, v, val(&rd[k]), "of all cache refs", 1);
	case PMU_GENERIC_STALLED_FRONTEND:
		k = find_generic(ev, n, i, PMU_GENERIC_CYCLES);
		return k >= 0 && ratio(m, v, val(&rd[k]), "frontend cycles idle", 1);
	case PMU_GENERIC_STALLED_BACKEND:
		k = find_generic(ev, n, i, PMU_GENERIC_CYCLES);
		return k >= 0 && ratio(m, v, val(&rd[k]), "backend cycles idle", 1);
	case PMU_GENERIC_HW_CACHE:
		if (!(ev[i].config & CACHE_RESULT_MASK))
			return rate(m, v, busy_ns(ev, rd, n, i, elapsed_ns));
		k = find_cache_access(ev, n, i);
		return k >= 0 && ratio(m, v, val(&rd[k]), "of all accesses", 1);
	case PMU_GENERIC_PAGE_FAULTS:
	case PMU_GENERIC_CONTEXT_SWITCHES:
	case PMU_GENERIC_CPU_MIGRATIONS:
	case PMU_GENERIC_MINOR_FAULTS:
	case PMU_GENERIC_MAJOR_FAULTS:
	case PMU_GENERIC_ALIGNMENT_FAULTS:
	case PMU_GENERIC_EMULATION_FAULTS:
	case PMU_GENERIC_BRANCHES:
	case PMU_GENERIC_CACHE_REFERENCES:
		return rate(m, v, busy_ns(ev, rd, n, i, elapsed_ns));
	default:
		return 0;
	}
}

int pmu_metric_compute(const struct pmu_event *events, const struct pmu_reading *readings,
		       size_t n, size_t i, double elapsed_ns, struct pmu_metric *out)
{
	if (!events || !readings || !out || i >= n)
		return pmuk_fail(PMU_EINVAL, "pmu_metric_compute needs events, readings and out, "
				 "and an event index below their count (%zu of %zu)", i, n);
	if (!counted(&readings[i]))
		return 0;
	return compute(events, readings, n, i, elapsed_ns, out);
}
