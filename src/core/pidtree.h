/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_PIDTREE_H
#define PMUK_CORE_PIDTREE_H

#include <stddef.h>
#include <stdint.h>

/* The processes of a counted command: its root and every descendant, followed
 * through process-start events (pid, parent pid) as perf's inherit follows fork.
 * Windows ETW counting credits a context switch to the target when the thread's
 * process is a member (issue 13 item 6: Process/Start ParentId; the payload is
 * decoded by pmu_etl_decode_process). Ids are reused once a process ends: an
 * ended member leaves, and a new process with its id joins only through a member
 * parent. */
struct pmuk_pidtree;

int pmuk_pidtree_new(uint32_t root, struct pmuk_pidtree **out);
void pmuk_pidtree_free(struct pmuk_pidtree *t);
/* A process started: it joins when ppid is a live member. 1 joined, 0 not, or
 * PMU_ENOMEM. */
int pmuk_pidtree_start(struct pmuk_pidtree *t, uint32_t pid, uint32_t ppid);
/* A process ended: it leaves (its children stay members). */
void pmuk_pidtree_end(struct pmuk_pidtree *t, uint32_t pid);
/* 1 when pid is a live member. */
int pmuk_pidtree_has(const struct pmuk_pidtree *t, uint32_t pid);
/* The processes that have been members, the root included (JobObject's TotalProcesses). */
size_t pmuk_pidtree_total(const struct pmuk_pidtree *t);

#endif
