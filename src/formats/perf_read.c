/* SPDX-License-Identifier: MIT */
/* perf.data reader (tools/perf/Documentation/perf.data-file-format.txt): file
 * mode (PERFILE2 header, attrs and their ids, data, feature sections) and pipe
 * mode (the same facts as HEADER_* records ahead of the data). The record
 * source's backend for both. */
#include "formats/perf_read_int.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FEATURE_SIZE (256u << 20)

static int seek_to(struct perf_src *s, uint64_t off)
{
#ifdef _WIN32
	int r = _fseeki64(s->f, (long long)off, SEEK_SET);
#else
	int r = fseeko(s->f, (off_t)off, SEEK_SET);
#endif
	s->in_at = s->in_n = 0;	/* what was read ahead is not there */
	if (r)
		return pmuk_fail(PMU_EIO, "%s: cannot seek to offset %llu", s->path,
				 (unsigned long long)off);
	s->pos = off;
	return 0;
}

static uint64_t file_size(FILE *f)
{
#ifdef _WIN32
	return _fseeki64(f, 0, SEEK_END) ? 0 : (uint64_t)_ftelli64(f);
#else
	return fseeko(f, 0, SEEK_END) ? 0 : (uint64_t)ftello(f);
#endif
}

/* n bytes at off, all inside the file (the caller checked). */
static int read_at(struct perf_src *s, uint64_t off, void *dst, size_t n)
{
	int err = seek_to(s, off);

	if (err)
		return err;
	if (perf_in(s, dst, n) < n)
		return pmuk_fail(PMU_EFORMAT, "%s: offset %llu: %zu bytes expected, the file ends "
				 "first", s->path, (unsigned long long)off, n);
	return 0;
}

static int inside(const struct perf_src *s, const struct perf_file_section *sec)
{
	return sec->offset <= s->file_size && sec->size <= s->file_size - sec->offset;
}

static int bad_section(const struct perf_src *s, const char *what,
		       const struct perf_file_section *sec, uint64_t at)
{
	return pmuk_fail(PMU_EFORMAT, "%s: offset %llu: the %s section (offset %llu, %llu bytes) "
			 "lies outside the file of %llu bytes: it is truncated or corrupt",
			 s->path, (unsigned long long)at, what, (unsigned long long)sec->offset,
			 (unsigned long long)sec->size, (unsigned long long)s->file_size);
}

/* One attr entry: the attr, then the section of its ids. */
static int read_attr(struct perf_src *s, const struct perf_file_header *h, uint64_t at, uint8_t *buf)
{
	struct perf_file_section ids;
	uint64_t *v;
	int err;

	if ((err = read_at(s, at, buf, h->attr_size)))
		return err;
	memcpy(&ids, buf + h->attr_size - PERF_FILE_ATTR_IDS_SIZE, sizeof(ids));
	if ((err = perf_ev_add(s, buf, (uint32_t)(h->attr_size - PERF_FILE_ATTR_IDS_SIZE), at)))
		return err;
	if (!inside(s, &ids) || ids.size % 8)
		return bad_section(s, "ids", &ids, at + h->attr_size - PERF_FILE_ATTR_IDS_SIZE);
	if (!ids.size)
		return 0;
	if (!(v = malloc(ids.size)))
		return pmuk_fail(PMU_ENOMEM, "%s: no memory for %llu event ids", s->path,
				 (unsigned long long)ids.size / 8);
	if (!(err = read_at(s, ids.offset, v, ids.size)))
		err = perf_ev_add_ids(s, (uint32_t)s->nr_evs - 1, v, ids.size / 8);
	free(v);
	return err;
}

