/* SPDX-License-Identifier: MIT */
/* What xperf/WPR's merge adds to a kernel trace so that other machines can name
 * its frames: for every loaded image an ImageID event and, when the image on
 * disk has a CodeView record, a DbgID_RSDS event (PDB GUID + Age + PDB name),
 * and SysConfigEx VolumeMapping events (which drive letter each volume had).
 * Portable: reads an .etl, writes a copy with buffers of these events appended
 * (and the log-file header's buffer count raised). */
#ifndef PMUK_FORMATS_ETL_MERGE_H
#define PMUK_FORMATS_ETL_MERGE_H

#include <pmukit/guid.h>
#include <stddef.h>
#include <stdint.h>

/* An NT path prefix and its DOS form: "\Device\HarddiskVolume3\" -> "C:\",
 * "\SystemRoot\" -> "C:\Windows\". */
struct pmuk_etl_volume {
	const char *nt;
	const char *dos;
};

/* Where the image the trace calls path (drive letters already put in) can be
 * read here: 0 with out filled, else the image is not read (no DbgID_RSDS). */
typedef int (*pmuk_etl_locate_fn)(const char *path, char *out, size_t size, void *ctx);

struct pmuk_etl_merge_opts {
	size_t sz;                 /* sizeof(struct pmuk_etl_merge_opts) */
	const struct pmuk_etl_volume *volumes;
	size_t n_volumes;
	const char *windows_dir;   /* "C:\Windows\": a SystemPaths event; NULL: none */
	pmuk_etl_locate_fn locate; /* NULL: the path as mapped */
	void *locate_ctx;
};
#define pmuk_etl_merge_opts__last_field locate_ctx

struct pmuk_etl_merge_stats {
	uint64_t images;           /* distinct (process, base, file) loads seen */
	uint64_t image_ids;        /* ImageID events written */
	uint64_t rsds;             /* DbgID_RSDS events written */
	uint64_t unreadable;       /* images not found or not PE here */
	uint64_t no_rsds;          /* PE images without a CodeView RSDS record */
	uint64_t already;          /* images the trace had a DbgID_RSDS for already */
	uint64_t volumes;          /* VolumeMapping events written */
	uint64_t buffers;          /* buffers appended */
};

/* Reads in, writes out (a new file; not in itself). 0 or PMU_E*; st may be NULL. */
int pmuk_etl_merge(const char *in, const char *out, const struct pmuk_etl_merge_opts *opts,
		   struct pmuk_etl_merge_stats *st);

#ifdef _WIN32
/* src/windows/etl_merge_win.c: merges the recording at path in place, with
 * this machine's volumes and Windows directory; the images are read where
 * the trace says they were loaded. */
int pmuk_etl_merge_recording(const char *path, struct pmuk_etl_merge_stats *st);
#endif

/* etl_merge_buf.c: the appended buffers. */
struct pmuk_etl_mbuf {
	uint8_t *d;                /* the buffers written so far, the open one last */
	size_t n, cap;
	size_t open;               /* start of the open buffer */
	size_t rec;                /* start of the record being built */
	uint32_t bufsz;            /* each buffer's size: the trace's */
	unsigned psz;              /* pointer size of the events: 4 or 8 */
	uint64_t buffers;
	int err;                   /* PMU_ENOMEM once out of memory */
};
/* One full-header (EVENT_TRACE_HEADER) event of task guid: the payload is built
 * by the put calls that follow, up to pmuk_etl_mbuf_end. Buffers are numbered
 * and placed on a processor when written (pmuk_etl_merge_write). */
void pmuk_etl_mbuf_event(struct pmuk_etl_mbuf *b, const struct pmu_guid *task, unsigned opcode,
			 unsigned version, uint32_t pid, uint64_t raw_time);
void pmuk_etl_mbuf_u32(struct pmuk_etl_mbuf *b, uint32_t v);
void pmuk_etl_mbuf_ptr(struct pmuk_etl_mbuf *b, uint64_t v);
void pmuk_etl_mbuf_bytes(struct pmuk_etl_mbuf *b, const void *p, size_t n);
void pmuk_etl_mbuf_wstr(struct pmuk_etl_mbuf *b, const char *utf8);   /* UTF-16 + NUL */
void pmuk_etl_mbuf_end(struct pmuk_etl_mbuf *b);
/* Closes the open buffer (0xFF padding to bufsz). */
void pmuk_etl_mbuf_flush(struct pmuk_etl_mbuf *b);

/* etl_merge_io.c: the input's buffers (up to the first that is none: zero
 * padding), the log-file header's BuffersWritten raised by b's buffers, then
 * b's buffers numbered after the input's, on processor 0. */
int pmuk_etl_merge_write(const char *in, const char *out, struct pmuk_etl_mbuf *b);

/* etl_records_path.c: path with the longest NT prefix of v[0..n) replaced by
 * its DOS form, "\??\C:\..." as "C:\...", and, sysdrive given ("C:"), a path
 * without a device ("\Windows\...") on that drive. */
void pmuk_etl_map_path(const struct pmuk_etl_volume *v, size_t n, const char *sysdrive,
		       const char *in, char *out, size_t size);

#endif
