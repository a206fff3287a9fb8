/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_CPULIST_H
#define PMUK_CORE_CPULIST_H

#include <stddef.h>

/* Parses a Linux-style list "0-3,8,10-11" into a malloc'd ascending array
 * (duplicates dropped). An empty string gives *n = 0 and *out = NULL.
 * pmu_cpulist_format() (pmukit/topology.h) writes the same notation. */
int pmuk_cpulist_parse(const char *s, int **out, size_t *n);

#endif
