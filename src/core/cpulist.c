/* SPDX-License-Identifier: MIT */
/* Linux-style CPU lists ("0-3,8,10-11"): the format of sysfs and of the command line. */
#include "core/cpulist.h"
#include "core/grow.h"
#include "core/error.h"

#include <pmukit/topology.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int pmuk_cpulist_parse(const char *s, int **out, size_t *n)
{
	size_t cnt = 0, cap = 0;
	int *v = NULL;

	*out = NULL;
	*n = 0;
	while (*s) {
		char *end;
		long a, b;

		while (*s == ',' || *s == ' ' || *s == '\n')
			s++;
		if (!*s)
			break;
		/* digits only: strtol would also take signs and spaces */
		if (*s < '0' || *s > '9')
			goto bad;
		a = strtol(s, &end, 10);
		if (a > INT_MAX)
			goto bad;
		b = a;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				goto bad;
			b = strtol(s, &end, 10);
			if (b < a || b > INT_MAX)
				goto bad;
		}
		if (b - a > 1 << 20)
			goto bad;
		for (long i = a; i <= b; i++) {
			if (pmuk_grow((void **)&v, &cap, cnt + 1, sizeof(*v))) {
				free(v);
				return pmuk_fail(PMU_ENOMEM, "out of memory parsing a CPU list");
			}
			v[cnt++] = (int)i;
		}
		s = end;
		if (*s && *s != ',' && *s != '\n' && *s != ' ')
			goto bad;
	}
	if (cnt) {
		size_t m = 0;

		qsort(v, cnt, sizeof(*v), int_cmp);
		for (size_t i = 0; i < cnt; i++)
			if (!m || v[m - 1] != v[i])
				v[m++] = v[i];
		*out = v;
		*n = m;
	}
	return 0;
bad:
	free(v);
	return pmuk_fail(PMU_EFORMAT, "malformed CPU list near '%.20s'", s);
}

int pmu_cpulist_format(const int *ids, size_t n, char *buf, size_t size)
{
	size_t i = 0, len = 0;

	if (!size)
		return pmuk_fail(PMU_ERANGE, "no room for a CPU list");
	buf[0] = '\0';
	while (i < n) {
		size_t j = i;
		char item[32];
		int m;

		while (j + 1 < n && ids[j + 1] == ids[j] + 1)
			j++;
		if (j == i)
			m = snprintf(item, sizeof(item), "%s%d", len ? "," : "", ids[i]);
		else
			m = snprintf(item, sizeof(item), "%s%d-%d", len ? "," : "", ids[i], ids[j]);
		if (len + (size_t)m + 4 > size) {
			if (len + 4 <= size)
				memcpy(buf + len, "...", 4);
			return PMU_ERANGE;
		}
		memcpy(buf + len, item, (size_t)m + 1);
		len += (size_t)m;
		i = j + 1;
	}
	return 0;
}
