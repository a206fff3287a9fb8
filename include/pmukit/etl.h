/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_ETL_H
#define PMUKIT_ETL_H

/* Offline reader for Windows Event Trace Log (.etl) files, portable to any OS,
 * and decoders for the NT kernel logger events (process, thread, image,
 * context switch, samples, stacks, PMC, LBR). Memory stays bounded by the CPU
 * count and buffer size, never by the file size (the thread/process table
 * grows with the threads the trace names, not with its events). Reading in
 * time order, buffers met ahead of their CPU's turn wait as 48-byte entries
 * in per-CPU queues: short, as loggers write the CPUs' buffers interleaved. */

#include <pmukit/opts.h>
#include <pmukit/guid.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pmu_etl;

enum pmu_etl_order {
	PMU_ETL_ORDER_TIME = 0, /* merge the per-CPU buffer streams by timestamp */
	PMU_ETL_ORDER_FILE = 1, /* buffer by buffer as stored (fastest) */
};

typedef void (*pmu_etl_problem_fn)(const char *msg, void *ctx);

struct pmu_etl_opts {
	size_t sz;             /* sizeof(struct pmu_etl_opts) */
	int order;             /* enum pmu_etl_order */
	int no_names;          /* do not build the thread/process table */
	/* Called for every corrupt structure met (buffer, offset, what was
	 * expected); the reader then resynchronises and goes on. */
	pmu_etl_problem_fn on_problem;
	void *problem_ctx;
};
#define pmu_etl_opts__last_field problem_ctx /* see pmukit/opts.h */

enum pmu_etl_clock { PMU_ETL_CLOCK_RAW = 0, PMU_ETL_CLOCK_QPC = 1,
		     PMU_ETL_CLOCK_SYSTEMTIME = 2, PMU_ETL_CLOCK_CPUCYCLES = 3 };

/* The library's, by pointer: grows by appending (pmukit/opts.h). */
/* The log-file header (first event of the first buffer). */
struct pmu_etl_header {
	unsigned os_major, os_minor;       /* e.g. 10.0 */
	unsigned layout_major, layout_minor; /* log-file layout, 1.5 or 2.0 */
	unsigned os_build;                 /* e.g. 18362 */
	unsigned pointer_size;             /* of the logging OS: 4 or 8 */
	unsigned cpus;
	unsigned clock_type;               /* enum pmu_etl_clock */
	uint32_t timer_resolution;         /* 100 ns units */
	uint32_t cpu_mhz;
	uint64_t perf_freq;                /* QPC ticks per second */
	uint64_t tick_freq;                /* ticks per second of the event clock */
	uint64_t start_filetime, end_filetime, boot_filetime; /* 100 ns since 1601 */
	int64_t start_ns, end_ns;          /* ns since 1970-01-01 UTC */
	uint32_t events_lost, buffers_lost, buffers_written;
	uint32_t buffer_size;
	uint32_t log_file_mode;
	int compressed;                    /* LogFileMode has COMPRESSED_MODE */
	unsigned compression_format;       /* 3 = plain LZ77 (XPRESS) */
	uint64_t header_raw_time;          /* raw timestamp of the header record */
	char logger_name[128];             /* UTF-8 */
	char log_file_name[260];
};

enum pmu_etl_kind {
	PMU_ETL_KERNEL = 0,  /* SYSTEM, COMPACT or PERFINFO kernel header */
	PMU_ETL_FULL,        /* EVENT_TRACE_HEADER (classic / MOF) */
	PMU_ETL_INSTANCE,    /* EVENT_INSTANCE_GUID_HEADER */
	PMU_ETL_EVENT,       /* EVENT_HEADER (manifest, TraceLogging) */
	PMU_ETL_MESSAGE,     /* WPP TraceMessage */
	PMU_ETL_OTHER,
};

#define PMU_ETL_NO_ID 0xFFFFFFFFu
#define PMU_ETL_MAX_PMC 7
#define PMU_ETL_MAX_EXT 8

