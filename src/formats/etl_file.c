/* SPDX-License-Identifier: MIT */
/* .etl files: buffers, their per-CPU streams, resynchronisation after
 * corruption, and the time-ordered merge of the streams. */
#include "formats/etl_int.h"
#include "core/error.h"
#include "core/file.h"
#include "core/opts.h"
#include "core/grow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#ifndef _WIN32
#include <unistd.h>
#endif

#define ANY_CPU UINT32_MAX

static int seek_to(FILE *f, uint64_t off)
{
#ifdef _WIN32
	return _fseeki64(f, (long long)off, SEEK_SET);
#else
	return fseeko(f, (off_t)off, SEEK_SET);
#endif
}

static size_t read_at(struct pmu_etl *r, uint64_t off, void *buf, size_t n)
{
	if (off >= r->file_size)
		return 0;
	if (n > r->file_size - off)
		n = (size_t)(r->file_size - off);
	if (seek_to(r->f, off))
		return 0;
	return fread(buf, 1, n, r->f);
}

void pmuk_etl_problem(struct pmu_etl *r, uint64_t skipped, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->st.last_problem, sizeof(r->st.last_problem), fmt, ap);
	va_end(ap);
	r->st.problems++;
	r->st.bytes_skipped += skipped;
	pmuk_log(PMU_LOG_WARN, "etl: %s", r->st.last_problem);
	if (r->opts.on_problem)
		r->opts.on_problem(r->st.last_problem, r->opts.problem_ctx);
}

static struct etl_bufhdr *bufhdr_decode(const uint8_t *p, struct etl_bufhdr *h)
{
	h->size = le32(p);
	h->saved = le32(p + 0x04);
	h->filled = le32(p + 0x30);
	h->seq = le64(p + 0x18);
	h->flags = le16(p + 0x34);
	h->type = le16(p + 0x36);
	h->cpu = (h->flags & ETL_FLAG_PROC_INDEX) ? (le16(p + 0x28) & (ETL_MAX_CPUS - 1)) : p[0x28];
	return h;
}

/* Why h cannot be a buffer header, or NULL. */
static const char *bufhdr_bad(const struct etl_bufhdr *h)
{
	if (h->size < ETL_BUF_HDR)
		return "BufferSize is smaller than the 72-byte buffer header";
	if (h->size > ETL_MAX_BUFFER)
		return "BufferSize is larger than 16 MiB, the most ETW writes";
	if (h->type > 15 || (h->flags & 0xFF00))
		return "BufferType/BufferFlag hold undefined values";
	if (h->flags & ETL_FLAG_COMPRESSED) {
		if (h->saved < ETL_BUF_HDR || h->saved > ETL_MAX_BUFFER)
			return "SavedOffset of a compressed buffer is out of range";
	} else {
		uint32_t end = h->filled ? h->filled : h->saved;
		if (end > h->size || (end && end < ETL_BUF_HDR))
			return "the filled size (0x30, else SavedOffset) lies outside the buffer";
	}
	return NULL;
}

/* Stricter test used while hunting for the next buffer in corrupt data. */
static int plausible(const uint8_t *p, size_t avail)
{
	struct etl_bufhdr h;

	if (avail < ETL_BUF_HDR + 4)
		return 0;
	/* most offsets fail on the size alone: tested before decoding the rest */
	uint32_t size = le32(p);
	if (size < ETL_BUF_HDR + 8 || size > ETL_MAX_BUFFER)
		return 0;
	bufhdr_decode(p, &h);
	if (bufhdr_bad(&h) || h.type > ETL_BUFTYPE_DEBUG_INFO)
		return 0;
	if (h.flags & ETL_FLAG_COMPRESSED)
		return h.saved > ETL_BUF_HDR;
	uint32_t end = h.filled ? h.filled : h.saved;
	if (end <= ETL_BUF_HDR)
		return end == ETL_BUF_HDR;
	const uint8_t *m = p + ETL_BUF_HDR;
	return (m[3] & ETL_MARKER_TRACE_HEADER) && m[2] >= ETL_HDR_SYSTEM32 && m[2] <= ETL_HDR_MAX;
}

