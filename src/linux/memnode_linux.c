/* SPDX-License-Identifier: MIT */
/* Page -> NUMA node through move_pages(2) in query mode (nodes == NULL): the kernel
 * only reports where each page lives. Called directly: no libnuma needed for this. */
#include "core/error.h"
#include "core/os_int.h"
#include "core/sysroot.h"

#include <pmukit/topology.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Pages per move_pages call: bounds the stack arrays, not the caller. */
enum { BATCH = 512 };

static void answer_all(struct pmu_page_node *out, size_t n, enum pmu_page_state state)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (struct pmu_page_node){ .node = -1, .state = state };
}

/* status[i] of a query: the node, or -errno for that page. */
static struct pmu_page_node page_answer(int status)
{
	if (status >= 0)
		return (struct pmu_page_node){ .node = status, .state = PMU_PAGE_ON_NODE };
	return (struct pmu_page_node){
		.node = -1,
		.state = status == -ENOENT ? PMU_PAGE_NOT_PRESENT :
			 status == -EFAULT ? PMU_PAGE_NOT_MAPPED :
			 status == -EACCES || status == -EPERM ? PMU_PAGE_NO_PERMISSION :
			 PMU_PAGE_UNKNOWN,
	};
}

/* move_pages says EINVAL for a zombie (its memory is already gone): the process is
 * gone for this purpose once it has exited, reaped or not. */
static int exited(int pid)
{
	char path[64], stat[512], *paren;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (pmuk_read_text(path, stat, sizeof(stat)) < 0)
		return 1;
	paren = strrchr(stat, ')');
	return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

static int query_batch(int pid, const uint64_t *addrs, size_t n, struct pmu_page_node *out)
{
	void *pages[BATCH];
	int status[BATCH];

	for (size_t i = 0; i < n; i++)
		pages[i] = (void *)(uintptr_t)addrs[i];
	if (syscall(SYS_move_pages, pid, (unsigned long)n, pages, NULL, status, 0) < 0) {
		int e = errno;

		if (e == ESRCH || (e == EINVAL && pid > 0 && exited(pid))) {
			answer_all(out, n, PMU_PAGE_PROCESS_GONE);
			return 0;
		}
		if (e == EPERM || e == EACCES) {
			answer_all(out, n, PMU_PAGE_NO_PERMISSION);
			return 0;
		}
		if (e == ENOSYS)
			return pmuk_fail(PMU_ENOTSUP, "this kernel has no move_pages (built without "
					 "NUMA support): page -> node queries are unavailable");
		return pmuk_fail(PMU_EIO, "move_pages (query mode) of pid %d failed: %s", pid,
				 strerror(e));
	}
	for (size_t i = 0; i < n; i++)
		out[i] = page_answer(status[i]);
	return 0;
}

int pmuk_os_memory_query(int pid, const uint64_t *addrs, size_t n, struct pmu_page_node *out)
{
	for (size_t at = 0; at < n; at += BATCH) {
		size_t k = n - at < BATCH ? n - at : BATCH;
		int err = query_batch(pid, addrs + at, k, out + at);

		if (err)
			return err;
	}
	return 0;
}
