/* SPDX-License-Identifier: MIT */
/* Fronts of small public entry points with one per-OS half each (core/os_int.h):
 * the argument checks and output clearing once, for every OS. */
#include "core/os_int.h"
#include "core/error.h"

#include <stdint.h>
#include <stdlib.h>

int pmu_memory_nodes(const void *const *addrs, size_t n, int *nodes)
{
	struct pmu_page_node chunk[256];

	if (!addrs || !nodes)
		return pmuk_fail(PMU_EINVAL, "pmu_memory_nodes needs address and node arrays");
	for (size_t at = 0; at < n;) {
		uint64_t a[256];
		size_t k = n - at < 256 ? n - at : 256;
		int err;

		for (size_t i = 0; i < k; i++)
			a[i] = (uint64_t)(uintptr_t)addrs[at + i];
		if ((err = pmuk_os_memory_query(0, a, k, chunk)))
			return err;
		for (size_t i = 0; i < k; i++)
			nodes[at + i] = chunk[i].node;
		at += k;
	}
	return 0;
}

int pmu_memory_query(int pid, const uint64_t *addrs, size_t n, struct pmu_page_node *out)
{
	if (!addrs || !out)
		return pmuk_fail(PMU_EINVAL, "pmu_memory_query needs address and answer arrays");
	if (pid < 0)
		return pmuk_fail(PMU_EINVAL, "pmu_memory_query: pid %d is not a process id", pid);
	return n ? pmuk_os_memory_query(pid, addrs, n, out) : 0;
}

const char *pmu_page_state_name(enum pmu_page_state state)
{
	static const char *const names[] = {
		[PMU_PAGE_ON_NODE] = "on node",
		[PMU_PAGE_NOT_PRESENT] = "not present",
		[PMU_PAGE_NOT_MAPPED] = "not mapped",
		[PMU_PAGE_NO_PERMISSION] = "no permission",
		[PMU_PAGE_PROCESS_GONE] = "process gone",
		[PMU_PAGE_UNKNOWN] = "unknown",
	};

	return (unsigned)state < sizeof(names) / sizeof(names[0]) ? names[state] : "unknown";
}

int pmu_event_catalog(const char *pattern, struct pmu_event_info **out, size_t *n)
{
	if (!out || !n)
		return pmuk_fail(PMU_EINVAL, "pmu_event_catalog needs an output array and count");
	*out = NULL;
	*n = 0;
	return pmuk_os_event_catalog(pattern, out, n);
}

void pmu_event_catalog_free(struct pmu_event_info *info)
{
	free(info);
}

int pmu_topology_load(struct pmu_topology **out)
{
	if (!out)
		return pmuk_fail(PMU_EINVAL, "pmu_topology_load needs somewhere to put the topology");
	*out = NULL;
	return pmuk_os_topology_load(out);
}

int pmu_device_lookup(const char *name, struct pmu_device *out)
{
	if (!name || !out)
		return pmuk_fail(PMU_EINVAL, "pmu_device_lookup needs a name and an output");
	return pmuk_os_device_lookup(name, out);
}

int pmu_device_core_list(struct pmu_device *out, int max)
{
	return pmuk_os_device_core_list(out, out && max > 0 ? max : 0);
}

int pmu_event_parse(const char *spec, struct pmu_event_list **out)
{
	if (!out)
		return pmuk_fail(PMU_EINVAL, "pmu_event_parse needs somewhere to store the list");
	*out = NULL;
	return pmuk_os_event_parse(spec, out);
}
