/* SPDX-License-Identifier: MIT */
/* Threads and address spaces of a recording, as perf script sees them. */
#include "script.h"
#include "core/grow.h"

#include <pmukit/error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROT_EXEC_BIT 4

static int tid_eq(const void *key, uint32_t id, const void *ctx)
{
	return ((const struct sc_state *)ctx)->threads[id].tid == *(const int32_t *)key;
}

static int pid_eq(const void *key, uint32_t id, const void *ctx)
{
	return ((const struct sc_state *)ctx)->procs[id].pid == *(const int32_t *)key;
}

static struct sc_thread *thread(struct sc_state *s, int32_t tid, int create)
{
	uint64_t h = pmuk_hash_u64((uint32_t)tid);
	uint32_t id = pmuk_index_find(&s->thread_ix, h, tid_eq, &tid, s);

	if (id != PMUK_INDEX_NONE || !create)
		return id == PMUK_INDEX_NONE ? NULL : &s->threads[id];
	if (pmuk_grow((void **)&s->threads, &s->cap_threads, s->n_threads + 1,
		      sizeof(*s->threads)) ||
	    pmuk_index_add(&s->thread_ix, h) == PMUK_INDEX_NONE)
		return NULL;
	s->threads[s->n_threads] = (struct sc_thread){ .tid = tid, .pid = -1 };
	return &s->threads[s->n_threads++];
}

static struct sc_maps *proc(struct sc_state *s, int32_t pid, int create)
{
	uint64_t h = pmuk_hash_u64((uint32_t)pid ^ 0x9e3779b9u);
	uint32_t id = pmuk_index_find(&s->proc_ix, h, pid_eq, &pid, s);

	if (id != PMUK_INDEX_NONE || !create)
		return id == PMUK_INDEX_NONE ? NULL : &s->procs[id];
	if (pmuk_grow((void **)&s->procs, &s->cap_procs, s->n_procs + 1, sizeof(*s->procs)) ||
	    pmuk_index_add(&s->proc_ix, h) == PMUK_INDEX_NONE)
		return NULL;
	s->procs[s->n_procs] = (struct sc_maps){ .pid = pid };
	return &s->procs[s->n_procs++];
}

