/* SPDX-License-Identifier: MIT */
/* The listing behind "pmukit list": every event name this host understands and
 * whether it can be counted here. */
#include "linux/event_resolve.h"
#include "linux/pmu_sysfs.h"
#include "core/catalog.h"
#include "core/error.h"
#include "core/os_int.h"
#include "core/event_table.h"
#include "core/sysroot.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef PMUKIT_HAVE_PFM
#include <perfmon/pfmlib.h>
#endif

struct cat {
	struct pmuk_catalog list;
	struct pmu_device *pmus;
	int npmus;
	const struct pmu_device *core; /* first core PMU, NULL when none */
	int ncores;
	char cores[32];                /* "cpu" or "cpu_core,cpu_atom" */
};

static struct pmu_event_info *add(struct cat *c, const char *name, const char *pmu,
				  enum pmu_event_kind kind)
{
	return pmuk_catalog_add(&c->list, name, pmu, kind);
}

/* With a core PMU, asks the kernel whether it can count the event (user space only,
 * so perf_event_paranoid 2 still allows it); permission refusals are not the event's fault. */
static void probe(struct cat *c, struct pmu_event_info *e, uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;
	int fd;

	if (!e)
		return;
	if (!c->core) {
		e->usable = 0;
		snprintf(e->reason, sizeof(e->reason), "%s", PMUK_NO_PMU_REASON);
		return;
	}
	if (pmu_sysroot()[0]) /* a fixture tree: the kernel here is not the one described */
		return;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = c->ncores > 1 ? config | (uint64_t)c->core->type << 32 : config;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0) {
		close(fd);
		return;
	}
	if (errno == ENOENT || errno == EOPNOTSUPP || errno == EINVAL) {
		e->usable = 0;
		snprintf(e->reason, sizeof(e->reason), "the %s PMU cannot count it "
			 "(perf_event_open: %s)", c->core->name, strerror(errno));
	}
}

static void add_generic(struct cat *c)
{
	struct pmu_event_info *e;
	char name[64];

	for (size_t i = 0; i < pmuk_event_ndefs; i++) {
		const struct pmuk_event_def *d = &pmuk_event_defs[i];
		int hw = d->kind == PMU_EVENT_HARDWARE;

		e = add(c, d->name, hw ? c->cores : "software", d->kind);
		if (e)
			snprintf(e->desc, sizeof(e->desc), "%s", d->desc);
		if (hw)
			probe(c, e, PERF_TYPE_HARDWARE, d->config);
	}
	for (int k = 0; k < PMUK_CACHE_COUNT; k++)
		for (int o = 0; o < PMUK_CACHE_OPS; o++)
			for (int r = 0; r < 2 && pmuk_cache_valid(k, o); r++) {
				pmuk_cache_name(k, o, r, name, sizeof(name));
				e = add(c, name, c->cores, PMU_EVENT_HW_CACHE);
				if (e)
					snprintf(e->desc, sizeof(e->desc), "%s %s %s", pmuk_cache_desc(k),
						 o == 0 ? "loads" : o == 1 ? "stores" : "prefetches",
						 r ? "that missed" : "(accesses)");
				probe(c, e, PERF_TYPE_HW_CACHE, (uint64_t)k | (uint64_t)o << 8 |
					    (uint64_t)r << 16);
			}
	for (size_t i = 0; i < pmuk_event_naliases; i++) {
		const struct pmuk_event_alias *a = &pmuk_event_aliases[i];
		const struct pmuk_event_def *d = pmuk_event_find(a->name);

		e = add(c, a->alias, d->kind == PMU_EVENT_HARDWARE ? c->cores : "software", d->kind);
		if (!e)
			continue;
		snprintf(e->desc, sizeof(e->desc), "alias of %s%s%s%s", a->name,
			 a->windows ? " (Windows profile source name)" : "", a->note ? "; " : "",
			 a->note ? a->note : "");
		if (d->kind == PMU_EVENT_HARDWARE)
			probe(c, e, PERF_TYPE_HARDWARE, d->config);
	}
}

