/* SPDX-License-Identifier: MIT */
#include "core/opts.h"

#include "core/error.h"

#include <string.h>

int pmuk_opts_check(const void *opts, size_t known, const char *type)
{
	const unsigned char *p = opts;
	size_t sz;

	if (!opts)
		return 0;
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(size_t))
		return pmuk_fail(PMU_EINVAL, "struct %s: sz is %zu; set it to sizeof(struct %s) "
				 "(PMU_OPTS does), or pass NULL for the defaults", type, sz, type);
	/* Bytes past what this library knows belong to a newer pmukit's fields:
	 * a non-zero one is an option we would silently ignore. */
	for (size_t i = known; i < sz; i++)
		if (p[i])
			return pmuk_fail(PMU_EINVAL, "struct %s: byte at offset %zu is set, but "
					 "this pmukit knows only its first %zu bytes (sz %zu): "
					 "an option of a newer pmukit", type, i, known, sz);
	return 0;
}

int pmuk_opts_load(void *dst, size_t dst_size, const void *opts, size_t known,
		   const char *type)
{
	int err = pmuk_opts_check(opts, known, type);
	size_t sz = 0;

	memset(dst, 0, dst_size);
	if (err)
		return err;
	if (opts) {
		memcpy(&sz, opts, sizeof(sz));
		memcpy(dst, opts, sz < dst_size ? sz : dst_size);
	}
	memcpy(dst, &dst_size, sizeof(dst_size));
	return 0;
}

int pmuk_copy_out(void *dst, size_t size, const void *src, size_t src_size, const char *type)
{
	if (!dst || !size)
		return pmuk_fail(PMU_EINVAL, "struct %s: give where to store it and its size "
				 "(sizeof(struct %s))", type, type);
	memcpy(dst, src, size < src_size ? size : src_size);
	if (size > src_size)
		memset((char *)dst + src_size, 0, size - src_size);
	return 0;
}
