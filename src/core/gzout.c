/* SPDX-License-Identifier: MIT */
/* gzip output through zlib's deflate (windowBits 15 + 16 selects the gzip
 * wrapper: header, CRC-32 and size trailer). */
#include "core/gzout.h"
#include "core/error.h"

#include <stdlib.h>

#ifdef PMUKIT_HAVE_ZLIB
#include <zlib.h>

struct pmuk_gz {
	z_stream z;
	FILE *f;
	int err;
	unsigned char out[65536];
};

int pmuk_gz_open(FILE *f, struct pmuk_gz **out)
{
	struct pmuk_gz *g = calloc(1, sizeof(*g));

	*out = NULL;
	if (!g)
		return pmuk_fail(PMU_ENOMEM, "no memory for a gzip stream");
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return pmuk_fail(PMU_ENOMEM, "zlib could not start a gzip stream (no memory)");
	}
	g->f = f;
	*out = g;
	return 0;
}

/* Runs deflate over the pending input with flush, writing what it makes. */
static int pump(struct pmuk_gz *g, int flush)
{
	int rc;

	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR)
			return g->err = pmuk_fail(PMU_EINVAL, "zlib refused the gzip stream's state");
		size_t have = sizeof(g->out) - g->z.avail_out;
		if (have && fwrite(g->out, 1, have, g->f) != have)
			return g->err = pmuk_fail(PMU_EIO, "writing the gzip output failed (disk "
						  "full, or a closed pipe?)");
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return 0;
}

int pmuk_gz_write(struct pmuk_gz *g, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (!g->err && n) {
		uInt chunk = n > 1u << 30 ? 1u << 30 : (uInt)n;
		g->z.next_in = (unsigned char *)s;	/* zlib's API is not const */
		g->z.avail_in = chunk;
		if (pump(g, Z_NO_FLUSH))
			break;
		s += chunk;
		n -= chunk;
	}
	return g->err;
}

int pmuk_gz_close(struct pmuk_gz *g, int ok)
{
	int err;

	if (!g)
		return 0;
	if (ok && !g->err) {
		g->z.next_in = NULL;
		g->z.avail_in = 0;
		pump(g, Z_FINISH);
	}
	err = g->err;
	deflateEnd(&g->z);
	free(g);
	return err;
}

#else

struct pmuk_gz {
	int unused;
};

int pmuk_gz_open(FILE *f, struct pmuk_gz **out)
{
	(void)f;
	*out = NULL;
	return pmuk_fail(PMU_ENOTSUP, "this libpmukit was built without zlib, so it cannot "
			 "write gzip: install zlib (Debian: zlib1g-dev) and rebuild");
}

int pmuk_gz_write(struct pmuk_gz *g, const void *p, size_t n)
{
	(void)g, (void)p, (void)n;
	return PMU_ENOTSUP;
}

int pmuk_gz_close(struct pmuk_gz *g, int ok)
{
	(void)g, (void)ok;
	return 0;
}
#endif
