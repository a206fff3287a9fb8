/* SPDX-License-Identifier: MIT */
/* Reading the caller's options structs (see pmukit/opts.h for the rules). The
 * only two ways into a caller's opts: PMUK_OPTS_LOAD copies them whole into the
 * library's own struct, PMUK_OPTS_GET reads one field. Both go by the caller's
 * sz, never by the library's sizeof. */
#ifndef PMUK_CORE_OPTS_H
#define PMUK_CORE_OPTS_H

#include <pmukit/opts.h>
#include <stddef.h>

#define pmuk_offsetofend(TYPE, FIELD) (offsetof(TYPE, FIELD) + sizeof(((TYPE *)0)->FIELD))

/* The bytes of struct TYPE this library knows: up to the end of its last field
 * (TYPE##__last_field, defined by each opts.h-style header next to its struct),
 * not sizeof, so a newer field placed in today's trailing padding is seen. */
#define PMUK_OPTS_KNOWN(TYPE) pmuk_offsetofend(struct TYPE, TYPE##__last_field)

/* 0, or PMU_EINVAL through pmuk_fail when opts (not NULL) has sz below
 * sizeof(size_t) or a non-zero byte at or past known. */
int pmuk_opts_check(const void *opts, size_t known, const char *type);
/* Checks opts, then fills dst (dst_size bytes, the library's struct) with the
 * caller's first min(sz, dst_size) bytes and zeros, and sets dst's sz to
 * dst_size. opts NULL gives an all-default dst. */
int pmuk_opts_load(void *dst, size_t dst_size, const void *opts, size_t known,
		   const char *type);

#define PMUK_OPTS_VALID(opts, TYPE) pmuk_opts_check((opts), PMUK_OPTS_KNOWN(TYPE), #TYPE)
/* dst: the library's struct TYPE (an lvalue), opts: the caller's pointer. */
#define PMUK_OPTS_LOAD(dst, opts, TYPE) \
	pmuk_opts_load(&(dst), sizeof(struct TYPE), (opts), PMUK_OPTS_KNOWN(TYPE), #TYPE)

/* Copies a struct out to a caller who said how big theirs is (size): the first
 * min(size, src_size) bytes of src, zeros for the rest of a newer caller's
 * struct. PMU_EINVAL naming type when dst is NULL or size 0. */
int pmuk_copy_out(void *dst, size_t size, const void *src, size_t src_size, const char *type);
#define PMUK_COPY_OUT(dst, size, src, TYPE) \
	pmuk_copy_out((dst), (size), &(src), sizeof(struct TYPE), #TYPE)

/* 1 when the caller's struct reaches the end of field (opts checked already). */
#define PMUK_OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= (size_t)((const char *)&(opts)->field - \
					  (const char *)(opts)) + sizeof((opts)->field))
/* The caller's field, or fallback when its struct is too old to have it. */
#define PMUK_OPTS_GET(opts, field, fallback) \
	(PMUK_OPTS_HAS(opts, field) ? (opts)->field : (fallback))

#endif