/* An EVENT_HEADER extended data item (type numbers as in EVENT_HEADER_EXT_TYPE_*). */
struct pmu_etl_ext {
	uint16_t type;
	uint16_t size;
	const uint8_t *data;
};

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
struct pmu_etl_event {
	enum pmu_etl_kind kind;
	unsigned header_type;     /* byte 2 of the marker: 1..21 */
	struct pmu_guid provider; /* kernel events: the task GUID of their group */
	unsigned group;           /* kernel hook group (HookId >> 8), else 0 */
	unsigned opcode;
	unsigned version;
	unsigned id;              /* EVENT_HEADER event id, WPP message number, else 0 */
	unsigned level;
	unsigned task;
	uint64_t keywords;
	uint16_t flags;           /* EVENT_HEADER flags */
	uint32_t pid, tid;        /* PMU_ETL_NO_ID when the header has none */
	uint32_t cpu;             /* processor of the buffer */
	uint64_t raw_time;        /* in clock ticks */
	int64_t time_ns;          /* ns since 1970 UTC, derived from the header's start time */
	unsigned pointer_size;    /* of this event's payload: 4 or 8 */
	const uint8_t *payload;   /* valid until the next pmu_etl_next() */
	size_t payload_size;
	unsigned n_pmc;           /* PMC counter values logged with this kernel event */
	uint64_t pmc[PMU_ETL_MAX_PMC];
	int has_pebs;
	uint64_t pebs_index;
	unsigned n_ext;
	struct pmu_etl_ext ext[PMU_ETL_MAX_EXT];
	uint32_t buffer;          /* index of the buffer in the file */
	uint64_t offset;          /* file offset of the buffer */
	uint32_t record_offset;   /* offset of the record in the (decompressed) buffer */
};

int pmu_etl_open(const char *path, const struct pmu_etl_opts *opts, struct pmu_etl **reader);
void pmu_etl_close(struct pmu_etl *r);
const struct pmu_etl_header *pmu_etl_header(const struct pmu_etl *r);

/* 1 with an event, 0 at the end, negative PMU_E* on an I/O error.
 * Corruption is not an error: it is reported through on_problem and stats. */
int pmu_etl_next(struct pmu_etl *r, struct pmu_etl_event *ev);

/* Converts a raw timestamp (e.g. a StackWalk EventTimeStamp) to ns since 1970. */
int64_t pmu_etl_time_ns(const struct pmu_etl *r, uint64_t raw);

/* Short name of a known provider/task GUID ("Thread", "PerfInfo", ...) or NULL. */
const char *pmu_etl_provider_name(const struct pmu_guid *g);
/* GUID of a provider name known to pmu_etl_provider_name; 0 or PMU_ENOENT. */
int pmu_etl_provider_lookup(const char *name, struct pmu_guid *g);

/* ---- statistics (complete once pmu_etl_next returned 0) ---- */

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
struct pmu_etl_stat {
	struct pmu_guid provider;
	unsigned kind;            /* enum pmu_etl_kind */
	unsigned id, opcode, version;
	uint64_t count;
};

/* Grows by appending; filled by the caller's size (pmukit/opts.h). */
struct pmu_etl_stats {
	uint64_t events;
	uint64_t by_header_type[32];
	uint64_t buffers;          /* buffers read */
	uint64_t compressed_buffers;
	uint64_t bytes;            /* bytes of file consumed */
	uint64_t problems;         /* corrupt structures met */
	uint64_t bytes_skipped;    /* bytes not decoded because of them */
	uint64_t events_lost_flagged; /* buffers flagged EVENTS_LOST */
	char last_problem[256];
	uint64_t bytes_padding;    /* zeros after the last buffer (a preallocated file) */
};

/* Fills st, size bytes of it: pass sizeof(*st) (see pmukit/opts.h). */
int pmu_etl_stats(const struct pmu_etl *r, struct pmu_etl_stats *st, size_t size);
/* Per provider/id/opcode/version counts, sorted by provider then id/opcode/version. */
size_t pmu_etl_stat_count(const struct pmu_etl *r);
int pmu_etl_stat_at(const struct pmu_etl *r, size_t i, struct pmu_etl_stat *out);

