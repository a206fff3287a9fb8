/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_PB_H
#define PMUK_CORE_PB_H

#include <stddef.h>
#include <stdint.h>

/* A protocol-buffers writer (the wire format only, no schema): fields are
 * appended to a growing byte buffer. A failed allocation sets err (sticky,
 * PMU_ENOMEM) and later calls do nothing, so a message is built without a
 * check per field and checked once. */
struct pmuk_pb {
	uint8_t *b;
	size_t n, cap;
	int err;
};

void pmuk_pb_varint(struct pmuk_pb *p, uint64_t v);
/* A varint field (uint64, int64 as two's complement, bool); proto3 leaves
 * zero out, so 0 writes nothing. */
void pmuk_pb_uint(struct pmuk_pb *p, uint32_t field, uint64_t v);
/* A length-delimited field (string, bytes, an embedded message), written
 * even when empty (a repeated string keeps its place). */
void pmuk_pb_bytes(struct pmuk_pb *p, uint32_t field, const void *d, size_t n);
void pmuk_pb_str(struct pmuk_pb *p, uint32_t field, const char *s);
/* A packed repeated varint field (nothing when n is 0). */
void pmuk_pb_packed(struct pmuk_pb *p, uint32_t field, const uint64_t *v, size_t n);
/* Empties the buffer (keeps its memory); err stays. */
static inline void pmuk_pb_reset(struct pmuk_pb *p)
{
	p->n = 0;
}
void pmuk_pb_free(struct pmuk_pb *p);

#endif
