/* SPDX-License-Identifier: MIT */
/* Page -> NUMA node through move_pages(2) in query mode (nodes == NULL): the kernel
 * only reports where each page lives. Called directly: no libnuma needed for this. */
#include "core/error.h"
#include "core/os_int.h"

#include <pmukit/topology.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int pmuk_os_memory_nodes(const void *const *addrs, size_t n, int *nodes)
{
	int stack[64], *status = n <= 64 ? stack : malloc(n * sizeof(int));
	long rc;

	if (!status)
		return pmuk_fail(PMU_ENOMEM, "out of memory for %zu page queries", n);
	rc = syscall(SYS_move_pages, 0, (unsigned long)n, addrs, NULL, status, 0);
	if (rc < 0) {
		int e = errno;

		if (status != stack)
			free(status);
		if (e == ENOSYS)
			return pmuk_fail(PMU_ENOTSUP, "this kernel has no move_pages (built without "
					 "NUMA support): page -> node queries are unavailable");
		return pmuk_fail(PMU_EIO, "move_pages (query mode) failed: %s", strerror(e));
	}
	/* status[i]: the node, or -errno (ENOENT: not resident, EFAULT: not mapped). */
	for (size_t i = 0; i < n; i++)
		nodes[i] = status[i] >= 0 ? status[i] : -1;
	if (status != stack)
		free(status);
	return 0;
}
