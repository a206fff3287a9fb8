/* SPDX-License-Identifier: MIT */
/* The read path: one read() per group fd (or a user-space read of the calling
 * thread's counters), no allocation, ids mapped back to events. */
#include "linux/counters.h"
#include "core/error.h"
#include "core/scale.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/perf_event.h>

void pmuk_counters_set_uread_ops(struct pmu_counters *c, const struct pmuk_uread_ops *ops)
{
	c->uops = ops;
}

static void set(struct pmu_reading *r, uint64_t val, uint64_t ena, uint64_t run, uint32_t flags)
{
	r->flags = flags;
	pmuk_reading_set(r, val, ena, run);
}

/* All members from their pages, or 1 to fall back to read(). c->buf is scratch. */
static int uread_group(struct pmu_counters *c, const struct pmuk_cgroup *g,
		       struct pmu_reading *out)
{
	uint64_t *v = c->buf, ena, run;

	if (pmuk_uread_group(c->page, g->m, g->n, c->uops, v, &ena, &run) != PMUK_UREAD_OK)
		return 1;
	for (size_t i = 0; i < g->n; i++)
		set(&out[g->m[i]], v[i], ena, run, 0);
	return 0;
}

/* What is not a whole group read: EINTR, a pinned group in error state (EOF), an
 * error, a short read. */
static int read_unusual(struct pmu_counters *c, int lfd, const struct pmuk_cgroup *g,
			struct pmu_reading *out, ssize_t *r)
{
	while (*r < 0 && errno == EINTR)
		*r = read(lfd, c->buf, c->bufsz);
	if (*r < 0)
		return pmuk_fail(PMU_EIO, "reading the group of %s failed: %s",
				 c->ev[g->m[0]].name, strerror(errno));
	if (*r == 0) {
		/* EOF: a pinned group lost its counters and stays in error state. */
		for (size_t i = 0; i < g->n; i++)
			set(&out[g->m[i]], 0, 0, 0, PMU_READING_ERROR_STATE);
		return 1;
	}
	if (c->buf[0] != g->n || (size_t)*r < (3 + 2 * g->n) * sizeof(uint64_t))
		return pmuk_fail(PMU_EIO, "short group read of %s: %zd bytes for %llu of %zu events",
				 c->ev[g->m[0]].name, *r, (unsigned long long)c->buf[0], g->n);
	return 0;
}

/* Sets out[] for the members of g from one read of unit u. */
static int read_group(struct pmu_counters *c, size_t u, const struct pmuk_cgroup *g,
		      struct pmu_reading *out)
{
	const uint64_t *ids = &c->id[u * c->nev], *b = c->buf;
	int lfd = c->fd[u * c->nev + g->m[0]], err;
	ssize_t r;

	if (lfd < 0) {
		/* Not opened on this unit (a hybrid PMU's group on another core type),
		 * or on none (left out: the host cannot count it). */
		for (size_t i = 0; i < g->n; i++)
			set(&out[g->m[i]], 0, 0, 0, g->unsupported ? PMU_READING_UNSUPPORTED : 0);
		return 0;
	}
	if (g->uread && pmuk_counters_uread_here(c) && uread_group(c, g, out) == 0)
		return 0;
	/* nr, time_enabled, time_running, then {value, id} per member: the size says nr */
	r = read(lfd, c->buf, c->bufsz);
	if ((size_t)r != (3 + 2 * g->n) * sizeof(uint64_t) &&
	    (err = read_unusual(c, lfd, g, out, &r)) != 0)
		return err < 0 ? err : 0;
	for (size_t k = 0; k < g->n; k++) {
		uint64_t id = b[4 + 2 * k];
		size_t j = k; /* the kernel keeps open order: try that slot first */

		if (ids[g->m[j]] != id)
			for (j = 0; j < g->n && ids[g->m[j]] != id; j++)
				;
		if (j == g->n)
			return pmuk_fail(PMU_EIO, "the group read of %s returned id %llu, which is "
					 "none of its events", c->ev[g->m[0]].name,
					 (unsigned long long)id);
		set(&out[g->m[j]], b[3 + 2 * k], b[1], b[2], 0);
	}
	return 0;
}

