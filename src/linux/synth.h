/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_SYNTH_H
#define PMUK_LINUX_SYNTH_H

#include <stddef.h>
#include <stdint.h>

/* Records perf record synthesizes from /proc for what ran before recording started,
 * handed one by one to a callback. body = the record after its perf_event_header,
 * WITHOUT the sample_id trailer (the writer appends it); type/misc go in the header. */
typedef int (*pmuk_synth_fn)(uint32_t type, uint16_t misc, const void *body, size_t size,
			     int32_t pid, int32_t tid, void *ctx);

/* COMM of the process and each of its threads (/proc/PID/task), then MMAP2 of each
 * executable file mapping in /proc/PID/maps (the build-id form, misc
 * PERF_RECORD_MISC_MMAP_BUILD_ID, when the file's build-id can be read), plus [vdso].
 * 0, PMU_ESRCH when the process is gone, a negative PMU_E* code, or the callback's
 * nonzero return (which stops the walk). */
int pmuk_synth_process(int32_t pid, pmuk_synth_fn fn, void *ctx);

/* pmuk_synth_process for every process in /proc; processes that exit meanwhile are
 * skipped. */
int pmuk_synth_all(pmuk_synth_fn fn, void *ctx);

/* MMAP (pid -1, tid 0, misc PERF_RECORD_MISC_KERNEL) of [kernel.kallsyms]_text, then
 * one MMAP per loaded module (/proc/modules). Returns 0, or PMUK_SYNTH_KPTR_HIDDEN
 * (positive, after emitting what perf emits then: the kernel map at 0 and the modules
 * at 0) when kptr_restrict hides the addresses from this user, or a negative PMU_E*,
 * or the callback's nonzero return. */
int pmuk_synth_kernel(pmuk_synth_fn fn, void *ctx);

enum { PMUK_SYNTH_KPTR_HIDDEN = 1 };

#endif
