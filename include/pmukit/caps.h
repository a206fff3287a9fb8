/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_CAPS_H
#define PMUKIT_CAPS_H

/* The capability matrix: for every concern, is it available on this host, available
 * with limits, or unavailable, why (one sentence) and what to do about it. The facts
 * behind each answer (paranoid level, capabilities, PMUs, hypervisor, ...) come along
 * as key/value pairs with an explanation. Unsupported is an answer, not an error. */

#include <stddef.h>
#include <stdio.h>

#include <pmukit/json.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pmu_cap_status {
	PMU_CAP_AVAILABLE,
	PMU_CAP_LIMITED,      /* works, with the limits the reason names */
	PMU_CAP_UNAVAILABLE,
};

/* The seven concerns of the design plus the OS CPU counters (ids are stable). */
enum pmu_concern {
	PMU_CONCERN_HOST = 0,        /* facts about the host as a whole */
	PMU_CONCERN_COUNTING = 1,    /* scalar counting; includes counter ownership */
	PMU_CONCERN_SAMPLING = 2,    /* overflow / IP sampling + stacks */
	PMU_CONCERN_PRECISE = 3,     /* precise data-source sampling, branch stacks */
	PMU_CONCERN_SYMBOLS = 4,     /* code-space decode */
	PMU_CONCERN_TRACING = 5,     /* event space & tracing */
	PMU_CONCERN_TOPOLOGY = 6,    /* NUMA & topology */
	PMU_CONCERN_EVENTS = 7,      /* event naming & encoding */
	PMU_CONCERN_OSCOUNTERS = 8,  /* OS CPU-time, frequency and idle counters */
};
#define PMU_CONCERN_MAX 8

/* The library's, by pointer, as pmu_cap_fact and pmu_caps_host: grows by
 * appending (pmukit/opts.h). */
struct pmu_cap {
	int id;                      /* enum pmu_concern, 1..PMU_CONCERN_MAX */
	const char *name;            /* "scalar counting", ... */
	enum pmu_cap_status status;
	const char *reason;          /* why, in a sentence (never NULL) */
	const char *remedy;          /* what to do; "" when nothing needs doing */
};

struct pmu_cap_fact {
	int concern;                 /* the concern it bears on, 0 for the host */
	const char *key;             /* "perf_event_paranoid", "core_pmus", ... */
	const char *value;           /* as read or probed: "2", "none", "cpu_core,cpu_atom" */
	const char *explanation;     /* what the value means here */
};

struct pmu_caps_host {
	const char *os;              /* "Linux", "Windows" */
	const char *kernel;          /* kernel release or OS build, "" when unknown */
	const char *arch;            /* "x86_64", "aarch64", ... */
	int vm;                      /* 1 when running under a hypervisor */
	const char *hypervisor;      /* "KVM", "Xen", "VMware", ...; "" when unknown or bare metal */
};

struct pmu_caps;

/* Probes this host. Fails only on internal errors (PMU_ENOMEM, ...); a host that can
 * measure nothing still yields a matrix. Free with pmu_caps_free(). */
int pmu_caps_probe(struct pmu_caps **out);
void pmu_caps_free(struct pmu_caps *caps);

/* The entry of concern id (1..PMU_CONCERN_MAX), NULL for other ids. */
const struct pmu_cap *pmu_caps_get(const struct pmu_caps *caps, int id);
size_t pmu_caps_fact_count(const struct pmu_caps *caps);
const struct pmu_cap_fact *pmu_caps_fact_get(const struct pmu_caps *caps, size_t i);
/* The first fact named key, NULL when absent. */
const struct pmu_cap_fact *pmu_caps_fact_find(const struct pmu_caps *caps, const char *key);
const struct pmu_caps_host *pmu_caps_host(const struct pmu_caps *caps);

/* "available", "limited", "unavailable". */
const char *pmu_cap_status_name(enum pmu_cap_status status);

/* The matrix as aligned text (table, what to do, facts) or as one JSON object:
 * { "host": {...}, "concerns": [{id, name, status, reason, remedy}], "facts": [...] }. */
int pmu_caps_write_text(const struct pmu_caps *caps, FILE *f);
int pmu_caps_write_json(const struct pmu_caps *caps, FILE *f, unsigned flags); /* pmukit/json.h */

#ifdef __cplusplus
}
#endif
#endif
