/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_SAMPLING_H
#define PMUKIT_SAMPLING_H

/* Concern 2 (and the fields of concern 3): overflow / IP sampling.
 *
 * Every acquisition surface (the Linux perf ring buffer today; perf.data and .etl
 * readers later) delivers the same record model, struct pmu_record, so consumers
 * never look at where a record came from. */

#include <stddef.h>
#include <stdint.h>

#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <pmukit/opts.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pmu_record_kind {
	PMU_RECORD_SAMPLE,     /* an overflow sample: ip, thread, time, period, stack ... */
	PMU_RECORD_COMM,       /* a thread got its name (or exec'ed: comm.exec) */
	PMU_RECORD_FORK,       /* a thread or process was created */
	PMU_RECORD_EXIT,       /* a thread or process ended */
	PMU_RECORD_MMAP,       /* a module (file or anonymous code) was mapped */
	PMU_RECORD_SWITCH,     /* a context switch in or out */
	PMU_RECORD_LOST,       /* records or samples were dropped: lost.count */
	PMU_RECORD_THROTTLE,   /* the kernel stopped sampling an event: too many samples */
	PMU_RECORD_UNTHROTTLE, /* ... and resumed it */
	PMU_RECORD_SYMBOL,     /* code the recording names itself (.NET JIT methods) */
	PMU_RECORD_KIND_COUNT
};

/* Which of the common and sample fields a record carries. */
enum pmu_record_has {
	PMU_HAS_TID = 1u << 0,        /* pid, tid */
	PMU_HAS_TIME = 1u << 1,
	PMU_HAS_CPU = 1u << 2,
	PMU_HAS_ID = 1u << 3,         /* id (and event when the surface knows the event) */
	PMU_HAS_STREAM_ID = 1u << 4,
	PMU_HAS_IP = 1u << 5,
	PMU_HAS_ADDR = 1u << 6,       /* sample.addr: data address */
	PMU_HAS_PERIOD = 1u << 7,
	PMU_HAS_CALLCHAIN = 1u << 8,
	PMU_HAS_BRANCH_STACK = 1u << 9,
	PMU_HAS_WEIGHT = 1u << 10,
	PMU_HAS_DATA_SRC = 1u << 11,
	PMU_HAS_PHYS_ADDR = 1u << 12,
	/* These three live in sample.ext (read it only when one of them is set). */
	PMU_HAS_RAW = 1u << 13,       /* ext->raw: a tracepoint's payload */
	PMU_HAS_REGS_USER = 1u << 14, /* ext->regs: user registers at the sample */
	PMU_HAS_STACK_USER = 1u << 15,/* ext->stack: a copy of the user stack */
};

/* Where the CPU was when a sample was taken or a module mapped. */
enum pmu_cpumode {
	PMU_CPUMODE_UNKNOWN,
	PMU_CPUMODE_KERNEL,
	PMU_CPUMODE_USER,
	PMU_CPUMODE_HYPERVISOR,
	PMU_CPUMODE_GUEST_KERNEL,
	PMU_CPUMODE_GUEST_USER,
};

/* The larger, rarer parts of a sample; the library's, by pointer: grows by
 * appending (check sz before reading a field newer than your build). */
struct pmu_sample_ext {
	size_t sz;             /* sizeof(struct pmu_sample_ext) of the library */
	const void *raw;       /* PMU_HAS_RAW: PERF_SAMPLE_RAW bytes */
	uint32_t raw_size;
	uint32_t nr_regs;      /* PMU_HAS_REGS_USER: regs[] holds one value per bit */
	uint64_t regs_abi;     /* PERF_SAMPLE_REGS_ABI_* (0: no user registers: a
				  kernel thread) */
	uint64_t regs_mask;    /* which registers, the arch's perf_regs numbering */
	const uint64_t *regs;
	const uint8_t *stack;  /* PMU_HAS_STACK_USER: the top of the user stack */
	uint64_t stack_size;   /* bytes of stack[] that were copied (the dyn_size) */
	uint64_t transaction;  /* PERF_SAMPLE_TRANSACTION, 0 when not sampled */
	uint64_t code_page_size; /* PERF_SAMPLE_CODE_PAGE_SIZE, 0 when not sampled */
	uint64_t data_page_size; /* PERF_SAMPLE_DATA_PAGE_SIZE, 0 when not sampled */
};

/* One taken branch of a branch stack (LBR / BRBE). */
struct pmu_branch {
	uint64_t from;
	uint64_t to;
	uint64_t flags;        /* surface-specific bits: mispredict, predicted, cycles ... */
};

