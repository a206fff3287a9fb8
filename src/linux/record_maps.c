/* SPDX-License-Identifier: MIT */
/* The recorder's mmap table: each process's mappings (pid -1: the kernel and its
 * modules) as the MMAP/MMAP2 records went by, so every sample marks the module
 * its address fell in; HEADER_BUILD_ID then lists the modules with a hit, as
 * perf record does. Later mappings shadow earlier ones (exec, remaps): the
 * lookup walks a process's list from its newest entry. */
#include "linux/record_int.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

/* A module is a path with the build-id its mappings carried (none: read from the
 * file at the end): a file replaced while recording is two modules. */
struct dso_key {
	const char *path;
	const uint8_t *build_id;
	size_t size;
};

static int dso_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct rec_dso *d = &((const struct rec_maps *)ctx)->dso[id];
	const struct dso_key *k = key;

	return d->build_id_size == k->size && (!k->size || !memcmp(d->build_id, k->build_id,
								  k->size)) &&
	       !strcmp(d->path, k->path);
}

static int proc_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct rec_maps *m = ctx;

	return m->proc[id].pid == *(const int32_t *)key;
}

static uint64_t pid_hash(int32_t pid)
{
	return pmuk_hash_u64((uint64_t)(uint32_t)pid);
}

static struct rec_proc *proc_of(struct rec_maps *m, int32_t pid, int add)
{
	uint32_t id = pmuk_index_find(&m->proc_ix, pid_hash(pid), proc_eq, &pid, m);

	if (id != PMUK_INDEX_NONE)
		return &m->proc[id];
	if (!add || pmuk_grow((void **)&m->proc, &m->capproc, m->nproc + 1, sizeof(*m->proc)) < 0 ||
	    (id = pmuk_index_add(&m->proc_ix, pid_hash(pid))) == PMUK_INDEX_NONE)
		return NULL;
	m->nproc++;
	memset(&m->proc[id], 0, sizeof(m->proc[id]));
	m->proc[id].pid = pid;
	return &m->proc[id];
}

static int dso_of(struct rec_maps *m, const struct dso_key *k, uint32_t *out)
{
	uint64_t h = pmuk_hash_bytes(k->path, strlen(k->path),
				     pmuk_hash_bytes(k->build_id, k->size, 0x6d617073));
	uint32_t id = pmuk_index_find(&m->dso_ix, h, dso_eq, k, m);
	char *copy;

	if (id != PMUK_INDEX_NONE) {
		*out = id;
		return 0;
	}
	if (!(copy = strdup(k->path)) ||
	    pmuk_grow((void **)&m->dso, &m->capdso, m->ndso + 1, sizeof(*m->dso)) < 0 ||
	    (id = pmuk_index_add(&m->dso_ix, h)) == PMUK_INDEX_NONE) {
		free(copy);
		return PMU_ENOMEM;
	}
	m->ndso++;
	memset(&m->dso[id], 0, sizeof(m->dso[id]));
	m->dso[id].path = copy;
	m->dso[id].build_id_size = (uint8_t)k->size;
	if (k->size)
		memcpy(m->dso[id].build_id, k->build_id, k->size);
	*out = id;
	return 0;
}

static int push_map(struct rec_proc *p, const struct rec_map *map)
{
	if (pmuk_grow((void **)&p->maps, &p->cap, p->n + 1, sizeof(*p->maps)) < 0)
		return PMU_ENOMEM;
	p->maps[p->n++] = *map;
	return 0;
}

int pmuk_rec_maps_add(struct rec_maps *m, int32_t pid, uint64_t start, uint64_t len,
		      const char *path, const uint8_t *build_id, size_t bid_len, int kernel)
{
	struct rec_proc *p = proc_of(m, kernel ? -1 : pid, 1);
	struct rec_map map = { start, start + len, 0 };
	struct dso_key k = { path, build_id, bid_len > 20 ? 20 : bid_len };

	if (!p || dso_of(m, &k, &map.dso) < 0 || push_map(p, &map) < 0)
		return pmuk_fail(PMU_ENOMEM, "out of memory tracking the mappings of %d", pid);
	m->dso[map.dso].kernel |= kernel;
	return 0;
}

int pmuk_rec_maps_fork(struct rec_maps *m, int32_t pid, int32_t ppid)
{
	struct rec_proc *parent = proc_of(m, ppid, 0), *child;
	size_t n = parent ? parent->n : 0;

	if (!n || pid == ppid)
		return 0;
	if (!(child = proc_of(m, pid, 1)))
		return pmuk_fail(PMU_ENOMEM, "out of memory tracking the mappings of %d", pid);
	parent = proc_of(m, ppid, 0); /* the table may have moved */
	child->n = 0;
	for (size_t i = 0; i < n; i++)
		if (push_map(child, &parent->maps[i]) < 0)
			return pmuk_fail(PMU_ENOMEM, "out of memory tracking the mappings of %d",
					 pid);
	return 0;
}

void pmuk_rec_maps_hit(struct rec_maps *m, int32_t pid, uint64_t addr, int kernel)
{
	struct rec_proc *p = proc_of(m, kernel ? -1 : pid, 0);

	for (size_t i = p ? p->n : 0; i-- > 0;)
		if (addr >= p->maps[i].start && addr < p->maps[i].end) {
			m->dso[p->maps[i].dso].hit = 1;
			return;
		}
}

void pmuk_rec_maps_free(struct rec_maps *m)
{
	for (size_t i = 0; i < m->ndso; i++)
		free(m->dso[i].path);
	for (size_t i = 0; i < m->nproc; i++)
		free(m->proc[i].maps);
	free(m->dso);
	free(m->proc);
	pmuk_index_free(&m->dso_ix);
	pmuk_index_free(&m->proc_ix);
	memset(m, 0, sizeof(*m));
}