/* Readings summed over units u0..u1 (threads or CPUs); c->sum holds one unit's. */
static int read_units(struct pmu_counters *c, size_t u0, size_t u1, struct pmu_reading *out)
{
	int err;

	if (u1 - u0 == 1) {
		for (size_t g = 0; g < c->ngrp; g++)
			if ((err = read_group(c, u0, &c->grp[g], out)) < 0)
				return err;
		return 0;
	}
	memset(out, 0, c->nev * sizeof(*out));
	for (size_t u = u0; u < u1; u++) {
		for (size_t g = 0; g < c->ngrp; g++)
			if ((err = read_group(c, u, &c->grp[g], c->sum)) < 0)
				return err;
		for (size_t e = 0; e < c->nev; e++)
			pmuk_reading_add(&out[e], &c->sum[e]);
	}
	for (size_t e = 0; e < c->nev; e++)
		pmuk_reading_set(&out[e], out[e].value, out[e].time_enabled, out[e].time_running);
	return 0;
}

int pmuk_counters_os_read(struct pmu_counters *c, size_t index, struct pmu_reading *out)
{
	if (index == SIZE_MAX)
		return read_units(c, 0, c->nunits, out);
	return read_units(c, index, index + 1, out);
}

/* Siblings stay enabled from open to close; enabling or disabling the leader alone
 * starts or stops the whole group. (Enabling siblings of a running leader would leave
 * them unscheduled until the next context switch.) */
static int ioctl_all(struct pmu_counters *c, unsigned long req, unsigned long arg,
		     const char *what)
{
	if (!c)
		return pmuk_fail(PMU_EINVAL, "%s: NULL handle", what);
	for (size_t u = 0; u < c->nunits; u++)
		for (size_t g = 0; g < c->ngrp; g++) {
			int fd = c->fd[u * c->nev + c->grp[g].m[0]];

			if (fd >= 0 && ioctl(fd, req, arg) < 0)
				return pmuk_fail(PMU_EIO, "%s of the group of %s failed: %s", what,
						 c->ev[c->grp[g].m[0]].name, strerror(errno));
		}
	return 0;
}

int pmuk_counters_os_enable(struct pmu_counters *c)
{
	int err = ioctl_all(c, PERF_EVENT_IOC_ENABLE, 0, "enabling");

	if (err == 0 && pmuk_counters_never_ran(c))
		return pmuk_fail(PMU_ESRCH, "thread %d%s exited before the counters were enabled: "
				 "nothing was counted", c->unit[0],
				 c->nunits > 1 ? " and every other counted thread" : "");
	return err;
}

int pmuk_counters_os_disable(struct pmu_counters *c)
{
	return ioctl_all(c, PERF_EVENT_IOC_DISABLE, 0, "disabling");
}

int pmuk_counters_os_reset(struct pmu_counters *c)
{
	return ioctl_all(c, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP, "resetting");
}

/* The group of event i and its place there; NULL when i is out of range. */
static const struct pmuk_cgroup *group_of(const struct pmu_counters *c, size_t i, size_t *k)
{
	for (size_t g = 0; c && i < c->nev && g < c->ngrp; g++)
		for (*k = 0; *k < c->grp[g].n; (*k)++)
			if (c->grp[g].m[*k] == i)
				return &c->grp[g];
	return NULL;
}

const char *pmuk_counters_os_unsupported(const struct pmu_counters *c, size_t i)
{
	size_t k;
	const struct pmuk_cgroup *g = group_of(c, i, &k);

	if (!g || !g->unsupported)
		return NULL;
	return g->why ? g->why[k] : g->unsupported;
}

int pmuk_counters_os_left_with_group(const struct pmu_counters *c, size_t i)
{
	size_t k;
	const struct pmuk_cgroup *g = group_of(c, i, &k);

	return g && g->grouped ? g->grouped[k] : 0;
}