struct pmu_sample {
	uint64_t ip;
	uint64_t addr;         /* PMU_HAS_ADDR */
	uint64_t period;       /* events since the previous sample (PMU_HAS_PERIOD) */
	uint64_t weight;       /* PMU_HAS_WEIGHT: cost, e.g. load latency in cycles */
	uint64_t data_src;     /* PMU_HAS_DATA_SRC: the Linux perf_mem_data_src encoding */
	uint64_t phys_addr;    /* PMU_HAS_PHYS_ADDR */
	int exact_ip;          /* ip is the instruction that caused the event (precise) */
	/* Return addresses, innermost first, context markers removed. The first
	 * nr_kernel_frames are kernel (or hypervisor) addresses, the rest user space.
	 * Points into the sampler's buffer: valid until the callback returns. */
	const uint64_t *callchain;
	uint32_t nr_callchain;
	uint32_t nr_kernel_frames;
	const struct pmu_branch *branches; /* valid until the callback returns */
	uint32_t nr_branches;
	/* PMU_HAS_RAW, _REGS_USER, _STACK_USER: where those are; valid until the
	 * callback returns. Ignored (and may be anything) when none is set, so a
	 * record built before ext existed still reads the same. */
	const struct pmu_sample_ext *ext;
};

struct pmu_comm {
	char name[16];         /* NUL-terminated thread name */
	int exec;              /* the name changed because the process exec'ed */
	/* The whole name when it is longer than name[] holds (surfaces whose thread
	 * and image names exceed 15 bytes), else NULL. Valid until the callback
	 * returns. A COMM whose tid equals its pid names the process. */
	const char *long_name;
};

struct pmu_task {              /* PMU_RECORD_FORK, PMU_RECORD_EXIT */
	int32_t ppid;          /* parent process (FORK) / process (EXIT) */
	int32_t ptid;
};

enum pmu_build_id_kind {
	PMU_BUILD_ID_BYTES = 0, /* opaque bytes, e.g. an ELF NT_GNU_BUILD_ID note */
	PMU_BUILD_ID_PDB = 1,   /* PE image: PDB GUID (16 bytes as stored) + Age (u32 LE) */
};

struct pmu_mmap {
	uint64_t start;        /* first mapped address */
	uint64_t len;
	uint64_t pgoff;        /* file offset of start */
	uint32_t prot, flags;  /* PROT_*, MAP_* (0 when the surface does not say) */
	uint32_t maj, min;     /* device of the file (0 when unknown) */
	uint64_t ino, ino_generation;
	uint8_t build_id[20];
	uint8_t build_id_size; /* 0: no build-id in the record */
	uint8_t build_id_kind; /* enum pmu_build_id_kind: how to read build_id */
	int data;              /* a data (non-executable) mapping */
	const char *path;      /* NUL-terminated; valid until the callback returns */
	/* The debug file the module names (PE: the PDB path of its CodeView record;
	 * ELF: its .gnu_debuglink), NULL when unknown; valid until the callback returns. */
	const char *debug_path;
};

struct pmu_switch {
	int out;               /* switched out (else in) */
	int preempt;           /* switched out while runnable */
	int32_t other_pid;     /* CPU-wide: the thread switched to/from, else -1 */
	int32_t other_tid;
	/* Readings of free-running per-CPU counters taken at the switch (NULL, 0:
	 * none). What a thread counted is the difference between the readings of
	 * its switch in and its switch out on one CPU. The surface names them in
	 * the same order. Valid until the callback returns. */
	const uint64_t *pmc;
	uint32_t nr_pmc;
};

struct pmu_lost {
	uint64_t count;        /* how many were dropped */
	int samples;           /* dropped samples before the ring (else whole records at a full ring) */
	uint64_t buffers;      /* whole buffers of records lost, their record count unknown */
	uint64_t bytes;        /* input bytes skipped as corrupt (recordings read from files) */
	uint64_t uncounted;    /* times the source said records were lost without a count
				  (.etl buffers flagged EVENTS_LOST) */
};

/* PMU_RECORD_SYMBOL: [start, start + len) of process pid is function name of
 * module from the record's time on (JIT-compiled code, named by the runtime's
 * own events); name NULL: that code was unloaded. Strings valid until the
 * callback returns. */
struct pmu_symbol {
	uint64_t start;
	uint64_t len;
	const char *name;
	const char *module;
};

/* Frozen (pmukit/opts.h), as pmu_report_record reads one a caller built: never
 * changes size; a field more is a new record kind or struct. */
