/* SPDX-License-Identifier: MIT */
/* perf.data writer (formats/perf_write.h). The header is written last, over a
 * zeroed placeholder: until finish succeeds the file has no magic, so perf never
 * takes a half-written recording for a whole one. */
#include "formats/perf_write.h"
#include "core/error.h"
#include "core/file.h"
#include "core/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pattr {
	uint8_t *attr;
	uint64_t *ids;
	size_t nids;
};

struct pmuk_perf_writer {
	FILE *f;
	char *path;
	uint32_t attr_size;
	struct pattr *attrs;
	size_t nattrs, cap_attrs;
	uint64_t attrs_off, ids_off; /* where the attr section and the ids start */
	uint64_t data_off, data_size;
	int in_data;
	struct pmuk_pw_buf feat[PERF_FEAT_BITS]; /* perf's features and pmukit's */
	uint64_t have[4];
};

static int io_fail(struct pmuk_perf_writer *w, const char *what)
{
	return pmuk_fail(PMU_EIO, "cannot write %s to %s: %s", what, w->path, strerror(errno));
}

static int put(struct pmuk_perf_writer *w, const void *p, size_t n, const char *what)
{
	return n && fwrite(p, 1, n, w->f) != n ? io_fail(w, what) : 0;
}

int pmuk_pw_open(const char *path, struct pmuk_perf_writer **out)
{
	static const uint8_t zero[PERF_FILE_HEADER_SIZE];
	struct pmuk_perf_writer *w;

	*out = NULL;
	if (!(w = calloc(1, sizeof(*w))) || !(w->path = strdup(path))) {
		free(w);
		return pmuk_fail(PMU_ENOMEM, "out of memory opening %s", path);
	}
	if (!(w->f = pmuk_fopen(path, "wb"))) {
		int err = pmuk_fail(errno == EACCES ? PMU_EPERM : PMU_EIO, "cannot create %s: %s",
				    path, strerror(errno));
		pmuk_pw_free(w);
		return err;
	}
	/* the header goes last, at offset 0: a pipe or terminal would fail only
	 * at the end, after the whole recording */
	if (fseek(w->f, 0, SEEK_SET)) {
		int err = pmuk_fail(PMU_EINVAL, "%s cannot seek (%s): perf.data is finished by "
				    "writing its header at the start, so it needs a file, not a "
				    "pipe or terminal", path, strerror(errno));
		pmuk_pw_free(w);
		return err;
	}
	/* records come one by one, tens of thousands a second: write in large blocks */
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	if (put(w, zero, sizeof(zero), "the header") < 0) {
		pmuk_pw_free(w);
		return PMU_EIO;
	}
	*out = w;
	return 0;
}

int pmuk_pw_add_attr(struct pmuk_perf_writer *w, const void *attr, uint32_t size,
		     const uint64_t *ids, size_t nids)
{
	struct pattr *a;

	if (w->in_data)
		return pmuk_fail(PMU_EINVAL, "%s: an event added after the first record", w->path);
	if (size < PERF_ATTR_SIZE_VER0 || (size & 7) || (w->nattrs && size != w->attr_size))
		return pmuk_fail(PMU_EINVAL, "%s: a perf_event_attr of %u bytes (every attr of a "
				 "file has one size, at least %u, a multiple of 8)", w->path, size,
				 PERF_ATTR_SIZE_VER0);
	if (pmuk_grow((void **)&w->attrs, &w->cap_attrs, w->nattrs + 1, sizeof(*w->attrs)) < 0)
		return pmuk_fail(PMU_ENOMEM, "out of memory adding an event to %s", w->path);
	a = &w->attrs[w->nattrs];
	a->attr = malloc(size);
	a->ids = malloc((nids ? nids : 1) * sizeof(*ids));
	if (!a->attr || !a->ids) {
		free(a->attr);
		free(a->ids);
		return pmuk_fail(PMU_ENOMEM, "out of memory adding an event to %s", w->path);
	}
	memcpy(a->attr, attr, size);
	if (nids)
		memcpy(a->ids, ids, nids * sizeof(*ids));
	a->nids = nids;
	w->attr_size = size;
	w->nattrs++;
	return 0;
}

/* The ids of every attr, then the attrs, each followed by where its ids are. */
static int begin_data(struct pmuk_perf_writer *w)
{
	uint64_t off = PERF_FILE_HEADER_SIZE;
	int err = 0;

	w->ids_off = off;
	for (size_t i = 0; i < w->nattrs && !err; i++) {
		err = put(w, w->attrs[i].ids, w->attrs[i].nids * 8, "the event ids");
		off += w->attrs[i].nids * 8;
	}
	w->attrs_off = off;
	for (size_t i = 0, id_off = w->ids_off; i < w->nattrs && !err; i++) {
		struct perf_file_section s = { id_off, w->attrs[i].nids * 8 };

		if (!(err = put(w, w->attrs[i].attr, w->attr_size, "the events")))
			err = put(w, &s, sizeof(s), "the events");
		id_off += s.size;
		off += w->attr_size + sizeof(s);
	}
	w->data_off = off;
	w->in_data = 1;
	return err;
}

