/* SPDX-License-Identifier: MIT */
/* The per-OS halves of small public entry points whose front (argument checks,
 * clearing the outputs) is OS-neutral: src/core/os_front.c calls these, each OS
 * defines them once (in src/linux/ and src/windows/). Arguments arrive checked and
 * the outputs cleared. */
#ifndef PMUK_CORE_OS_INT_H
#define PMUK_CORE_OS_INT_H

#include <stddef.h>

#include <pmukit/caps.h>
#include <pmukit/events.h>
#include <pmukit/topology.h>

/* pmu_memory_query: n > 0, addrs and out set; pid 0 is the caller. */
int pmuk_os_memory_query(int pid, const uint64_t *addrs, size_t n, struct pmu_page_node *out);
/* pmu_event_catalog: fills *out and *n (a malloc'd array pmu_event_catalog_free
 * frees with free()). */
int pmuk_os_event_catalog(const char *pattern, struct pmu_event_info **out, size_t *n);
/* pmu_topology_load. */
int pmuk_os_topology_load(struct pmu_topology **out);
/* pmu_device_lookup: name and out set. */
int pmuk_os_device_lookup(const char *name, struct pmu_device *out);
/* pmu_device_core_list: out has room for max >= 0 devices (max 0 when out is NULL). */
int pmuk_os_device_core_list(struct pmu_device *out, int max);
/* pmu_caps_probe: builds this host's matrix into *out (NULL'ed). */
int pmuk_os_caps_probe(struct pmu_caps **out);
/* pmu_event_parse: resolves spec against this OS's event sources. */
int pmuk_os_event_parse(const char *spec, struct pmu_event_list **out);

#endif
