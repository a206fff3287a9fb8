/* SPDX-License-Identifier: MIT */
/* Fronts of small public entry points with one per-OS half each (core/os_int.h):
 * the argument checks and output clearing once, for every OS. */
#include "core/os_int.h"
#include "core/error.h"

#include <stdlib.h>

int pmu_memory_nodes(const void *const *addrs, size_t n, int *nodes)
{
	if (!addrs || !nodes)
		return pmuk_fail(PMU_EINVAL, "pmu_memory_nodes needs address and node arrays");
	return n ? pmuk_os_memory_nodes(addrs, n, nodes) : 0;
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
