/* SPDX-License-Identifier: MIT */
/* libFuzzer entry: any bytes as a PE image (file and mapped layouts) must give a
 * module identity, PMU_ENOENT or PMU_EFORMAT, never a crash. */
#include <pmukit/pmukit.h>
#include <pmukit/symbols.h>
#include "formats/pe_rsds.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmu_module_id id;
	char s[64];

	for (int layout = PMUK_PE_FILE; layout <= PMUK_PE_MAPPED; layout++) {
		int err = pmuk_pe_module_id(data, size, (enum pmuk_pe_layout)layout, &id);

		if (err && err != PMU_EFORMAT && err != PMU_ENOENT)
			abort();
		if (!err && (memchr(id.pdb, 0, sizeof(id.pdb)) == NULL ||
			     pmu_guid_format(&id.guid, s, sizeof(s)) ||
			     pmu_module_id_symstore_key(&id, s, sizeof(s))))
			abort();
	}
	return 0;
}