/* Zero when the first byte is and every byte equals the next: the C library's
 * memcmp is vectorised, a portable loop over words is not. */
static int page_zero(const uint8_t *p, size_t n)
{
	return !n || (!p[0] && !memcmp(p, p + 1, n - 1));
}

static uint64_t skip_zeros(struct pmu_etl *r, uint64_t from);

/* First plausible buffer header at or after from; file_size if none. */
static uint64_t resync(struct pmu_etl *r, uint64_t from)
{
	enum { CHUNK = 65536, PAGE = 4096 };
	uint8_t *win = malloc(CHUNK + ETL_BUF_HDR + 4);
	uint64_t off = from;

	if (!win)
		return r->file_size;
	while (off + ETL_BUF_HDR + 4 <= r->file_size) {
		size_t got = read_at(r, off, win, CHUNK + ETL_BUF_HDR + 4), i;
		if (got < ETL_BUF_HDR + 4)
			break;
		size_t last = got - (ETL_BUF_HDR + 4);
		for (i = 0; i <= last; i++) {
			if (i % PAGE == 0 && got - i >= PAGE && page_zero(win + i, PAGE))
				break;
			if (plausible(win + i, got - i)) {
				free(win);
				return off + i;
			}
		}
		if (i > last) {
			off += last + 1;
			continue;
		}
		/* A zero page: the run it starts is skipped as skip_zeros skips padding
		 * (holes unread). No header starts in it: a BufferSize is not 0, so the
		 * first can start 3 bytes before the first non-zero byte. */
		off = skip_zeros(r, off + i + PAGE) - 3;
	}
	free(win);
	return r->file_size;
}

/* A header that cannot be one: the scan goes on at the next plausible header
 * (no sooner than 3 bytes before data, the first non-zero byte: a header's
 * BufferSize is not 0). */
static void bad_header(struct pmu_etl *r, struct etl_scan *sc, int quiet,
		       const struct etl_bufhdr *h, uint64_t data)
{
	uint64_t at = sc->off;
	uint64_t next = resync(r, data > at + 4 ? data - 3 : at + 1);

	if (!quiet)
		pmuk_etl_problem(r, next - at, "buffer %u at offset 0x%llx: %s (BufferSize %u, "
				 "SavedOffset %u, 0x30 %u); expected a WMI_BUFFER_HEADER; skipped "
				 "%llu bytes to the next buffer", sc->index, (unsigned long long)at,
				 bufhdr_bad(h), h->size, h->saved, h->filled,
				 (unsigned long long)(next - at));
	sc->off = next;
	sc->index++;
}

/* The stretch [*off, *end) that may hold data at or after *off: the holes of a
 * sparse file (where lseek knows them) are zeros not worth reading. The
 * descriptor's offset is put back, as stdio keeps its own idea of it. */
static void next_data(struct pmu_etl *r, uint64_t *off, uint64_t *end)
{
	*end = r->file_size;
#ifdef SEEK_DATA
	int fd = fileno(r->f);
	off_t cur = lseek(fd, 0, SEEK_CUR), data, hole;

	if (cur < 0)
		return;
	data = lseek(fd, (off_t)*off, SEEK_DATA);
	if (data < 0 && errno == ENXIO)
		data = (off_t)r->file_size;	/* a hole to the end */
	if (data >= (off_t)*off) {
		*off = (uint64_t)data;
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole > data && (uint64_t)hole < *end)
			*end = (uint64_t)hole;
	}
	lseek(fd, cur, SEEK_SET);
#else
	(void)r;
	(void)off;
#endif
}