/* ---- threads and processes seen in the trace ---- */

struct pmu_etl_thread {
	uint32_t pid, tid;
	const char *name;         /* "" if never named */
	const char *process;      /* image file name of the process, "" if unknown */
	int64_t start_ns, end_ns; /* INT64_MIN / INT64_MAX when not seen */
	int started, ended;       /* a Start / End event was seen (not only rundown) */
};

struct pmu_etl_process {
	uint32_t pid, ppid, session;
	const char *image;
	const char *command_line;
	int64_t start_ns, end_ns;
	int started, ended;
	int32_t exit_status;
};

/* The thread that had this tid at time_ns (names also survive thread exit). */
int pmu_etl_thread_lookup(const struct pmu_etl *r, uint32_t tid, int64_t time_ns,
			  struct pmu_etl_thread *out);
int pmu_etl_process_lookup(const struct pmu_etl *r, uint32_t pid, int64_t time_ns,
			   struct pmu_etl_process *out);
size_t pmu_etl_thread_count(const struct pmu_etl *r);
int pmu_etl_thread_at(const struct pmu_etl *r, size_t i, struct pmu_etl_thread *out);
size_t pmu_etl_process_count(const struct pmu_etl *r);
int pmu_etl_process_at(const struct pmu_etl *r, size_t i, struct pmu_etl_process *out);

/* ---- NT kernel logger event decoders ----
 * Each returns 0, PMU_EINVAL when ev is not that event, PMU_EFORMAT when the
 * payload is too short. Strings are converted to UTF-8 and truncated to fit. */

enum {	/* kernel groups (HookId >> 8) */
	PMU_ETL_GROUP_HEADER = 0x00, PMU_ETL_GROUP_PROCESS = 0x03,
	PMU_ETL_GROUP_THREAD = 0x05, PMU_ETL_GROUP_LBR = 0x0C,
	PMU_ETL_GROUP_PERFINFO = 0x0F, PMU_ETL_GROUP_IMAGE = 0x14,
	PMU_ETL_GROUP_STACKWALK = 0x18,
};

/* Frozen (pmukit/opts.h), as every pmu_etl_*_ev: a field more is a new struct. */
struct pmu_etl_thread_ev {
	unsigned opcode;          /* 1 start, 2 end, 3 rundown start, 4 rundown end */
	uint32_t pid, tid;
	uint64_t stack_base, stack_limit, user_stack_base, user_stack_limit;
	uint64_t start_addr;      /* V2: StartAddr; V3+: Affinity */
	uint64_t win32_start_addr, teb_base;
	uint32_t sub_process_tag;
	uint8_t base_priority, page_priority, io_priority, thread_flags;
	int has_name;             /* bytes after the fixed part carried a name */
	char name[256];
};
int pmu_etl_decode_thread(const struct pmu_etl_event *ev, struct pmu_etl_thread_ev *out);

struct pmu_etl_thread_name_ev { uint32_t pid, tid; char name[256]; };
int pmu_etl_decode_thread_set_name(const struct pmu_etl_event *ev, struct pmu_etl_thread_name_ev *out);

struct pmu_etl_process_ev {
	unsigned opcode;          /* 1 start, 2 end, 3/4 rundown, 39 defunct */
	uint64_t unique_key, directory_table_base;
	uint32_t pid, ppid, session;
	int32_t exit_status;
	uint32_t flags;
	uint32_t sid_size;        /* bytes of the UserSID field */
	uint64_t exit_time;       /* V5 defunct: FILETIME */
	char image[256];          /* ImageFileName (ANSI) */
	char command_line[1024];
	char package_name[256];
	char application_id[256];
};
int pmu_etl_decode_process(const struct pmu_etl_event *ev, struct pmu_etl_process_ev *out);

