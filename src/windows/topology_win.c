/* SPDX-License-Identifier: MIT */
/* Topology on Windows: GetLogicalProcessorInformationEx(RelationAll) covers every
 * processor group, NUMA node and cache; the portable parser (core/glpi.c) builds the
 * model with flat CPU ids group * 64 + bit. */
#include "windows/win.h"
#include "core/error.h"
#include "core/os_int.h"
#include "core/glpi.h"

#include <pmukit/topology.h>
#include <stdlib.h>

int pmuk_os_topology_load(struct pmu_topology **out)
{
	DWORD len = 0;
	void *buf = NULL;
	int err, ok = 0;

	/* The size can grow between the calls (hot-added processors): retry a few times. */
	for (int tries = 0; tries < 4; tries++) {
		if ((ok = GetLogicalProcessorInformationEx(RelationAll, buf, &len)))
			break;
		if (GetLastError() != ERROR_INSUFFICIENT_BUFFER) {
			free(buf);
			return pmuk_fail(PMU_EIO, "GetLogicalProcessorInformationEx failed: %s",
					 pmuk_win_strerror(GetLastError()));
		}
		free(buf);
		if (!(buf = malloc(len)))
			return pmuk_fail(PMU_ENOMEM, "out of memory reading the topology");
	}
	if (!ok || !buf) {
		free(buf);
		return pmuk_fail(PMU_EIO, "GetLogicalProcessorInformationEx kept asking for a "
				 "larger buffer");
	}
	err = pmuk_glpi_parse(buf, len, out);
	free(buf);
	return err;
}