/* Offset of the first non-zero byte of buf[0, n), n if none: a page at a time. */
static size_t first_nonzero(const uint8_t *buf, size_t n)
{
	enum { PAGE = 4096 };

	for (size_t i = 0; i < n; i += PAGE) {
		if (page_zero(buf + i, n - i < PAGE ? n - i : PAGE))
			continue;
		while (!buf[i])
			i++;
		return i;
	}
	return n;
}

/* The first non-zero byte at or after from, file_size if none: zero runs (the
 * unused tail of a file ETW preallocated to its maximum size) are read in
 * order and checked a page at a time, not tried byte by byte as buffer headers. */
static uint64_t skip_zeros(struct pmu_etl *r, uint64_t from)
{
	enum { CHUNK = 128 * 1024 };
	uint8_t *buf = malloc(CHUNK);
	uint64_t off = from, end;
	size_t got = 1, i;

	if (!buf)
		return from;
	while (off < r->file_size && got) {
		next_data(r, &off, &end);
		if (off >= end || seek_to(r->f, off))
			break;
		while (off < end && (got = fread(buf, 1, end - off < CHUNK ? end - off : CHUNK,
						  r->f)) > 0) {
			if ((i = first_nonzero(buf, got)) < got) {
				free(buf);
				return off + i;
			}
			off += got;
		}
	}
	free(buf);
	return off;
}

/* At a buffer boundary: true when the rest of the file is zeros, counted as
 * padding (once: by the scan that reports); else *data is the first byte that is not. */
static int zero_tail(struct pmu_etl *r, uint64_t at, int quiet, uint64_t *data)
{
	*data = skip_zeros(r, at);
	if (*data < r->file_size)
		return 0;
	if (!quiet)
		r->st.bytes_padding = r->file_size - at;
	r->data_end = at;	/* a second scan (time order) stops there unread */
	return 1;
}

/* After the log-file header's BuffersWritten buffers the file holds nothing
 * more: zeros are padding, anything else is reported and skipped. */
static void after_last_buffer(struct pmu_etl *r, uint64_t at, int quiet)
{
	uint64_t data;

	if (!zero_tail(r, at, quiet, &data) && !quiet)
		pmuk_etl_problem(r, r->file_size - at, "%llu bytes after the %u buffers the "
				 "log-file header counts are not all zero (the first non-zero at offset "
				 "0x%llx); skipped", (unsigned long long)(r->file_size - at),
				 r->hdr.buffers_written, (unsigned long long)data);
}

/* Zeros to the end before the log-file header's BuffersWritten buffers were
 * found: the file lacks some (copied while the trace was written, or zeroed),
 * which is data lost, not padding alone. */
static void missing_buffers(struct pmu_etl *r, const struct etl_scan *sc, uint64_t at)
{
	pmuk_etl_problem(r, 0, "the log-file header counts %u buffers but the file holds %u: "
			 "zeros from offset 0x%llx to its end where the other %u should be (a copy "
			 "made while the trace was written, or a damaged file)",
			 r->hdr.buffers_written, sc->found, (unsigned long long)at,
			 r->hdr.buffers_written - sc->found);
}

/* The next buffer of a scan; reports bad headers unless quiet. Returns 0 with
 * *off and *h set, 1 at the end. */
static int next_buffer(struct pmu_etl *r, struct etl_scan *sc, int quiet, uint64_t *off,
		       struct etl_bufhdr *h)
{
	uint8_t raw[ETL_BUF_HDR];
	uint64_t data;