static int read_attrs(struct perf_src *s, const struct perf_file_header *h)
{
	uint8_t *buf;
	int err = 0;

	if (h->attr_size < PERF_FILE_ATTR_IDS_SIZE + PERF_ATTR_SIZE_VER0 ||
	    h->attr_size > PERF_FILE_ATTR_IDS_SIZE + PERF_READ_MAX_ATTR_SIZE ||
	    h->attrs.size % h->attr_size)
		return pmuk_fail(PMU_EFORMAT, "%s: offset 16: attr_size %llu with an attrs section "
				 "of %llu bytes (a multiple of 80 to %u expected): the header is "
				 "corrupt", s->path, (unsigned long long)h->attr_size,
				 (unsigned long long)h->attrs.size,
				 PERF_FILE_ATTR_IDS_SIZE + PERF_READ_MAX_ATTR_SIZE);
	if (!inside(s, &h->attrs))
		return bad_section(s, "attrs", &h->attrs, 24);
	if (!(buf = malloc(h->attr_size)))
		return PMU_ENOMEM;
	for (uint64_t i = 0; !err && i < h->attrs.size / h->attr_size; i++)
		err = read_attr(s, h, h->attrs.offset + i * h->attr_size, buf);
	free(buf);
	return err;
}

/* The features' table follows the data: one section per bit set, in bit order.
 * A damaged feature is left out with a warning: the records are still good. */
static void read_features(struct perf_src *s, const struct perf_file_header *h)
{
	struct perf_file_section sec;
	uint64_t at = h->data.offset + h->data.size;
	uint8_t *p;

	for (int feat = 1; feat < 256; feat++) {
		if (!(h->adds_features[feat / 64] & (1ull << (feat % 64))))
			continue;
		if (at > s->file_size || s->file_size - at < sizeof(sec) ||
		    read_at(s, at, &sec, sizeof(sec))) {
			pmuk_trace_warn(s->t, "%s: offset %llu: the header feature table ends early "
					"(the file is truncated); the features from #%d on are left "
					"out", s->path, (unsigned long long)at, feat);
			return;
		}
		if (!inside(s, &sec) || sec.size > MAX_FEATURE_SIZE) {
			pmuk_trace_warn(s->t, "%s: offset %llu: header feature #%d says %llu bytes at "
					"offset %llu, outside the file; it is left out", s->path,
					(unsigned long long)at, feat, (unsigned long long)sec.size,
					(unsigned long long)sec.offset);
		} else if (feat < HEADER_LAST_FEATURE && (p = malloc(sec.size ? sec.size : 1))) {
			if (!read_at(s, sec.offset, p, sec.size))
				perf_feat_parse(s, feat, p, sec.size, sec.offset);
			free(p);
		}
		at += sizeof(sec);
	}
}

static int open_file_mode(struct perf_src *s)
{
	struct perf_file_header h;
	int err;

	s->pipe = 0;
	s->file_size = file_size(s->f);
	if (s->file_size < PERF_FILE_HEADER_SIZE)
		return pmuk_fail(PMU_EFORMAT, "%s: offset 0: a %u-byte perf.data header was "
				 "expected, the file has %llu bytes", s->path,
				 PERF_FILE_HEADER_SIZE, (unsigned long long)s->file_size);
	if ((err = read_at(s, 0, &h, sizeof(h))))
		return err;
	if (h.size < PERF_FILE_HEADER_SIZE)
		return pmuk_fail(PMU_EFORMAT, "%s: offset 8: a header size of %llu (%u expected): "
				 "the file is corrupt or from a perf older than 2.6.38", s->path,
				 (unsigned long long)h.size, PERF_FILE_HEADER_SIZE);
	if ((err = read_attrs(s, &h)))
		return err;
	if (!inside(s, &h.data) && (h.data.offset > s->file_size))
		return bad_section(s, "data", &h.data, 40);
	s->data_end_said = h.data.offset + h.data.size;
	s->data_end = s->data_end_said < s->file_size ? s->data_end_said : s->file_size;
	s->t->info.data_size = h.data.size;
	read_features(s, &h);
	s->t->info.format = PMU_TRACE_PERF_FILE;
	return seek_to(s, h.data.offset);
}

static int header_kind(uint32_t type)
{
	return type >= PERF_REC_HEADER_ATTR && type != PERF_REC_FINISHED_ROUND &&
	       type != PERF_REC_FINISHED_INIT && type != PERF_REC_COMPRESSED &&
	       type != PERF_REC_AUXTRACE;
}

/* Pipe mode: the header records up to the first of the data, which stays
 * pending for the read. */