struct pmu_etl_image_ev {
	unsigned opcode;          /* 10 load (hook 0x030A), 2 unload, 3/4 rundown */
	uint64_t base, size, default_base;
	uint32_t pid, checksum, time_date_stamp;
	uint8_t signature_level, signature_type;
	char file_name[520];
};
int pmu_etl_decode_image(const struct pmu_etl_event *ev, struct pmu_etl_image_ev *out);

/* KernelTraceControl ImageID task (opcode 0 ImageID, 36 DbgID_RSDS). */
struct pmu_etl_imageid_ev {
	unsigned opcode;
	uint64_t image_base, image_size;
	uint32_t pid, time_date_stamp;
	struct pmu_guid pdb_guid; /* RSDS: the build id of the PDB */
	uint32_t pdb_age;
	char file_name[520];      /* ImageID: original file name; RSDS: PDB path */
};
int pmu_etl_decode_imageid_rsds(const struct pmu_etl_event *ev, struct pmu_etl_imageid_ev *out);

struct pmu_etl_cswitch_ev {
	uint32_t new_tid, old_tid;
	int8_t new_priority, old_priority;
	uint8_t previous_cstate;
	int8_t old_wait_reason, old_wait_mode, old_state, old_wait_ideal_processor;
	uint32_t new_wait_time;
};
int pmu_etl_decode_cswitch(const struct pmu_etl_event *ev, struct pmu_etl_cswitch_ev *out);

struct pmu_etl_readythread_ev {
	uint32_t tid;
	int8_t adjust_reason, adjust_increment, flag;
};
int pmu_etl_decode_readythread(const struct pmu_etl_event *ev, struct pmu_etl_readythread_ev *out);

struct pmu_etl_sample_ev {
	uint64_t ip;
	uint32_t tid;
	uint16_t count;
	uint8_t flags, priority, rank;
	int dpc, isr;
};
int pmu_etl_decode_sampled_profile(const struct pmu_etl_event *ev, struct pmu_etl_sample_ev *out);

struct pmu_etl_pmc_sample_ev { uint64_t ip; uint32_t tid; uint16_t source; };
int pmu_etl_decode_pmc_profile(const struct pmu_etl_event *ev, struct pmu_etl_pmc_sample_ev *out);

/* PmcCounterConfig (PerfInfo opcode 48): the counters whose values follow
 * kernel events (pmu_etl_event.pmc[]), presumably in this order. */
#define PMU_ETL_MAX_COUNTERS 16
struct pmu_etl_pmc_counters_ev {
	uint32_t count;           /* as logged; names[] holds at most PMU_ETL_MAX_COUNTERS */
	char names[PMU_ETL_MAX_COUNTERS][64];
};
int pmu_etl_decode_pmc_counters(const struct pmu_etl_event *ev, struct pmu_etl_pmc_counters_ev *out);

#define PMU_ETL_MAX_FRAMES 256
struct pmu_etl_stack_ev {
	uint64_t event_time;      /* raw: equals raw_time of the event it belongs to */
	uint32_t pid, tid;
	unsigned n_frames;        /* frames[0] is the innermost */
	uint64_t frames[PMU_ETL_MAX_FRAMES];
};
int pmu_etl_decode_stackwalk(const struct pmu_etl_event *ev, struct pmu_etl_stack_ev *out);

/* StackWalk opcodes 37/38 (key reference) and 34/35/36 (key definition). */
struct pmu_etl_stack_key_ev {
	unsigned opcode;
	int definition;           /* 34 create, 35 delete, 36 rundown */
	int user;                 /* 38 StackKeyUser */
	uint64_t key;
	uint64_t event_time;      /* references only */
	uint32_t pid, tid;
	unsigned n_frames;        /* definitions only */
	uint64_t frames[PMU_ETL_MAX_FRAMES];
};
int pmu_etl_decode_stack_key(const struct pmu_etl_event *ev, struct pmu_etl_stack_key_ev *out);