	while (sc->off < r->data_end) {
		uint64_t at = sc->off;
		if (r->hdr.buffers_written && sc->found == r->hdr.buffers_written) {
			after_last_buffer(r, at, quiet);
			break;
		}
		size_t got = read_at(r, at, raw, sizeof(raw));
		r->header_reads++;
		if (got < sizeof(raw) || bufhdr_bad(bufhdr_decode(raw, h))) {
			data = at + 1;
			if (page_zero(raw, got) && zero_tail(r, at, quiet, &data)) {
				if (!quiet && sc->found < r->hdr.buffers_written)
					missing_buffers(r, sc, at);
				break;
			}
			if (got < sizeof(raw)) {
				if (!quiet)
					pmuk_etl_problem(r, got, "buffer %u at offset 0x%llx: %zu trailing "
							 "bytes are too short for a 72-byte WMI_BUFFER_HEADER",
							 sc->index, (unsigned long long)at, got);
				break;
			}
			bad_header(r, sc, quiet, h, data);
			continue;
		}
		if (h->size > r->file_size - at && !quiet)
			pmuk_etl_problem(r, 0, "buffer %u at offset 0x%llx: BufferSize %u runs past the "
					 "end of the file (%llu bytes): the file is truncated",
					 sc->index, (unsigned long long)at, h->size,
					 (unsigned long long)r->file_size);
		sc->off = at + h->size;
		*off = at;
		sc->index++;
		sc->found++;
		return 0;
	}
	sc->off = r->file_size;
	return 1;
}

static int enqueue(struct etl_stream *s, const struct etl_pending *p)
{
	if (s->q_n == s->q_cap) {
		size_t cap = s->q_cap ? 2 * s->q_cap : 16;
		struct etl_pending *q = malloc(cap * sizeof(*q));
		if (!q)
			return pmuk_fail(PMU_ENOMEM, "no memory to queue %zu .etl buffers of CPU %u",
					 cap, s->cpu);
		for (size_t i = 0; i < s->q_n; i++)
			q[i] = s->q[(s->q_head + i) % s->q_cap];
		free(s->q);
		s->q = q;
		s->q_head = 0;
		s->q_cap = cap;
	}
	s->q[(s->q_head + s->q_n++) % s->q_cap] = *p;
	return 0;
}

/* The next buffer of stream s: from its queue, else from the shared scan,
 * queueing the other CPUs' buffers met on the way. 0, 1 at the end, or a
 * negative PMU_E* code. */
static int stream_next_buffer(struct pmu_etl *r, struct etl_stream *s, int quiet,
			      struct etl_pending *p)
{
	int err;

	if (s->q_n) {
		*p = s->q[s->q_head];
		s->q_head = (s->q_head + 1) % s->q_cap;
		s->q_n--;
		return 0;
	}
	while (!next_buffer(r, &r->scan, quiet, &p->off, &p->h)) {
		p->index = r->scan.index - 1;
		if (s->cpu == ANY_CPU || s->cpu == p->h.cpu)
			return 0;
		unsigned other = r->stream_of[p->h.cpu];
		if (other && (err = enqueue(&r->streams[other - 1], p)))
			return err;
	}
	return 1;
}

static int grow(uint8_t **p, size_t *cap, size_t need)
{
	void *v = *p;
	int err = pmuk_grow(&v, cap, need, 1);

	*p = v;
	return err ? pmuk_fail(err, "no memory for a %zu-byte .etl buffer", need) : 0;
}

