/* SPDX-License-Identifier: MIT */
/* Asks pmukit.dll which NUMA node backs a touched page and an untouched one of its
 * own memory (QueryWorkingSetEx). Prints "touched: N" and "untouched: N";
 * exit 0 when the touched page has a node and the untouched one has none. */
#include <pmukit/pmukit.h>
#include <stdio.h>
#include <windows.h>

int main(void)
{
	SYSTEM_INFO si;
	char *p;
	const void *addrs[2];
	int nodes[2] = { -7, -7 }, err;

	GetSystemInfo(&si);
	p = VirtualAlloc(NULL, 2 * (SIZE_T)si.dwPageSize, MEM_RESERVE | MEM_COMMIT,
			 PAGE_READWRITE);
	if (!p)
		return 1;
	p[0] = 1;
	addrs[0] = p;
	addrs[1] = p + si.dwPageSize;
	err = pmu_memory_nodes(addrs, 2, nodes);
	if (err) {
		printf("error: %s: %s\n", pmu_strerror(err), pmu_error_detail());
		return 1;
	}
	printf("touched: %d\nuntouched: %d\n", nodes[0], nodes[1]);
	return nodes[0] >= 0 && nodes[1] == -1 ? 0 : 1;
}
