/* SPDX-License-Identifier: MIT */
/* The counting API's front: argument checks, the opts load and the accessors, once
 * for every OS; the work is the backend's (core/counting_int.h: src/linux/counters*.c,
 * src/windows/counting_win.c). */
#include "core/counting_int.h"
#include "core/error.h"
#include "core/event_list.h"
#include "core/opts.h"

#include <stdint.h>

static const struct pmuk_counters_head *head(const struct pmu_counters *c)
{
	return (const struct pmuk_counters_head *)(const void *)c;
}

int pmuk_counters_open_events(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			      const struct pmu_counters_opts *opts, struct pmu_counters **out)
{
	struct pmu_counters_opts o;
	int err;

	if (!ev || n == 0 || !t || !out)
		return pmuk_fail(PMU_EINVAL, "pmu_counters_open needs events, a target and an out "
				 "pointer");
	*out = NULL;
	if ((err = PMUK_OPTS_LOAD(o, opts, pmu_counters_opts)) < 0)
		return err;
	return pmuk_counters_os_open(ev, n, t, &o, out);
}

int pmu_counters_open(const struct pmu_event_list *events, const struct pmu_target *target,
		      const struct pmu_counters_opts *opts, struct pmu_counters **out)
{
	if (!events || events->n == 0)
		return pmuk_fail(PMU_EINVAL, "pmu_counters_open needs a non-empty event list");
	return pmuk_counters_open_events(events->ev, events->n, target, opts, out);
}

void pmu_counters_close(struct pmu_counters *c)
{
	if (c)
		pmuk_counters_os_close(c);
}

int pmu_counters_enable(struct pmu_counters *c)
{
	return c ? pmuk_counters_os_enable(c) : pmuk_fail(PMU_EINVAL, "enabling: NULL handle");
}

int pmu_counters_disable(struct pmu_counters *c)
{
	return c ? pmuk_counters_os_disable(c) : pmuk_fail(PMU_EINVAL, "disabling: NULL handle");
}

int pmu_counters_reset(struct pmu_counters *c)
{
	return c ? pmuk_counters_os_reset(c) : pmuk_fail(PMU_EINVAL, "resetting: NULL handle");
}

static int read_checks(const struct pmu_counters *c, const struct pmu_reading *out, size_t n)
{
	if (!c || !out)
		return pmuk_fail(PMU_EINVAL, "pmu_counters_read needs a handle and an output array");
	if (n < head(c)->nev)
		return pmuk_fail(PMU_ERANGE, "the output array holds %zu readings but %zu events "
				 "are counted", n, head(c)->nev);
	return 0;
}

int pmu_counters_read(struct pmu_counters *c, struct pmu_reading *out, size_t n)
{
	int err = read_checks(c, out, n);

	return err < 0 ? err : pmuk_counters_os_read(c, SIZE_MAX, out);
}

int pmu_counters_read_cpu(struct pmu_counters *c, size_t cpu_index, struct pmu_reading *out,
			  size_t n)
{
	int err;

	if (!c || !head(c)->cpu_target || cpu_index >= head(c)->nunits)
		return pmuk_fail(PMU_EINVAL, "pmu_counters_read_cpu: index %zu is not a CPU of this "
				 "handle (it has %zu)", cpu_index, pmu_counters_cpu_count(c));
	if ((err = read_checks(c, out, n)) < 0)
		return err;
	return pmuk_counters_os_read(c, cpu_index, out);
}

int pmu_counters_read_thread(struct pmu_counters *c, size_t thread_index,
			     struct pmu_reading *out, size_t n)
{
	int err;

	if (c && !head(c)->cpu_target && head(c)->no_threads)
		return pmuk_fail(PMU_ENOTSUP, "pmu_counters_read_thread: index %zu: %s",
				 thread_index, head(c)->no_threads);
	if (!c || head(c)->cpu_target || thread_index >= head(c)->nunits)
		return pmuk_fail(PMU_EINVAL, "pmu_counters_read_thread: index %zu is not a thread "
				 "of this handle (it has %zu)", thread_index,
				 pmu_counters_thread_count(c));
	if ((err = read_checks(c, out, n)) < 0)
		return err;
	return pmuk_counters_os_read(c, thread_index, out);
}

size_t pmu_counters_event_count(const struct pmu_counters *c)
{
	return c ? head(c)->nev : 0;
}

const struct pmu_event *pmu_counters_event(const struct pmu_counters *c, size_t i)
{
	return c && i < head(c)->nev ? &head(c)->ev[i] : NULL;
}

const char *pmu_counters_unsupported(const struct pmu_counters *c, size_t i)
{
	return c && i < head(c)->nev ? pmuk_counters_os_unsupported(c, i) : NULL;
}

int pmu_counters_left_with_group(const struct pmu_counters *c, size_t i)
{
	return c && i < head(c)->nev ? pmuk_counters_os_left_with_group(c, i) : 0;
}

size_t pmu_counters_cpu_count(const struct pmu_counters *c)
{
	return c && head(c)->cpu_target ? head(c)->nunits : 0;
}

int pmu_counters_cpu(const struct pmu_counters *c, size_t i)
{
	return c && head(c)->cpu_target && i < head(c)->nunits ? head(c)->unit[i] : -1;
}

size_t pmu_counters_thread_count(const struct pmu_counters *c)
{
	return c && !head(c)->cpu_target ? head(c)->nunits : 0;
}

int pmu_counters_thread(const struct pmu_counters *c, size_t i)
{
	return c && !head(c)->cpu_target && i < head(c)->nunits ? head(c)->unit[i] : -1;
}
