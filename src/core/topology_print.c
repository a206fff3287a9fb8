/* SPDX-License-Identifier: MIT */
/* Text and JSON writers of the topology model; they use only the public accessors. */
#include <pmukit/topology.h>
#include "core/error.h"
#include "core/json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *pmu_core_type_name(enum pmu_core_type type)
{
	switch (type) {
	case PMU_CORE_UNIFORM: return "uniform";
	case PMU_CORE_PERFORMANCE: return "performance";
	case PMU_CORE_EFFICIENCY: return "efficiency";
	}
	return "unknown";
}

const char *pmu_cache_type_name(enum pmu_cache_type type)
{
	switch (type) {
	case PMU_CACHE_UNIFIED: return "unified";
	case PMU_CACHE_DATA: return "data";
	case PMU_CACHE_INSTRUCTION: return "instruction";
	}
	return "unknown";
}

/* ---- JSON ---- */

static void json_id(struct pmuk_json *j, const char *key, int v)
{
	if (v < 0)
		pmuk_json_null(j, key);
	else
		pmuk_json_int(j, key, v);
}

static void json_ids(struct pmuk_json *j, const char *key, const int *ids, size_t n)
{
	pmuk_json_arr_begin(j, key);
	for (size_t i = 0; i < n; i++)
		pmuk_json_int(j, NULL, ids[i]);
	pmuk_json_arr_end(j);
}

/* The CPUs of a package (die < 0) or of one of its dies. */
static void json_cpus_of(struct pmuk_json *j, const struct pmu_topology *t, int pkg, int die)
{
	pmuk_json_arr_begin(j, "cpus");
	for (size_t i = 0; i < pmu_topology_cpu_count(t); i++) {
		const struct pmu_topo_cpu *c = pmu_topology_cpu(t, i);

		if (c->package == pkg && (die < 0 || c->die == die))
			pmuk_json_int(j, NULL, c->id);
	}
	pmuk_json_arr_end(j);
}

static void json_kind(struct pmuk_json *j, enum pmu_core_type type, int eff, const char *pmu)
{
	pmuk_json_str(j, "core_type", pmu_core_type_name(type));
	pmuk_json_int(j, "efficiency_class", eff);
	pmuk_json_str(j, "pmu", pmu[0] ? pmu : NULL);
}

static void json_cpus(struct pmuk_json *j, const struct pmu_topology *t)
{
	pmuk_json_arr_begin(j, "cpus");
	for (size_t i = 0; i < pmu_topology_cpu_count(t); i++) {
		const struct pmu_topo_cpu *c = pmu_topology_cpu(t, i);

		pmuk_json_obj_begin(j, NULL);
		pmuk_json_int(j, "id", c->id);
		pmuk_json_bool(j, "online", c->online);
		json_id(j, "package", c->package);
		json_id(j, "die", c->die);
		json_id(j, "core", c->core);
		json_id(j, "core_index", c->core_index);
		json_id(j, "numa_node", c->node);
		json_id(j, "smt", c->smt);
		json_kind(j, c->type, c->efficiency, c->pmu);
		pmuk_json_obj_end(j);
	}
	pmuk_json_arr_end(j);
}

static void json_caches(struct pmuk_json *j, const struct pmu_topology *t)
{
	pmuk_json_arr_begin(j, "caches");
	for (size_t i = 0; i < pmu_topology_cache_count(t); i++) {
		const struct pmu_topo_cache *c = pmu_topology_cache(t, i);

		pmuk_json_obj_begin(j, NULL);
		pmuk_json_int(j, "level", c->level);
		pmuk_json_str(j, "type", pmu_cache_type_name(c->type));
		pmuk_json_uint(j, "size", c->size);
		pmuk_json_uint(j, "line_size", c->line_size);
		pmuk_json_int(j, "ways", c->ways);
		json_ids(j, "cpus", c->cpus, c->ncpus);
		pmuk_json_obj_end(j);
	}
	pmuk_json_arr_end(j);
}

static void json_nodes(struct pmuk_json *j, const struct pmu_topology *t)
{
	size_t n = pmu_topology_node_count(t);

	pmuk_json_arr_begin(j, "numa_nodes");
	for (size_t i = 0; i < n; i++) {
		const struct pmu_topo_node *nd = pmu_topology_node(t, i);

		pmuk_json_obj_begin(j, NULL);
		pmuk_json_int(j, "id", nd->id);
		pmuk_json_uint(j, "memory_bytes", nd->memory);
		json_ids(j, "cpus", nd->cpus, nd->ncpus);
		pmuk_json_arr_begin(j, "distances");
		for (size_t k = 0; k < n; k++)
			pmuk_json_int(j, NULL, pmu_topology_node_distance(t, i, k));
		pmuk_json_arr_end(j);
		pmuk_json_obj_end(j);
	}
	pmuk_json_arr_end(j);
}

