/* SPDX-License-Identifier: MIT */
/* Internals of the .etl reader shared by src/formats/etl_*.c. */
#ifndef PMUK_FORMATS_ETL_INT_H
#define PMUK_FORMATS_ETL_INT_H

#include "core/attr.h"
#include "core/guid.h"
#include "core/hash.h"
#include "core/le.h"
#include "core/utf8.h"

#include <pmukit/etl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Short names for core/le.h: the readers load hundreds of fields. */
#define le16 pmuk_le16
#define le32 pmuk_le32
#define le64 pmuk_le64
static inline uint64_t leptr(const uint8_t *p, unsigned psz) { return psz == 4 ? le32(p) : le64(p); }

#define ETL_BUF_HDR 0x48
/* ETW buffers are at most 16 MiB (EVENT_TRACE_PROPERTIES.BufferSize, Windows 8+):
 * larger ones are taken for corruption */
#define ETL_MAX_BUFFER (16u << 20)
#define ETL_MAX_CPUS 2048            /* processor index: 11 bits */
#define ETL_FLAG_PROC_INDEX 0x0020
#define ETL_FLAG_COMPRESSED 0x0040
#define ETL_FLAG_EVENTS_LOST 0x0002
#define ETL_COMPRESSED_MODE 0x04000000u
#define ETL_BUFTYPE_DEBUG_INFO 7     /* the last BufferType defined (0x36) */

/* Trace header types: byte 2 of a record's marker (TRACE_HEADER_TYPE_*,
 * docs/etl-format.md 4.2). Kernel headers are SYSTEM, COMPACT and PERFINFO. */
enum etl_header_type {
	ETL_HDR_SYSTEM32 = 1,
	ETL_HDR_SYSTEM64 = 2,
	ETL_HDR_COMPACT32 = 3,
	ETL_HDR_COMPACT64 = 4,
	ETL_HDR_FULL32 = 10,         /* EVENT_TRACE_HEADER */
	ETL_HDR_INSTANCE32 = 11,     /* EVENT_INSTANCE_GUID_HEADER */
	ETL_HDR_ERROR = 13,
	ETL_HDR_MESSAGE = 15,        /* WPP / TraceMessage */
	ETL_HDR_PERFINFO32 = 16,
	ETL_HDR_PERFINFO64 = 17,
	ETL_HDR_EVENT32 = 18,        /* EVENT_HEADER */
	ETL_HDR_EVENT64 = 19,
	ETL_HDR_FULL64 = 20,
	ETL_HDR_INSTANCE64 = 21,
	ETL_HDR_MAX = 21,
};

/* Fixed header sizes by header type (4.3 - 4.5); MESSAGE and ERROR take 8. */
#define ETL_SYSTEM_HDR 32
#define ETL_COMPACT_HDR 24
#define ETL_PERFINFO_HDR 16
#define ETL_FULL_HDR 48
#define ETL_INSTANCE_HDR 72
#define ETL_EVENT_HDR 80
#define ETL_OTHER_HDR 8

#define ETL_MARKER_TRACE_HEADER 0x80 /* byte 3 of the marker: TRACE_HEADER_FLAG */
#define ETL_MARKER_END 0xFFFFFFFFu   /* no more records in the buffer */

/* Version word of the kernel headers: extended items before the payload. */
#define ETL_VER_PEBS_INDEX 0x8000    /* TRACE_HEADER_PEBS_INDEX_FLAG: one u64 */
#define ETL_VER_PMC_SHIFT 8          /* TRACE_HEADER_PMC_COUNTERS_MASK 0x0700: u64 each */
#define ETL_VER_PMC_MASK 7
#define ETL_VER_VERSION 0x00FF       /* the MOF class version */

/* EVENT_HEADER Flags (4.5). */
#define ETL_EH_EXTENDED_INFO 0x0001
#define ETL_EH_32_BIT_HEADER 0x0020
#define ETL_EH_64_BIT_HEADER 0x0040

/* One buffer header as stored (0x48 bytes). */
struct etl_bufhdr {
	uint32_t size, saved, filled;
	uint64_t seq;
	uint32_t cpu;
	uint16_t flags, type;
};

