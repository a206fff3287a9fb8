/* SPDX-License-Identifier: MIT */
/* Protocol-buffers wire format: varints and length-delimited fields. */
#include "core/pb.h"
#include "core/grow.h"

#include <pmukit/error.h>
#include <stdlib.h>
#include <string.h>

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static int room(struct pmuk_pb *p, size_t more)
{
	if (p->err)
		return 0;
	if (more > SIZE_MAX - p->n || pmuk_grow((void **)&p->b, &p->cap, p->n + more, 1)) {
		p->err = PMU_ENOMEM;
		return 0;
	}
	return 1;
}

void pmuk_pb_varint(struct pmuk_pb *p, uint64_t v)
{
	if (!room(p, 10))
		return;
	while (v >= 0x80) {
		p->b[p->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p->b[p->n++] = (uint8_t)v;
}

static void tag(struct pmuk_pb *p, uint32_t field, unsigned wire)
{
	pmuk_pb_varint(p, (uint64_t)field << 3 | wire);
}

void pmuk_pb_uint(struct pmuk_pb *p, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	tag(p, field, WIRE_VARINT);
	pmuk_pb_varint(p, v);
}

void pmuk_pb_bytes(struct pmuk_pb *p, uint32_t field, const void *d, size_t n)
{
	tag(p, field, WIRE_LEN);
	pmuk_pb_varint(p, n);
	if (n && room(p, n)) {
		memcpy(p->b + p->n, d, n);
		p->n += n;
	}
}

void pmuk_pb_str(struct pmuk_pb *p, uint32_t field, const char *s)
{
	pmuk_pb_bytes(p, field, s, strlen(s));
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80)
		v >>= 7, n++;
	return n;
}

void pmuk_pb_packed(struct pmuk_pb *p, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += varint_len(v[i]);
	tag(p, field, WIRE_LEN);
	pmuk_pb_varint(p, len);
	for (size_t i = 0; i < n; i++)
		pmuk_pb_varint(p, v[i]);
}

void pmuk_pb_free(struct pmuk_pb *p)
{
	free(p->b);
	*p = (struct pmuk_pb){ 0 };
}
