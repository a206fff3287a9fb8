/* SPDX-License-Identifier: MIT */
/* The topology from plain sysfs files, read through the sysroot (used when hwloc is
 * compiled out, and for fixture trees). */
#include "linux/topology_linux.h"
#include "core/grow.h"
#include "core/error.h"
#include "core/sysroot.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CPU_DIR "/sys/devices/system/cpu/cpu%d"
#define NODE_DIR "/sys/devices/system/node"

/* Reads an int file under the sysroot; def when absent or malformed. */
static int __attribute__((format(printf, 2, 3))) read_int_def(int def, const char *fmt, ...)
{
	char rel[512], path[4096];
	va_list ap;
	int v, m;

	va_start(ap, fmt);
	m = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= sizeof(rel) || pmuk_path(path, sizeof(path), "%s", rel) ||
	    pmuk_read_int(path, &v))
		return def;
	return v;
}

static int locations(struct pmu_topology *t)
{
	size_t i, n = pmu_topology_cpu_count(t);
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		int id = pmu_topology_cpu(t, i)->id;
		int pkg = read_int_def(-1, CPU_DIR "/topology/physical_package_id", id);
		int core = read_int_def(-1, CPU_DIR "/topology/core_id", id);
		int die = read_int_def(0, CPU_DIR "/topology/die_id", id);

		/* Offline CPUs have no topology directory: their place stays unknown. */
		if (core < 0)
			continue;
		err = pmuk_topo_set_cpu_location(t, id, pkg < 0 ? 0 : pkg, die < 0 ? 0 : die, core);
	}
	return err;
}

/* "48K", "2048K", "32M" -> bytes. */
static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	switch (*end) {
	case 'K': case 'k': return v << 10;
	case 'M': case 'm': return v << 20;
	case 'G': case 'g': return v << 30;
	}
	return v;
}

static int one_cache(struct pmu_topology *t, int cpu, int idx)
{
	char path[4096], buf[64];
	enum pmu_cache_type type = PMU_CACHE_UNIFIED;
	int level, line, ways, err;
	uint64_t size = 0;
	size_t n;
	int *ids;

	level = read_int_def(-1, CPU_DIR "/cache/index%d/level", cpu, idx);
	if (level < 0)
		return PMU_ENOENT;
	line = read_int_def(0, CPU_DIR "/cache/index%d/coherency_line_size", cpu, idx);
	ways = read_int_def(0, CPU_DIR "/cache/index%d/ways_of_associativity", cpu, idx);
	if (!pmuk_path(path, sizeof(path), CPU_DIR "/cache/index%d/type", cpu, idx) &&
	    pmuk_read_text(path, buf, sizeof(buf)) > 0)
		type = !strcmp(buf, "Data") ? PMU_CACHE_DATA
		       : !strcmp(buf, "Instruction") ? PMU_CACHE_INSTRUCTION : PMU_CACHE_UNIFIED;
	if (!pmuk_path(path, sizeof(path), CPU_DIR "/cache/index%d/size", cpu, idx) &&
	    pmuk_read_text(path, buf, sizeof(buf)) > 0)
		size = parse_size(buf);
	err = pmuk_topo_read_list(&ids, &n, CPU_DIR "/cache/index%d/shared_cpu_list", cpu, idx);
	if (err == PMU_ENOENT) {
		/* older kernels: assume private to this CPU */
		ids = malloc(sizeof(*ids));
		if (!ids)
			return pmuk_fail(PMU_ENOMEM, "out of memory reading caches");
		ids[0] = cpu;
		n = 1;
	} else if (err) {
		return err;
	}
	err = pmuk_topo_add_cache(t, level, type, size, line < 0 ? 0 : (unsigned)line, ways, ids, n);
	free(ids);
	return err;
}

