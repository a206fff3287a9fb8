/* SPDX-License-Identifier: MIT */
#include "core/grow.h"

#include <pmukit/error.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int pmuk_grow_raw_slow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t c;
	void *p;

	if (need <= *cap)
		return 0;
	if (!size || need > SIZE_MAX / size)
		return PMU_ENOMEM;
	/* double, unless doubling overflows: then exactly what was asked */
	c = *cap <= SIZE_MAX / 2 / size ? 2 * *cap : need;
	if (c < need)
		c = need;
	if (!(p = realloc(*v, c * size)))
		return PMU_ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

int pmuk_grow_slow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t old = *cap;
	int err = pmuk_grow_raw_slow(v, cap, need, size);

	if (!err)
		memset((char *)*v + old * size, 0, (*cap - old) * size);
	return err;
}
