/* SPDX-License-Identifier: MIT */
/* The perf.data layout (tools/perf/Documentation/perf.data-file-format.txt):
 * facts shared by the reader and the writer. Written here rather than taken
 * from <linux/perf_event.h> so the reader builds on every OS. All fields are
 * in the byte order of the machine that wrote the file. */
#ifndef PMUK_FORMATS_PERF_FILE_H
#define PMUK_FORMATS_PERF_FILE_H

#include <stdint.h>

#define PERF_FILE_MAGIC 0x32454c4946524550ull   /* "PERFILE2" little-endian */
#define PERF_FILE_MAGIC_SWAPPED 0x50455246494c4532ull
#define PERF_FILE_HEADER_SIZE 104               /* file mode */
#define PERF_PIPE_HEADER_SIZE 16                /* pipe mode: magic + size */

struct perf_file_section {
	uint64_t offset, size;
};

struct perf_file_header {
	uint64_t magic;
	uint64_t size;                          /* of this header */
	uint64_t attr_size;                     /* of one perf_file_attr */
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;   /* unused since perf 3.x */
	uint64_t adds_features[4];              /* bit per HEADER_* feature */
};

/* A file-mode attr entry: the attr (attr_size - 16 bytes) then where its ids are. */
#define PERF_FILE_ATTR_IDS_SIZE 16

/* perf_event_attr sizes by version (PERF_ATTR_SIZE_VER0..8). */
#define PERF_ATTR_SIZE_VER0 64
#define PERF_ATTR_SIZE_VER8 136

/* Header features: bit numbers in adds_features, each a section after the data
 * (file mode) or a HEADER_FEATURE record (pipe mode), in this order. */
enum perf_header_feature {
	HEADER_TRACING_DATA = 1,
	HEADER_BUILD_ID = 2,
	HEADER_HOSTNAME = 3,
	HEADER_OSRELEASE = 4,
	HEADER_VERSION = 5,
	HEADER_ARCH = 6,
	HEADER_NRCPUS = 7,
	HEADER_CPUDESC = 8,
	HEADER_CPUID = 9,
	HEADER_TOTAL_MEM = 10,
	HEADER_CMDLINE = 11,
	HEADER_EVENT_DESC = 12,
	HEADER_CPU_TOPOLOGY = 13,
	HEADER_NUMA_TOPOLOGY = 14,
	HEADER_BRANCH_STACK = 15,
	HEADER_PMU_MAPPINGS = 16,
	HEADER_GROUP_DESC = 17,
	HEADER_AUXTRACE = 18,
	HEADER_STAT = 19,
	HEADER_CACHE = 20,
	HEADER_SAMPLE_TIME = 21,
	HEADER_MEM_TOPOLOGY = 22,
	HEADER_CLOCKID = 23,
	HEADER_DIR_FORMAT = 24,
	HEADER_BPF_PROG_INFO = 25,
	HEADER_BPF_BTF = 26,
	HEADER_COMPRESSED = 27,
	HEADER_CPU_PMU_CAPS = 28,
	HEADER_CLOCK_DATA = 29,
	HEADER_HYBRID_TOPOLOGY = 30,
	HEADER_PMU_CAPS = 31,
	HEADER_LAST_FEATURE,
};

/* Record types: the kernel's (1..) and the ones perf itself writes (64..). */
enum perf_record_type {
	PERF_REC_MMAP = 1,
	PERF_REC_LOST = 2,
	PERF_REC_COMM = 3,
	PERF_REC_EXIT = 4,
	PERF_REC_THROTTLE = 5,
	PERF_REC_UNTHROTTLE = 6,
	PERF_REC_FORK = 7,
	PERF_REC_READ = 8,
	PERF_REC_SAMPLE = 9,
	PERF_REC_MMAP2 = 10,
	PERF_REC_AUX = 11,
	PERF_REC_ITRACE_START = 12,
	PERF_REC_LOST_SAMPLES = 13,
	PERF_REC_SWITCH = 14,
	PERF_REC_SWITCH_CPU_WIDE = 15,
	PERF_REC_NAMESPACES = 16,
	PERF_REC_KSYMBOL = 17,
	PERF_REC_BPF_EVENT = 18,
	PERF_REC_CGROUP = 19,
	PERF_REC_TEXT_POKE = 20,
	PERF_REC_AUX_OUTPUT_HW_ID = 21,

