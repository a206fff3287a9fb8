/* SPDX-License-Identifier: MIT */
/* The portable topology model: the builder the OS backends fill and the read
 * accessors. Writers are in topology_print.c. */
#include "core/topology_build.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

struct distance {
	int from, to, value;
};

struct pmu_topology {
	char source[16];
	struct pmu_topo_cpu *cpus;     /* sorted by id */
	size_t ncpus, cap_cpus;
	struct pmu_topo_cache *caches;
	size_t ncaches, cap_caches;
	struct pmu_topo_node *nodes;
	size_t nnodes, cap_nodes;
	struct distance *dist_in;      /* as added; becomes the matrix in finish */
	size_t ndist_in, cap_dist_in;
	int *distances;                /* nnodes * nnodes */
	char **pmus;                   /* interned PMU names */
	size_t npmus;
	struct pmu_topo_package *packages;
	size_t npackages;
	struct pmu_topo_die *dies;
	size_t ndies;
	struct pmu_topo_core *cores;
	size_t ncores;
	int *core_cpus;                /* the cpus arrays of all cores, back to back */
	int *online;
	size_t nonline;
	int hybrid;
	int finished;
};

/* Makes room for element n of an array of cap elements of size sz; returns the
 * (possibly moved) array, or NULL with the error recorded. */
