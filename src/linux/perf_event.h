/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_PERF_EVENT_H
#define PMUK_LINUX_PERF_EVENT_H

/* This file shadows the kernel UAPI header of the same name for every file built
 * with -Isrc, so it pulls that header in itself: both spellings get both. */
#include_next <linux/perf_event.h>

#include <pmukit/events.h>

/* How one event is opened (the per-open half of struct pmu_counters_opts). */
struct pmuk_open_flags {
	int disabled;
	int inherit;
	int enable_on_exec;
	int pinned;
};

/* Encodes ev as a counting perf_event_attr with a group read format
 * (TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | GROUP | ID). */
void pmuk_perf_attr(const struct pmu_event *ev, const struct pmuk_open_flags *f,
		    struct perf_event_attr *attr);

/* perf_event_open(2) with FD_CLOEXEC: the fd, or -errno. */
int pmuk_perf_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd);

/* True when ev needs a hardware counter (not software, tracepoint or breakpoint). */
int pmuk_event_is_hw(const struct pmu_event *ev);

/* Where an open failed, for the sentence. */
struct pmuk_open_ctx {
	const struct pmu_event *ev;
	int pid;      /* as passed to perf_event_open: 0 self, -1 any */
	int cpu;      /* -1 any */
	int sibling;  /* not the group leader */
	const char *group; /* "{a,b,c}" */
};

/* Maps a perf_event_open errno (positive) to a PMU_E* code and records a sentence
 * saying why and what to do (pmu_error_detail()). */
int pmuk_perf_fail(int err, const struct pmuk_open_ctx *ctx);

/* Some PMUs (msr, most uncore) cannot tell user from kernel mode and refuse any
 * exclude_* bit with EINVAL. After an EINVAL: PMU_ENOTSUP (detail set) when the
 * event opens alone without its :u/:k/:h bits but not with them, else 0. */
int pmuk_perf_modifier_refused(const struct pmuk_open_ctx *ctx);

/* /proc/sys/kernel/perf_event_paranoid through the sysroot; INT32_MIN when unreadable. */
int pmuk_perf_paranoid(void);

/* name spelled to count user mode only: "task-clock" -> "task-clock:u",
 * "task-clock:k" -> "task-clock:u", "cycles:p" -> "cycles:pu", "cpu/.../" -> "cpu/.../u". */
void pmuk_user_only_name(const char *name, char *out, size_t size);

/* perf stat's fallback: after err (positive errno) opening ev on a task, when
 * perf_event_paranoid forbids kernel mode and ev names no privilege level, turns
 * ev into its user-only form (exclude_kernel/hv, ":u" in the name); 1 when it did. */
int pmuk_perf_user_fallback(struct pmu_event *ev, int err);

#endif