	PERF_REC_HEADER_ATTR = 64,
	PERF_REC_HEADER_EVENT_TYPE = 65,
	PERF_REC_HEADER_TRACING_DATA = 66,
	PERF_REC_HEADER_BUILD_ID = 67,
	PERF_REC_FINISHED_ROUND = 68,
	PERF_REC_ID_INDEX = 69,
	PERF_REC_AUXTRACE_INFO = 70,
	PERF_REC_AUXTRACE = 71,
	PERF_REC_AUXTRACE_ERROR = 72,
	PERF_REC_THREAD_MAP = 73,
	PERF_REC_CPU_MAP = 74,
	PERF_REC_STAT_CONFIG = 75,
	PERF_REC_STAT = 76,
	PERF_REC_STAT_ROUND = 77,
	PERF_REC_EVENT_UPDATE = 78,
	PERF_REC_TIME_CONV = 79,
	PERF_REC_HEADER_FEATURE = 80,
	PERF_REC_COMPRESSED = 81,
	PERF_REC_FINISHED_INIT = 82,
};

/* Every record starts with this (struct perf_event_header). */
struct perf_rec_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;                          /* of the whole record, header included */
};

/* misc bits */
#define PERF_REC_MISC_CPUMODE_MASK 7
#define PERF_REC_MISC_KERNEL 1
#define PERF_REC_MISC_USER 2
#define PERF_REC_MISC_HYPERVISOR 3
#define PERF_REC_MISC_GUEST_KERNEL 4
#define PERF_REC_MISC_GUEST_USER 5
#define PERF_REC_MISC_MMAP_BUILD_ID (1 << 14)   /* MMAP2 carries a build-id */
#define PERF_REC_MISC_COMM_EXEC (1 << 13)
#define PERF_REC_MISC_SWITCH_OUT (1 << 13)
#define PERF_REC_MISC_SWITCH_OUT_PREEMPT (1 << 14)
#define PERF_REC_MISC_MMAP_DATA (1 << 13)

#define PERF_REC_MISC_EXACT_IP (1 << 14)        /* SAMPLE: ip is precise */

/* attr.sample_type bits (PERF_SAMPLE_*), in the order their fields come. */
#define PERF_ST_IP (1ull << 0)
#define PERF_ST_TID (1ull << 1)
#define PERF_ST_TIME (1ull << 2)
#define PERF_ST_ADDR (1ull << 3)
#define PERF_ST_READ (1ull << 4)
#define PERF_ST_CALLCHAIN (1ull << 5)
#define PERF_ST_ID (1ull << 6)
#define PERF_ST_CPU (1ull << 7)
#define PERF_ST_PERIOD (1ull << 8)
#define PERF_ST_STREAM_ID (1ull << 9)
#define PERF_ST_RAW (1ull << 10)
#define PERF_ST_BRANCH_STACK (1ull << 11)
#define PERF_ST_REGS_USER (1ull << 12)
#define PERF_ST_STACK_USER (1ull << 13)
#define PERF_ST_WEIGHT (1ull << 14)
#define PERF_ST_DATA_SRC (1ull << 15)
#define PERF_ST_IDENTIFIER (1ull << 16)
#define PERF_ST_TRANSACTION (1ull << 17)
#define PERF_ST_REGS_INTR (1ull << 18)
#define PERF_ST_PHYS_ADDR (1ull << 19)
#define PERF_ST_AUX (1ull << 20)
#define PERF_ST_CGROUP (1ull << 21)
#define PERF_ST_DATA_PAGE_SIZE (1ull << 22)
#define PERF_ST_CODE_PAGE_SIZE (1ull << 23)
#define PERF_ST_WEIGHT_STRUCT (1ull << 24)
#define PERF_ST_KNOWN ((PERF_ST_WEIGHT_STRUCT << 1) - 1)

/* attr.read_format bits */
#define PERF_RF_TOTAL_TIME_ENABLED (1ull << 0)
#define PERF_RF_TOTAL_TIME_RUNNING (1ull << 1)
#define PERF_RF_ID (1ull << 2)
#define PERF_RF_GROUP (1ull << 3)
#define PERF_RF_LOST (1ull << 4)

/* attr.branch_sample_type bits that change the sample layout */
#define PERF_BS_HW_INDEX (1ull << 17)
#define PERF_BS_COUNTERS (1ull << 19)

