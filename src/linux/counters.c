/* SPDX-License-Identifier: MIT */
/* Counting: one perf group per event group per thread (or CPU), read with
 * PERF_FORMAT_GROUP into a buffer allocated at open, summed over threads/CPUs. */
#include "linux/counters.h"
#include "linux/perf_event.h"
#include "linux/target.h"
#include "core/cpulist.h"
#include "core/error.h"
#include "core/opts.h"
#include "core/event_list.h"
#include "core/scale.h"
#include "core/sysroot.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static pmuk_device_lookup_fn device_lookup = pmu_device_lookup;

void pmuk_counters_set_device_lookup(pmuk_device_lookup_fn fn)
{
	device_lookup = fn ? fn : pmu_device_lookup;
}

static const char *event_pmu(const struct pmu_event *ev)
{
	return ev->pmu[0] ? ev->pmu : "cpu";
}

/* "{a,b,c}" for sentences. */
static void group_text(const struct pmu_event *ev, const size_t *m, size_t n, char *buf,
		       size_t size)
{
	size_t len = 0;

	snprintf(buf, size, "{");
	for (size_t i = 0; i < n; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? "," : "", ev[m[i]].name);
	}
	len = strlen(buf);
	if (len + 2 > size && size > 5)
		snprintf(buf + size - 5, 5, "...}");
	else
		snprintf(buf + len, size - len, "}");
}

static int budget_group(const struct pmu_event *ev, const size_t *m, size_t n)
{
	char gtext[200];

	for (size_t i = 0; i < n; i++) {
		const struct pmu_event *e = &ev[m[i]];
		struct pmu_device d;
		int need = 0, seen = 0;

		if (!pmuk_event_is_hw(e))
			continue;
		for (size_t j = 0; j < n; j++) {
			if (!pmuk_event_is_hw(&ev[m[j]]) ||
			    strcmp(event_pmu(&ev[m[j]]), event_pmu(e)) != 0)
				continue;
			if (j < i)
				seen = 1; /* this PMU was checked already */
			need++;
		}
		/* one event fits any PMU: no lookup (its budget would load libpfm4) */
		if (seen || need < 2 || device_lookup(event_pmu(e), &d) < 0)
			continue;
		if (d.gp_counters < 0 || d.fixed_counters < 0 ||
		    need <= d.gp_counters + d.fixed_counters)
			continue;
		group_text(ev, m, n, gtext, sizeof(gtext));
		return pmuk_fail(PMU_EBUDGET, "group %s needs %d counters but the %s PMU has %d "
				 "general-purpose + %d fixed; split the group", gtext, need,
				 event_pmu(e), d.gp_counters, d.fixed_counters);
	}
	return 0;
}

/* Groups in order of first appearance; leader first. */
static int build_groups(struct pmu_counters *c)
{
	int *gid = calloc(c->nev, sizeof(*gid));

	c->grp = calloc(c->nev, sizeof(*c->grp));
	if (!gid || !c->grp) {
		free(gid);
		return pmuk_fail(PMU_ENOMEM, "out of memory planning %zu events", c->nev);
	}
	for (size_t i = 0; i < c->nev; i++) {
		size_t g = 0;

		while (g < c->ngrp && gid[g] != c->ev[i].group)
			g++;
		if (g == c->ngrp) {
			gid[c->ngrp++] = c->ev[i].group;
			c->grp[g].m = calloc(c->nev, sizeof(size_t));
			if (!c->grp[g].m) {
				free(gid);
				return pmuk_fail(PMU_ENOMEM, "out of memory planning groups");
			}
		}
		if (c->ev[i].group_leader && c->grp[g].n > 0) {
			memmove(c->grp[g].m + 1, c->grp[g].m, c->grp[g].n * sizeof(size_t));
			c->grp[g].m[0] = i;
		} else {
			c->grp[g].m[c->grp[g].n] = i;
		}
		c->grp[g].n++;
	}
	free(gid);
	return 0;
}

