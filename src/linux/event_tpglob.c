/* SPDX-License-Identifier: MIT */
/* Tracepoint globs, as perf takes them: "sched:*", "sched:sched_switch*", "sch?d:*"
 * become one term per matching tracepoint of tracefs (sorted), before resolution. */
#include "linux/event_resolve.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/sysroot.h"

#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct names {
	char (*v)[PMUK_EV_TEXT_MAX];
	int n;
	size_t cap;
};

static int is_glob(const char *s)
{
	return strpbrk(s, "*?") != NULL;
}

static int names_add(struct names *m, const char *sys, const char *ev)
{
	if (pmuk_grow((void **)&m->v, &m->cap, (size_t)m->n + 1, sizeof(*m->v)))
		return pmuk_fail(PMU_ENOMEM, "out of memory expanding a tracepoint glob");
	if (snprintf(m->v[m->n], sizeof(m->v[0]), "%s:%s", sys, ev) < (int)sizeof(m->v[0]))
		m->n++;
	return 0;
}

/* The events of one subsystem directory matching pat (those with an id). */
static int match_events(const char *dir, const char *sys, const char *pat, struct names *m)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *ed;
	int ret = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, sys) >= (int)sizeof(path) ||
	    !(ed = opendir(path)))
		return 0;
	while (!ret && (d = readdir(ed)))
		if (d->d_name[0] != '.' && !fnmatch(pat, d->d_name, 0) &&
		    snprintf(path, sizeof(path), "%s/%s/%s/id", dir, sys, d->d_name) <
		    (int)sizeof(path) && pmuk_exists(path))
			ret = names_add(m, sys, d->d_name);
	closedir(ed);
	return ret;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Every tracepoint "sys:event" whose two parts match the glob's, sorted. */
static int match_tracepoints(const struct pmuk_ev_term *t, struct names *m)
{
	char dir[PATH_MAX], sys_pat[PMUK_EV_TEXT_MAX];
	const char *colon = strchr(t->text, ':');
	struct dirent *d;
	DIR *sd;
	int ret;

	if (!colon || strchr(colon + 1, ':'))
		return pmuk_fail(PMU_EPARSE, "'%s' at position %d: wildcards ('*', '?') are for "
				 "tracepoints only, written subsystem:event ('sched:*'); 'pmukit "
				 "list PATTERN' finds other names", t->text, t->pos);
	if ((ret = pmuk_tracefs_events(dir, sizeof(dir))))
		return pmuk_fail(PMU_ENOENT, "cannot expand the tracepoint glob '%s' at position "
				 "%d: %s", t->text, t->pos, pmuk_tracefs_hint(ret));
	snprintf(sys_pat, sizeof(sys_pat), "%.*s", (int)(colon - t->text), t->text);
	if (!(sd = opendir(dir)))
		return pmuk_fail(PMU_EPERM, "cannot read %s to expand '%s': %s", dir, t->text,
				 pmuk_tracefs_hint(PMU_EPERM));
	while (!ret && (d = readdir(sd)))
		if (d->d_name[0] != '.' && !fnmatch(sys_pat, d->d_name, 0))
			ret = match_events(dir, d->d_name, colon + 1, m);
	closedir(sd);
	if (!ret && !m->n)
		return pmuk_fail(PMU_ENOENT, "no tracepoint matches '%s' at position %d (see "
				 "'pmukit list tracepoint')", t->text, t->pos);
	if (m->n)
		qsort(m->v, (size_t)m->n, sizeof(m->v[0]), cmp_name);
	return ret;
}

static int push(struct pmuk_ev_term **v, int *n, size_t *cap, const struct pmuk_ev_term *t)
{
	if (pmuk_grow((void **)v, cap, (size_t)*n + 1, sizeof(**v)))
		return pmuk_fail(PMU_ENOMEM, "out of memory expanding a tracepoint glob");
	(*v)[(*n)++] = *t;
	return 0;
}

/* One group index per written group, one per event outside braces; leaders first. */
static void renumber(struct pmuk_ev_ast *a)
{
	int g = -1, prev = -1; /* prev: the written group of the term before */

	for (int i = 0; i < a->nterms; i++) {
		struct pmuk_ev_term *t = &a->terms[i];
		int same = i && t->in_braces && a->terms[i - 1].in_braces && prev == t->group &&
			   !t->leader;

		if (!same)
			g++;
		prev = t->group;
		t->leader = !same;
		t->group = g;
	}
	a->ngroups = g + 1;
}

/* Appends one copy of t per matching tracepoint; only the first may lead its group. */
static int expand_term(const struct pmuk_ev_term *t, struct pmuk_ev_term **v, int *n,
		       size_t *cap, int max)
{
	struct names m = { 0 };
	struct pmuk_ev_term e = *t;
	int ret = match_tracepoints(t, &m);

	for (int k = 0; !ret && k < m.n; k++) {
		if (*n >= max) {
			ret = pmuk_fail(PMU_EPARSE, "'%s' at position %d matches %d tracepoints: "
					"too many events (at most %d in one list)", t->text,
					t->pos, m.n, max);
			break;
		}
		snprintf(e.text, sizeof(e.text), "%s", m.v[k]);
		e.leader = t->leader && k == 0;
		ret = push(v, n, cap, &e);
	}
	free(m.v);
	return ret;
}

int pmuk_expand_tracepoint_globs(struct pmuk_ev_ast *a, int max)
{
	struct pmuk_ev_term *v = NULL;
	size_t cap = 0;
	int n = 0, ret = 0, any = 0;

	for (int i = 0; i < a->nterms; i++)
		any |= !a->terms[i].pmu[0] && is_glob(a->terms[i].text);
	if (!any)
		return 0;
	for (int i = 0; !ret && i < a->nterms; i++) {
		const struct pmuk_ev_term *t = &a->terms[i];

		ret = !t->pmu[0] && is_glob(t->text) ? expand_term(t, &v, &n, &cap, max)
						      : push(&v, &n, &cap, t);
	}
	if (ret) {
		free(v);
		return ret;
	}
	free(a->terms);
	a->terms = v;
	a->nterms = n;
	renumber(a);
	return 0;
}