static void add_sysfs_aliases(struct cat *c)
{
	char name[128], body[140], (*names)[64];
	int nn;

	for (int i = 0; i < c->npmus; i++) {
		const struct pmu_device *d = &c->pmus[i];

		if (pmuk_pmu_alias_names(d->name, &names, &nn))
			continue;
		for (int j = 0; j < nn; j++) {
			struct pmu_event_info *e;

			snprintf(name, sizeof(name), "%s/%s/", d->name, names[j]);
			e = add(c, name, d->name, d->type == PERF_TYPE_SOFTWARE ? PMU_EVENT_SOFTWARE
									 : PMU_EVENT_RAW);
			if (!e)
				continue;
			if (pmuk_pmu_alias(d->name, names[j], body, sizeof(body)))
				body[0] = '\0';
			snprintf(e->desc, sizeof(e->desc), "sysfs event alias: %s", body);
		}
		free(names);
	}
}

#ifdef PMUKIT_HAVE_PFM
static void add_pfm_pmu(struct cat *c, const pfm_pmu_info_t *pi, int usable)
{
	pfm_event_info_t ei;
	char name[128];

	for (int i = pi->first_event; i != -1; i = pmuk_pfm.get_event_next(i)) {
		struct pmu_event_info *e;

		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		if (pmuk_pfm.get_event_info(i, PFM_OS_NONE, &ei) != PFM_SUCCESS)
			continue;
		snprintf(name, sizeof(name), "%s::%s", pi->name, ei.name);
		e = add(c, name, c->core ? c->core->name : "cpu", PMU_EVENT_RAW);
		if (!e)
			continue;
		snprintf(e->desc, sizeof(e->desc), "%s", ei.desc ? ei.desc : "");
		if (!usable) {
			e->usable = 0;
			snprintf(e->reason, sizeof(e->reason), "%s", PMUK_NO_PMU_REASON);
		}
	}
}

/* CPU-specific events of the core PMUs libpfm4 detects (its OS pseudo-PMUs "perf"
 * repeat the generic events and are left out). Without one, the default PMU's events
 * are listed as unusable, or one line says libpfm4 found none. */
static void add_pfm(struct cat *c)
{
	pfm_pmu_info_t pi, dfl;
	struct pmu_event_info *e;
	int found = 0, have_dfl = 0;
	pfm_pmu_t p;

	if (!pmuk_pfm_ready()) {  /* built in, not loaded: its names are missing, say why */
		if ((e = add(c, "libpfm4::*", "cpu", PMU_EVENT_RAW))) {
			e->usable = 0;
			snprintf(e->desc, sizeof(e->desc), "CPU-specific events through libpfm4");
			snprintf(e->reason, sizeof(e->reason), "%s", pmuk_pfm_why());
		}
		return;
	}
	pfm_for_all_pmus(p) {
		if (!pmuk_pfm_pmu_info(p, &pi) || pi.type == PFM_PMU_TYPE_OS_GENERIC)
			continue;
		if (pi.is_dfl && !have_dfl) {
			dfl = pi;
			have_dfl = 1;
		}
		if (!pi.is_present)
			continue;
		found = 1;
		add_pfm_pmu(c, &pi, c->core != NULL);
	}
	if (found || !have_dfl)
		return;
	if (dfl.nevents > 0) {
		add_pfm_pmu(c, &dfl, 0);
		return;
	}
	char name[128];

	snprintf(name, sizeof(name), "%s::*", dfl.name);
	if ((e = add(c, name, "cpu", PMU_EVENT_RAW))) {
		e->usable = 0;
		snprintf(e->desc, sizeof(e->desc), "libpfm4 events of %s", dfl.desc ? dfl.desc : dfl.name);
		snprintf(e->reason, sizeof(e->reason), "no hardware PMU: libpfm4 detects no core PMU "
			 "(its default '%s' is not present)", dfl.name);
	}
}
#else
static void add_pfm(struct cat *c)
{
	(void)c;
}
#endif

