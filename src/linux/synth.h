/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_SYNTH_H
#define PMUK_LINUX_SYNTH_H

#include <stddef.h>
#include <stdint.h>

/* Records perf record synthesizes from /proc for what ran before recording started,
 * handed one by one to a callback. body = the record after its perf_event_header,
 * WITHOUT the sample_id trailer (the writer appends it); type/misc go in the header;
 * size is a multiple of 8 (names are NUL-padded). pid/tid are the record's own
 * (kernel maps: -1/0), for the trailer. Fields are in the host's byte order. A
 * nonzero return stops the walk and is returned as is: return a negative PMU_E*
 * code (or one > PMUK_SYNTH_KPTR_HIDDEN) so it is not mistaken for that code. */
typedef int (*pmuk_synth_fn)(uint32_t type, uint16_t misc, const void *body, size_t size,
			     int32_t pid, int32_t tid, void *ctx);

/* flags of pmuk_synth_process and pmuk_synth_all */
enum {
	/* also the readable data mappings, misc PERF_RECORD_MISC_MMAP_DATA, as perf
	 * record with attr.mmap_data (-d, --call-graph dwarf): a DWARF unwinder
	 * finds .eh_frame_hdr in a read-only segment beside the code */
	PMUK_SYNTH_DATA = 1u << 0,
};

/* COMM of the process (pid may be any of its threads) and of each of its threads
 * (/proc/PID/task; the leader first), then MMAP2 (misc PERF_RECORD_MISC_USER) of each
 * executable mapping in /proc/PID/maps, as perf: files, //anon (JIT code), [vdso],
 * [vsyscall]; with PMUK_SYNTH_DATA each readable one too. A file's record takes the build-id form (misc |=
 * PERF_RECORD_MISC_MMAP_BUILD_ID) when its build-id can be read (through
 * /proc/PID/map_files when root: the very file mapped), else maj/min/ino.
 * No FORK records (perf writes them too; readers do not need them).
 * 0, PMU_ESRCH when the process is gone, PMU_EPERM when /proc/PID/maps is another
 * user's, another negative PMU_E* code, or the callback's nonzero return. */
int pmuk_synth_process(int32_t pid, unsigned flags, pmuk_synth_fn fn, void *ctx);

/* pmuk_synth_process for every process in /proc, by pid; processes that exit
 * meanwhile are skipped, and those of other users (non-root) too, with one
 * PMU_LOG_WARN saying how many. Build-ids are read once per file. */
int pmuk_synth_all(unsigned flags, pmuk_synth_fn fn, void *ctx);

/* PERF_RECORD_MMAP (pid -1, tid 0, misc PERF_RECORD_MISC_KERNEL) of
 * [kernel.kallsyms]_text: start _text (else _stext) of /proc/kallsyms, len to _etext,
 * pgoff = start, as perf 6.1 writes it; then one MMAP per loaded module from
 * /proc/modules, by address (start, size, pgoff 0), named by its file in
 * /lib/modules/RELEASE/modules.dep, else "[name]". No /proc/modules (a kernel
 * without modules): no module maps. Returns 0; PMUK_SYNTH_KPTR_HIDDEN (positive)
 * when kptr_restrict shows this user zero addresses: then, as perf, no kernel map
 * (or no module maps) is written, and pmu_error_detail() says why and what to do;
 * a negative PMU_E*; or the callback's nonzero return. The kernel's build-id is
 * pmuk_build_id_kernel's (linux/buildid.h), for the writer's HEADER_BUILD_ID. */
int pmuk_synth_kernel(pmuk_synth_fn fn, void *ctx);

enum { PMUK_SYNTH_KPTR_HIDDEN = 1 };

#endif