/* A walk over the buffer headers. */
struct etl_scan {
	uint64_t off;            /* file offset of the next buffer header to look at */
	uint32_t index;          /* its index (corrupt stretches count as one) */
	uint32_t found;          /* buffers found: the walk ends at BuffersWritten */
};

/* A buffer found ahead of the stream that reads it. */
struct etl_pending {
	uint64_t off;
	uint32_t index;
	struct etl_bufhdr h;
};

/* The per-CPU (or, in file order, single) sequence of buffers being read.
 * One scan of the buffer headers feeds every stream: buffers of other CPUs
 * met while looking for this stream's next one wait in their stream's queue
 * (short, as loggers write the CPUs' buffers interleaved in time). */
struct etl_stream {
	uint32_t cpu;            /* UINT32_MAX: every buffer (file order) */
	struct etl_pending *q;   /* ring of buffers found ahead */
	size_t q_head, q_n, q_cap;
	uint8_t *data;           /* current buffer, decompressed, header included */
	size_t cap;
	size_t end, pos;         /* valid area end, next record */
	uint64_t buf_off;
	uint32_t buf_index;
	uint32_t buf_cpu;
	int done;
	int have;                /* head record decoded into ev */
	struct pmu_etl_event ev;
};

struct etl_names;

struct pmu_etl {
	FILE *f;
	uint64_t file_size;
	uint64_t data_end;       /* file_size, or where the zero padding begins once found */
	struct pmu_etl_opts opts;
	struct pmu_etl_header hdr;
	uint64_t ns_per_tick;    /* 1e9 / tick_freq when exact, else 0 */
	uint32_t max_saved;      /* largest decompressed buffer believed: the logger's */
	struct pmu_etl_stats st;
	struct etl_stream *streams;
	unsigned n_streams;
	uint16_t stream_of[ETL_MAX_CPUS]; /* processor -> stream index + 1 */
	struct etl_scan scan;    /* the streams' shared scan of buffer headers */
	uint64_t header_reads;   /* buffer headers read while streaming (tests) */
	unsigned *heap;          /* stream indices ordered by head time */
	unsigned n_heap;
	int started;
	int last;                /* stream whose head was returned last, -1 none */
	uint8_t *zbuf;           /* compressed input scratch */
	size_t zcap;
	struct pmu_etl_stat *stats; /* per provider/id/opcode/version, first seen first */
	size_t stat_cap;
	struct pmuk_index stat_ix;
	int stat_last;
	struct pmu_etl_stat *sorted;
	size_t sorted_n;
	struct etl_names *names;
};

/* etl_lz77.c: plain LZ77 (XPRESS) decoding; returns bytes written. */
size_t pmuk_etl_lz77(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len);

/* etl_file.c */
void pmuk_etl_problem(struct pmu_etl *r, uint64_t skipped, const char *fmt, ...)
	PMUK_PRINTF(3, 4);
int pmuk_etl_parse_record(struct pmu_etl *r, struct etl_stream *s, struct pmu_etl_event *ev);
int pmuk_etl_parse_logfile_header(const uint8_t *p, size_t n, unsigned psz,
				  struct pmu_etl_header *h);

/* etl_stats.c */
void pmuk_etl_stat_add(struct pmu_etl *r, const struct pmu_etl_event *ev);
void pmuk_etl_stats_free(struct pmu_etl *r);
void pmuk_etl_group_guid(unsigned group, unsigned opcode, struct pmu_guid *out);
/* True when ev belongs to the kernel event group (by its task GUID, so also
 * kernel events a relogger wrote with full headers). */
int pmuk_etl_is_group(const struct pmu_etl_event *ev, unsigned group);

/* etl_names.c */
void pmuk_etl_names_track(struct pmu_etl *r, const struct pmu_etl_event *ev);
void pmuk_etl_names_free(struct pmu_etl *r);

/* etl_kernel.c: core/utf8.h's pmuk_utf16_to_utf8 for 8-bit strings (taken as
 * Latin-1). */
size_t pmuk_etl_ansi(const uint8_t *p, size_t n, char *out, size_t outsz);

/* 1: the CLR runtime provider, 2: its rundown provider, 0: neither (etl_clr.c). A
 * cheap test before decoding, so the .etl event loop formats no error per event. */
int pmuk_etl_clr_provider(const struct pmu_etl_event *ev);

#endif
