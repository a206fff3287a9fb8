/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TOOL_REPORT_HEADER_H
#define PMUKIT_TOOL_REPORT_HEADER_H

#include <stdio.h>

struct pmu_trace;

/* pmukit report --header-only: what the recording says of itself (machine,
 * command, events with their attributes, sample times), as perf
 * report --header-only's "# key : value" lines, or one JSON object. */
int report_write_header(const struct pmu_trace *t, FILE *f, int json);

/* On stderr, when the recording lost samples or records or its reader
 * skipped damaged bytes: for outputs that have no place for them (flame
 * graphs, folded stacks, script text), as perf script warns. */
void report_warn_losses(const char *cmd, const char *path, const struct pmu_trace *t);

#endif
