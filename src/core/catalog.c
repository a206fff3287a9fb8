/* SPDX-License-Identifier: MIT */
#include "core/catalog.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Case-insensitive glob: *, ?, [set]. */
static int glob(const char *p, const char *s)
{
	for (; *p; p++, s++) {
		if (*p == '*') {
			for (; *s; s++)
				if (glob(p + 1, s))
					return 1;
			return glob(p + 1, s);
		}
		if (!*s)
			return 0;
		if (*p == '[' && strchr(p + 1, ']')) {
			const char *q = p + 1;
			int hit = 0;

			for (; *q != ']'; q++)
				hit |= tolower((unsigned char)*q) == tolower((unsigned char)*s);
			if (!hit)
				return 0;
			p = q;
		} else if (*p != '?' && tolower((unsigned char)*p) != tolower((unsigned char)*s)) {
			return 0;
		}
	}
	return !*s;
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
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct pmu_event_info *v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			c->oom = 1;
			return NULL;
		}
		c->v = v;
		c->cap = cap;
	}
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->pmu, sizeof(e->pmu), "%s", pmu);
	e->kind = kind;
	e->usable = 1;
	return e;
}