/* Call-chain context markers (PERF_CONTEXT_*): u64 values from -4095 up. */
#define PERF_CTX_HV ((uint64_t)-32)
#define PERF_CTX_KERNEL ((uint64_t)-128)
#define PERF_CTX_USER ((uint64_t)-512)
#define PERF_CTX_GUEST_KERNEL ((uint64_t)-2176)
#define PERF_CTX_GUEST_USER ((uint64_t)-2560)
#define PERF_CTX_MAX ((uint64_t)-4095)

/* perf_event_attr: byte offsets of the fields the reader uses. */
#define PERF_ATTR_TYPE 0
#define PERF_ATTR_SIZE 4
#define PERF_ATTR_CONFIG 8
#define PERF_ATTR_PERIOD 16                     /* or sample_freq */
#define PERF_ATTR_SAMPLE_TYPE 24
#define PERF_ATTR_READ_FORMAT 32
#define PERF_ATTR_FLAGS 40                      /* the bit fields below */
#define PERF_ATTR_CONFIG1 56
#define PERF_ATTR_CONFIG2 64
#define PERF_ATTR_BRANCH_SAMPLE_TYPE 72
#define PERF_ATTR_REGS_USER 80
#define PERF_ATTR_STACK_USER 88                 /* u32 */
#define PERF_ATTR_CLOCKID 92                    /* s32 */
#define PERF_ATTR_REGS_INTR 96
/* bits of the u64 at PERF_ATTR_FLAGS */
#define PERF_AF_EXCLUDE_USER (1ull << 4)
#define PERF_AF_EXCLUDE_KERNEL (1ull << 5)
#define PERF_AF_EXCLUDE_HV (1ull << 6)
#define PERF_AF_FREQ (1ull << 10)
#define PERF_AF_PRECISE_SHIFT 15                /* 2 bits */
#define PERF_AF_SAMPLE_ID_ALL (1ull << 18)
#define PERF_AF_EXCLUDE_HOST (1ull << 19)
#define PERF_AF_EXCLUDE_GUEST (1ull << 20)
#define PERF_AF_USE_CLOCKID (1ull << 25)

/* attr.type */
#define PERF_ATYPE_HW 0
#define PERF_ATYPE_SW 1
#define PERF_ATYPE_TP 2
#define PERF_ATYPE_HW_CACHE 3
#define PERF_ATYPE_RAW 4
#define PERF_ATYPE_BP 5

/* HEADER_BUILD_ID entries: a record header (misc: the cpumode), pid, the
 * build-id padded to 24 bytes (size byte in the header's spare bits since
 * perf 5.x: misc bit 15, PERF_RECORD_MISC_BUILD_ID_SIZE, then size at byte 20
 * of the padded id), then the path, NUL-padded to a multiple of 64. */
#define PERF_BUILD_ID_PAD 24
#define PERF_REC_MISC_BUILD_ID_SIZE (1 << 15)

/* pmukit's own header feature: the node of each sampled data page (record -d).
 * A bit far above perf's (perf skips a feature it does not know: "unknown
 * feature", then the next section), so perf 6.x reads the file as before and
 * perf's next features never meet it. Body: the head, then n entries. */
#define PERF_FEAT_BITS 256
#define PMUK_FEAT_NODES 192
#define PMUK_NODES_MAGIC "PMUKNOD1"
enum pmuk_node_source {
	PMUK_NODE_SRC_NONE = 0,   /* no answer: state says why */
	PMUK_NODE_SRC_PHYS = 1,   /* the sample's PHYS_ADDR in a node's memory block */
	PMUK_NODE_SRC_QUERY = 2,  /* move_pages query of the live process */
};
struct pmuk_node_feat_head {
	char magic[8];
	uint32_t version;         /* 1 */
	uint32_t entry_size;      /* sizeof(struct pmuk_node_feat_entry) */
	uint64_t n;               /* entries that follow */
	uint64_t page_size;
	uint64_t samples;         /* samples with a data address */
	uint64_t by_phys, by_query; /* distinct pages answered each way */
	uint64_t unanswered;      /* distinct pages without a node (entries say why) */
	uint64_t dropped;         /* distinct pages past the table's cap: not asked */
	uint64_t batches;         /* move_pages batches */
	uint64_t query_ns;        /* time spent in them */
};
struct pmuk_node_feat_entry {
	uint64_t page;            /* the page's address (virtual, page-aligned) */
	int32_t pid;
	int32_t node;             /* -1: none */
	uint32_t state;           /* enum pmu_page_state */
	uint32_t source;          /* enum pmuk_node_source */
	uint64_t time;            /* CLOCK_MONOTONIC ns of the answer */
};

#endif