static void *grow(void *arr, size_t *cap, size_t n, size_t sz)
{
	if (pmuk_grow(&arr, cap, n + 1, sz)) {
		pmuk_fail(PMU_ENOMEM, "out of memory while building the topology");
		return NULL;
	}
	return arr;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* A sorted, duplicate-free copy of ids. */
static int copy_ids(const int *ids, size_t n, int **out, size_t *nout)
{
	size_t i, m = 0;
	int *v;

	*out = NULL;
	*nout = 0;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return pmuk_fail(PMU_ENOMEM, "out of memory while building the topology");
	memcpy(v, ids, n * sizeof(*v));
	qsort(v, n, sizeof(*v), int_cmp);
	for (i = 0; i < n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	*out = v;
	*nout = m;
	return 0;
}

int pmuk_topo_new(struct pmu_topology **out, const char *source)
{
	struct pmu_topology *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return pmuk_fail(PMU_ENOMEM, "out of memory allocating the topology");
	snprintf(t->source, sizeof(t->source), "%s", source ? source : "");
	*out = t;
	return 0;
}

void pmu_topology_free(struct pmu_topology *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->ncaches; i++)
		free((void *)t->caches[i].cpus);
	for (i = 0; i < t->nnodes; i++)
		free((void *)t->nodes[i].cpus);
	for (i = 0; i < t->npmus; i++)
		free(t->pmus[i]);
	free(t->pmus);
	free(t->cpus);
	free(t->caches);
	free(t->nodes);
	free(t->dist_in);
	free(t->distances);
	free(t->packages);
	free(t->dies);
	free(t->cores);
	free(t->core_cpus);
	free(t->online);
	free(t);
}

/* Index of the first CPU whose id is >= cpu. */
static size_t cpu_pos(const struct pmu_topology *t, int cpu)
{
	size_t lo = 0, hi = t->ncpus;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->cpus[mid].id < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct pmu_topo_cpu *pmuk_topo_cpu_mut(struct pmu_topology *t, int cpu)
{
	size_t i = cpu_pos(t, cpu);

	return i < t->ncpus && t->cpus[i].id == cpu ? &t->cpus[i] : NULL;
}

int pmuk_topo_add_cpu(struct pmu_topology *t, int cpu, int online)
{
	struct pmu_topo_cpu *c = pmuk_topo_cpu_mut(t, cpu);
	size_t i;

	if (cpu < 0)
		return pmuk_fail(PMU_EINVAL, "negative CPU id %d", cpu);
	if (c) {
		c->online = !!online;
		return 0;
	}
	if (!(c = grow(t->cpus, &t->cap_cpus, t->ncpus, sizeof(*t->cpus))))
		return PMU_ENOMEM;
	t->cpus = c;
	i = cpu_pos(t, cpu);
	memmove(&t->cpus[i + 1], &t->cpus[i], (t->ncpus - i) * sizeof(*t->cpus));
	t->ncpus++;
	t->cpus[i] = (struct pmu_topo_cpu){
		.id = cpu, .online = !!online, .package = -1, .die = -1, .core = -1,
		.core_index = -1, .node = -1, .smt = -1, .type = PMU_CORE_UNIFORM,
		.efficiency = 0, .pmu = "",
	};
	return 0;
}

static struct pmu_topo_cpu *need_cpu(struct pmu_topology *t, int cpu)
{
	struct pmu_topo_cpu *c = pmuk_topo_cpu_mut(t, cpu);

	if (!c)
		pmuk_fail(PMU_EINVAL, "CPU %d was not declared before being described", cpu);
	return c;
}

int pmuk_topo_set_cpu_location(struct pmu_topology *t, int cpu, int package, int die, int core)
{
	struct pmu_topo_cpu *c = need_cpu(t, cpu);

	if (!c)
		return PMU_EINVAL;
	c->package = package;
	c->die = die < 0 ? 0 : die;
	c->core = core;
	return 0;
}

int pmuk_topo_set_cpu_kind(struct pmu_topology *t, int cpu, enum pmu_core_type type,
			   int efficiency)
{
	struct pmu_topo_cpu *c = need_cpu(t, cpu);

	if (!c)
		return PMU_EINVAL;
	c->type = type;
	c->efficiency = efficiency;
	return 0;
}

int pmuk_topo_set_cpu_pmu(struct pmu_topology *t, int cpu, const char *pmu)
{
	struct pmu_topo_cpu *c = need_cpu(t, cpu);
	size_t i;
	char **p;

	if (!c)
		return PMU_EINVAL;
	for (i = 0; i < t->npmus; i++)
		if (!strcmp(t->pmus[i], pmu))
			break;
	if (i == t->npmus) {
		p = realloc(t->pmus, (t->npmus + 1) * sizeof(*p));
		if (!p)
			return pmuk_fail(PMU_ENOMEM, "out of memory while building the topology");
		t->pmus = p;
		if (!(p[i] = strdup(pmu)))
			return pmuk_fail(PMU_ENOMEM, "out of memory while building the topology");
		t->npmus++;
	}
	c->pmu = t->pmus[i];
	return 0;
}

int pmuk_topo_add_cache(struct pmu_topology *t, int level, enum pmu_cache_type type,
			uint64_t size, unsigned line_size, int ways, const int *cpus, size_t n)
{
	struct pmu_topo_cache *c;
	size_t i, m;
	int *ids, err;

	err = copy_ids(cpus, n, &ids, &m);
	if (err)
		return err;
	for (i = 0; i < t->ncaches; i++) {
		c = &t->caches[i];
		if (c->level == level && c->type == type && c->ncpus == m &&
		    (!m || !memcmp(c->cpus, ids, m * sizeof(*ids)))) {
			free(ids);
			return 0;
		}
	}
	if (!(c = grow(t->caches, &t->cap_caches, t->ncaches, sizeof(*t->caches)))) {
		free(ids);
		return PMU_ENOMEM;
	}
	t->caches = c;
	t->caches[t->ncaches++] = (struct pmu_topo_cache){
		.level = level, .type = type, .size = size, .line_size = line_size,
		.ways = ways, .cpus = ids, .ncpus = m,
	};
	return 0;
}

int pmuk_topo_add_node(struct pmu_topology *t, int node, uint64_t memory, const int *cpus,
		       size_t n)
{
	struct pmu_topo_node *nodes;
	size_t m;
	int *ids, err;

	for (size_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == node)
			return pmuk_fail(PMU_EINVAL, "NUMA node %d added twice", node);
	err = copy_ids(cpus, n, &ids, &m);
	if (err)
		return err;
	if (!(nodes = grow(t->nodes, &t->cap_nodes, t->nnodes, sizeof(*t->nodes)))) {
		free(ids);
		return PMU_ENOMEM;
	}
	t->nodes = nodes;
	t->nodes[t->nnodes++] = (struct pmu_topo_node){
		.id = node, .memory = memory, .cpus = ids, .ncpus = m,
	};
	return 0;
}

int pmuk_topo_set_distance(struct pmu_topology *t, int from, int to, int distance)
{
	struct distance *d = grow(t->dist_in, &t->cap_dist_in, t->ndist_in, sizeof(*d));

	if (!d)
		return PMU_ENOMEM;
	t->dist_in = d;
	t->dist_in[t->ndist_in++] = (struct distance){ from, to, distance };
	return 0;
}

/* ---- finish: derive packages, dies, cores ---- */

static int loc_cmp(const void *a, const void *b)
{
	const struct pmu_topo_cpu *x = *(struct pmu_topo_cpu *const *)a;
	const struct pmu_topo_cpu *y = *(struct pmu_topo_cpu *const *)b;

	if (x->package != y->package)
		return x->package < y->package ? -1 : 1;
	if (x->die != y->die)
		return x->die < y->die ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int node_cmp(const void *a, const void *b)
{
	const struct pmu_topo_node *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Within a level: data, instruction, then unified. */
static int cache_rank(enum pmu_cache_type type)
{
	return type == PMU_CACHE_DATA ? 0 : type == PMU_CACHE_INSTRUCTION ? 1 : 2;
}

static int cache_cmp(const void *a, const void *b)
{
	const struct pmu_topo_cache *x = a, *y = b;
	int fx = x->ncpus ? x->cpus[0] : -1, fy = y->ncpus ? y->cpus[0] : -1;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->type != y->type)
		return cache_rank(x->type) < cache_rank(y->type) ? -1 : 1;
	return (fx > fy) - (fx < fy);
}

/* Sweeps the located CPUs in (package, die, core) order, counting or filling. */
static void derive(struct pmu_topology *t, struct pmu_topo_cpu **loc, size_t nloc, int fill)
{
	size_t np = 0, nd = 0, nc = 0, i, k = 0;

	for (i = 0; i < nloc; i++) {
		struct pmu_topo_cpu *c = loc[i], *p = i ? loc[i - 1] : NULL;
		int new_pkg = !p || p->package != c->package;
		int new_die = new_pkg || p->die != c->die;
		int new_core = new_die || p->core != c->core;

		if (new_pkg && fill)
			t->packages[np] = (struct pmu_topo_package){ .id = c->package };
		np += new_pkg;
		if (new_die && fill)
			t->dies[nd] = (struct pmu_topo_die){ .id = c->die, .package = c->package };
		nd += new_die;
		if (new_core && fill) {
			t->cores[nc] = (struct pmu_topo_core){
				.id = c->core, .package = c->package, .die = c->die,
				.type = c->type, .efficiency = c->efficiency, .pmu = c->pmu,
				.cpus = &t->core_cpus[k],
			};
			t->packages[np - 1].ndies += new_die;
			t->packages[np - 1].ncores++;
			t->dies[nd - 1].ncores++;
		}
		nc += new_core;
		if (!fill)
			continue;
		c->core_index = (int)nc - 1;
		c->smt = (int)t->cores[nc - 1].ncpus;
		t->core_cpus[k++] = c->id;
		t->cores[nc - 1].ncpus++;
		t->dies[nd - 1].ncpus++;
		t->packages[np - 1].ncpus++;
	}
	t->npackages = np;
	t->ndies = nd;
	t->ncores = nc;
}

static int node_index(const struct pmu_topology *t, int id)
{
	for (size_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == id)
			return (int)i;
	return -1;
}

static int finish_nodes(struct pmu_topology *t)
{
	size_t i, j, n = t->nnodes;

	if (n)
		qsort(t->nodes, n, sizeof(*t->nodes), node_cmp);
	for (i = 0; i < n; i++)
		for (j = 0; j < t->nodes[i].ncpus; j++) {
			struct pmu_topo_cpu *c = pmuk_topo_cpu_mut(t, t->nodes[i].cpus[j]);

			if (c)
				c->node = t->nodes[i].id;
		}
	if (!n)
		return 0;
	t->distances = calloc(n * n, sizeof(*t->distances));
	if (!t->distances)
		return pmuk_fail(PMU_ENOMEM, "out of memory for the NUMA distance matrix");
	for (i = 0; i < n; i++)
		t->distances[i * n + i] = 10; /* the OS convention for local */
	for (i = 0; i < t->ndist_in; i++) {
		int a = node_index(t, t->dist_in[i].from), b = node_index(t, t->dist_in[i].to);

		if (a < 0 || b < 0)
			return pmuk_fail(PMU_EINVAL, "distance between unknown NUMA nodes %d and %d",
					 t->dist_in[i].from, t->dist_in[i].to);
		t->distances[(size_t)a * n + (size_t)b] = t->dist_in[i].value;
	}
	return 0;
}

int pmuk_topo_finish(struct pmu_topology *t)
{
	struct pmu_topo_cpu **loc;
	size_t i, nloc = 0;
	int err;

	if (t->finished)
		return pmuk_fail(PMU_EINVAL, "topology finished twice");
	if (!t->ncpus)
		return pmuk_fail(PMU_ENOENT, "the %s topology source reported no CPUs", t->source);
	loc = malloc(t->ncpus * sizeof(*loc));
	t->core_cpus = malloc(t->ncpus * sizeof(*t->core_cpus));
	t->online = malloc(t->ncpus * sizeof(*t->online));
	if (!loc || !t->core_cpus || !t->online) {
		free(loc);
		return pmuk_fail(PMU_ENOMEM, "out of memory finishing the topology");
	}
	for (i = 0; i < t->ncpus; i++) {
		if (t->cpus[i].package >= 0 && t->cpus[i].core >= 0)
			loc[nloc++] = &t->cpus[i];
		if (t->cpus[i].online)
			t->online[t->nonline++] = t->cpus[i].id;
		if (t->cpus[i].type != PMU_CORE_UNIFORM)
			t->hybrid = 1;
	}
	qsort(loc, nloc, sizeof(*loc), loc_cmp);
	derive(t, loc, nloc, 0);
	t->packages = calloc(t->npackages + 1, sizeof(*t->packages));
	t->dies = calloc(t->ndies + 1, sizeof(*t->dies));
	t->cores = calloc(t->ncores + 1, sizeof(*t->cores));
	if (!t->packages || !t->dies || !t->cores) {
		free(loc);
		return pmuk_fail(PMU_ENOMEM, "out of memory finishing the topology");
	}
	derive(t, loc, nloc, 1);
	free(loc);
	if (t->ncaches)
		qsort(t->caches, t->ncaches, sizeof(*t->caches), cache_cmp);
	err = finish_nodes(t);
	if (err)
		return err;
	t->finished = 1;
	return 0;
}

/* ---- read accessors ---- */

#define ACCESSOR(name, type, arr, cnt)                                              \
	size_t pmu_topology_##name##_count(const struct pmu_topology *t)            \
	{                                                                           \
		return t ? t->cnt : 0;                                              \
	}                                                                           \
	const type *pmu_topology_##name(const struct pmu_topology *t, size_t i)     \
	{                                                                           \
		return t && i < t->cnt ? &t->arr[i] : NULL;                         \
	}

ACCESSOR(package, struct pmu_topo_package, packages, npackages)
ACCESSOR(die, struct pmu_topo_die, dies, ndies)
ACCESSOR(core, struct pmu_topo_core, cores, ncores)
ACCESSOR(cpu, struct pmu_topo_cpu, cpus, ncpus)
ACCESSOR(cache, struct pmu_topo_cache, caches, ncaches)
ACCESSOR(node, struct pmu_topo_node, nodes, nnodes)

int pmu_topology_node_distance(const struct pmu_topology *t, size_t i, size_t j)
{
	if (!t || i >= t->nnodes || j >= t->nnodes || !t->distances)
		return 0;
	return t->distances[i * t->nnodes + j];
}

const struct pmu_topo_cpu *pmu_topology_cpu_by_id(const struct pmu_topology *t, int cpu)
{
	size_t i;

	if (!t)
		return NULL;
	i = cpu_pos(t, cpu);
	return i < t->ncpus && t->cpus[i].id == cpu ? &t->cpus[i] : NULL;
}

const int *pmu_topology_online_cpus(const struct pmu_topology *t, size_t *n)
{
	*n = t ? t->nonline : 0;
	return t ? t->online : NULL;
}

int pmu_topology_cpu_package(const struct pmu_topology *t, int cpu)
{
	const struct pmu_topo_cpu *c = pmu_topology_cpu_by_id(t, cpu);

	return c ? c->package : -1;
}

int pmu_topology_cpu_core(const struct pmu_topology *t, int cpu)
{
	const struct pmu_topo_cpu *c = pmu_topology_cpu_by_id(t, cpu);

	return c ? c->core_index : -1;
}

int pmu_topology_cpu_node(const struct pmu_topology *t, int cpu)
{
	const struct pmu_topo_cpu *c = pmu_topology_cpu_by_id(t, cpu);

	return c ? c->node : -1;
}

int pmu_topology_is_hybrid(const struct pmu_topology *t)
{
	return t ? t->hybrid : 0;
}

const char *pmu_topology_source(const struct pmu_topology *t)
{
	return t ? t->source : "";
}
