/* SPDX-License-Identifier: MIT */
/* GetLogicalProcessorInformationEx(RelationAll) output -> the topology model.
 *
 * Layout facts (winnt.h, x64; all little-endian, offsets from the record start):
 *   SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX: DWORD Relationship @0, DWORD Size @4,
 *     the union @8. Records follow each other by Size.
 *   GROUP_AFFINITY (16 bytes): KAFFINITY Mask @0 (8 bytes), WORD Group @8, WORD Reserved[3].
 *   PROCESSOR_RELATIONSHIP (core, package, die, module): BYTE Flags @8 (LTP_PC_SMT = 1),
 *     BYTE EfficiencyClass @9 (mingw: Reserved[0]), BYTE Reserved[20], WORD GroupCount @30,
 *     GROUP_AFFINITY GroupMask[GroupCount] @32.
 *   NUMA_NODE_RELATIONSHIP: DWORD NodeNumber @8, BYTE Reserved[18], WORD GroupCount @30,
 *     GROUP_AFFINITY GroupMasks[] @32 (GroupCount 0 on releases before it existed: one mask).
 *   CACHE_RELATIONSHIP: BYTE Level @8, BYTE Associativity @9 (0xFF: fully associative),
 *     WORD LineSize @10, DWORD CacheSize @12, PROCESSOR_CACHE_TYPE Type @16 (0 unified,
 *     1 instruction, 2 data, 3 trace), BYTE Reserved[18], WORD GroupCount @38,
 *     GROUP_AFFINITY GroupMasks[] @40 (GroupCount 0: one mask).
 *   GROUP_RELATIONSHIP: WORD MaximumGroupCount @8, WORD ActiveGroupCount @10,
 *     BYTE Reserved[20], PROCESSOR_GROUP_INFO GroupInfo[ActiveGroupCount] @32, 48 bytes
 *     each: BYTE MaximumProcessorCount @0, BYTE ActiveProcessorCount @1,
 *     BYTE Reserved[38], KAFFINITY ActiveProcessorMask @40. */
#include "core/glpi.h"
#include "core/topology_build.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/le.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HDR 8u
#define AFFINITY_SIZE 16u
#define GROUP_INFO_SIZE 48u

struct set {
	int *v;
	size_t n, cap;
};

struct proc {           /* a core, package, die or module record */
	struct set cpus;
	int eff;
};

struct cache {
	int level, ways;
	enum pmu_cache_type type;
	unsigned line;
	uint64_t size;
	struct set cpus;
};

struct node {
	int id;
	struct set cpus;
};

struct parse {
	struct proc *procs[8];     /* by relationship 0, 3, 5 (others unused) */
	size_t nprocs[8], cap[8];
	struct cache *caches;
	size_t ncaches, cap_caches;
	struct node *nodes;
	size_t nnodes, cap_nodes;
	struct set all;            /* every CPU named anywhere */
};

static int oom(void)
{
	return pmuk_fail(PMU_ENOMEM, "out of memory parsing processor information");
}

/* Grows *arr (of *cap elements of sz bytes) to hold n + 1. */
static int reserve(void **arr, size_t *cap, size_t n, size_t sz)
{
	return pmuk_grow(arr, cap, n + 1, sz) ? oom() : 0;
}

static int set_add(struct set *s, int cpu)
{
	void *v = s->v;
	int err = reserve(&v, &s->cap, s->n, sizeof(int));

	s->v = v;
	if (err)
		return err;
	s->v[s->n++] = cpu;
	return 0;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void set_sort(struct set *s)
{
	size_t i, m = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(int), int_cmp);
	for (i = 0; i < s->n; i++)
		if (!m || s->v[m - 1] != s->v[i])
			s->v[m++] = s->v[i];
	s->n = m;
}

/* Adds the CPUs of one KAFFINITY of a group to s (and to every CPU seen). */
static int add_mask(struct parse *ps, struct set *s, unsigned group, uint64_t mask)
{
	for (unsigned bit = 0; bit < 64; bit++) {
		int cpu = (int)(group * 64 + bit), err;

		if (!(mask >> bit & 1))
			continue;
		if ((err = set_add(s, cpu)) || (err = set_add(&ps->all, cpu)))
			return err;
	}
	return 0;
}