static int open_pipe_mode(struct perf_src *s)
{
	uint64_t hsize, *rec, off;
	size_t size;
	int ret;

	/* the magic was read; a pipe cannot seek back */
	if (perf_in(s, &hsize, 8) < 8)
		return pmuk_fail(PMU_EFORMAT, "%s: offset 8: the pipe header's size (16) was "
				 "expected, the input ends first", s->path);
	if (hsize == PERF_FILE_HEADER_SIZE && !seek_to(s, 0))
		return open_file_mode(s);   /* stdin redirected from a file */
	if (hsize == PERF_FILE_HEADER_SIZE)
		return pmuk_fail(PMU_EINVAL, "%s: a file-mode perf.data cannot be read from a pipe "
				 "(its sections are read by offset): give its path, or record with "
				 "perf record -o - for a stream", s->path);
	if (hsize != PERF_PIPE_HEADER_SIZE)
		return pmuk_fail(PMU_EFORMAT, "%s: offset 8: a header size of %llu (16 for a pipe) "
				 "was expected", s->path, (unsigned long long)hsize);
	s->t->info.format = PMU_TRACE_PERF_PIPE;
	while ((ret = perf_next(s, &rec, &size, &off)) > 0) {
		struct perf_rec_header h;

		memcpy(&h, rec, sizeof(h));
		if (!header_kind(h.type)) {
			s->pend = rec;          /* perf_next gives it back first */
			s->pend_size = size;
			s->pend_off = off;
			s->rbuf = NULL;
			s->rbuf_cap = 0;
			break;
		}
		if ((ret = perf_handle(s, rec, size, off)) < 0)
			return ret;
	}
	return ret < 0 ? ret : 0;
}

static int perf_read(struct pmu_trace *t, pmu_record_fn cb, void *ctx)
{
	return perf_stream_read(t, cb, ctx);
}

static void perf_close(struct pmu_trace *t)
{
	struct perf_src *s = t->be;

	if (!s)
		return;
	if (s->f && s->f != stdin)
		fclose(s->f);
	perf_order_free(s);
	perf_ev_free(s);
	perf_feat_free(s);
	perf_zstd_free(s);
	free(s->rbuf);
	free(s->ibuf);
	free(s->pend);
	free(s->path);
	free(s);
	t->be = NULL;
}

static const struct pmuk_trace_ops perf_ops = { .read = perf_read, .close = perf_close };

int pmuk_trace_open_perf(struct pmu_trace *t, const char *path, FILE *f, int pipe_mode)
{
	struct perf_src *s = calloc(1, sizeof(*s));
	uint8_t magic[8] = { 0 };
	int err;

	if (!s || !(s->path = strdup(path))) {
		free(s);
		if (f != stdin)
			fclose(f);
		return PMU_ENOMEM;
	}
	t->ops = &perf_ops;
	t->be = s;
	s->t = t;
	s->f = f;
	s->pipe = pipe_mode;
	s->window = t->o.reorder_window_ns;
	if (perf_in(s, magic, 8) < 8 || memcmp(magic, "PERFILE2", 8))
		return pmuk_fail(memcmp(magic, "2ELIFREP", 8) ? PMU_EFORMAT : PMU_ENOTSUP,
				 "%s: offset 0: %s", path, memcmp(magic, "2ELIFREP", 8) ?
				 "no PERFILE2 magic: not a perf.data file" :
				 "the file was written on a machine of the other byte order "
				 "(e.g. big-endian); pmukit reads perf.data of this machine's byte order "
				 "only: run perf report on a machine like the one that recorded it");
	err = pipe_mode ? open_pipe_mode(s) : open_file_mode(s);
	if (err)
		return err;
	perf_ev_publish(s);
	perf_info_finish(s);
	if (t->info.compressed && !perf_zstd_available())
		return pmuk_fail(PMU_ENOTSUP, "%s: the records are zstd-compressed (perf record -z) "
				 "and this pmukit was built without libzstd; rebuild it with "
				 "libzstd (libzstd-dev) or record without -z", path);
	return 0;
}
