/* SPDX-License-Identifier: MIT */
/* The byte buffer of the perf.data writer and the header feature bodies perf
 * reads (the layouts of tools/perf/util/header.c: strings are a u32 length
 * rounded up to 64 then NUL-padded bytes; counts are u32). */
#include "formats/perf_write.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

#define NAME_ALIGN 64

void pmuk_pw_put(struct pmuk_pw_buf *b, const void *data, size_t size)
{
	if (b->err || size == 0)
		return;
	if (pmuk_grow((void **)&b->p, &b->cap, b->n + size, 1) < 0) {
		b->err = PMU_ENOMEM;
		return;
	}
	if (data)
		memcpy(b->p + b->n, data, size);
	else
		memset(b->p + b->n, 0, size);
	b->n += size;
}

void pmuk_pw_u32(struct pmuk_pw_buf *b, uint32_t v)
{
	pmuk_pw_put(b, &v, sizeof(v));
}

void pmuk_pw_u64(struct pmuk_pw_buf *b, uint64_t v)
{
	pmuk_pw_put(b, &v, sizeof(v));
}

void pmuk_pw_pad(struct pmuk_pw_buf *b, size_t align)
{
	if (b->n % align)
		pmuk_pw_put(b, NULL, align - b->n % align);
}

void pmuk_pw_str(struct pmuk_pw_buf *b, const char *s)
{
	size_t len = strlen(s) + 1, padded = (len + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	pmuk_pw_u32(b, (uint32_t)padded);
	pmuk_pw_put(b, s, len);
	pmuk_pw_put(b, NULL, padded - len);
}

void pmuk_pw_buf_free(struct pmuk_pw_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void pmuk_pwf_nrcpus(struct pmuk_pw_buf *b, uint32_t avail, uint32_t online)
{
	pmuk_pw_u32(b, avail);
	pmuk_pw_u32(b, online);
}

void pmuk_pwf_cmdline(struct pmuk_pw_buf *b, const char *const *argv, size_t argc)
{
	pmuk_pw_u32(b, (uint32_t)argc);
	for (size_t i = 0; i < argc; i++)
		pmuk_pw_str(b, argv[i]);
}

void pmuk_pwf_event_desc_begin(struct pmuk_pw_buf *b, uint32_t nr, uint32_t attr_size)
{
	pmuk_pw_u32(b, nr);
	pmuk_pw_u32(b, attr_size);
}

void pmuk_pwf_event_desc(struct pmuk_pw_buf *b, const void *attr, uint32_t attr_size,
			 const char *name, const uint64_t *ids, size_t nids)
{
	pmuk_pw_put(b, attr, attr_size);
	pmuk_pw_u32(b, (uint32_t)nids);
	pmuk_pw_str(b, name);
	pmuk_pw_put(b, ids, nids * sizeof(*ids));
}

/* struct perf_record_header_build_id: header, pid, build_id[24] (the size in
 * byte 20 when misc has PERF_REC_MISC_BUILD_ID_SIZE), the path padded to 64. */
void pmuk_pwf_build_id(struct pmuk_pw_buf *b, uint16_t misc, int32_t pid, const uint8_t *id,
		       size_t len, const char *path)
{
	size_t plen = strlen(path) + 1, padded = (plen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	struct perf_rec_header h = { 0, (uint16_t)(misc | PERF_REC_MISC_BUILD_ID_SIZE), 0 };
	uint8_t bid[PERF_BUILD_ID_PAD] = { 0 };

	if (len > 20)
		len = 20;
	memcpy(bid, id, len);
	bid[20] = (uint8_t)len;
	h.size = (uint16_t)(sizeof(h) + 4 + sizeof(bid) + padded);
	pmuk_pw_put(b, &h, sizeof(h));
	pmuk_pw_put(b, &pid, 4);
	pmuk_pw_put(b, bid, sizeof(bid));
	pmuk_pw_put(b, path, plen);
	pmuk_pw_put(b, NULL, padded - plen);
}