/* Reads GroupCount at count_at and the GROUP_AFFINITY array at masks_at. */
static int read_masks(struct parse *ps, const uint8_t *r, size_t size, size_t off,
		      size_t count_at, size_t masks_at, int zero_is_one, struct set *s)
{
	size_t count = pmuk_le16(r + count_at), i;
	int err;

	if (!count && zero_is_one)
		count = 1;
	if (masks_at + count * AFFINITY_SIZE > size)
		return pmuk_fail(PMU_EFORMAT, "processor information record at byte %zu: "
				 "GroupCount %zu does not fit its Size %zu", off, count, size);
	for (i = 0; i < count; i++) {
		const uint8_t *a = r + masks_at + i * AFFINITY_SIZE;
		unsigned group = pmuk_le16(a + 8);

		if (group >= PMUK_GLPI_MAX_GROUPS)
			return pmuk_fail(PMU_EFORMAT, "processor information record at byte %zu: "
					 "processor group %u is beyond the %d pmukit accepts",
					 off, group, PMUK_GLPI_MAX_GROUPS);
		if ((err = add_mask(ps, s, group, pmuk_le64(a))))
			return err;
	}
	set_sort(s);
	return 0;
}

static int parse_proc(struct parse *ps, unsigned rel, const uint8_t *r, size_t size, size_t off)
{
	struct proc *p;
	void *arr = ps->procs[rel];
	int err;

	if (size < 32)
		return pmuk_fail(PMU_EFORMAT, "processor record at byte %zu is %zu bytes, "
				 "shorter than its 32-byte header", off, size);
	if ((err = reserve(&arr, &ps->cap[rel], ps->nprocs[rel], sizeof(*p))))
		return err;
	ps->procs[rel] = arr;
	p = &ps->procs[rel][ps->nprocs[rel]++];
	memset(p, 0, sizeof(*p));
	p->eff = r[9];
	return read_masks(ps, r, size, off, 30, 32, 0, &p->cpus);
}

static int parse_node(struct parse *ps, const uint8_t *r, size_t size, size_t off)
{
	struct set s = { 0 };
	struct node *nd = NULL;
	void *arr = ps->nodes;
	int id, err;

	if (size < 32)
		return pmuk_fail(PMU_EFORMAT, "NUMA node record at byte %zu is %zu bytes, "
				 "shorter than its 32-byte header", off, size);
	if (pmuk_le32(r + 8) > 0x7fffffffu)
		return pmuk_fail(PMU_EFORMAT, "NUMA node record at byte %zu: node number %u",
				 off, pmuk_le32(r + 8));
	id = (int)pmuk_le32(r + 8);
	if ((err = read_masks(ps, r, size, off, 30, 32, 1, &s)))
		goto out;
	/* RelationNumaNode and RelationNumaNodeEx may both describe a node: merge. */
	for (size_t i = 0; i < ps->nnodes; i++)
		if (ps->nodes[i].id == id)
			nd = &ps->nodes[i];
	if (!nd) {
		if ((err = reserve(&arr, &ps->cap_nodes, ps->nnodes, sizeof(*nd))))
			goto out;
		ps->nodes = arr;
		nd = &ps->nodes[ps->nnodes++];
		*nd = (struct node){ .id = id };
	}
	for (size_t i = 0; i < s.n && !err; i++)
		err = set_add(&nd->cpus, s.v[i]);
	set_sort(&nd->cpus);
out:
	free(s.v);
	return err;
}

static int parse_cache(struct parse *ps, const uint8_t *r, size_t size, size_t off)
{
	static const enum pmu_cache_type types[] = {
		PMU_CACHE_UNIFIED, PMU_CACHE_INSTRUCTION, PMU_CACHE_DATA,
		PMU_CACHE_INSTRUCTION, /* a trace cache holds decoded instructions */
	};
	struct cache *c;
	void *arr = ps->caches;
	uint32_t type;
	int err;

	if (size < 40)
		return pmuk_fail(PMU_EFORMAT, "cache record at byte %zu is %zu bytes, shorter "
				 "than its 40-byte header", off, size);
	type = pmuk_le32(r + 16);
	if (type > 3)
		return pmuk_fail(PMU_EFORMAT, "cache record at byte %zu: unknown cache type %u",
				 off, type);
	if ((err = reserve(&arr, &ps->cap_caches, ps->ncaches, sizeof(*c))))
		return err;
	ps->caches = arr;
	c = &ps->caches[ps->ncaches++];
	*c = (struct cache){
		.level = r[8], .ways = r[9] == 0xff ? -1 : r[9], .line = pmuk_le16(r + 10),
		.size = pmuk_le32(r + 12), .type = types[type],
	};
	return read_masks(ps, r, size, off, 38, 40, 1, &c->cpus);
}

