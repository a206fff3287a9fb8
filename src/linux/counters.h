/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_COUNTERS_H
#define PMUK_LINUX_COUNTERS_H

#include <pthread.h>
#include <stddef.h>

#include <pmukit/counting.h>

#include "core/counting_int.h"
#include "core/osthread.h"
#include "linux/userread.h"

/* The handle, shared by the open (counters.c) and read (counters_read.c) halves. */
struct pmuk_cgroup {
	size_t n;
	size_t *m;      /* member event indexes, leader first */
	char cpus[256]; /* CPUs its PMU serves (hybrid), "" = all */
	int uread;      /* every member can be read from user space */
	char *unsupported; /* why the host cannot count it (skip_unsupported), else NULL */
	char **why;     /* [n] once left out: each member's own reason */
	unsigned char *grouped; /* [n] once left out: 1 when the member counts alone */
	size_t failed;  /* the member whose open failed last, n when none or the group */
	int opened;     /* opened on some unit: from then on a failure is an error */
};

struct pmu_counters {
	PMUK_COUNTERS_HEAD /* first: ev, nev, cpu_target, unit, nunits (core/counting_int.h) */
	size_t ngrp;
	struct pmuk_cgroup *grp;
	int user_fallback; /* opts.user_fallback: also when a member is tried alone */
	int *fd;        /* [unit * nev + event] */
	uint64_t *id;
	void **page;    /* [event]: user-read pages, PMU_TARGET_SELF only */
	size_t pagesz;
	pthread_t owner; /* the thread counted: rdpmc is only valid there */
	unsigned forks;  /* pmuk_fork_count at open: a forked child has no pages */
	const struct pmuk_uread_ops *uops;
	uint64_t *buf;  /* one group read */
	size_t bufsz;
	struct pmu_reading *sum; /* [event]: one unit's readings, summed over units */
};

/* The PMU description used by the counter budget and hybrid CPU placement;
 * pmu_device_lookup by default, replaceable by tests. */
typedef int (*pmuk_device_lookup_fn)(const char *name, struct pmu_device *out);
void pmuk_counters_set_device_lookup(pmuk_device_lookup_fn fn);

/* True when every thread of a task target has exited without ever counting. The
 * kernel accepts PERF_EVENT_IOC_ENABLE on the counter of an exited task and ignores
 * it, so without this check such a target reads as zeros, as if it had idled. */
int pmuk_counters_never_ran(struct pmu_counters *c);

/* pmuk_fork_count (core/osthread.h) matters here too: the kernel does not copy perf
 * mappings (VM_DONTCOPY), so a child touching its parent's pages would fault. */

/* True when the calling thread may read c's pages from user space: the thread that
 * opened a PMU_TARGET_SELF handle, in the process that opened it. */
static inline int pmuk_counters_uread_here(const struct pmu_counters *c)
{
	return c->uops && c->forks == pmuk_fork_count && pthread_equal(c->owner, pthread_self());
}

/* Replaces the user-read instructions of a PMU_TARGET_SELF handle (tests, benches). */
void pmuk_counters_set_uread_ops(struct pmu_counters *c, const struct pmuk_uread_ops *ops);

#endif
