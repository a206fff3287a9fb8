/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TOOL_NUMA_MAPS_H
#define PMUKIT_TOOL_NUMA_MAPS_H

#include <stddef.h>

/* Pages queried per mapping before it is sampled instead (1 GiB of 4 KiB pages). */
#define NUMA_MAX_PAGES_DEFAULT 262144u

/* pmukit numa -p PID --maps: every mapping of /proc/PID/maps with its pages per node;
 * a mapping larger than max_pages pages is sampled evenly. Returns the exit status. */
int numa_maps_run(int pid, size_t max_pages, int json);

#endif