/* Bytes of the data section: the section starts with the first of them. */
static int put_data(struct pmuk_perf_writer *w, const void *p, size_t size, const char *what)
{
	int err;

	if (!w->in_data && (err = begin_data(w)) < 0)
		return err;
	if ((err = put(w, p, size, what)) < 0)
		return err;
	w->data_size += size;
	return 0;
}

int pmuk_pw_write(struct pmuk_perf_writer *w, const void *rec, size_t size)
{
	const struct perf_rec_header *h = rec;

	if (size < sizeof(*h) || size > 65535 || (size & 7) || h->size != size)
		return pmuk_fail(PMU_EINVAL, "%s: a record of %zu bytes (header.size %u) cannot "
				 "be written", w->path, size, size >= sizeof(*h) ? h->size : 0);
	return put_data(w, rec, size, "a record");
}

int pmuk_pw_write_bytes(struct pmuk_perf_writer *w, const void *p, size_t size)
{
	return put_data(w, p, size, "records");
}

uint64_t pmuk_pw_data_size(const struct pmuk_perf_writer *w)
{
	return w->data_size;
}

int pmuk_pw_feature(struct pmuk_perf_writer *w, int feat, const void *body, size_t size)
{
	struct pmuk_pw_buf *b;

	if (feat <= 0 || feat >= PERF_FEAT_BITS)
		return pmuk_fail(PMU_EINVAL, "%s: no header feature %d", w->path, feat);
	b = &w->feat[feat];
	b->n = 0;
	b->err = 0;
	pmuk_pw_put(b, body, size);
	if (b->err)
		return pmuk_fail(PMU_ENOMEM, "out of memory for header feature %d of %s", feat,
				 w->path);
	w->have[feat / 64] |= 1ull << (feat % 64);
	return 0;
}

/* The index of the features present (in bit order), then their bodies. */
static int write_features(struct pmuk_perf_writer *w, uint64_t *end)
{
	struct perf_file_section s;
	uint64_t off = w->data_off + w->data_size;
	size_t nf = 0;
	int err = 0;

	for (int f = 1; f < PERF_FEAT_BITS; f++)
		nf += (w->have[f / 64] >> (f % 64)) & 1;
	off += nf * sizeof(s);
	for (int f = 1; f < PERF_FEAT_BITS && !err; f++) {
		if (!((w->have[f / 64] >> (f % 64)) & 1))
			continue;
		s.offset = off;
		s.size = w->feat[f].n;
		off += s.size;
		err = put(w, &s, sizeof(s), "the feature index");
	}
	for (int f = 1; f < PERF_FEAT_BITS && !err; f++)
		if ((w->have[f / 64] >> (f % 64)) & 1)
			err = put(w, w->feat[f].p, w->feat[f].n, "a header feature");
	*end = off;
	return err;
}

int pmuk_pw_finish(struct pmuk_perf_writer *w, uint64_t *bytes)
{
	struct perf_file_header h;
	uint64_t end = 0;
	int err = 0;

	if (!w->in_data)
		err = begin_data(w);
	if (!err)
		err = write_features(w, &end);
	memset(&h, 0, sizeof(h));
	h.magic = PERF_FILE_MAGIC;
	h.size = sizeof(h);
	h.attr_size = w->attr_size + PERF_FILE_ATTR_IDS_SIZE;
	h.attrs = (struct perf_file_section){ w->attrs_off, w->nattrs * h.attr_size };
	h.data = (struct perf_file_section){ w->data_off, w->data_size };
	memcpy(h.adds_features, w->have, sizeof(h.adds_features));
	if (!err && fflush(w->f) != 0)
		err = io_fail(w, "the records");
	if (!err && fseek(w->f, 0, SEEK_SET) != 0)
		err = io_fail(w, "the header");
	if (!err)
		err = put(w, &h, sizeof(h), "the header");
	if (fclose(w->f) != 0 && !err)
		err = io_fail(w, "the end of the file");
	w->f = NULL;
	if (bytes)
		*bytes = err ? 0 : end;
	pmuk_pw_free(w);
	return err;
}

void pmuk_pw_free(struct pmuk_perf_writer *w)
{
	if (!w)
		return;
	if (w->f)
		fclose(w->f);
	for (size_t i = 0; i < w->nattrs; i++) {
		free(w->attrs[i].attr);
		free(w->attrs[i].ids);
	}
	for (int f = 0; f < PERF_FEAT_BITS; f++)
		pmuk_pw_buf_free(&w->feat[f]);
	free(w->attrs);
	free(w->path);
	free(w);
}
