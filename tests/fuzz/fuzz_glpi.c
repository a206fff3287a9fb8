/* SPDX-License-Identifier: MIT */
/* libFuzzer entry: any bytes as GetLogicalProcessorInformationEx output must give a
 * consistent topology or PMU_EFORMAT, never a crash. */
#include <pmukit/pmukit.h>
#include "core/glpi.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmu_topology *t = NULL;
	int err = pmuk_glpi_parse(data, size, &t);

	if (err && err != PMU_EFORMAT && err != PMU_ENOMEM)
		abort();
	if (!err) {
		size_t n = 0;

		pmu_topology_online_cpus(t, &n);
		if (!n || n != pmu_topology_cpu_count(t))
			abort();
		for (size_t i = 0; i < pmu_topology_core_count(t); i++)
			if (!pmu_topology_core(t, i)->ncpus)
				abort();
	}
	pmu_topology_free(t);
	return 0;
}
