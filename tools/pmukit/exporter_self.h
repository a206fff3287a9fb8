/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_EXPORTER_SELF_H
#define PMUKIT_EXPORTER_SELF_H

#include <pmukit/exporter.h>

/* The server's own figures under the names Prometheus' client libraries give
 * them (process_resident_memory_bytes, process_virtual_memory_bytes,
 * process_cpu_seconds_total, process_start_time_seconds), added to each scrape
 * so that the exporter's memory (issue 11: under 10 MB) is watched where it
 * runs. start: when the server started, epoch seconds. 0, or the model's error;
 * figures the OS does not give are left out. */
int exp_self_metrics(struct pmu_mset *s, double start);

#endif
