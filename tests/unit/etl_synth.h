/* SPDX-License-Identifier: MIT */
/* Builds small synthetic .etl files in memory for what no public file holds
 * (CSwitch, PMC, LBR, ThreadSetName, 32-bit payloads, corruption). Layouts as
 * in ../shared/docs/etl-format.md. */
#ifndef ETL_SYNTH_H
#define ETL_SYNTH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct syn {
	uint8_t *d;
	size_t n, cap;
	size_t buf;           /* start of the open buffer */
	unsigned bufsz;
	unsigned nbuf;
	uint64_t seq;
	size_t hdr_at;        /* the log-file header's payload */
};

static void syn_need(struct syn *s, size_t more)
{
	if (s->n + more <= s->cap)
		return;
	s->cap = (s->n + more) * 2;
	s->d = realloc(s->d, s->cap);
	if (!s->d)
		abort();
}

static void syn_put(struct syn *s, const void *p, size_t n)
{
	syn_need(s, n);
	memcpy(s->d + s->n, p, n);
	s->n += n;
}

static void syn_u8(struct syn *s, uint8_t v) { syn_put(s, &v, 1); }
static void syn_u16(struct syn *s, uint16_t v) { syn_u8(s, v & 0xFF); syn_u8(s, v >> 8); }
static void syn_u32(struct syn *s, uint32_t v) { syn_u16(s, v & 0xFFFF); syn_u16(s, v >> 16); }
static void syn_u64(struct syn *s, uint64_t v) { syn_u32(s, (uint32_t)v); syn_u32(s, (uint32_t)(v >> 32)); }
static void syn_ptr(struct syn *s, uint64_t v, unsigned psz)
{
	if (psz == 4)
		syn_u32(s, (uint32_t)v);
	else
		syn_u64(s, v);
}
static void syn_wstr(struct syn *s, const char *a)	/* ASCII to UTF-16 + NUL */
{
	do
		syn_u16(s, (uint8_t)*a);
	while (*a++);
}
static void syn_zero(struct syn *s, size_t n)
{
	syn_need(s, n);
	memset(s->d + s->n, 0, n);
	s->n += n;
}

static void syn_set32(struct syn *s, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		s->d[at + i] = (uint8_t)(v >> (8 * i));
}
static void syn_u32_at(uint8_t *d, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		d[at + i] = (uint8_t)(v >> (8 * i));
}

static void syn_set16(struct syn *s, size_t at, uint16_t v)
{
	s->d[at] = v & 0xFF;
	s->d[at + 1] = v >> 8;
}

static void syn_buffer_begin(struct syn *s, unsigned cpu, uint16_t type)
{
	s->buf = s->n;
	syn_zero(s, 0x48);
	syn_set32(s, s->buf + 0x18, (uint32_t)s->seq++);
	syn_set16(s, s->buf + 0x28, (uint16_t)cpu);
	syn_set16(s, s->buf + 0x34, 0x0020);	/* PROC_INDEX */
	syn_set16(s, s->buf + 0x36, type);
}

/* Closes the buffer: sizes in the header, 0xFF padding to bufsz. */
static void syn_buffer_end(struct syn *s)
{
	size_t used = s->n - s->buf;

	syn_set32(s, s->buf, s->bufsz);
	syn_set32(s, s->buf + 4, (uint32_t)used);
	syn_set32(s, s->buf + 0x30, (uint32_t)used);
	syn_need(s, s->bufsz - used);
	memset(s->d + s->n, 0xFF, s->bufsz - used);
	s->n = s->buf + s->bufsz;
	s->nbuf++;
}

static void syn_align(struct syn *s)
{
	while ((s->n - s->buf) & 7)
		syn_u8(s, 0);
}

/* A kernel record: type 1/2 SYSTEM, 3/4 COMPACT, 16/17 PERFINFO. Returns the
 * offset of its payload so the caller appends it and then calls syn_end_kernel. */
static size_t syn_kernel(struct syn *s, unsigned type, uint16_t hook, uint16_t ver,
			 uint32_t tid, uint32_t pid, uint64_t time, const uint64_t *pmc, unsigned npmc)
{
	size_t at = s->n;

	syn_u16(s, (uint16_t)(ver | npmc << 8));
	syn_u8(s, (uint8_t)type);
	syn_u8(s, 0xC0);
	syn_u16(s, 0);	/* size, patched */
	syn_u16(s, hook);
	if (type <= 4) {
		syn_u32(s, tid);
		syn_u32(s, pid);
		syn_u64(s, time);
		if (type <= 2)
			syn_u64(s, 0);	/* kernel/user time */
	} else {
		syn_u64(s, time);
	}
	for (unsigned i = 0; i < npmc; i++)
		syn_u64(s, pmc[i]);
	return at;
}

static void syn_end(struct syn *s, size_t at)
{
	syn_set16(s, at + 4, (uint16_t)(s->n - at));
	syn_align(s);
}

/* A file with header buffer (log-file header for pointer size psz). */
static void syn_begin(struct syn *s, unsigned bufsz, unsigned psz, unsigned cpus)
{
	memset(s, 0, sizeof(*s));
	s->bufsz = bufsz;
	syn_buffer_begin(s, 0, 4);
	size_t at = syn_kernel(s, psz == 4 ? 1 : 2, 0x0000, 2, 0, 0, 1000000, NULL, 0);
	size_t p = s->n;
	s->hdr_at = p;
	syn_u32(s, bufsz);
	syn_u8(s, 10), syn_u8(s, 0), syn_u8(s, 1), syn_u8(s, 5);
	syn_u32(s, 19041);
	syn_u32(s, cpus);
	syn_u64(s, 132756731757990000ull + 100000000);	/* end */
	syn_u32(s, 156250);
	syn_u32(s, 0);
	syn_u32(s, 0);	/* mode */
	syn_u32(s, 0);	/* buffers written */
	syn_u32(s, 0);
	syn_u32(s, psz);
	syn_u32(s, 7);	/* events lost */
	syn_u32(s, 3000);
	syn_ptr(s, 0, psz);
	syn_ptr(s, 0, psz);
	syn_zero(s, 172 + 4);
	syn_u64(s, 0);	/* boot */
	syn_u64(s, 10000000);	/* perf freq */
	syn_u64(s, 132756731757990000ull);	/* start */
	syn_u32(s, 1);	/* clock type */
	syn_u32(s, 2);	/* buffers lost */
	if (s->n - p != (psz == 8 ? 0x118u : 0x110u))
		abort();
	syn_wstr(s, "synthetic");
	syn_wstr(s, "synthetic.etl");
	syn_end(s, at);
	syn_buffer_end(s);
}

static char *syn_write(const struct syn *s, const char *tag)
{
	static char path[256];
	snprintf(path, sizeof(path), "/tmp/pmukit_etl_%s_%d.etl", tag, (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(s->d, 1, s->n, f) != s->n)
		abort();
	fclose(f);
	/* PMUKIT_ETL_SEED_DIR=dir also keeps a copy: the fuzz target's seed corpus */
	const char *seeds = getenv("PMUKIT_ETL_SEED_DIR");
	if (seeds && strcmp(tag, "damage")) {
		char seed[512];
		snprintf(seed, sizeof(seed), "%s/%s.bin", seeds, tag);
		if ((f = fopen(seed, "wb"))) {
			fwrite(s->d, 1, s->n, f);
			fclose(f);
		}
	}
	return path;
}

#endif
