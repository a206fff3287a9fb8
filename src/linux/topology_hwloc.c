/* SPDX-License-Identifier: MIT */
/* The topology from hwloc: packages, dies, cores, caches, NUMA nodes and distances,
 * and hwloc's CPU kinds on hybrid parts. The CPU set, PMUs and hybrid PMU kinds
 * still come from the shared sysfs passes so both backends agree. */
#ifdef PMUKIT_HAVE_HWLOC
#include "linux/topology_linux.h"
#include "core/error.h"

#include <hwloc.h>
#include <stdlib.h>

/* The members of set that pmukit declared as present CPUs; *ids is malloc'd. */
static int set_ids(struct pmu_topology *t, hwloc_const_bitmap_t set, int **ids, size_t *n)
{
	int w = hwloc_bitmap_weight(set), i;

	*n = 0;
	*ids = malloc((w > 0 ? (size_t)w : 1) * sizeof(**ids));
	if (!*ids)
		return pmuk_fail(PMU_ENOMEM, "out of memory reading the hwloc topology");
	if (w < 0)
		return 0; /* infinite set: never for real CPUs */
	hwloc_bitmap_foreach_begin(i, set) {
		if (pmuk_topo_cpu_mut(t, i))
			(*ids)[(*n)++] = i;
	} hwloc_bitmap_foreach_end();
	return 0;
}

static int os_id(hwloc_obj_t o)
{
	if (!o)
		return 0;
	return o->os_index == HWLOC_UNKNOWN_INDEX ? (int)o->logical_index : (int)o->os_index;
}

static int locations(struct pmu_topology *t, hwloc_topology_t topo)
{
	hwloc_obj_t pu = NULL;
	int err = 0;

	while (!err && (pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))) {
		int cpu = (int)pu->os_index;
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);

		if (!pmuk_topo_cpu_mut(t, cpu))
			continue;
		err = pmuk_topo_set_cpu_location(t, cpu,
			os_id(hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu)),
			os_id(hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_DIE, pu)),
			core ? os_id(core) : cpu);
	}
	return err;
}

static int caches(struct pmu_topology *t, hwloc_topology_t topo)
{
	static const hwloc_obj_type_t types[] = {
		HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
		HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE,
	};
	int err = 0;

	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]) && !err; k++) {
		hwloc_obj_t o = NULL;

		while (!err && (o = hwloc_get_next_obj_by_type(topo, types[k], o))) {
			struct hwloc_cache_attr_s *a = &o->attr->cache;
			enum pmu_cache_type type = a->type == HWLOC_OBJ_CACHE_DATA ? PMU_CACHE_DATA
				: a->type == HWLOC_OBJ_CACHE_INSTRUCTION ? PMU_CACHE_INSTRUCTION
				: PMU_CACHE_UNIFIED;
			size_t n;
			int *ids;

			err = set_ids(t, o->cpuset, &ids, &n);
			if (!err)
				err = pmuk_topo_add_cache(t, (int)a->depth, type, a->size,
							  a->linesize, a->associativity, ids, n);
			free(ids);
		}
	}
	return err;
}

static int nodes(struct pmu_topology *t, hwloc_topology_t topo)
{
	struct hwloc_distances_s *d = NULL;
	unsigned nr = 1, i, j;
	hwloc_obj_t o = NULL;
	int err = 0;

	while (!err && (o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o))) {
		size_t n;
		int *ids;

		/* Which CPUs a node holds is the kernel's list, as the sysfs backend reads it:
		 * hwloc gives a memory-only node the CPUs near it, which would move them there. */
		err = pmuk_topo_linux_node_cpus(t, os_id(o), &ids, &n);
		if (!err)
			err = pmuk_topo_add_node(t, os_id(o), o->attr->numanode.local_memory, ids, n);
		free(ids);
	}
	if (err || hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &d,
					       HWLOC_DISTANCES_KIND_FROM_OS, 0) || !nr)
		return err; /* no matrix (one node): the builder's local distance stands */
	for (i = 0; i < d->nbobjs && !err; i++)
		for (j = 0; j < d->nbobjs && !err; j++)
			err = pmuk_topo_set_distance(t, os_id(d->objs[i]), os_id(d->objs[j]),
						     (int)d->values[i * d->nbobjs + j]);
	hwloc_distances_release(topo, d);
	return err;
}

/* hwloc orders CPU kinds from most power-efficient to most performant. */
static int kinds(struct pmu_topology *t, hwloc_topology_t topo)
{
	int nk = hwloc_cpukinds_get_nr(topo, 0), err = 0;
	hwloc_bitmap_t set;

	if (nk < 2)
		return 0;
	set = hwloc_bitmap_alloc();
	if (!set)
		return pmuk_fail(PMU_ENOMEM, "out of memory reading hwloc CPU kinds");
	for (int k = 0; k < nk && !err; k++) {
		int eff = -1, cpu;

		if (hwloc_cpukinds_get_info(topo, (unsigned)k, set, &eff, NULL, NULL, 0))
			continue;
		hwloc_bitmap_foreach_begin(cpu, set) {
			if (!err && pmuk_topo_cpu_mut(t, cpu))
				err = pmuk_topo_set_cpu_kind(t, cpu, k == nk - 1 ? PMU_CORE_PERFORMANCE
							     : PMU_CORE_EFFICIENCY, eff < 0 ? k : eff);
		} hwloc_bitmap_foreach_end();
	}
	hwloc_bitmap_free(set);
	return err;
}

static int fill(struct pmu_topology *t, hwloc_topology_t topo)
{
	int err = pmuk_topo_linux_cpus(t);

	if (!err)
		err = locations(t, topo);
	if (!err)
		err = caches(t, topo);
	if (!err)
		err = nodes(t, topo);
	if (!err)
		err = kinds(t, topo);
	if (!err)
		err = pmuk_topo_linux_kinds(t);
	return err ? err : pmuk_topo_finish(t);
}

int pmuk_topology_load_hwloc(struct pmu_topology **out)
{
	struct pmu_topology *t;
	hwloc_topology_t topo;
	int err;

	*out = NULL;
	if (hwloc_topology_init(&topo))
		return pmuk_fail(PMU_ENOMEM, "hwloc_topology_init failed");
	/* CPUs outside our cgroup are still CPUs of the machine; keep instruction caches. */
	hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	if (hwloc_topology_load(topo)) {
		hwloc_topology_destroy(topo);
		return pmuk_fail(PMU_EIO, "hwloc could not discover the topology of this host");
	}
	err = pmuk_topo_new(&t, "hwloc");
	if (!err)
		err = fill(t, topo);
	hwloc_topology_destroy(topo);
	if (err) {
		pmu_topology_free(t);
		return err;
	}
	*out = t;
	return 0;
}
#endif /* PMUKIT_HAVE_HWLOC */
