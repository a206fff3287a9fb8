/* SPDX-License-Identifier: MIT */
/* A command's process tree followed through start/end events (core/pidtree.h). */
#include "core/pidtree.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/hash.h"

#include <stdlib.h>

struct member {
	uint32_t pid;
	int live;
};

struct pmuk_pidtree {
	struct member *m;
	size_t n, cap;
	size_t total;
	struct pmuk_index ix;
};

static int eq(const void *key, uint32_t id, const void *ctx)
{
	return ((const struct pmuk_pidtree *)ctx)->m[id].pid == *(const uint32_t *)key;
}

static struct member *find(const struct pmuk_pidtree *t, uint32_t pid)
{
	uint32_t id = pmuk_index_find(&t->ix, pmuk_hash_u64(pid), eq, &pid, t);

	return id == PMUK_INDEX_NONE ? NULL : &t->m[id];
}

/* pid becomes a live member; 0 or PMU_ENOMEM. */
static int join(struct pmuk_pidtree *t, uint32_t pid)
{
	struct member *e = find(t, pid);
	uint32_t id;

	if (!e) {
		if (pmuk_grow((void **)&t->m, &t->cap, t->n + 1, sizeof(*t->m)) ||
		    (id = pmuk_index_add(&t->ix, pmuk_hash_u64(pid))) == PMUK_INDEX_NONE)
			return pmuk_fail(PMU_ENOMEM, "out of memory following the command's "
					 "processes");
		e = &t->m[id];
		e->pid = pid;
		t->n++;
	}
	if (!e->live)
		t->total++;
	e->live = 1;
	return 0;
}

int pmuk_pidtree_new(uint32_t root, struct pmuk_pidtree **out)
{
	struct pmuk_pidtree *t = calloc(1, sizeof(*t));
	int err;

	*out = NULL;
	if (!t)
		return pmuk_fail(PMU_ENOMEM, "out of memory following the command's processes");
	if ((err = join(t, root))) {
		pmuk_pidtree_free(t);
		return err;
	}
	*out = t;
	return 0;
}

void pmuk_pidtree_free(struct pmuk_pidtree *t)
{
	if (!t)
		return;
	pmuk_index_free(&t->ix);
	free(t->m);
	free(t);
}

int pmuk_pidtree_start(struct pmuk_pidtree *t, uint32_t pid, uint32_t ppid)
{
	int err;

	if (pid == ppid || !pmuk_pidtree_has(t, ppid))
		return 0;
	if (pmuk_pidtree_has(t, pid))
		return 0;  /* a start seen twice (rundown and start) counts once */
	return (err = join(t, pid)) ? err : 1;
}

void pmuk_pidtree_end(struct pmuk_pidtree *t, uint32_t pid)
{
	struct member *e = find(t, pid);

	if (e)
		e->live = 0;
}

int pmuk_pidtree_has(const struct pmuk_pidtree *t, uint32_t pid)
{
	const struct member *e = find(t, pid);

	return e && e->live;
}

size_t pmuk_pidtree_total(const struct pmuk_pidtree *t)
{
	return t->total;
}