int pmuk_counters_check_budget(const struct pmu_event *ev, size_t n)
{
	struct pmu_counters c = { .ev = (struct pmu_event *)ev, .nev = n };
	int err = build_groups(&c);

	for (size_t g = 0; err == 0 && g < c.ngrp; g++)
		err = budget_group(ev, c.grp[g].m, c.grp[g].n);
	for (size_t g = 0; g < c.ngrp; g++)
		free(c.grp[g].m);
	free(c.grp);
	return err;
}

static int cpulist_has(const char *s, int cpu)
{
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s)
			return 0;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (cpu >= a && cpu <= b)
			return 1;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return 0;
}

/* The threads or CPUs to open on, as the target stands now. */
static int units_of(struct pmu_counters *c, const struct pmu_target *t)
{
	struct pmuk_units u;
	int err = pmuk_target_units(t, &u);

	if (err < 0)
		return err;
	c->unit = u.id;
	c->nunits = u.n;
	c->cpu_target = u.cpu;
	return 0;
}

/* Hybrid: a group of hardware events only exists on the CPUs of its PMU. One whose
 * PMU serves none of the target's CPUs would open nowhere and read zeros. */
static int group_cpus(struct pmu_counters *c, struct pmuk_cgroup *g)
{
	g->failed = g->n;
	for (size_t i = 0; i < g->n; i++) {
		const struct pmu_event *e = &c->ev[g->m[i]];
		struct pmu_device d;
		char gtext[200];

		if (!pmuk_event_is_hw(e) || device_lookup(event_pmu(e), &d) < 0 || !d.cpus[0])
			continue;
		snprintf(g->cpus, sizeof(g->cpus), "%s", d.cpus);
		for (size_t u = 0; u < c->nunits; u++)
			if (cpulist_has(g->cpus, c->unit[u]))
				return 0;
		group_text(c->ev, g->m, g->n, gtext, sizeof(gtext));
		return pmuk_fail(PMU_ENOTSUP, "group %s cannot count on the CPUs asked: the %s PMU "
				 "serves CPUs %s only", gtext, event_pmu(e), g->cpus);
	}
	return 0;
}

static int sibling_rejected(struct pmu_counters *c, struct pmuk_cgroup *g, const struct pmu_event *e)
{
	struct pmu_device d;
	char gtext[200];

	group_text(c->ev, g->m, g->n, gtext, sizeof(gtext));
	if (device_lookup(event_pmu(e), &d) == 0 && d.gp_counters >= 0 && d.fixed_counters >= 0)
		return pmuk_fail(PMU_EBUDGET, "group %s does not fit: the kernel rejected member %s "
				 "(EINVAL) and the %s PMU has %d general-purpose + %d fixed counters; "
				 "split the group", gtext, e->name, event_pmu(e), d.gp_counters,
				 d.fixed_counters);
	return pmuk_fail(PMU_EBUDGET, "group %s does not fit: the kernel rejected member %s "
			 "(EINVAL), so its events cannot share the %s PMU's counters at once; "
			 "split the group", gtext, e->name, event_pmu(e));
}

#if defined(__aarch64__)
static int arm_core(const struct pmu_event *e)
{
	struct pmu_device d;

	return device_lookup(event_pmu(e), &d) == 0 && d.is_core;
}
#endif

/* Asks the kernel whether the hardware members of g fit its PMU together. The real
 * group is opened with its leader disabled, and some kernels (arm64) leave a disabled
 * leader out of that check, so a group one counter too large would open and never
 * run. The probe opens the members on the calling thread with the leader enabled,
 * and closes them at once; only a rejected sibling (EINVAL) means anything here. */
