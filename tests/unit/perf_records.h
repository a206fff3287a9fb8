/* SPDX-License-Identifier: MIT */
#ifndef PMUK_TEST_PERF_RECORDS_H
#define PMUK_TEST_PERF_RECORDS_H

/* Builds perf_event records word by word, as the kernel lays them out. */

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A record under construction, as u64 words (header first). */
struct rec {
	uint64_t w[256];
	size_t n;
};

static inline void rec_start(struct rec *r)
{
	r->n = 1;
}

static inline void put64(struct rec *r, uint64_t v)
{
	r->w[r->n++] = v;
}

static inline void put32(struct rec *r, uint32_t a, uint32_t b)
{
	uint32_t v[2] = { a, b };

	memcpy(&r->w[r->n++], v, 8);
}

static inline void putstr(struct rec *r, const char *s)
{
	size_t len = strlen(s) + 1, words = (len + 7) / 8;

	memset(&r->w[r->n], 0, words * 8);
	memcpy(&r->w[r->n], s, len);
	r->n += words;
}

static inline size_t rec_end(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, (uint16_t)(r->n * 8) };

	memcpy(&r->w[0], &h, sizeof(h));
	return r->n * 8;
}

#endif