#define PMU_ETL_MAX_LBR 64
struct pmu_etl_lbr_ev {
	uint64_t time;            /* raw */
	uint32_t pid, tid, filters;
	unsigned n;               /* most recent branch first */
	struct { uint64_t from, to; } branch[PMU_ETL_MAX_LBR];
};
int pmu_etl_decode_lbr(const struct pmu_etl_event *ev, struct pmu_etl_lbr_ev *out);

/* KernelTraceControl SysConfigEx (9b79ee91-b5fd-41c0-a243-4248e266e9d0), which
 * xperf/WPR's merge and PerfView add: opcode 35 VolumeMapping (an NT path
 * prefix such as "\Device\HarddiskVolume2\" and its DOS form "C:\"), opcode 33
 * SystemPaths (the system and Windows directories, in first and second). */
struct pmu_etl_sysconfig_paths_ev {
	unsigned opcode;
	char first[520];          /* 35: the NT path; 33: the system directory */
	char second[520];         /* 35: the DOS path; 33: the Windows directory */
};
int pmu_etl_decode_sysconfig_paths(const struct pmu_etl_event *ev,
				   struct pmu_etl_sysconfig_paths_ev *out);

/* ---- CLR (.NET) runtime and rundown events ----
 * Microsoft-Windows-DotNETRuntime (e13c0d23-...) MethodLoadVerbose 143 /
 * MethodUnloadVerbose 144, ModuleLoad 152 / ModuleUnload 153, and its Rundown
 * provider (a669021c-...) MethodDCStartVerbose 143 / MethodDCEndVerbose 144,
 * ModuleDCStart 153 / ModuleDCEnd 154, versions 0-2. The process is the event's
 * pid. Return 0, PMU_EINVAL (not that event), PMU_EFORMAT (payload too short). */
struct pmu_etl_clr_method_ev {
	unsigned id;              /* 143 or 144 */
	int rundown;              /* from the rundown provider: DCStart / DCEnd */
	int unload;               /* 144 of the runtime provider: the range is gone */
	uint64_t method_id, module_id, start, rejit_id;
	uint32_t size, token, flags;
	uint16_t clr_instance;
	char ns[512];             /* "Namespace.Type" (UTF-8, truncated to fit) */
	char name[256];
	char signature[512];
};
int pmu_etl_decode_clr_method(const struct pmu_etl_event *ev, struct pmu_etl_clr_method_ev *out);

struct pmu_etl_clr_module_ev {
	unsigned id;              /* runtime 152 load, 153 unload; rundown 153, 154 */
	int rundown;
	uint64_t module_id, assembly_id;
	uint32_t flags;
	uint16_t clr_instance;
	char il_path[520], native_path[520];
	int has_pdb;              /* version 2: the PDB identities below */
	struct pmu_guid managed_pdb_guid, native_pdb_guid; /* native: NGEN / R2R image */
	uint32_t managed_pdb_age, native_pdb_age;
	char managed_pdb[260], native_pdb[260];
};
int pmu_etl_decode_clr_module(const struct pmu_etl_event *ev, struct pmu_etl_clr_module_ev *out);

/* ---- TraceLogging (self-describing EVENT_HEADER events) ---- */

struct pmu_etl_tl_field {
	char name[64];
	unsigned in_type, out_type;  /* TlgIn / TlgOut numbers */
	const char *type_name;       /* "int32", "unicodestring", ... */
	unsigned count;              /* array elements (1 for scalars) */
	char value[256];             /* rendered as text ("", when not decodable) */
};
struct pmu_etl_tl_event {
	char provider_name[128];
	char event_name[128];
	unsigned n_fields;
	struct pmu_etl_tl_field fields[32];
};
/* 0, PMU_EINVAL when the event has no TraceLogging schema, PMU_EFORMAT when corrupt. */
int pmu_etl_decode_tracelogging(const struct pmu_etl_event *ev, struct pmu_etl_tl_event *out);

#ifdef __cplusplus
}
#endif
#endif
