/* SPDX-License-Identifier: MIT */
/* libFuzzer entry: any bytes as an event list must parse or fail cleanly.
 * PMUKIT_SYSROOT may point at a fixture tree so runs do not depend on the host. */
#include <pmukit/pmukit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmu_event_list *l = NULL;
	char *spec = malloc(size + 1);

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (!pmu_event_parse(spec, &l)) {
		for (size_t i = 0; i < pmu_event_list_count(l); i++)
			if (!pmu_event_list_get(l, i)->name[0])
				abort();
		pmu_event_list_free(l);
	}
	free(spec);
	return 0;
}