static int probe_fit(struct pmu_counters *c, struct pmuk_cgroup *g)
{
	int fds[64], nfd = 0, err = 0;

	g->failed = g->n;
	for (size_t i = 0; i < g->n && nfd < 64; i++) {
		const struct pmu_event *e = &c->ev[g->m[i]];
		struct pmuk_open_flags f = { 0 };
		struct perf_event_attr attr;
		int fd;

		if (!pmuk_event_is_hw(e))
			continue;
		pmuk_perf_attr(e, &f, &attr);
		fd = pmuk_perf_open(&attr, 0, -1, nfd ? fds[0] : -1);
		if (fd < 0) {
			struct pmuk_open_ctx ctx = { e, 0, -1, 1, NULL };

			if (-fd == EINVAL && nfd > 0 && !(err = pmuk_perf_modifier_refused(&ctx)))
				err = sibling_rejected(c, g, e);
			g->failed = i;
			break;
		}
		fds[nfd++] = fd;
	}
	while (nfd > 0)
		close(fds[--nfd]);
	return err;
}

/* Opens attr (built from e and f); with user_fallback, a task's event that
 * perf_event_paranoid refuses kernel mode is made user-only (e renamed :u) and
 * opened again, attr rebuilt with the caller's config1 bits kept. The fd or -errno. */
static int open_event(struct pmu_event *e, const struct pmuk_open_flags *f,
		      struct perf_event_attr *attr, int user_fallback, int pid, int cpu, int leader)
{
	int fd = pmuk_perf_open(attr, pid, cpu, leader);

	if (fd < 0 && user_fallback && pid != -1 && pmuk_perf_user_fallback(e, -fd)) {
		uint64_t extra = attr->config1; /* the caller's own bits (arm64 user reads) */

		pmuk_perf_attr(e, f, attr);
		attr->config1 |= extra;
		fd = pmuk_perf_open(attr, pid, cpu, leader);
	}
	return fd;
}