/* Reads (and decompresses) the buffer at off into s. */
static int load_buffer(struct pmu_etl *r, struct etl_stream *s, uint64_t off,
		       const struct etl_bufhdr *h, uint32_t index)
{
	size_t avail = (size_t)(r->file_size - off < h->size ? r->file_size - off : h->size);
	int err;

	s->buf_off = off;
	s->buf_index = index;
	s->buf_cpu = h->cpu;
	s->pos = ETL_BUF_HDR;
	s->end = ETL_BUF_HDR;
	r->st.buffers++;
	r->st.bytes += avail;
	if (h->flags & ETL_FLAG_EVENTS_LOST)
		r->st.events_lost_flagged++;
	if (h->flags & ETL_FLAG_COMPRESSED) {
		r->st.compressed_buffers++;
		/* a few corrupt bytes must not make every stream hold 16 MiB */
		if (h->saved > r->max_saved) {
			pmuk_etl_problem(r, avail, "buffer %u at offset 0x%llx: SavedOffset %u of a "
					 "compressed buffer exceeds the log-file header's %u-byte "
					 "buffers; skipped its %zu bytes", index,
					 (unsigned long long)off, h->saved, r->max_saved, avail);
			return 0;
		}
		if ((err = grow(&r->zbuf, &r->zcap, avail)) ||
		    (err = grow(&s->data, &s->cap, h->saved)))
			return err;
		if (read_at(r, off, r->zbuf, avail) != avail)
			return pmuk_fail(PMU_EIO, "reading .etl buffer %u at offset 0x%llx failed: %s",
					 index, (unsigned long long)off, strerror(errno));
		memcpy(s->data, r->zbuf, ETL_BUF_HDR);
		size_t want = h->saved - ETL_BUF_HDR;
		size_t got = pmuk_etl_lz77(r->zbuf + ETL_BUF_HDR, avail - ETL_BUF_HDR,
					   s->data + ETL_BUF_HDR, want);
		if (got < want)
			pmuk_etl_problem(r, 0, "buffer %u at offset 0x%llx: compressed data decodes to "
					 "%zu of the %zu bytes SavedOffset announces", index,
					 (unsigned long long)off, got, want);
		s->end = ETL_BUF_HDR + got;
		return 0;
	}
	if ((err = grow(&s->data, &s->cap, avail)))
		return err;
	if (read_at(r, off, s->data, avail) != avail)
		return pmuk_fail(PMU_EIO, "reading .etl buffer %u at offset 0x%llx failed: %s",
				 index, (unsigned long long)off, strerror(errno));
	size_t end = h->filled ? h->filled : h->saved;
	if (end < ETL_BUF_HDR)
		end = ETL_BUF_HDR;
	s->end = end < avail ? end : avail;
	return 0;
}

/* Moves s to its next record; s->have says whether there is one. */
static int stream_advance(struct pmu_etl *r, struct etl_stream *s, int quiet)
{
	struct etl_pending p;
	int err;

	s->have = 0;
	while (!s->done) {
		if (s->data && pmuk_etl_parse_record(r, s, &s->ev)) {
			s->have = 1;
			return 0;
		}
		if ((err = stream_next_buffer(r, s, quiet, &p)) < 0)
			return err;
		if (err) {	/* the end: its buffer goes (a reader kept for its tables holds none) */
			s->done = 1;
			free(s->data);
			s->data = NULL;
			s->cap = 0;
			break;
		}
		if ((err = load_buffer(r, s, p.off, &p.h, p.index)))
			return err;
	}
	return 0;
}

static int before(const struct pmu_etl *r, unsigned a, unsigned b)
{
	const struct pmu_etl_event *x = &r->streams[a].ev, *y = &r->streams[b].ev;

	if (x->raw_time != y->raw_time)
		return x->raw_time < y->raw_time;
	return a < b;
}

