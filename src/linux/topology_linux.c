/* SPDX-License-Identifier: MIT */
/* Linux topology: picks the backend, and the sysfs passes both backends share. */
#include "linux/topology_linux.h"
#include "core/error.h"
#include "core/os_int.h"
#include "core/sysroot.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define LIST_MAX 65536 /* a cpulist of thousands of scattered CPUs still fits */

int pmuk_topo_read_list(int **ids, size_t *n, const char *fmt, ...)
{
	char rel[512], path[4096], *buf;
	va_list ap;
	int len, err;

	*ids = NULL;
	*n = 0;
	va_start(ap, fmt);
	len = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(rel))
		return pmuk_fail(PMU_ERANGE, "sysfs path too long");
	err = pmuk_path(path, sizeof(path), "%s", rel);
	if (err)
		return err;
	buf = malloc(LIST_MAX);
	if (!buf)
		return pmuk_fail(PMU_ENOMEM, "out of memory reading %s", path);
	len = pmuk_read_text(path, buf, LIST_MAX);
	err = len < 0 ? len : pmuk_cpulist_parse(buf, ids, n);
	free(buf);
	return err;
}

int pmuk_topo_linux_node_cpus(struct pmu_topology *t, int node, int **ids, size_t *n)
{
	size_t nc = pmu_topology_cpu_count(t), i;
	char path[4096];
	int err;

	err = pmuk_topo_read_list(ids, n, "/sys/devices/system/node/node%d/cpulist", node);
	if (err != PMU_ENOENT)
		return err;
	if (pmuk_path(path, sizeof(path), "/sys/devices/system/node/node%d", node))
		return PMU_ERANGE;
	if (pmuk_exists(path))
		return 0; /* a node without a cpulist holds no CPU */
	*ids = malloc((nc ? nc : 1) * sizeof(**ids));
	if (!*ids)
		return pmuk_fail(PMU_ENOMEM, "out of memory building the NUMA node");
	for (i = 0; i < nc; i++)
		(*ids)[i] = pmu_topology_cpu(t, i)->id;
	*n = nc;
	return 0;
}

static int has_id(const int *ids, size_t n, int id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ids[mid] == id)
			return 1;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int pmuk_topo_linux_cpus(struct pmu_topology *t)
{
	int *cpus, *online = NULL, all_online = 0;
	size_t n, non = 0, i;
	int err;

	err = pmuk_topo_read_list(&cpus, &n, "/sys/devices/system/cpu/present");
	if (err == PMU_ENOENT)
		err = pmuk_topo_read_list(&cpus, &n, "/sys/devices/system/cpu/possible");
	if (err) {
		char why[600];

		return pmuk_fail(err == PMU_ENOENT ? PMU_ENOTSUP : err,
				 "cannot read %s/sys/devices/system/cpu/present: %s", pmu_sysroot(),
				 pmuk_sysroot_why(why, sizeof(why), "sys"));
	}
	if (!n) {
		free(cpus);
		return pmuk_fail(PMU_ENOENT, "%s/sys/devices/system/cpu/present lists no CPU",
				 pmu_sysroot());
	}
	/* Without an online file (no hotplug support) every present CPU is online. */
	err = pmuk_topo_read_list(&online, &non, "/sys/devices/system/cpu/online");
	if (err == PMU_ENOENT)
		all_online = 1;
	else if (err)
		goto out;
	for (i = 0, err = 0; i < n && !err; i++)
		err = pmuk_topo_add_cpu(t, cpus[i], all_online || has_id(online, non, cpus[i]));
out:
	free(cpus);
	free(online);
	return err;
}

/* Hybrid x86 core PMUs, from the most power-efficient kind to the most performant
 * (cpu_lowpower: Arrow Lake-H's low-power E-cores). */
static const char *const hybrid_pmus[] = { "cpu_lowpower", "cpu_atom", "cpu_core" };

static int hybrid_index(const char *name)
{
	for (int i = 0; i < (int)(sizeof(hybrid_pmus) / sizeof(hybrid_pmus[0])); i++)
		if (!strcmp(name, hybrid_pmus[i]))
			return i;
	return -1;
}

/* Core PMUs name their CPUs in a cpus file (hybrid x86, arm_pmu); uncore PMUs
 * use cpumask instead. */
