/* SPDX-License-Identifier: MIT */
#include "core/catalog.h"
#include "core/grow.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One pattern character (or [set]) against c; *len gets how much pattern it spans. */
static int glob_one(const char *p, int c, size_t *len)
{
	const char *close = p[0] == '[' ? strchr(p + 1, ']') : NULL;
	int hit = 0;

	if (!close) {
		*len = 1;
		return *p == '?' || tolower((unsigned char)*p) == tolower(c);
	}
	for (const char *q = p + 1; q < close; q++)
		hit |= tolower((unsigned char)*q) == tolower(c);
	*len = (size_t)(close - p) + 1;
	return hit;
}

/* Case-insensitive glob: *, ?, [set]. Linear backtracking to the last '*' only, so
 * a pattern with many stars cannot take exponential time on a long name. */
static int glob(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;
	size_t len;

	while (*s) {
		if (*p == '*') {
			star = ++p;
			resume = s;
		} else if (*p && glob_one(p, (unsigned char)*s, &len)) {
			p += len;
			s++;
		} else if (star) {
			p = star;
			s = ++resume;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

int pmuk_catalog_matches(const char *pattern, const char *name)
{
	size_t n;

	if (!pattern || !*pattern)
		return 1;
	if (strpbrk(pattern, "*?["))
		return glob(pattern, name);
	n = strlen(pattern);
	for (const char *s = name; *s; s++) {
		size_t i = 0;

		while (i < n && s[i] && tolower((unsigned char)s[i]) ==
					tolower((unsigned char)pattern[i]))
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

struct pmu_event_info *pmuk_catalog_add(struct pmuk_catalog *c, const char *name,
					const char *pmu, enum pmu_event_kind kind)
{
	struct pmu_event_info *e;

	if (c->oom || !pmuk_catalog_matches(c->pattern, name))
		return NULL;
	if (pmuk_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v))) {
		c->oom = 1;
		return NULL;
	}
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->pmu, sizeof(e->pmu), "%s", pmu);
	e->kind = kind;
	e->usable = 1;
	return e;
}