static void sift_down(struct pmu_etl *r, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, m = i;
		if (l < r->n_heap && before(r, r->heap[l], r->heap[m]))
			m = l;
		if (l + 1 < r->n_heap && before(r, r->heap[l + 1], r->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		unsigned t = r->heap[i];
		r->heap[i] = r->heap[m];
		r->heap[m] = t;
		i = m;
	}
}

/* Finds the CPUs present (and reports corrupt buffer headers once). */
static int discover(struct pmu_etl *r)
{
	uint8_t *seen = calloc(ETL_MAX_CPUS, 1);
	struct etl_scan scan = { 0 };
	uint64_t off;
	struct etl_bufhdr h;
	unsigned n = 0;

	if (!seen)
		return pmuk_fail(PMU_ENOMEM, "no memory to index .etl processors");
	if (r->opts.order == PMU_ETL_ORDER_FILE) {
		n = 1;
	} else {
		while (!next_buffer(r, &scan, 0, &off, &h))
			if (!seen[h.cpu]) {	/* a flag, not a count: 256 buffers wrapped it */
				seen[h.cpu] = 1;
				n++;
			}
	}
	r->streams = calloc(n ? n : 1, sizeof(*r->streams));
	r->heap = calloc(n ? n : 1, sizeof(*r->heap));
	if (!r->streams || !r->heap) {
		free(seen);
		return pmuk_fail(PMU_ENOMEM, "no memory for %u .etl buffer streams", n);
	}
	if (r->opts.order == PMU_ETL_ORDER_FILE) {
		r->streams[0].cpu = ANY_CPU;
	} else {
		n = 0;
		for (unsigned c = 0; c < ETL_MAX_CPUS; c++)
			if (seen[c]) {
				r->streams[n++].cpu = c;
				r->stream_of[c] = (uint16_t)n;
			}
	}
	r->n_streams = n;
	r->header_reads = 0;
	free(seen);
	return 0;
}

/* Buffer 0, record 0: the log-file header. */
static int read_logfile_header(struct pmu_etl *r, const char *path)
{
	struct etl_stream s = { .cpu = ANY_CPU };
	struct etl_bufhdr h;
	uint8_t raw[ETL_BUF_HDR];
	struct pmu_etl_event ev;
	int err = PMU_EFORMAT;

	if (read_at(r, 0, raw, sizeof(raw)) != sizeof(raw))
		return pmuk_fail(PMU_EFORMAT, "%s: %llu bytes are too short for an .etl file "
				 "(a 72-byte buffer header comes first)", path,
				 (unsigned long long)r->file_size);
	bufhdr_decode(raw, &h);
	const char *why = bufhdr_bad(&h);
	if (why || (h.flags & ETL_FLAG_COMPRESSED))
		return pmuk_fail(PMU_EFORMAT, "%s: not an .etl file: buffer 0 at offset 0: %s",
				 path, why ? why : "the header buffer is compressed");
	if (load_buffer(r, &s, 0, &h, 0) == 0 && pmuk_etl_parse_record(r, &s, &ev)) {
		if (ev.kind != PMU_ETL_KERNEL || ev.group != 0 || ev.opcode != 0)
			err = pmuk_fail(PMU_EFORMAT, "%s: not an .etl file: the first record (header "
					"type %u, hook 0x%02x%02x) is not the log-file header", path,
					ev.header_type, ev.group, ev.opcode);
		else
			err = pmuk_etl_parse_logfile_header(ev.payload, ev.payload_size,
							    ev.pointer_size, &r->hdr);
		if (!err) {
			r->hdr.header_raw_time = ev.raw_time;
			if (r->hdr.buffer_size >= ETL_BUF_HDR && r->hdr.buffer_size <= ETL_MAX_BUFFER)
				r->max_saved = r->hdr.buffer_size;
			if (r->hdr.tick_freq && 1000000000ull % r->hdr.tick_freq == 0)
				r->ns_per_tick = 1000000000ull / r->hdr.tick_freq;
			r->hdr.compression_format = le16(raw + 0x2C);
			if (!r->hdr.compressed)
				r->hdr.compression_format = 0;
		} else if (err == PMU_EFORMAT && ev.group == 0) {
			err = pmuk_fail(PMU_EFORMAT, "%s: buffer 0 at offset 0: the log-file header "
					"record is %zu bytes, shorter than TRACE_LOGFILE_HEADER", path,
					ev.payload_size);
		}
	} else {
		err = pmuk_fail(PMU_EFORMAT, "%s: not an .etl file: buffer 0 holds no valid "
				"log-file header record", path);
	}
	/* the header buffer is read again by its stream */
	r->st = (struct pmu_etl_stats){ 0 };
	free(s.data);
	return err;
}

/* A directory, device or pipe has no size to read buffers up to (a directory
 * seeks to LLONG_MAX, /dev/zero to 0): said before any byte is read. */
static int check_regular(FILE *f, const char *path)
{
	struct stat st;

	if (fstat(fileno(f), &st))
		return pmuk_fail(PMU_EIO, "cannot stat %s: %s", path, strerror(errno));
	if (S_ISREG(st.st_mode))
		return 0;
	return pmuk_fail(PMU_EINVAL, "%s is not a regular file (%s): an .etl trace is one",
			 path, S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) ?
			 "a character device" : S_ISFIFO(st.st_mode) ? "a pipe" : "a special file");
}

