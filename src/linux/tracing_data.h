/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_TRACING_DATA_H
#define PMUK_LINUX_TRACING_DATA_H

#include <stddef.h>

/* The HEADER_TRACING_DATA / PERF_RECORD_HEADER_TRACING_DATA payload perf writes for
 * the given tracepoints ("sys:name"): tracing magic, version 0.6, endianness, long
 * size, page size, header_page, header_event, ftrace formats, the event systems'
 * format files, kallsyms, printk formats and saved_cmdlines. *blob is malloc'd (free
 * it). 0 or a negative PMU_E* code (tracefs absent: the error says how to mount it). */
int pmuk_tracing_data(const char *const *tracepoints, size_t n, void **blob, size_t *size);

#endif
