/* SPDX-License-Identifier: MIT */
/* perf.data writer (file mode, PERFILE2; formats/perf_file.h has the layout):
 *   header | ids of each attr | attrs | data records | feature index | feature bodies
 * Attrs are added before the first record; records are written as given (the
 * kernel's bytes, or records built by the caller with their sample_id trailer);
 * features are kept in memory and written, with the header, by finish. Portable:
 * builds on every OS, host byte order as perf writes it. */
#ifndef PMUK_FORMATS_PERF_WRITE_H
#define PMUK_FORMATS_PERF_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "formats/perf_file.h"

/* A growing byte buffer for feature bodies and built records. */
struct pmuk_pw_buf {
	uint8_t *p;
	size_t n, cap;
	int err;               /* PMU_ENOMEM once an append failed (the rest are dropped) */
};

void pmuk_pw_put(struct pmuk_pw_buf *b, const void *data, size_t size);
void pmuk_pw_u32(struct pmuk_pw_buf *b, uint32_t v);
void pmuk_pw_u64(struct pmuk_pw_buf *b, uint64_t v);
/* zero bytes up to the next multiple of align */
void pmuk_pw_pad(struct pmuk_pw_buf *b, size_t align);
/* perf's header string: u32 length (strlen + 1 rounded up to 64), the bytes,
 * NUL padding. */
void pmuk_pw_str(struct pmuk_pw_buf *b, const char *s);
void pmuk_pw_buf_free(struct pmuk_pw_buf *b);

struct pmuk_perf_writer;

/* Creates (truncates) path. */
int pmuk_pw_open(const char *path, struct pmuk_perf_writer **out);
/* An event: its perf_event_attr (size bytes, the same size for every attr of the
 * file) and the kernel ids of its opened instances. Before the first record. */
int pmuk_pw_add_attr(struct pmuk_perf_writer *w, const void *attr, uint32_t size,
		     const uint64_t *ids, size_t nids);
/* One record, its perf_event_header first (size a multiple of 8, <= 65535). */
int pmuk_pw_write(struct pmuk_perf_writer *w, const void *rec, size_t size);
/* Records already framed (the caller checked every header), size bytes of them. */
int pmuk_pw_write_bytes(struct pmuk_perf_writer *w, const void *p, size_t size);
/* A header feature's body (enum perf_header_feature), copied; a second call for
 * the same feature replaces the first. */
int pmuk_pw_feature(struct pmuk_perf_writer *w, int feat, const void *body, size_t size);
/* Bytes of records written so far. */
uint64_t pmuk_pw_data_size(const struct pmuk_perf_writer *w);
/* Writes the features and the header, closes the file and frees w; *bytes (may
 * be NULL) is the file's size. On error the file is left incomplete (its header
 * says so: perf refuses it) and w is freed all the same. */
int pmuk_pw_finish(struct pmuk_perf_writer *w, uint64_t *bytes);
/* Closes and frees without finishing (NULL is fine). */
void pmuk_pw_free(struct pmuk_perf_writer *w);

/* Feature bodies perf reads (tools/perf/util/header.c's layouts). */
void pmuk_pwf_nrcpus(struct pmuk_pw_buf *b, uint32_t avail, uint32_t online);
void pmuk_pwf_cmdline(struct pmuk_pw_buf *b, const char *const *argv, size_t argc);
/* One event of HEADER_EVENT_DESC; call pmuk_pwf_event_desc_begin first. */
void pmuk_pwf_event_desc_begin(struct pmuk_pw_buf *b, uint32_t nr, uint32_t attr_size);
void pmuk_pwf_event_desc(struct pmuk_pw_buf *b, const void *attr, uint32_t attr_size,
			 const char *name, const uint64_t *ids, size_t nids);
/* One HEADER_BUILD_ID entry: misc PERF_REC_MISC_KERNEL or _USER, pid -1 for the
 * host, the build-id (up to 20 bytes) and the module's path. */
void pmuk_pwf_build_id(struct pmuk_pw_buf *b, uint16_t misc, int32_t pid, const uint8_t *id,
		       size_t len, const char *path);

#endif