/* Opens group g on unit u. Returns 0, 1 when a thread vanished meanwhile, or an error. */
static int open_group(struct pmu_counters *c, struct pmuk_cgroup *g, size_t u,
		      const struct pmu_counters_opts *o)
{
	int pid = c->cpu_target ? -1 : c->unit[u], cpu = c->cpu_target ? c->unit[u] : -1;
	int leader = -1;
	char gtext[200];

	g->failed = g->n;
	if (c->cpu_target && g->cpus[0] && !cpulist_has(g->cpus, cpu))
		return 0;
	for (size_t i = 0; i < g->n; i++) {
		size_t e = g->m[i];
		struct pmuk_open_flags f = {
			/* Siblings joining a running leader are not scheduled until the
			 * next context switch: open the leader disabled, enable below. */
			.disabled = i == 0,
			.inherit = o->inherit,
			.enable_on_exec = i == 0 && o->enable_on_exec,
			.pinned = i == 0 && o->pinned,
		};
		struct perf_event_attr attr;
		int fd;

		pmuk_perf_attr(&c->ev[e], &f, &attr);
#if defined(__aarch64__)
		/* arm64 grants EL0 counter reads only on request: format "rdpmc" = config1:1 */
		if (pid == 0 && pmuk_event_is_hw(&c->ev[e]) && arm_core(&c->ev[e]))
			attr.config1 |= 2;
#endif
		fd = open_event(&c->ev[e], &f, &attr, o->user_fallback, pid, cpu, leader);
		if (fd < 0) {
			struct pmuk_open_ctx ctx = { &c->ev[e], pid, cpu, i > 0, gtext };

			if (-fd == ESRCH && c->nunits > 1 && !c->cpu_target)
				return 1; /* the thread exited since /proc listed it */
			g->failed = i;
			group_text(c->ev, g->m, g->n, gtext, sizeof(gtext));
			if (-fd == EINVAL && i > 0 && pmuk_event_is_hw(&c->ev[e])) {
				int err = pmuk_perf_modifier_refused(&ctx);

				return err ? err : sibling_rejected(c, g, &c->ev[e]);
			}
			return pmuk_perf_fail(-fd, &ctx);
		}
		c->fd[u * c->nev + e] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &c->id[u * c->nev + e]) < 0)
			return pmuk_fail(PMU_EIO, "PERF_EVENT_IOC_ID on %s failed: %s",
					 c->ev[e].name, strerror(errno));
		if (i == 0)
			leader = fd;
	}
	if (!o->start_disabled && !o->enable_on_exec &&
	    ioctl(leader, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return pmuk_fail(PMU_EIO, "enabling the group of %s failed: %s",
				 c->ev[g->m[0]].name, strerror(errno));
	g->opened = 1;
	return 0;
}

/* True when thread tid has exited: /proc has no such task, or a zombie. */
static int thread_exited(int tid)
{
	char path[4096], buf[1024], *p;
	int n;

	/* the real /proc: a live thread is never in the sysroot's fixture tree */
	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	n = pmuk_read_text(path, buf, sizeof(buf));
	if (n < 0)
		return n == PMU_ENOENT;
	p = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold anything */
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* True when unit u counted at some point (or cannot tell: a read failed). */
static int unit_counted(struct pmu_counters *c, size_t u)
{
	for (size_t g = 0; g < c->ngrp; g++) {
		int lfd = c->fd[u * c->nev + c->grp[g].m[0]];

		/* buf[1] is time_enabled: it only grows while the task runs enabled */
		if (lfd >= 0 && (read(lfd, c->buf, c->bufsz) <= 0 || c->buf[1] > 0))
			return 1;
	}
	return 0;
}

static int unit_open(const struct pmu_counters *c, size_t u)
{
	for (size_t e = 0; e < c->nev; e++)
		if (c->fd[u * c->nev + e] >= 0)
			return 1;
	return 0;
}

int pmuk_counters_never_ran(struct pmu_counters *c)
{
	int any = 0;

	if (c->cpu_target || c->unit[0] == 0)
		return 0;
	for (size_t u = 0; u < c->nunits; u++) {
		if (!unit_open(c, u))
			continue; /* vanished while opening, or nothing countable (allow_empty) */
		/* Looked at again once it is gone: it may have run in between. */
		if (unit_counted(c, u) || !thread_exited(c->unit[u]) || unit_counted(c, u))
			return 0;
		any = 1;
	}
	return any;
}

static void close_unit(struct pmu_counters *c, size_t u)
{
	for (size_t e = 0; e < c->nev; e++) {
		if (c->fd[u * c->nev + e] >= 0)
			close(c->fd[u * c->nev + e]);
		c->fd[u * c->nev + e] = -1;
	}
}

/* Self-monitoring: map each member's page when the whole group is hardware. */
static void map_pages(struct pmu_counters *c)
{
	c->pagesz = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t g = 0; g < c->ngrp; g++) {
		struct pmuk_cgroup *gr = &c->grp[g];
		size_t i;

		for (i = 0; i < gr->n; i++) {
			size_t e = gr->m[i];
			void *p;

			if (!pmuk_event_is_hw(&c->ev[e]) || c->fd[e] < 0)
				break;
			p = mmap(NULL, c->pagesz, PROT_READ, MAP_SHARED, c->fd[e], 0);
			if (p == MAP_FAILED)
				break;
			c->page[e] = p;
		}
		gr->uread = i == gr->n;
		for (size_t j = 0; !gr->uread && j < i; j++) {
			munmap(c->page[gr->m[j]], c->pagesz);
			c->page[gr->m[j]] = NULL;
		}
	}
}

void pmuk_counters_os_close(struct pmu_counters *c)
{
	for (size_t e = 0; c->page && e < c->nev; e++)
		if (c->page[e])
			munmap(c->page[e], c->pagesz);
	for (size_t u = 0; c->fd && u < c->nunits; u++)
		close_unit(c, u);
	for (size_t g = 0; c->grp && g < c->ngrp; g++) {
		for (size_t k = 0; c->grp[g].why && k < c->grp[g].n; k++)
			free(c->grp[g].why[k]);
		free(c->grp[g].why);
		free(c->grp[g].grouped);
		free(c->grp[g].m);
		free(c->grp[g].unsupported);
	}
	free(c->grp);
	free(c->ev);
	free(c->unit);
	free(c->fd);
	free(c->id);
	free(c->page);
	free(c->buf);
	free(c->sum);
	free(c);
}

/* Why member k of g, left out on unit u, is not counted. The member that failed
 * keeps the group's reason; each other one is tried alone, so that it gets its own
 * reason, or is told that it counts but its group cannot (perf counts a group whole
 * or not at all). Leaves the reason in the error detail. */
static void member_reason(struct pmu_counters *c, struct pmuk_cgroup *g, size_t u, size_t k)
{
	struct pmu_event *e = &c->ev[g->m[k]];
	int pid = c->cpu_target ? -1 : c->unit[u], cpu = c->cpu_target ? c->unit[u] : -1;
	struct pmuk_open_flags f = { .disabled = 1 };
	struct pmuk_open_ctx ctx = { e, pid, cpu, 0, NULL };
	struct perf_event_attr attr;
	char gtext[200];
	int fd;

	if (g->failed >= g->n || k == g->failed) {
		pmuk_fail(PMU_ENOTSUP, "%s", g->unsupported);
		return;
	}
	pmuk_perf_attr(e, &f, &attr);
	fd = open_event(e, &f, &attr, c->user_fallback, pid, cpu, -1);
	if (fd < 0) {
		pmuk_perf_fail(-fd, &ctx);
		return;
	}
	close(fd);
	g->grouped[k] = 1;
	group_text(c->ev, g->m, g->n, gtext, sizeof(gtext));
	pmuk_fail(PMU_ENOTSUP, "left out with its group %s: %s cannot be counted here, and a "
		  "group counts whole or not at all; list %s outside the group to count it",
		  gtext, c->ev[g->m[g->failed]].name, e->name);
}

/* skip_unsupported: closes what open_group opened of g on unit u and keeps why,
 * for the group and for each member. */
static int leave_out(struct pmu_counters *c, struct pmuk_cgroup *g, size_t u)
{
	for (size_t i = 0; i < g->n; i++) {
		int *fd = &c->fd[u * c->nev + g->m[i]];

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	g->why = calloc(g->n, sizeof(*g->why));
	g->grouped = calloc(g->n, 1);
	if (!g->why || !g->grouped || !(g->unsupported = strdup(pmu_error_detail())))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening counters");
	for (size_t k = 0; k < g->n; k++) {
		member_reason(c, g, u, k);
		if (!(g->why[k] = strdup(pmu_error_detail())))
			return pmuk_fail(PMU_ENOMEM, "out of memory opening counters");
	}
	pmuk_clear_detail();
	return 0;
}

/* err, the outcome of trying g on unit u; with skip_unsupported a PMU_ENOTSUP
 * leaves g out (0) until g has opened somewhere: from then on units must agree. */
static int judge(struct pmu_counters *c, struct pmuk_cgroup *g, size_t u, int skip, int err)
{
	if (err != PMU_ENOTSUP || !skip || g->opened)
		return err;
	return leave_out(c, g, u);
}

/* Nothing to count when every group was left out: each distinct reason is the error
 * (unless allow_empty). */
static int all_left_out(struct pmu_counters *c, int allow_empty)
{
	const char *why[64];
	size_t n = 0;

	if (allow_empty)
		return 0;
	for (size_t g = 0; g < c->ngrp; g++) {
		if (!c->grp[g].unsupported)
			return 0;
		if (n < sizeof(why) / sizeof(why[0]))
			why[n++] = c->grp[g].unsupported;
	}
	return pmuk_fail_reasons(PMU_ENOTSUP, why, n);
}

static int alloc_arrays(struct pmu_counters *c)
{
	size_t maxn = 0;

	for (size_t g = 0; g < c->ngrp; g++)
		if (c->grp[g].n > maxn)
			maxn = c->grp[g].n;
	/* nr, time_enabled, time_running, then {value, id} per member */
	c->bufsz = (3 + 2 * maxn) * sizeof(uint64_t);
	c->buf = malloc(c->bufsz);
	c->fd = malloc(c->nunits * c->nev * sizeof(int));
	c->id = calloc(c->nunits * c->nev, sizeof(uint64_t));
	c->page = calloc(c->nev, sizeof(void *));
	c->sum = calloc(c->nev, sizeof(*c->sum));
	if (!c->buf || !c->fd || !c->id || !c->page || !c->sum)
		return pmuk_fail(PMU_ENOMEM, "out of memory for %zu events on %zu threads/CPUs",
				 c->nev, c->nunits);
	for (size_t i = 0; i < c->nunits * c->nev; i++)
		c->fd[i] = -1;
	return 0;
}

PMUK_COUNTERS_HEAD_CHECK(struct pmu_counters);

int pmuk_counters_os_open(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			  const struct pmu_counters_opts *o, struct pmu_counters **out)
{
	struct pmu_counters *c;
	size_t opened = 0;
	int err;

	if ((err = pmuk_counters_check_budget(ev, n)) < 0)
		return err;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->ev = malloc(n * sizeof(*ev)))) {
		free(c);
		return pmuk_fail(PMU_ENOMEM, "out of memory opening %zu events", n);
	}
	memcpy(c->ev, ev, n * sizeof(*ev));
	c->nev = n;
	c->user_fallback = o->user_fallback;
	if ((err = build_groups(c)) < 0 || (err = units_of(c, t)) < 0 ||
	    (err = alloc_arrays(c)) < 0)
		goto fail;
	/* A group no CPU asked can serve, or whose members a PMU refuses, may be left
	 * out too (skip_unsupported). */
	for (size_t g = 0; c->cpu_target && g < c->ngrp; g++)
		if ((err = judge(c, &c->grp[g], 0, o->skip_unsupported,
				 group_cpus(c, &c->grp[g]))) < 0)
			goto fail;
	for (size_t g = 0; g < c->ngrp; g++)
		if (!c->grp[g].unsupported && c->grp[g].n > 1 &&
		    (err = judge(c, &c->grp[g], 0, o->skip_unsupported, probe_fit(c, &c->grp[g]))) < 0)
			goto fail;
	for (size_t u = 0; u < c->nunits; u++) {
		int vanished = 0;

		for (size_t g = 0; g < c->ngrp && !vanished; g++) {
			if (c->grp[g].unsupported)
				continue;
			err = judge(c, &c->grp[g], u, o->skip_unsupported,
				    open_group(c, &c->grp[g], u, o));
			if (err < 0)
				goto fail;
			vanished = err == 1;
		}
		if (vanished)
			close_unit(c, u);
		else
			opened++;
	}
	if ((err = all_left_out(c, o->skip_unsupported && o->allow_empty)) < 0)
		goto fail;
	if (opened == 0) {
		err = pmuk_fail(PMU_ESRCH, "no such process %d (its threads exited while opening)",
				t->pid);
		goto fail;
	}
	if (!o->start_disabled && !o->enable_on_exec && pmuk_counters_never_ran(c)) {
		err = pmuk_fail(PMU_ESRCH, "%s %d exited before its counters were enabled: "
				"nothing was counted", t->kind == PMU_TARGET_TID ? "thread" :
				"process", t->pid);
		goto fail;
	}
	/* rdpmc sees this thread's counter only: not what inherited children add */
	if (t->kind == PMU_TARGET_SELF && !o->inherit && (c->uops = pmuk_uread_native()) != NULL) {
		pmuk_fork_watch();
		c->owner = pthread_self();
		c->forks = pmuk_fork_count;
		map_pages(c);
	}
	*out = c;
	return 0;
fail:
	pmu_counters_close(c);
	return err;
}

const char *pmuk_counters_self_default(void)
{
	struct pmu_device d;

	return pmu_device_core_list(&d, 1) > 0 ? "cycles,instructions"
		: "task-clock,page-faults,context-switches";
}