struct pmu_record {
	enum pmu_record_kind kind;
	uint32_t has;          /* enum pmu_record_has */
	enum pmu_cpumode cpumode;
	int32_t pid, tid;      /* -1 when unknown */
	int32_t cpu;           /* -1 when unknown */
	int32_t event;         /* index of the event in the sampler's list, -1 when unknown */
	uint64_t time;         /* ns; the sampler uses CLOCK_MONOTONIC */
	uint64_t id;           /* the surface's id of the event */
	uint64_t stream_id;
	union {
		struct pmu_sample sample; /* PMU_RECORD_SAMPLE */
		struct pmu_comm comm;     /* PMU_RECORD_COMM */
		struct pmu_task task;     /* PMU_RECORD_FORK, PMU_RECORD_EXIT */
		struct pmu_mmap mmap;     /* PMU_RECORD_MMAP */
		struct pmu_switch sw;     /* PMU_RECORD_SWITCH */
		struct pmu_lost lost;     /* PMU_RECORD_LOST */
		struct pmu_symbol symbol; /* PMU_RECORD_SYMBOL */
	};                        /* THROTTLE/UNTHROTTLE: time, id and stream_id above */
};

/* "sample", "comm", ... ("unknown" for values out of range). */
const char *pmu_record_kind_name(enum pmu_record_kind kind);

/* Called for every record. Return 0 to go on; any other value stops the read,
 * which returns it (the records not yet delivered stay for the next read). */
typedef int (*pmu_record_fn)(const struct pmu_record *rec, void *ctx);

struct pmu_sampler_opts {
	size_t sz;             /* sizeof(struct pmu_sampler_opts) */
	uint64_t period;       /* sample every period events (use_freq == 0) */
	uint64_t freq;         /* samples per second per thread/CPU (use_freq != 0) */
	int use_freq;          /* period 0 and use_freq 0 mean: 1000 samples per second */
	unsigned pages;        /* data pages per ring buffer, a power of two; 0 means 64 */
	int callchain;         /* record call chains */
	int exclude_kernel;    /* sample user mode only, whatever the event modifiers say */
	int task;              /* also deliver COMM, FORK, EXIT and MMAP records */
	int context_switch;    /* also deliver SWITCH records */
	int start_disabled;    /* open disabled; pmu_sampler_enable() starts sampling */
};
#define pmu_sampler_opts__last_field start_disabled /* see pmukit/opts.h */

/* Grows by appending; filled by the caller's size (pmukit/opts.h). */
struct pmu_sampler_stats {
	uint64_t records;      /* records delivered, every kind */
	uint64_t samples;      /* PMU_RECORD_SAMPLE delivered */
	uint64_t lost;         /* records the kernel dropped at a full ring (sum of the
				* LOST records delivered, see pmu_sampler_read) */
	uint64_t lost_samples; /* samples dropped before reaching a ring */
	uint64_t throttles;    /* THROTTLE records */
	uint64_t unthrottles;
	uint64_t skipped;      /* records of kinds outside the model (not delivered) */
	uint64_t corrupt;      /* times a ring held a corrupt record (its rest was dropped) */
};

struct pmu_sampler;

/* Opens every event of the list as a sampling event on the target: one ring buffer
 * per thread (PMU_TARGET_SELF/TID/PID: the threads existing now) or per CPU
 * (PMU_TARGET_CPUS), shared by all events of that thread or CPU. */
int pmu_sampler_open(const struct pmu_event_list *events, const struct pmu_target *target,
		     const struct pmu_sampler_opts *opts, struct pmu_sampler **out);
int pmu_sampler_enable(struct pmu_sampler *s);
int pmu_sampler_disable(struct pmu_sampler *s);

/* Waits up to timeout_ms (-1: forever) for a ring to fill past its wakeup mark.
 * Returns the number of rings ready (0 on timeout or signal), or PMU_ESRCH once
 * every sampled thread has exited (read once more to get their last records). */
int pmu_sampler_poll(struct pmu_sampler *s, int timeout_ms);

/* Drains every ring, calling cb for each record in ring order. Returns 0, cb's
 * nonzero return value, or PMU_EFORMAT when a ring held a corrupt record (that
 * ring's remaining bytes are dropped; pmu_error_detail() names the offset).
 * Losses are always reported: the kernel writes a LOST record only once a record
 * fits again, so after draining a ring the sampler reads each event's lost count
 * (Linux >= 6.0) and delivers what no LOST record has told yet as a LOST record
 * of its own (event -1, no time; tid or cpu of the ring). The kernel's later
 * LOST record then carries only what is new. (That count also takes in samples
 * a PMU driver dropped before the ring, e.g. AMD IBS outside the asked mode.) */
int pmu_sampler_read(struct pmu_sampler *s, pmu_record_fn cb, void *ctx);

/* Fills out, size bytes of it: pass sizeof(*out) (see pmukit/opts.h). */
int pmu_sampler_stats(const struct pmu_sampler *s, struct pmu_sampler_stats *out, size_t size);
size_t pmu_sampler_event_count(const struct pmu_sampler *s);
const struct pmu_event *pmu_sampler_event(const struct pmu_sampler *s, size_t i);
void pmu_sampler_close(struct pmu_sampler *s);

#ifdef __cplusplus
}
#endif
#endif