/* Index of the first mapping ending after addr. */
static size_t first_after(const struct sc_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Puts nm in, cutting away what it overlaps (a newer mapping wins). */
static int put(struct sc_maps *m, struct sc_map nm)
{
	size_t i = first_after(m, nm.start), j = i, k = 0;
	struct sc_map piece[3];

	if (pmuk_grow((void **)&m->v, &m->cap, m->n + 2, sizeof(*m->v)))
		return PMU_ENOMEM;
	if (i < m->n && m->v[i].start < nm.start) {
		piece[k] = m->v[i];
		piece[k++].end = nm.start;
	}
	piece[k++] = nm;
	while (j < m->n && m->v[j].start < nm.end)
		j++;
	if (j > i && m->v[j - 1].end > nm.end) {
		piece[k] = m->v[j - 1];
		piece[k].pgoff += nm.end - piece[k].start;
		piece[k++].start = nm.end;
	}
	memmove(m->v + i + k, m->v + j, (m->n - j) * sizeof(*m->v));
	memcpy(m->v + i, piece, k * sizeof(*piece));
	m->n = m->n - (j - i) + k;
	return 0;
}

/* Puts nm only where nothing is mapped yet: the kernel image under modules. */
static int put_under(struct sc_maps *m, struct sc_map nm)
{
	uint64_t at = nm.start;

	while (at < nm.end) {
		size_t i = first_after(m, at);
		struct sc_map piece = nm;
		int err;

		if (i < m->n && m->v[i].start <= at) {   /* taken: skip past it */
			at = m->v[i].end;
			continue;
		}
		piece.start = at;
		piece.end = i < m->n && m->v[i].start < nm.end ? m->v[i].start : nm.end;
		piece.pgoff = nm.pgoff + (at - nm.start);
		if ((err = put(m, piece)))
			return err;
		at = piece.end;
	}
	return 0;
}

static int is_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* perf's names: the kernel image as [kernel.kallsyms], a module file as
 * [module] ('-' as '_'), executable anonymous memory as /tmp/perf-PID.map. */
static char *dso_name(const struct pmu_record *rec, int kernel, int anon)
{
	const char *path = rec->mmap.path ? rec->mmap.path : "";
	const char *base = strrchr(path, '/'), *ko;
	char buf[64];

	if (kernel && is_prefix(path, "[kernel.kallsyms]"))
		return strdup("[kernel.kallsyms]");
	if (kernel && *path == '/' && (ko = strstr(base, ".ko")) && ko - base - 1 < 60) {
		snprintf(buf, sizeof(buf), "[%.*s]", (int)(ko - base - 1), base + 1);
		for (char *c = buf; *c; c++)
			*c = *c == '-' ? '_' : *c;
		return strdup(buf);
	}
	if (anon && (rec->mmap.prot & PROT_EXEC_BIT || (!rec->mmap.prot && !rec->mmap.data))) {
		snprintf(buf, sizeof(buf), "/tmp/perf-%d.map", (int)rec->pid);
		return strdup(buf);
	}
	return strdup(path);
}

static int add_mmap(struct sc_state *s, const struct pmu_record *rec)
{
	const char *path = rec->mmap.path ? rec->mmap.path : "";
	int kernel = rec->pid == -1 || rec->cpumode == PMU_CPUMODE_KERNEL ||
		     rec->cpumode == PMU_CPUMODE_GUEST_KERNEL;
	int anon = is_prefix(path, "//anon") || is_prefix(path, "/dev/zero") ||
		   is_prefix(path, "/anon_hugepage");
	struct sc_maps *m = kernel ? &s->kernel : proc(s, rec->pid, 1);
	struct sc_map nm = {
		.start = rec->mmap.start, .end = rec->mmap.start + rec->mmap.len,
		.pgoff = rec->mmap.pgoff, .kernel = kernel,
		.identity = anon || is_prefix(path, "[stack") || is_prefix(path, "/SYSV") ||
			    !strcmp(path, "[heap]"),
	};

	if (!m || pmuk_grow((void **)&s->names, &s->cap_names, s->n_names + 1, sizeof(char *)) ||
	    !(s->names[s->n_names] = dso_name(rec, kernel, anon)))
		return PMU_ENOMEM;
	nm.dso = s->names[s->n_names++];
	if (nm.end <= nm.start)
		return 0;
	/* perf stretches the kernel image's map to the next mapping (modules) or
	 * the top of memory: init text, BPF and the like name [kernel.kallsyms]. */
	if (kernel && is_prefix(path, "[kernel.kallsyms]")) {
		nm.end = UINT64_MAX;
		return put_under(m, nm);
	}
	return put(m, nm);
}

static int set_comm(struct sc_thread *t, const char *name)
{
	char *c = strdup(name);

	if (!c)
		return PMU_ENOMEM;
	free(t->comm);
	t->comm = c;
	return 0;
}

/* A new thread takes its parent's name; a new process a copy of its maps. */
static int fork_from(struct sc_state *s, const struct pmu_record *rec)
{
	struct sc_thread *child = thread(s, rec->tid, 1), *parent;
	struct sc_maps *from, *to;

	if (!child)
		return PMU_ENOMEM;
	child->pid = rec->pid;
	parent = thread(s, rec->task.ptid, 0);
	if (parent != child) {
		free(child->comm);   /* a reused tid: the old thread's name is not its */
		child->comm = NULL;
		if (parent && parent->comm && set_comm(child, parent->comm))
			return PMU_ENOMEM;
	}
	if (rec->pid == rec->task.ppid || !(from = proc(s, rec->task.ppid, 0)) || !from->n)
		return 0;
	if (!(to = proc(s, rec->pid, 1)))
		return PMU_ENOMEM;
	if (to->n)   /* the process already has mappings of its own */
		return 0;
	from = proc(s, rec->task.ppid, 0);   /* proc() may have moved the array */
	if (pmuk_grow((void **)&to->v, &to->cap, from->n, sizeof(*to->v)))
		return PMU_ENOMEM;
	memcpy(to->v, from->v, from->n * sizeof(*to->v));
	to->n = from->n;
	return 0;
}

int sc_track(struct sc_state *s, const struct pmu_record *rec)
{
	struct sc_thread *t;

	switch (rec->kind) {
	case PMU_RECORD_COMM:
		if (!(t = thread(s, rec->tid, 1)))
			return PMU_ENOMEM;
		t->pid = rec->pid;
		return set_comm(t, rec->comm.long_name ? rec->comm.long_name : rec->comm.name);
	case PMU_RECORD_FORK:
		return fork_from(s, rec);
	case PMU_RECORD_MMAP:
		return add_mmap(s, rec);
	default:
		return 0;
	}
}

const char *sc_comm(const struct sc_state *s, int32_t pid, int32_t tid, char *buf, size_t size)
{
	struct sc_thread *t = thread((struct sc_state *)s, tid, 0);

	if (t && t->comm)
		return t->comm;
	if (s->process_names && pid != tid && (t = thread((struct sc_state *)s, pid, 0)) &&
	    t->comm)
		return t->comm;
	if (tid == 0)
		return "swapper";
	snprintf(buf, size, ":%d", (int)tid);
	return buf;
}

const struct sc_map *sc_find(const struct sc_state *s, int32_t pid, int kernel, uint64_t addr)
{
	const struct sc_maps *m = kernel ? &s->kernel : proc((struct sc_state *)s, pid, 0);
	size_t i;

	if (!m)
		return NULL;
	i = first_after(m, addr);
	return i < m->n && m->v[i].start <= addr ? &m->v[i] : NULL;
}

void sc_free(struct sc_state *s)
{
	for (size_t i = 0; i < s->n_threads; i++)
		free(s->threads[i].comm);
	for (size_t i = 0; i < s->n_procs; i++)
		free(s->procs[i].v);
	for (size_t i = 0; i < s->n_names; i++)
		free(s->names[i]);
	free(s->threads);
	free(s->procs);
	free(s->names);
	free(s->kernel.v);
	pmuk_index_free(&s->thread_ix);
	pmuk_index_free(&s->proc_ix);
	memset(s, 0, sizeof(*s));
}