static int caches(struct pmu_topology *t)
{
	size_t i, n = pmu_topology_cpu_count(t);
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct pmu_topo_cpu *c = pmu_topology_cpu(t, i);

		if (!c->online)
			continue;
		for (int idx = 0; !err; idx++) {
			err = one_cache(t, c->id, idx);
			if (err == PMU_ENOENT) {
				err = 0;
				break;
			}
		}
	}
	return err;
}

/* MemTotal of a node meminfo ("Node 0 MemTotal:  4548812 kB") or /proc/meminfo
 * (node < 0); 0 when unknown. */
static uint64_t mem_total(int node)
{
	char path[4096], line[256];
	uint64_t kb = 0;
	FILE *f;

	if (node < 0 ? pmuk_path(path, sizeof(path), "/proc/meminfo")
		     : pmuk_path(path, sizeof(path), NODE_DIR "/node%d/meminfo", node))
		return 0;
	f = pmuk_fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "MemTotal:");

		if (p) {
			kb = strtoull(p + strlen("MemTotal:"), NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb * 1024;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The nodeN directories, ascending: the order of every node's distance row. */
static int node_ids(int **out, size_t *n)
{
	size_t cap = 0;
	char path[4096];
	struct dirent *de;
	int *v = NULL;
	DIR *d;

	*n = 0;
	*out = NULL;
	if (pmuk_path(path, sizeof(path), NODE_DIR))
		return PMU_ERANGE;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int id;
		char tail;

		if (sscanf(de->d_name, "node%d%c", &id, &tail) != 1)
			continue;
		if (pmuk_grow((void **)&v, &cap, *n + 1, sizeof(*v))) {
			free(v);
			closedir(d);
			return pmuk_fail(PMU_ENOMEM, "out of memory listing NUMA nodes");
		}
		v[(*n)++] = id;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), int_cmp);
	*out = v;
	return 0;
}

static int distances(struct pmu_topology *t, const int *ids, size_t n, size_t from)
{
	char path[4096], buf[4096], *p = buf, *end;
	int err = 0;

	if (pmuk_path(path, sizeof(path), NODE_DIR "/node%d/distance", ids[from]) ||
	    pmuk_read_text(path, buf, sizeof(buf)) <= 0)
		return 0; /* unknown distances stay 0 */
	for (size_t to = 0; to < n && !err; to++, p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			return pmuk_fail(PMU_EFORMAT, "%s: expected %zu distances", path, n);
		err = pmuk_topo_set_distance(t, ids[from], ids[to], (int)v);
	}
	return err;
}

static int nodes(struct pmu_topology *t)
{
	size_t n, i, ncpu;
	int *ids, *cpus, err;

	err = node_ids(&ids, &n);
	if (err)
		return err;
	if (!n) {
		/* kernel without NUMA: one node holding everything */
		err = pmuk_topo_linux_node_cpus(t, 0, &cpus, &ncpu);
		if (!err)
			err = pmuk_topo_add_node(t, 0, mem_total(-1), cpus, ncpu);
		free(cpus);
		return err;
	}
	for (i = 0; i < n && !err; i++) {
		err = pmuk_topo_linux_node_cpus(t, ids[i], &cpus, &ncpu);
		if (!err)
			err = pmuk_topo_add_node(t, ids[i], mem_total(ids[i]),
						 cpus, ncpu);
		free(cpus);
	}
	for (i = 0; i < n && !err; i++)
		err = distances(t, ids, n, i);
	free(ids);
	return err;
}

int pmuk_topology_load_sysfs(struct pmu_topology **out)
{
	struct pmu_topology *t;
	int err;

	*out = NULL;
	err = pmuk_topo_new(&t, "sysfs");
	if (err)
		return err;
	err = pmuk_topo_linux_cpus(t);
	if (!err)
		err = locations(t);
	if (!err)
		err = caches(t);
	if (!err)
		err = nodes(t);
	if (!err)
		err = pmuk_topo_linux_kinds(t);
	if (!err)
		err = pmuk_topo_finish(t);
	if (err) {
		pmu_topology_free(t);
		return err;
	}
	*out = t;
	return 0;
}
