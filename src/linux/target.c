/* SPDX-License-Identifier: MIT */
/* Target expansion: /proc/PID/task for a process, /sys/.../cpu/online for all CPUs. */
#include "linux/target.h"
#include "core/grow.h"
#include "core/cpulist.h"
#include "core/error.h"
#include "core/sysroot.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int push(struct pmuk_units *u, size_t *cap, long v)
{
	if (pmuk_grow((void **)&u->id, cap, u->n + 1, sizeof(*u->id)))
		return pmuk_fail(PMU_ENOMEM, "out of memory expanding the target");
	u->id[u->n++] = (int)v;
	return 0;
}

/* Appends the threads of pid to u (whose array holds *cap). */
static int threads_of(int pid, struct pmuk_units *u, size_t *cap)
{
	char path[4096];
	struct dirent *de;
	size_t n0 = u->n;
	DIR *d;
	int err;

	/* The real /proc, whatever the sysroot: that holds fixture sysfs/proc trees
	 * (topology, caps), never the live processes counted. */
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(d = opendir(path)))
		return errno == ENOENT ? pmuk_fail(PMU_ESRCH, "no such process %d", pid)
		       : pmuk_fail(PMU_EIO, "cannot list the threads of %d (%s): %s", pid, path,
				   strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if ((err = push(u, cap, strtol(de->d_name, NULL, 10))) < 0) {
			closedir(d);
			return err;
		}
	}
	closedir(d);
	if (u->n == n0)
		return pmuk_fail(PMU_ESRCH, "no such process %d (it has no threads left)", pid);
	return 0;
}

/* The tasks of a PID/TID target: pids[] when given, else pid. */
static int tasks_of(const struct pmu_target *t, struct pmuk_units *u, size_t *cap)
{
	const int *ids = t->pids && t->npids ? t->pids : &t->pid;
	size_t n = t->pids && t->npids ? t->npids : 1;
	int err = 0;

	for (size_t i = 0; i < n && err == 0; i++) {
		size_t j = 0;

		while (j < i && ids[j] != ids[i])
			j++;
		if (j < i)
			continue;	/* named twice: counted once */
		if (ids[i] <= 0)
			return pmuk_fail(PMU_EINVAL, "%s needs %s ids > 0 (got %d)",
					 t->kind == PMU_TARGET_TID ? "PMU_TARGET_TID" : "PMU_TARGET_PID",
					 t->kind == PMU_TARGET_TID ? "thread" : "process", ids[i]);
		err = t->kind == PMU_TARGET_TID ? push(u, cap, ids[i]) : threads_of(ids[i], u, cap);
	}
	return err;
}

static int online_cpus(struct pmuk_units *u)
{
	char path[4096], buf[4096];
	int err;

	if ((err = pmuk_path(path, sizeof(path), "/sys/devices/system/cpu/online")) < 0)
		return err;
	if ((err = pmuk_read_text(path, buf, sizeof(buf))) < 0)
		return pmuk_fail(err, "cannot read the online CPUs from %s", path);
	if ((err = pmuk_cpulist_parse(buf, &u->id, &u->n)) < 0)
		return err;
	if (u->n == 0)
		return pmuk_fail(PMU_EFORMAT, "%s lists no CPU (\"%s\")", path, buf);
	return 0;
}

int pmuk_target_units(const struct pmu_target *t, struct pmuk_units *u)
{
	size_t cap = 0;
	int err = 0;

	memset(u, 0, sizeof(*u));
	switch (t->kind) {
	case PMU_TARGET_SELF:
		err = push(u, &cap, 0);
		break;
	case PMU_TARGET_TID:
	case PMU_TARGET_PID:
		err = tasks_of(t, u, &cap);
		break;
	case PMU_TARGET_CPUS:
		u->cpu = 1;
		if (!t->cpus) {
			err = online_cpus(u);
			break;
		}
		if (t->ncpus == 0)
			return pmuk_fail(PMU_EINVAL, "PMU_TARGET_CPUS with an empty CPU array");
		for (size_t i = 0; i < t->ncpus && err == 0; i++)
			err = push(u, &cap, t->cpus[i]);
		break;
	default:
		return pmuk_fail(PMU_EINVAL, "unknown target kind %d", (int)t->kind);
	}
	if (err < 0)
		pmuk_units_free(u);
	return err;
}

void pmuk_units_free(struct pmuk_units *u)
{
	free(u->id);
	u->id = NULL;
	u->n = 0;
}