int pmu_topology_write_json(const struct pmu_topology *t, FILE *f, unsigned flags)
{
	struct pmuk_json j;
	size_t i, nonline;
	int err;

	if (!t)
		return pmuk_fail(PMU_EINVAL, "pmu_topology_write_json needs a topology");
	if ((err = pmuk_json_open(&j, f, flags, "pmu_topology_write_json")))
		return err;
	pmu_topology_online_cpus(t, &nonline);
	pmuk_json_obj_begin(&j, NULL);
	pmuk_json_str(&j, "source", pmu_topology_source(t));
	pmuk_json_bool(&j, "hybrid", pmu_topology_is_hybrid(t));
	pmuk_json_uint(&j, "online_cpus", nonline);
	pmuk_json_arr_begin(&j, "packages");
	for (i = 0; i < pmu_topology_package_count(t); i++) {
		const struct pmu_topo_package *p = pmu_topology_package(t, i);

		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_int(&j, "id", p->id);
		pmuk_json_uint(&j, "dies", p->ndies);
		pmuk_json_uint(&j, "cores", p->ncores);
		json_cpus_of(&j, t, p->id, -1);
		pmuk_json_obj_end(&j);
	}
	pmuk_json_arr_end(&j);
	pmuk_json_arr_begin(&j, "dies");
	for (i = 0; i < pmu_topology_die_count(t); i++) {
		const struct pmu_topo_die *d = pmu_topology_die(t, i);

		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_int(&j, "id", d->id);
		pmuk_json_int(&j, "package", d->package);
		pmuk_json_uint(&j, "cores", d->ncores);
		json_cpus_of(&j, t, d->package, d->id);
		pmuk_json_obj_end(&j);
	}
	pmuk_json_arr_end(&j);
	pmuk_json_arr_begin(&j, "cores");
	for (i = 0; i < pmu_topology_core_count(t); i++) {
		const struct pmu_topo_core *c = pmu_topology_core(t, i);

		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_uint(&j, "index", i);
		pmuk_json_int(&j, "id", c->id);
		pmuk_json_int(&j, "package", c->package);
		pmuk_json_int(&j, "die", c->die);
		json_kind(&j, c->type, c->efficiency, c->pmu);
		json_ids(&j, "cpus", c->cpus, c->ncpus);
		pmuk_json_obj_end(&j);
	}
	pmuk_json_arr_end(&j);
	json_cpus(&j, t);
	json_caches(&j, t);
	json_nodes(&j, t);
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
	return ferror(f) ? pmuk_fail(PMU_EIO, "writing the topology JSON failed") : 0;
}

/* ---- text ---- */

static const char *human_size(uint64_t b, char *buf, size_t n)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(buf, n, "%" PRIu64 " %s", (uint64_t)v, unit[u]);
	else
		snprintf(buf, n, "%.1f %s", v, unit[u]);
	return buf;
}

static const char *plural(size_t n, const char *what, char *buf)
{
	snprintf(buf, 32, "%zu %s%s", n, what, n == 1 ? "" : "s");
	return buf;
}

static const char *cache_name(const struct pmu_topo_cache *c, char *buf, size_t n)
{
	snprintf(buf, n, "L%d%s", c->level,
		 c->type == PMU_CACHE_DATA ? "d" : c->type == PMU_CACHE_INSTRUCTION ? "i" : "");
	return buf;
}

/* Cores of one die as "id[cpus]" tokens, wrapped to the screen. */
static void text_cores(const struct pmu_topology *t, const struct pmu_topo_die *d, FILE *f)
{
	int col = 0, hybrid = pmu_topology_is_hybrid(t);
	char list[256], tok[300];

	for (size_t i = 0; i < pmu_topology_core_count(t); i++) {
		const struct pmu_topo_core *c = pmu_topology_core(t, i);
		int m;

		if (c->package != d->package || c->die != d->id)
			continue;
		pmu_cpulist_format(c->cpus, c->ncpus, list, sizeof(list));
		m = snprintf(tok, sizeof(tok), "%d[%s]%s", c->id, list,
			     !hybrid ? "" : c->type == PMU_CORE_PERFORMANCE ? "P" : "E");
		if (col && col + 1 + m > 78) {
			fputc('\n', f);
			col = 0;
		}
		col += fprintf(f, "%s%s", col ? " " : "    ", tok);
	}
	if (col)
		fputc('\n', f);
}

/* "core PMUs: cpu_core 0-15, cpu_atom 16-23"; ids is scratch room for every CPU. */
static void text_pmus(const struct pmu_topology *t, int *ids, FILE *f)
{
	size_t n = pmu_topology_cpu_count(t), i, k, m, shown = 0;
	char list[256];

	fprintf(f, "core PMU:");
	for (i = 0; i < n; i++) {
		const char *pmu = pmu_topology_cpu(t, i)->pmu;

		for (k = 0; k < i && strcmp(pmu_topology_cpu(t, k)->pmu, pmu); k++)
			;
		if (k < i || !pmu[0])
			continue; /* printed already, or none */
		for (k = i, m = 0; k < n; k++)
			if (!strcmp(pmu_topology_cpu(t, k)->pmu, pmu))
				ids[m++] = pmu_topology_cpu(t, k)->id;
		pmu_cpulist_format(ids, m, list, sizeof(list));
		fprintf(f, "%s %s (CPUs %s)", shown++ ? "," : "", pmu, list);
	}
	fprintf(f, "%s\n", shown ? "" : " none (no hardware PMU exposed)");
}

