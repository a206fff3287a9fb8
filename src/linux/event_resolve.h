/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_EVENT_RESOLVE_H
#define PMUK_LINUX_EVENT_RESOLVE_H

#include "core/event_parse.h"
#include <pmukit/events.h>

#define PMUK_NO_PMU_REASON \
	"no hardware PMU: /sys/bus/event_source/devices has no core PMU " \
	"(virtual machine without a virtual PMU?)"
#define PMUK_TRACEFS_HINT \
	"tracefs is not mounted (mount it with 'mount -t tracefs nodev /sys/kernel/tracing')"
#define PMUK_TRACEFS_PERM_HINT \
	"tracefs is not readable by this user (root-only by default): run as root, or if it " \
	"is not mounted: 'mount -t tracefs nodev /sys/kernel/tracing'"

/* One resolved candidate of a term: hardware events on hybrid hosts have one per core PMU. */
struct pmuk_cand {
	struct pmu_event ev;
	int hw;    /* in the kernel's hardware context (a group may not mix two such PMUs) */
	int flex;  /* one of the per-core-PMU copies of a generic event */
	int plm;   /* privilege levels a libpfm4 name restricted itself to (PMUK_PLM_*), 0 none */
	int precise; /* precise level written in a libpfm4 name (precise=N) */
};

enum { PMUK_PLM_USER = 1, PMUK_PLM_KERNEL = 2, PMUK_PLM_HV = 4 };

#define PMUK_CANDS_MAX 8

struct pmuk_cands {
	struct pmuk_cand v[PMUK_CANDS_MAX];
	int n;
};

/* What a resolution needs to know about the host, read once per parse. */
struct pmuk_rctx {
	const char *spec;
	struct pmu_device *pmus;
	int npmus;
	struct pmu_device *cores[8];
	int ncores;
};

/* The events/ directory of tracefs (0); on the live host an unmounted tracefs is
 * mounted at /sys/kernel/tracing first when this process may (as perf does).
 * PMU_ENOENT when tracefs is not mounted (pmuk_tracefs_hint says why and what to do),
 * PMU_EPERM when this user may not look where it would be (PMUK_TRACEFS_PERM_HINT). */
int pmuk_tracefs_events(char *buf, size_t n);
/* Why tracefs cannot be read and what to do, after pmuk_tracefs_events returned err:
 * PMU_EPERM (mounted, not readable by this user), else why it is not mounted. */
const char *pmuk_tracefs_hint(int err);

/* Replaces each tracepoint glob term ("sched:*", "sched:sched_wak*:u") by one term per
 * matching tracepoint, sorted, in the glob's group; at most max terms in all. 0, or
 * PMU_ENOENT when nothing matches or tracefs is absent, PMU_EPARSE for a glob that is
 * not subsystem:event (event_tpglob.c). */
int pmuk_expand_tracepoint_globs(struct pmuk_ev_ast *a, int max);

/* Fills the fields common to every candidate: kind and generic id from type/config. */
void pmuk_event_classify(struct pmu_event *ev);
/* Finds the PMU of a perf type; NULL when none. */
const struct pmu_device *pmuk_rctx_pmu_by_type(const struct pmuk_rctx *c, uint32_t type);

/* pmu/terms/ (event_pmu_terms.c). */
int pmuk_resolve_pmu_terms(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cands *out);
/* A bare name that is an alias in some PMU's events/ directory (energy-pkg, tsc...):
 * 0 with candidates, PMU_ENOENT when no PMU has it. */
int pmuk_resolve_sysfs_alias(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cands *out);

/* libpfm4 names (event_pfm.c): 0, PMU_ENOENT when libpfm4 does not know the name
 * (or is compiled out), PMU_EINVAL with libpfm4's reason when it knows the event but
 * cannot encode it as written (bad unit mask or attribute). */
int pmuk_resolve_pfm(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cand *k);
/* Tracepoints sys:name (event_pfm.c): 0, PMU_ENOENT with a detail when absent. */
int pmuk_resolve_tracepoint(const char *name, struct pmu_event *ev, int *looks_like);

#endif