static int parse_groups(struct parse *ps, const uint8_t *r, size_t size, size_t off)
{
	size_t active, g;
	struct set s = { 0 };
	int err = 0;

	if (size < 32)
		return pmuk_fail(PMU_EFORMAT, "group record at byte %zu is %zu bytes, shorter "
				 "than its 32-byte header", off, size);
	active = pmuk_le16(r + 10);
	if (active > PMUK_GLPI_MAX_GROUPS || 32 + active * GROUP_INFO_SIZE > size)
		return pmuk_fail(PMU_EFORMAT, "group record at byte %zu: ActiveGroupCount %zu "
				 "does not fit its Size %zu", off, active, size);
	for (g = 0; g < active && !err; g++)
		err = add_mask(ps, &s, (unsigned)g, pmuk_le64(r + 32 + g * GROUP_INFO_SIZE + 40));
	free(s.v);
	return err;
}

static int walk(struct parse *ps, const uint8_t *buf, size_t len)
{
	size_t off = 0;
	int err = 0;

	while (off < len && !err) {
		const uint8_t *r = buf + off;
		uint32_t rel, size;

		if (len - off < HDR)
			return pmuk_fail(PMU_EFORMAT, "processor information ends in a partial "
					 "record header at byte %zu of %zu", off, len);
		rel = pmuk_le32(r);
		size = pmuk_le32(r + 4);
		if (size < HDR)
			return pmuk_fail(PMU_EFORMAT, "processor information record at byte %zu "
					 "has Size %u (less than its 8-byte header)", off, size);
		if (size > len - off)
			return pmuk_fail(PMU_EFORMAT, "processor information record at byte %zu "
					 "has Size %u, past the end of the %zu-byte buffer",
					 off, size, len);
		switch (rel) {
		case PMUK_GLPI_PROCESSOR_CORE:
		case PMUK_GLPI_PROCESSOR_PACKAGE:
		case PMUK_GLPI_PROCESSOR_DIE:
		case PMUK_GLPI_PROCESSOR_MODULE:
			err = parse_proc(ps, rel, r, size, off);
			break;
		case PMUK_GLPI_NUMA_NODE:
		case PMUK_GLPI_NUMA_NODE_EX:
			err = parse_node(ps, r, size, off);
			break;
		case PMUK_GLPI_CACHE:
			err = parse_cache(ps, r, size, off);
			break;
		case PMUK_GLPI_GROUP:
			err = parse_groups(ps, r, size, off);
			break;
		default:
			break;  /* a relationship newer than this parser: skip it */
		}
		off += size;
	}
	return err;
}

static void parse_free(struct parse *ps)
{
	for (size_t rel = 0; rel < 8; rel++) {
		for (size_t i = 0; i < ps->nprocs[rel]; i++)
			free(ps->procs[rel][i].cpus.v);
		free(ps->procs[rel]);
	}
	for (size_t i = 0; i < ps->ncaches; i++)
		free(ps->caches[i].cpus.v);
	free(ps->caches);
	for (size_t i = 0; i < ps->nnodes; i++)
		free(ps->nodes[i].cpus.v);
	free(ps->nodes);
	free(ps->all.v);
}

/* Index of cpu in the sorted set, or -1. */
static long pos_of(const struct set *s, int cpu)
{
	const int *p = bsearch(&cpu, s->v, s->n, sizeof(int), int_cmp);

	return p ? p - s->v : -1;
}

/* For each CPU (by position in ps->all), the index of the record of relationship
 * rel that holds it; -1 where none does. */
static int owners(const struct parse *ps, unsigned rel, int **out)
{
	int *o = malloc((ps->all.n ? ps->all.n : 1) * sizeof(int));

	*out = o;
	if (!o)
		return oom();
	for (size_t i = 0; i < ps->all.n; i++)
		o[i] = -1;
	for (size_t r = 0; r < ps->nprocs[rel]; r++)
		for (size_t k = 0; k < ps->procs[rel][r].cpus.n; k++)
			o[pos_of(&ps->all, ps->procs[rel][r].cpus.v[k])] = (int)r;
	return 0;
}

static int proc_first_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;
	int fx = x->cpus.n ? x->cpus.v[0] : -1, fy = y->cpus.n ? y->cpus.v[0] : -1;

	return (fx > fy) - (fx < fy);
}

static void sort_procs(struct parse *ps, unsigned rel)
{
	if (ps->nprocs[rel])
		qsort(ps->procs[rel], ps->nprocs[rel], sizeof(struct proc), proc_first_cmp);
}

/* Die and core ids count within their package: id[r] = how many records of the same
 * package come before r (records sorted by first CPU). */
