/* SPDX-License-Identifier: MIT */
/* Page -> NUMA node through QueryWorkingSetEx: the Node field of a valid (resident)
 * page's working-set attributes. Query only, like move_pages on Linux. */
#include "windows/win.h"
#include "core/error.h"
#include "core/os_int.h"

#include <pmukit/topology.h>

#include <stdlib.h>
#include <windows.h>
#include <psapi.h>

int pmuk_os_memory_nodes(const void *const *addrs, size_t n, int *nodes)
{
	PSAPI_WORKING_SET_EX_INFORMATION *info;

	if (n > MAXDWORD / sizeof(*info))
		return pmuk_fail(PMU_EINVAL, "%zu pages in one query; QueryWorkingSetEx takes at "
				 "most %zu", n, (size_t)(MAXDWORD / sizeof(*info)));
	if (!(info = calloc(n, sizeof(*info))))
		return pmuk_fail(PMU_ENOMEM, "out of memory for %zu page queries", n);
	for (size_t i = 0; i < n; i++)
		info[i].VirtualAddress = (PVOID)addrs[i];
	if (!QueryWorkingSetEx(GetCurrentProcess(), info, (DWORD)(n * sizeof(*info)))) {
		DWORD e = GetLastError();

		free(info);
		return pmuk_fail(e == ERROR_ACCESS_DENIED ? PMU_EPERM : PMU_EIO,
				 "QueryWorkingSetEx failed: %s", pmuk_win_strerror(e));
	}
	for (size_t i = 0; i < n; i++)
		nodes[i] = info[i].VirtualAttributes.Valid ? (int)info[i].VirtualAttributes.Node : -1;
	free(info);
	return 0;
}