static int kinds_from_pmus(struct pmu_topology *t, int *hybrid)
{
	int present[sizeof(hybrid_pmus) / sizeof(hybrid_pmus[0])], nkinds = 0, err = 0;
	char path[4096];
	struct dirent *de;
	DIR *d;

	*hybrid = 0;
	/* Efficiency classes rank the hybrid PMUs present: 0 for the most efficient. */
	for (size_t i = 0; i < sizeof(hybrid_pmus) / sizeof(hybrid_pmus[0]); i++) {
		if (pmuk_path(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpus",
			      hybrid_pmus[i]))
			return PMU_ERANGE;
		present[i] = pmuk_exists(path) ? nkinds++ : -1;
	}
	if (pmuk_path(path, sizeof(path), "/sys/bus/event_source/devices"))
		return PMU_ERANGE;
	d = opendir(path);
	if (!d)
		return 0; /* no perf_event support: no PMU to name */
	while (!err && (de = readdir(d))) {
		int kind = hybrid_index(de->d_name);
		size_t n, i;
		int *ids;

		if (de->d_name[0] == '.')
			continue;
		if (pmuk_topo_read_list(&ids, &n, "/sys/bus/event_source/devices/%s/cpus",
					de->d_name))
			continue;
		for (i = 0; i < n && !err; i++) {
			if (!pmuk_topo_cpu_mut(t, ids[i]))
				continue;
			err = pmuk_topo_set_cpu_pmu(t, ids[i], de->d_name);
			if (!err && kind >= 0 && nkinds > 1)
				err = pmuk_topo_set_cpu_kind(t, ids[i], present[kind] == nkinds - 1
							     ? PMU_CORE_PERFORMANCE
							     : PMU_CORE_EFFICIENCY, present[kind]);
		}
		*hybrid |= kind >= 0 && n && nkinds > 1;
		free(ids);
	}
	closedir(d);
	return err;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Asymmetric CPUs without hybrid PMUs (ARM big.LITTLE): rank cpu_capacity. */
static int kinds_from_capacity(struct pmu_topology *t)
{
	size_t n = pmu_topology_cpu_count(t), i, k, ncls = 0;
	uint64_t *cap, *cls;
	char path[4096];
	int err = 0;

	cap = calloc(n, sizeof(*cap));
	cls = calloc(n, sizeof(*cls));
	if (!cap || !cls) {
		free(cap);
		free(cls);
		return pmuk_fail(PMU_ENOMEM, "out of memory reading cpu_capacity");
	}
	for (i = 0; i < n; i++) {
		int id = pmu_topology_cpu(t, i)->id;

		if (pmuk_path(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpu_capacity", id) ||
		    pmuk_read_u64(path, &cap[i]))
			cap[i] = 0; /* unknown: left uniform */
		else
			cls[ncls++] = cap[i];
	}
	qsort(cls, ncls, sizeof(*cls), u64_cmp);
	for (i = k = 0; i < ncls; i++)
		if (!k || cls[k - 1] != cls[i])
			cls[k++] = cls[i];
	for (i = 0; k > 1 && i < n && !err; i++) {
		uint64_t *rank = cap[i] ? bsearch(&cap[i], cls, k, sizeof(*cls), u64_cmp) : NULL;
		int eff = rank ? (int)(rank - cls) : 0;

		/* hwloc already said (for the CPUs it saw online): keep its answer */
		if (rank && pmu_topology_cpu(t, i)->type == PMU_CORE_UNIFORM)
			err = pmuk_topo_set_cpu_kind(t, pmu_topology_cpu(t, i)->id,
						     eff == (int)k - 1 ? PMU_CORE_PERFORMANCE
						     : PMU_CORE_EFFICIENCY, eff);
	}
	free(cap);
	free(cls);
	return err;
}

int pmuk_topo_linux_kinds(struct pmu_topology *t)
{
	size_t n = pmu_topology_cpu_count(t), i;
	int hybrid, err, have_cpu;
	char path[4096];

	err = kinds_from_pmus(t, &hybrid);
	if (err)
		return err;
	if (pmuk_path(path, sizeof(path), "/sys/bus/event_source/devices/cpu"))
		return PMU_ERANGE;
	have_cpu = pmuk_exists(path);
	for (i = 0; i < n && !err; i++) {
		const struct pmu_topo_cpu *c = pmu_topology_cpu(t, i);

		if (have_cpu && !c->pmu[0])
			err = pmuk_topo_set_cpu_pmu(t, c->id, "cpu");
	}
	/* Also after hwloc's kinds: offline CPUs (no hwloc PU) still have a capacity. */
	if (!err && !hybrid)
		err = kinds_from_capacity(t);
	return err;
}

int pmuk_os_topology_load(struct pmu_topology **out)
{
#ifdef PMUKIT_HAVE_HWLOC
	/* hwloc reads the real /sys; a sysroot (fixture tree) is read by the sysfs backend. */
	if (!pmu_sysroot()[0]) {
		int err = pmuk_topology_load_hwloc(out);

		if (!err)
			return 0;
		pmuk_log(PMU_LOG_WARN, "hwloc topology failed (%s); reading sysfs instead",
			 pmu_error_detail());
	}
#endif
	return pmuk_topology_load_sysfs(out);
}