static void add_tracepoints(struct cat *c)
{
	char dir[PATH_MAX], path[PATH_MAX], name[128];
	struct dirent *s, *ev;
	struct pmu_event_info *e;
	DIR *sd, *ed;
	int err;

	if ((err = pmuk_tracefs_events(dir, sizeof(dir)))) {
		/* Said when asked for, or when nothing else matched ("pmukit list sched"). */
		if (c->list.pattern && *c->list.pattern && !strchr(c->list.pattern, ':') && c->list.n &&
		    !pmuk_catalog_matches(c->list.pattern, "subsystem:event"))
			return;
		const char *save = c->list.pattern;

		c->list.pattern = NULL;
		e = add(c, "subsystem:event", "tracepoint", PMU_EVENT_TRACEPOINT);
		c->list.pattern = save;
		if (e) {
			e->usable = 0;
			snprintf(e->desc, sizeof(e->desc), "kernel tracepoints");
			snprintf(e->reason, sizeof(e->reason), "%s",
				 pmuk_tracefs_hint(err));
		}
		return;
	}
	if (!(sd = opendir(dir)))
		return;
	while ((s = readdir(sd))) {
		if (s->d_name[0] == '.' || snprintf(path, sizeof(path), "%s/%s", dir, s->d_name) >=
		    (int)sizeof(path) || !(ed = opendir(path)))
			continue;
		while ((ev = readdir(ed))) {
			if (ev->d_name[0] == '.' ||
			    snprintf(path, sizeof(path), "%s/%s/%s/id", dir, s->d_name, ev->d_name) >=
			    (int)sizeof(path) || !pmuk_exists(path))
				continue;
			if (strlen(s->d_name) + strlen(ev->d_name) + 2 > sizeof(name))
				continue;
			strcpy(name, s->d_name);
			strcat(name, ":");
			strcat(name, ev->d_name);
			if ((e = add(c, name, "tracepoint", PMU_EVENT_TRACEPOINT)))
				snprintf(e->desc, sizeof(e->desc), "tracepoint");
		}
		closedir(ed);
	}
	closedir(sd);
}

static int info_cmp(const void *a, const void *b)
{
	const struct pmu_event_info *x = a, *y = b;

	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return x->kind == PMU_EVENT_TRACEPOINT || x->kind == PMU_EVENT_RAW ? strcmp(x->name, y->name) : 0;
}

int pmuk_os_event_catalog(const char *pattern, struct pmu_event_info **out, size_t *n)
{
	struct cat c = { .list.pattern = pattern };
	size_t off = 0;
	int ret;

	if ((ret = pmuk_pmu_scan(&c.pmus, &c.npmus)))
		return ret;
	for (int i = 0; i < c.npmus; i++) {
		if (!c.pmus[i].is_core)
			continue;
		if (!c.core)
			c.core = &c.pmus[i];
		c.ncores++;
		if (off < sizeof(c.cores))
			off += (size_t)snprintf(c.cores + off, sizeof(c.cores) - off, "%s%s",
						off ? "," : "", c.pmus[i].name);
	}
	if (!c.core)
		strcpy(c.cores, "cpu");
	add_generic(&c);
	add_sysfs_aliases(&c);
	add_pfm(&c);
	add_tracepoints(&c);
	free(c.pmus);
	if (c.list.oom) {
		free(c.list.v);
		return pmuk_fail(PMU_ENOMEM, "out of memory listing events");
	}
	/* Stable order: by kind, tables in their order, listed names sorted. */
	for (size_t i = 1; i < c.list.n; i++) {
		struct pmu_event_info t = c.list.v[i];
		size_t j = i;

		for (; j > 0 && info_cmp(&c.list.v[j - 1], &t) > 0; j--)
			c.list.v[j] = c.list.v[j - 1];
		c.list.v[j] = t;
	}
	*out = c.list.v;
	*n = c.list.n;
	return 0;
}