int pmu_etl_open(const char *path, const struct pmu_etl_opts *opts, struct pmu_etl **out)
{
	struct pmu_etl *r;
	int err;

	if (!path || !out)
		return pmuk_fail(PMU_EINVAL, "pmu_etl_open needs a path and a result pointer");
	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return pmuk_fail(PMU_ENOMEM, "no memory for an .etl reader");
	if ((err = PMUK_OPTS_LOAD(r->opts, opts, pmu_etl_opts)) < 0) {
		free(r);
		return err;
	}
	r->last = -1;
	r->stat_last = -1;
	r->max_saved = ETL_MAX_BUFFER;
	r->f = pmuk_fopen(path, "rb");
	if (!r->f) {
		err = pmuk_fail(errno == ENOENT ? PMU_ENOENT : PMU_EIO, "cannot open %s: %s",
				path, strerror(errno));
		free(r);
		return err;
	}
	if ((err = check_regular(r->f, path)))
		goto fail;
	if (seek_to(r->f, 0) || fseek(r->f, 0, SEEK_END) != 0) {
		err = pmuk_fail(PMU_EIO, "cannot seek in %s: %s", path, strerror(errno));
		goto fail;
	}
#ifdef _WIN32
	r->file_size = (uint64_t)_ftelli64(r->f);
#else
	r->file_size = (uint64_t)ftello(r->f);
#endif
	r->data_end = r->file_size;
	if ((err = read_logfile_header(r, path)) || (err = discover(r)))
		goto fail;
	*out = r;
	return 0;
fail:
	pmu_etl_close(r);
	return err;
}

void pmu_etl_close(struct pmu_etl *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->n_streams; i++) {
		free(r->streams[i].data);
		free(r->streams[i].q);
	}
	free(r->streams);
	free(r->heap);
	free(r->zbuf);
	pmuk_etl_stats_free(r);
	pmuk_etl_names_free(r);
	if (r->f)
		fclose(r->f);
	free(r);
}

const struct pmu_etl_header *pmu_etl_header(const struct pmu_etl *r)
{
	return &r->hdr;
}

int pmu_etl_next(struct pmu_etl *r, struct pmu_etl_event *ev)
{
	int quiet = r->opts.order != PMU_ETL_ORDER_FILE;
	int err;

	if (!r->started) {
		r->started = 1;
		for (unsigned i = 0; i < r->n_streams; i++) {
			if ((err = stream_advance(r, &r->streams[i], quiet)))
				return err;
			if (r->streams[i].have)
				r->heap[r->n_heap++] = i;
		}
		for (unsigned i = r->n_heap; i-- > 0;)
			sift_down(r, i);
	} else if (r->last >= 0) {
		if ((err = stream_advance(r, &r->streams[r->last], quiet)))
			return err;
		if (!r->streams[r->last].have)
			r->heap[0] = r->heap[--r->n_heap];
		sift_down(r, 0);
	}
	if (!r->n_heap) {
		r->last = -1;
		return 0;
	}
	r->last = (int)r->heap[0];
	*ev = r->streams[r->last].ev;
	r->st.events++;
	if (ev->header_type < 32)
		r->st.by_header_type[ev->header_type]++;
	pmuk_etl_stat_add(r, ev);
	if (!r->opts.no_names)
		pmuk_etl_names_track(r, ev);
	return 1;
}

int pmu_etl_stats(const struct pmu_etl *r, struct pmu_etl_stats *st, size_t size)
{
	if (!r)
		return pmuk_fail(PMU_EINVAL, "pmu_etl_stats needs a reader");
	return PMUK_COPY_OUT(st, size, r->st, pmu_etl_stats);
}
