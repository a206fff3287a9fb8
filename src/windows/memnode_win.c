/* SPDX-License-Identifier: MIT */
/* Page -> NUMA node through QueryWorkingSetEx: the Node field of a valid (resident)
 * page's working-set attributes; VirtualQueryEx tells an untouched page from an
 * address with nothing (or only a reservation) behind it. Query only, like move_pages. */
#include "windows/win.h"
#include "core/error.h"
#include "core/os_int.h"

#include <pmukit/topology.h>

#include <stdint.h>
#include <windows.h>
#include <psapi.h>

enum { BATCH = 512 };

static void answer_all(struct pmu_page_node *out, size_t n, enum pmu_page_state state)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (struct pmu_page_node){ .node = -1, .state = state };
}

static enum pmu_page_state absent_state(HANDLE h, uint64_t addr)
{
	MEMORY_BASIC_INFORMATION mbi;

	if (!VirtualQueryEx(h, (LPCVOID)(uintptr_t)addr, &mbi, sizeof(mbi)))
		return PMU_PAGE_NOT_MAPPED; /* beyond the user address range */
	return mbi.State == MEM_COMMIT ? PMU_PAGE_NOT_PRESENT : PMU_PAGE_NOT_MAPPED;
}

static int query_batch(HANDLE h, const uint64_t *addrs, size_t n, struct pmu_page_node *out)
{
	PSAPI_WORKING_SET_EX_INFORMATION info[BATCH];

	for (size_t i = 0; i < n; i++)
		info[i] = (PSAPI_WORKING_SET_EX_INFORMATION){ .VirtualAddress = (PVOID)(uintptr_t)addrs[i] };
	if (!QueryWorkingSetEx(h, info, (DWORD)(n * sizeof(info[0])))) {
		DWORD e = GetLastError();

		if (e == ERROR_ACCESS_DENIED) {
			answer_all(out, n, PMU_PAGE_NO_PERMISSION);
			return 0;
		}
		return pmuk_fail(PMU_EIO, "QueryWorkingSetEx failed: %s", pmuk_win_strerror(e));
	}
	for (size_t i = 0; i < n; i++) {
		if (info[i].VirtualAttributes.Valid)
			out[i] = (struct pmu_page_node){ .node = (int)info[i].VirtualAttributes.Node,
							 .state = PMU_PAGE_ON_NODE };
		else
			out[i] = (struct pmu_page_node){ .node = -1, .state = absent_state(h, addrs[i]) };
	}
	return 0;
}

int pmuk_os_memory_query(int pid, const uint64_t *addrs, size_t n, struct pmu_page_node *out)
{
	HANDLE h = GetCurrentProcess();
	int err = 0;

	if (pid && (DWORD)pid != GetCurrentProcessId()) {
		h = OpenProcess(PROCESS_QUERY_INFORMATION, FALSE, (DWORD)pid);
		if (!h) {
			DWORD e = GetLastError();

			answer_all(out, n, e == ERROR_ACCESS_DENIED ? PMU_PAGE_NO_PERMISSION :
					   PMU_PAGE_PROCESS_GONE);
			return 0;
		}
	}
	for (size_t at = 0; at < n && !err; at += BATCH)
		err = query_batch(h, addrs + at, n - at < BATCH ? n - at : BATCH, out + at);
	if (h != GetCurrentProcess())
		CloseHandle(h);
	return err;
}
