/* SPDX-License-Identifier: MIT */
/* The merged file: the input read buffer by buffer (no seeking: any file size,
 * any OS), copied up to the first bytes that are no buffer header (a
 * preallocated file's zeros), then the appended buffers. */
#include "core/error.h"
#include "core/file.h"
#include "formats/etl_int.h"
#include "formats/etl_merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The log-file header is the first record of the first (never compressed)
 * buffer, after a 32-byte SYSTEM header; BuffersWritten 0 means "not
 * counted" and stays so. */
static void count_buffers(uint8_t *first, uint32_t size, uint64_t more)
{
	const uint32_t at = ETL_BUF_HDR + ETL_SYSTEM_HDR + 0x24;

	if (size < at + 4 || (first[ETL_BUF_HDR + 2] != 1 && first[ETL_BUF_HDR + 2] != 2) ||
	    !le32(first + at))
		return;
	put_le(first + at, le32(first + at) + more, 4);
}

/* Numbers b's buffers after the input's and puts them on processor 0 as the
 * input's first buffer says processors (ClientContext, PROC_INDEX). */
static void place(struct pmuk_etl_mbuf *b, const uint8_t *first, uint64_t seq)
{
	uint16_t flags = le16(first + 0x34) & ETL_FLAG_PROC_INDEX;

	for (uint64_t k = 0; k < b->buffers; k++) {
		uint8_t *h = b->d + k * b->bufsz;
		put_le(h + 0x18, seq + 1 + k, 8);
		memcpy(h + 0x28, first + 0x28, 4);	/* the logger's id */
		if (flags)
			put_le(h + 0x28, 0, 2);
		else
			h[0x28] = 0;
		put_le(h + 0x34, flags, 2);
	}
}

static int copy(FILE *fi, FILE *fo, uint8_t *buf, struct pmuk_etl_mbuf *b, const char *in,
		uint8_t *first)
{
	uint64_t seq = 0, n = 0;

	while (fread(buf, 1, ETL_BUF_HDR, fi) == ETL_BUF_HDR) {
		uint32_t size = le32(buf);
		if (size < ETL_BUF_HDR || size > ETL_MAX_BUFFER)
			break;	/* zero padding, or not a buffer: the end of the trace */
		if (fread(buf + ETL_BUF_HDR, 1, size - ETL_BUF_HDR, fi) != size - ETL_BUF_HDR)
			return pmuk_fail(PMU_EFORMAT, "%s: buffer %llu is cut short by the end of "
					 "the file; merge a complete trace", in,
					 (unsigned long long)n);
		if (!n++) {
			memcpy(first, buf, ETL_BUF_HDR);
			count_buffers(buf, size, b->buffers);
		}
		if (le64(buf + 0x18) > seq)
			seq = le64(buf + 0x18);
		if (fwrite(buf, 1, size, fo) != size)
			return pmuk_fail(PMU_EIO, "cannot write the merged trace: %s", strerror(errno));
	}
	if (!n)
		return pmuk_fail(PMU_EFORMAT, "%s holds no ETW buffer", in);
	place(b, first, seq);
	if (b->n && fwrite(b->d, 1, b->n, fo) != b->n)
		return pmuk_fail(PMU_EIO, "cannot write the merged trace: %s", strerror(errno));
	return 0;
}

int pmuk_etl_merge_write(const char *in, const char *out, struct pmuk_etl_mbuf *b)
{
	uint8_t first[ETL_BUF_HDR];
	uint8_t *buf = malloc(ETL_MAX_BUFFER);
	FILE *fi = pmuk_fopen(in, "rb"), *fo = fi ? pmuk_fopen(out, "wb") : NULL;
	int err;

	if (!buf)
		err = pmuk_fail(PMU_ENOMEM, "no memory for a 16 MiB buffer to merge %s", in);
	else if (!fi || !fo)
		err = pmuk_fail(errno == ENOENT ? PMU_ENOENT : PMU_EIO, "cannot open %s: %s",
				fi ? out : in, strerror(errno));
	else
		err = copy(fi, fo, buf, b, in, first);
	if (fo && fclose(fo) && !err)
		err = pmuk_fail(PMU_EIO, "cannot write the merged trace %s: %s", out, strerror(errno));
	if (fi)
		fclose(fi);
	free(buf);
	return err;
}
