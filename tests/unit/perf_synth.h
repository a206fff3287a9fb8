/* SPDX-License-Identifier: MIT */
#ifndef PMUK_TEST_PERF_SYNTH_H
#define PMUK_TEST_PERF_SYNTH_H

/* Builds perf.data files byte by byte (file and pipe mode) for the reader's
 * tests and the fuzz seeds: attrs, records, features. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/perf_file.h"

struct pbuf {
	uint8_t *b;
	size_t n, cap;
};

static inline void pb_put(struct pbuf *p, const void *v, size_t n)
{
	if (p->n + n > p->cap) {
		p->cap = (p->n + n) * 2 + 256;
		p->b = realloc(p->b, p->cap);
		if (!p->b)
			abort();
	}
	if (n)
		memcpy(p->b + p->n, v, n);
	p->n += n;
}

static inline void pb_u64(struct pbuf *p, uint64_t v)
{
	pb_put(p, &v, 8);
}

static inline void pb_u32(struct pbuf *p, uint32_t v)
{
	pb_put(p, &v, 4);
}

static inline void pb_set64(struct pbuf *p, size_t at, uint64_t v)
{
	memcpy(p->b + at, &v, 8);
}

/* A perf_event_attr of VER8 size; exclude_guest as perf record sets it
 * (flags with PERF_AF_EXCLUDE_GUEST toggle it off). */
static inline void attr_make(uint8_t a[PERF_ATTR_SIZE_VER8], uint32_t type, uint64_t config,
			     uint64_t sample_type, uint64_t flags)
{
	uint32_t size = PERF_ATTR_SIZE_VER8;

	memset(a, 0, PERF_ATTR_SIZE_VER8);
	memcpy(a + PERF_ATTR_TYPE, &type, 4);
	memcpy(a + PERF_ATTR_SIZE, &size, 4);
	memcpy(a + PERF_ATTR_CONFIG, &config, 8);
	flags ^= PERF_AF_EXCLUDE_GUEST;
	memcpy(a + PERF_ATTR_SAMPLE_TYPE, &sample_type, 8);
	memcpy(a + PERF_ATTR_FLAGS, &flags, 8);
}

/* A record: header then the u64 words given (n of them). */
static inline void rec_words(struct pbuf *p, uint32_t type, uint16_t misc, const uint64_t *w,
			     size_t n)
{
	struct perf_rec_header h = { type, misc, (uint16_t)(8 + 8 * n) };

	pb_put(p, &h, sizeof(h));
	pb_put(p, w, 8 * n);
}

/* A record whose body is bytes (padded with zeros to 8). */
static inline void rec_bytes(struct pbuf *p, uint32_t type, uint16_t misc, const void *b,
			     size_t n)
{
	size_t padded = (n + 7) / 8 * 8;
	struct perf_rec_header h = { type, misc, (uint16_t)(8 + padded) };
	uint8_t zero[8] = { 0 };

	pb_put(p, &h, sizeof(h));
	pb_put(p, b, n);
	pb_put(p, zero, padded - n);
}

/* {u32 len; char str[len]} with len a multiple of 4 (perf pads to 64). */
static inline void feat_string(struct pbuf *p, const char *s)
{
	uint32_t len = (uint32_t)((strlen(s) + 1 + 63) / 64 * 64);
	char buf[256] = { 0 };

	strncpy(buf, s, sizeof(buf) - 1);
	pb_u32(p, len);
	pb_put(p, buf, len);
}

/* A file-mode perf.data: attrs (each with its ids), the data, features. */
struct pfile {
	uint8_t attrs[8][PERF_ATTR_SIZE_VER8];
	uint64_t ids[8][4];
	size_t nr_ids[8], nr_attrs;
	struct pbuf data;
	struct pbuf feat[HEADER_LAST_FEATURE];
	int has_feat[HEADER_LAST_FEATURE];
};

static inline void pfile_build(const struct pfile *f, struct pbuf *out)
{
	struct perf_file_header h = { 0 };
	const uint64_t asz = PERF_ATTR_SIZE_VER8 + PERF_FILE_ATTR_IDS_SIZE;
	uint64_t ids_at = PERF_FILE_HEADER_SIZE, attrs_at, at;

	memset(out, 0, sizeof(*out));
	h.magic = PERF_FILE_MAGIC;
	h.size = PERF_FILE_HEADER_SIZE;
	h.attr_size = asz;
	pb_put(out, &h, sizeof(h));
	for (size_t i = 0; i < f->nr_attrs; i++)
		pb_put(out, f->ids[i], 8 * f->nr_ids[i]);
	attrs_at = out->n;
	at = ids_at;
	for (size_t i = 0; i < f->nr_attrs; i++) {
		struct perf_file_section s = { at, 8 * f->nr_ids[i] };

		pb_put(out, f->attrs[i], PERF_ATTR_SIZE_VER8);
		pb_put(out, &s, sizeof(s));
		at += s.size;
	}
	h.attrs = (struct perf_file_section){ attrs_at, out->n - attrs_at };
	h.data = (struct perf_file_section){ out->n, f->data.n };
	pb_put(out, f->data.b, f->data.n);
	/* the feature table, then each feature's bytes */
	at = out->n;
	for (int i = 0; i < HEADER_LAST_FEATURE; i++)
		if (f->has_feat[i]) {
			h.adds_features[i / 64] |= 1ull << (i % 64);
			at += sizeof(struct perf_file_section);
		}
	uint64_t body = at;
	for (int i = 0; i < HEADER_LAST_FEATURE; i++)
		if (f->has_feat[i]) {
			struct perf_file_section s = { body, f->feat[i].n };

			pb_put(out, &s, sizeof(s));
			body += s.size;
		}
	for (int i = 0; i < HEADER_LAST_FEATURE; i++)
		if (f->has_feat[i])
			pb_put(out, f->feat[i].b, f->feat[i].n);
	memcpy(out->b, &h, sizeof(h));
}

static inline void pfile_free(struct pfile *f)
{
	free(f->data.b);
	for (int i = 0; i < HEADER_LAST_FEATURE; i++)
		free(f->feat[i].b);
}

static inline int pb_write(const struct pbuf *p, const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (p->n && fwrite(p->b, 1, p->n, f) != p->n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

#endif
