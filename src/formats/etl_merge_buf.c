/* SPDX-License-Identifier: MIT */
/* Buffers of full-header events for the merge step: a 72-byte WMI_BUFFER_HEADER,
 * records at 8-byte alignment, 0xFF after the last (layouts:
 * ../shared/docs/etl-format.md sections 2, 4.1 and 4.4). */
#include "core/error.h"
#include "core/grow.h"
#include "core/guid.h"
#include "formats/etl_int.h"
#include "formats/etl_merge.h"

#define FULL_HDR 48
#define MAX_EVENT 4096	/* fits any buffer ETW writes (at least 4 KiB) */

static uint8_t *room(struct pmuk_etl_mbuf *b, size_t n)
{
	if (b->err || pmuk_grow((void **)&b->d, &b->cap, b->n + n, 1)) {
		b->err = PMU_ENOMEM;
		return NULL;
	}
	uint8_t *p = b->d + b->n;
	b->n += n;
	return p;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void open_buffer(struct pmuk_etl_mbuf *b, uint64_t raw_time)
{
	uint8_t *h;

	b->open = b->n;
	if (!(h = room(b, ETL_BUF_HDR)))
		return;
	memset(h, 0, ETL_BUF_HDR);
	put_le(h, b->bufsz, 4);
	put_le(h + 0x10, raw_time, 8);		/* BufferType 0: generic */
	b->buffers++;
}

void pmuk_etl_mbuf_flush(struct pmuk_etl_mbuf *b)
{
	if (b->err || b->n == b->open)
		return;
	size_t used = b->n - b->open;
	put_le(b->d + b->open + 0x04, used, 4);	/* SavedOffset */
	put_le(b->d + b->open + 0x08, used, 4);	/* CurrentOffset */
	put_le(b->d + b->open + 0x30, used, 4);	/* Offset: filled bytes */
	uint8_t *pad = room(b, b->bufsz - used);
	if (pad)
		memset(pad, 0xFF, b->bufsz - used);
	b->open = b->n;
}

void pmuk_etl_mbuf_event(struct pmuk_etl_mbuf *b, const struct pmu_guid *task, unsigned opcode,
			 unsigned version, uint32_t pid, uint64_t raw_time)
{
	uint8_t *h;

	if (b->n != b->open && b->n - b->open + MAX_EVENT > b->bufsz)
		pmuk_etl_mbuf_flush(b);
	if (b->n == b->open)
		open_buffer(b, raw_time);
	b->rec = b->n;
	if (!(h = room(b, FULL_HDR)))
		return;
	memset(h, 0, FULL_HDR);
	h[2] = b->psz == 4 ? 10 : 20;	/* FULL_HEADER32 / 64 */
	h[3] = 0xC0;
	h[4] = (uint8_t)opcode;
	put_le(h + 6, version, 2);
	put_le(h + 12, pid, 4);
	put_le(h + 16, raw_time, 8);
	pmuk_guid_store(h + 24, task);
}

void pmuk_etl_mbuf_bytes(struct pmuk_etl_mbuf *b, const void *p, size_t n)
{
	uint8_t *d = room(b, n);

	if (d)
		memcpy(d, p, n);
}

void pmuk_etl_mbuf_u32(struct pmuk_etl_mbuf *b, uint32_t v)
{
	uint8_t *d = room(b, 4);

	if (d)
		put_le(d, v, 4);
}

void pmuk_etl_mbuf_ptr(struct pmuk_etl_mbuf *b, uint64_t v)
{
	uint8_t *d = room(b, b->psz);

	if (d)
		put_le(d, v, (int)b->psz);
}

/* UTF-8 -> UTF-16LE with its NUL; bytes that are no UTF-8 become U+FFFD. */
void pmuk_etl_mbuf_wstr(struct pmuk_etl_mbuf *b, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;

	for (;;) {
		uint32_t c = *p++, more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
		if (c >= 0x80 && c < 0xC0)
			c = 0xFFFD;
		else if (more)
			c &= 0x3F >> more;
		for (; more; more--, p++) {
			if ((*p & 0xC0) != 0x80) {
				c = 0xFFFD;
				break;
			}
			c = c << 6 | (*p & 0x3F);
		}
		uint8_t *d = room(b, c >= 0x10000 ? 4 : 2);
		if (!d)
			return;
		if (c >= 0x10000) {
			put_le(d, 0xD800 | ((c - 0x10000) >> 10), 2);
			put_le(d + 2, 0xDC00 | ((c - 0x10000) & 0x3FF), 2);
		} else {
			put_le(d, c, 2);
		}
		if (!c)
			return;
	}
}

/* Sets the record's size (u16 at 0) and pads it to 8 bytes. */
void pmuk_etl_mbuf_end(struct pmuk_etl_mbuf *b)
{
	size_t at = b->n, start = b->rec;
	uint8_t *pad;

	if (b->err)
		return;
	put_le(b->d + start, at - start, 2);
	if ((pad = room(b, ((at - start + 7) & ~(size_t)7) - (at - start))))
		memset(pad, 0, ((at - start + 7) & ~(size_t)7) - (at - start));
}
