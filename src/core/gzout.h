/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_GZOUT_H
#define PMUK_CORE_GZOUT_H

#include <stddef.h>
#include <stdio.h>

/* A gzip stream (RFC 1952) written to a FILE through zlib: no file name, time
 * 0, so the same input gives the same bytes. Built without zlib, opening one
 * fails with PMU_ENOTSUP. */
struct pmuk_gz;

int pmuk_gz_open(FILE *f, struct pmuk_gz **out);
/* 0, or PMU_EIO (the write failed) / PMU_ENOMEM, with the detail set. */
int pmuk_gz_write(struct pmuk_gz *g, const void *p, size_t n);
/* Ends the stream (when ok: after an error only frees) and frees g; returns
 * the first error of the stream. */
int pmuk_gz_close(struct pmuk_gz *g, int ok);

#endif
