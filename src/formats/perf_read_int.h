/* SPDX-License-Identifier: MIT */
/* The perf.data reader's inside: perf_read.c opens (file header, or a pipe's
 * header records), perf_read_attr.c keeps the events and their ids,
 * perf_read_feat.c parses header features, perf_read_names.c names events,
 * perf_read_stream.c walks the records and perf_read_order.c puts them in time
 * order. */
#ifndef PMUK_FORMATS_PERF_READ_INT_H
#define PMUK_FORMATS_PERF_READ_INT_H

#include "formats/perf_decode.h"
#include "formats/perf_file.h"
#include "formats/trace_int.h"
#include "core/hash.h"

#include <stdint.h>
#include <stdio.h>

/* At most this many bytes of records are held for ordering; past it the oldest
 * go out (and what arrives older later counts as out of order). */
#define PERF_READ_QUEUE_MAX (64u << 20)
/* Sanity bounds for counts read from the file. */
#define PERF_READ_MAX_ATTRS 4096u
#define PERF_READ_MAX_ATTR_SIZE 4096u

struct perf_ev {
	uint8_t attr[PERF_ATTR_SIZE_VER8];  /* zero-padded copy, host order */
	void *stored;                       /* the attr as stored (ev.attr) */
	uint32_t stored_size;
	uint64_t *ids;
	size_t nr_ids, cap_ids;
	char *name;                         /* owned; NULL: not named yet */
	struct pmuk_sample_fmt fmt;
};

struct perf_id {
	uint64_t id;
	uint32_t ev;
};

/* One record held for ordering: decoded in place, so rec points into buf. */
struct perf_qent {
	struct pmu_record rec;
	struct pmu_sample_ext ext;
	uint64_t key, seq;
	size_t size;
	size_t cls;                  /* buf holds cls * 64 bytes; >= PERF_QENT_CLASSES: size */
	struct perf_qent *next;      /* in a spare list */
	uint64_t buf[];
};

/* A heap slot: the entry's order beside it, so that comparisons read only
 * the heap array, not the entries scattered over the memory. */
struct perf_hent {
	uint64_t key, seq;
	struct perf_qent *q;
};

/* Delivered entries are kept for the next records of their size class (buf
 * rounded up to 64 bytes, up to 4 KiB) rather than freed: one malloc and free
 * per record was a tenth of the reading cost. */
#define PERF_QENT_CLASSES 65

struct perf_src {
	struct pmu_trace *t;
	FILE *f;
	char *path;
	int pipe;
	uint64_t pos;                /* input offset of the next byte */
	uint64_t data_end;           /* file mode: end of the data section (clamped) */
	uint64_t data_end_said;      /* ... as the header says */
	uint64_t file_size;

	struct perf_ev *evs;
	size_t nr_evs, cap_evs;
	struct pmu_trace_event *pub;
	struct perf_id *ids;
	size_t nr_ids, cap_ids;
	struct pmuk_index id_ix;
	int id_pos, is_pos;          /* where records carry their id (perf's rule) */

	char *str[HEADER_LAST_FEATURE]; /* owned feature strings */
	struct pmu_trace_build_id *bids;
	size_t nr_bids, cap_bids;
	uint32_t *bid_next;          /* the next entry of the same path, or NONE */
	size_t cap_bid_next;
	uint32_t *bid_heads;         /* the first entry of each path */
	size_t nr_bid_heads, cap_bid_heads;
	struct pmuk_index bid_ix;    /* path -> its bid_heads element */
	void *tracing;
	size_t tracing_size;
	int feat_event_desc;

	/* dynamic PMU types -> names (HEADER_PMU_MAPPINGS) */
	struct { uint32_t type; char *name; } *pmus;
	size_t nr_pmus, cap_pmus;
	/* tracepoint ids -> "sys:name", from the tracing data */
	struct { uint64_t id; char *name; } *tps;
	size_t nr_tps, cap_tps;