static void text_caches(const struct pmu_topology *t, FILE *f)
{
	size_t n = pmu_topology_cache_count(t);
	char name[16], sz[32], ways[16];

	if (!n)
		return;
	fprintf(f, "\n%-6s %10s %5s %6s %9s  %s\n", "cache", "size", "line", "ways", "instances",
		"shared by");
	for (size_t i = 0; i < n;) {
		const struct pmu_topo_cache *c = pmu_topology_cache(t, i), *o;
		size_t k = i, lo = c->ncpus, hi = c->ncpus;

		/* instances of one level/type/geometry are printed as one row */
		while (k < n && (o = pmu_topology_cache(t, k))->level == c->level &&
		       o->type == c->type && o->size == c->size && o->line_size == c->line_size &&
		       o->ways == c->ways) {
			lo = o->ncpus < lo ? o->ncpus : lo;
			hi = o->ncpus > hi ? o->ncpus : hi;
			k++;
		}
		if (c->ways < 0)
			snprintf(ways, sizeof(ways), "full");
		else if (c->ways == 0)
			snprintf(ways, sizeof(ways), "?");
		else
			snprintf(ways, sizeof(ways), "%d", c->ways);
		fprintf(f, "%-6s %10s %5u %6s %9zu  ", cache_name(c, name, sizeof(name)),
			human_size(c->size, sz, sizeof(sz)), c->line_size, ways, k - i);
		if (lo == hi)
			fprintf(f, "%zu CPU%s each\n", lo, lo == 1 ? "" : "s");
		else
			fprintf(f, "%zu-%zu CPUs each\n", lo, hi);
		i = k;
	}
}

static void text_nodes(const struct pmu_topology *t, FILE *f)
{
	size_t n = pmu_topology_node_count(t);
	char sz[32], list[256];

	if (!n)
		return;
	fprintf(f, "\n%-5s %10s  %-16s %s\n", "node", "memory", "cpus", "distances");
	for (size_t i = 0; i < n; i++) {
		const struct pmu_topo_node *nd = pmu_topology_node(t, i);

		pmu_cpulist_format(nd->cpus, nd->ncpus, list, sizeof(list));
		fprintf(f, "%-5d %10s  %-16s", nd->id, human_size(nd->memory, sz, sizeof(sz)),
			nd->ncpus ? list : "-");
		for (size_t k = 0; k < n && k < 16; k++)
			fprintf(f, " %3d", pmu_topology_node_distance(t, i, k));
		fprintf(f, "%s\n", n > 16 ? " ..." : "");
	}
}

int pmu_topology_write_text(const struct pmu_topology *t, FILE *f)
{
	size_t i, ncpus, nonline, noff = 0;
	const int *online;
	char list[256], n1[32], n2[32], n3[32];
	int *off;

	if (!t || !f)
		return pmuk_fail(PMU_EINVAL, "pmu_topology_write_text needs a topology and a stream");
	ncpus = pmu_topology_cpu_count(t);
	online = pmu_topology_online_cpus(t, &nonline);
	fprintf(f, "%s, %s, %s, %zu CPU%s (%zu online), %zu NUMA node%s%s  [%s]\n",
		plural(pmu_topology_package_count(t), "package", n1),
		plural(pmu_topology_die_count(t), "die", n2),
		plural(pmu_topology_core_count(t), "core", n3), ncpus, ncpus == 1 ? "" : "s",
		nonline, pmu_topology_node_count(t), pmu_topology_node_count(t) == 1 ? "" : "s",
		pmu_topology_is_hybrid(t) ? ", hybrid" : "", pmu_topology_source(t));
	pmu_cpulist_format(online, nonline, list, sizeof(list));
	fprintf(f, "online CPUs: %s\n", nonline ? list : "none");
	off = malloc((ncpus ? ncpus : 1) * sizeof(*off));
	if (!off)
		return pmuk_fail(PMU_ENOMEM, "out of memory printing the topology");
	for (i = 0; i < ncpus; i++)
		if (!pmu_topology_cpu(t, i)->online)
			off[noff++] = pmu_topology_cpu(t, i)->id;
	if (noff) {
		pmu_cpulist_format(off, noff, list, sizeof(list));
		fprintf(f, "offline CPUs: %s\n", list);
	}
	text_pmus(t, off, f);
	free(off);
	for (i = 0; i < pmu_topology_die_count(t); i++) {
		const struct pmu_topo_die *d = pmu_topology_die(t, i);

		fprintf(f, "\npackage %d die %d: %s, %zu CPU%s\n", d->package, d->id,
			plural(d->ncores, "core", n1), d->ncpus, d->ncpus == 1 ? "" : "s");
		fprintf(f, "  core[cpus]%s:\n", pmu_topology_is_hybrid(t) ? " P/E" : "");
		text_cores(t, d, f);
	}
	text_caches(t, f);
	text_nodes(t, f);
	return ferror(f) ? pmuk_fail(PMU_EIO, "writing the topology text failed") : 0;
}