static int number_in_package(const struct parse *ps, unsigned rel, const int *pkg_of,
			     int *id)
{
	int *seen = calloc(ps->nprocs[PMUK_GLPI_PROCESSOR_PACKAGE] + 1, sizeof(int));

	if (!seen)
		return oom();
	for (size_t r = 0; r < ps->nprocs[rel]; r++) {
		const struct set *c = &ps->procs[rel][r].cpus;
		int pkg = c->n ? pkg_of[pos_of(&ps->all, c->v[0])] : -1;

		/* CPUs outside every package share the slot after the last one. */
		size_t slot = pkg < 0 ? ps->nprocs[PMUK_GLPI_PROCESSOR_PACKAGE] : (size_t)pkg;

		id[r] = seen[slot]++;
	}
	free(seen);
	return 0;
}

static int build(struct parse *ps, struct pmu_topology *t)
{
	const unsigned C = PMUK_GLPI_PROCESSOR_CORE, P = PMUK_GLPI_PROCESSOR_PACKAGE,
		       D = PMUK_GLPI_PROCESSOR_DIE;
	int *pkg = NULL, *die = NULL, *core = NULL, *die_id = NULL, *core_id = NULL;
	int emin = 255, emax = 0, err;

	set_sort(&ps->all);
	sort_procs(ps, C);
	sort_procs(ps, D);
	sort_procs(ps, P);
	if ((err = owners(ps, P, &pkg)) || (err = owners(ps, D, &die)) ||
	    (err = owners(ps, C, &core)))
		goto out;
	die_id = malloc((ps->nprocs[D] + 1) * sizeof(int));
	core_id = malloc((ps->nprocs[C] + 1) * sizeof(int));
	if (!die_id || !core_id) {
		err = oom();
		goto out;
	}
	if ((err = number_in_package(ps, D, pkg, die_id)) ||
	    (err = number_in_package(ps, C, pkg, core_id)))
		goto out;
	for (size_t r = 0; r < ps->nprocs[C]; r++) {
		emin = ps->procs[C][r].eff < emin ? ps->procs[C][r].eff : emin;
		emax = ps->procs[C][r].eff > emax ? ps->procs[C][r].eff : emax;
	}
	for (size_t i = 0; i < ps->all.n && !err; i++) {
		int cpu = ps->all.v[i], p = ps->nprocs[P] ? pkg[i] : 0, c = core[i];

		if ((err = pmuk_topo_add_cpu(t, cpu, 1)) || c < 0 || p < 0)
			continue;
		err = pmuk_topo_set_cpu_location(t, cpu, p, die[i] < 0 ? 0 : die_id[die[i]],
						 core_id[c]);
		if (!err) {
			int eff = ps->procs[C][c].eff;
			enum pmu_core_type type = emin == emax ? PMU_CORE_UNIFORM :
				eff == emax ? PMU_CORE_PERFORMANCE : PMU_CORE_EFFICIENCY;

			err = pmuk_topo_set_cpu_kind(t, cpu, type, eff);
		}
	}
	for (size_t i = 0; i < ps->ncaches && !err; i++) {
		const struct cache *c = &ps->caches[i];

		err = pmuk_topo_add_cache(t, c->level, c->type, c->size, c->line, c->ways,
					  c->cpus.v, c->cpus.n);
	}
	for (size_t i = 0; i < ps->nnodes && !err; i++)
		err = pmuk_topo_add_node(t, ps->nodes[i].id, 0, ps->nodes[i].cpus.v,
					 ps->nodes[i].cpus.n);
out:
	free(pkg);
	free(die);
	free(core);
	free(die_id);
	free(core_id);
	return err;
}

int pmuk_glpi_parse(const void *buf, size_t len, struct pmu_topology **out)
{
	struct parse ps;
	struct pmu_topology *t = NULL;
	int err;

	*out = NULL;
	memset(&ps, 0, sizeof(ps));
	if (!buf && len)
		return pmuk_fail(PMU_EINVAL, "no processor information buffer");
	err = walk(&ps, buf, len);
	if (!err && !ps.all.n)
		err = pmuk_fail(PMU_EFORMAT, "the processor information (%zu bytes) names "
				"no logical processor", len);
	if (!err)
		err = pmuk_topo_new(&t, "glpi");
	if (!err)
		err = build(&ps, t);
	if (!err)
		err = pmuk_topo_finish(t);
	parse_free(&ps);
	if (err) {
		pmu_topology_free(t);
		return err;
	}
	*out = t;
	return 0;
}

int pmuk_glpi_index_cpu(const struct pmu_topology *t, unsigned index)
{
	size_t n = 0;
	const int *online = pmu_topology_online_cpus(t, &n);

	return index < n ? online[index] : -1;
}