	/* ordering (perf_read_order.c) */
	struct perf_hent *heap;
	size_t nq, cap_q;
	struct perf_qent *spare[PERF_QENT_CLASSES];
	uint64_t seq, queued_bytes, max_time, round_limit, last_out;
	int rounds, out_any;
	uint64_t window;
	pmu_record_fn cb;
	void *ctx;
	int cb_ret;

	/* pipe mode: the first record after the header records, read by open */
	uint64_t *pend;
	size_t pend_size;
	uint64_t pend_off;

	void *zctx;                  /* ZSTD_DStream */
	uint8_t *zout, *carry;
	size_t carry_n, carry_cap;
	uint64_t z_failed;           /* compressed records that did not decompress */

	uint64_t *rbuf;              /* one record, 8-byte aligned */
	size_t rbuf_cap;
	/* file mode: the data section read ahead in blocks, records handed out
	 * in place; perf_in takes what is here first. in_at: the next byte (at
	 * input offset pos); in_n: the end of what was read. */
	uint64_t *ibuf;
	size_t in_at, in_n;
};

/* The read-ahead block: more than a record's largest size (64 KiB). */
#define PERF_IBUF (256u << 10)

/* perf_read_attr.c */
int perf_ev_add(struct perf_src *s, const void *attr, uint32_t size, uint64_t off);
int perf_ev_add_ids(struct perf_src *s, uint32_t ev, const uint64_t *ids, size_t n);
int perf_id_to_ev(const struct perf_src *s, uint64_t id);
void perf_ev_publish(struct perf_src *s);
void perf_ev_free(struct perf_src *s);
/* The event of a raw record (-1 unknown) and the format to decode it with. */
int perf_rec_event(const struct perf_src *s, const void *rec, size_t size);

/* perf_read_feat.c: one feature's bytes (a file section or a HEADER_FEATURE
 * record at input offset off). Problems are warned about, never fatal. */
void perf_feat_parse(struct perf_src *s, int feat, const uint8_t *p, size_t n, uint64_t off);
int perf_build_id_entry(struct perf_src *s, const uint8_t *p, size_t n);
void perf_info_finish(struct perf_src *s);
void perf_feat_free(struct perf_src *s);
void perf_build_id_fill(struct perf_src *s, struct pmu_record *r);

/* perf_read_names.c */
void perf_tracing_ids(struct perf_src *s);
char *perf_event_name(const struct perf_src *s, const struct perf_ev *e);

/* perf_read_stream.c */
int perf_stream_read(struct pmu_trace *t, pmu_record_fn cb, void *ctx);
/* One record of any kind at input offset off (rec 8-byte aligned, writable). */
int perf_handle(struct perf_src *s, void *rec, size_t size, uint64_t off);
/* Reads exactly n bytes; 0, or the count read when the input ends first. */
size_t perf_in(struct perf_src *s, void *dst, size_t n);
int perf_next(struct perf_src *s, uint64_t **rec, size_t *size, uint64_t *off);
void perf_stream_free(struct perf_src *s);

/* perf_read_zstd.c: the records inside a COMPRESSED record's body */
int perf_zstd_records(struct perf_src *s, const uint8_t *in, size_t n, uint64_t off);
int perf_zstd_available(void);
void perf_zstd_free(struct perf_src *s);

/* perf_read_order.c */
int perf_order_add(struct perf_src *s, struct perf_qent *q);
/* An entry with room for size bytes of record (a spare one when there is), or
 * NULL without memory; perf_qent_put takes it back. */
struct perf_qent *perf_qent_get(struct perf_src *s, size_t size);
void perf_qent_put(struct perf_src *s, struct perf_qent *q);
int perf_order_flush(struct perf_src *s, uint64_t upto);   /* UINT64_MAX: all */
int perf_order_round(struct perf_src *s);
void perf_order_free(struct perf_src *s);

#endif
