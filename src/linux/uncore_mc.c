/* SPDX-License-Identifier: MIT */
/* Memory-controller PMUs for bandwidth per node: Intel uncore_imc_N (CAS counts, from
 * the PMU's sysfs events, their .scale giving bytes), AMD amd_umc_N (umc_cas_cmd with
 * rdwrmask, 64 bytes a CAS). Which node: the node of each CPU in the PMU's cpumask. */
#include "linux/uncore_mc.h"
#include "linux/pmu_sysfs.h"
#include "core/cpulist.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/sysroot.h"

#include <pmukit/topology.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVICES "/sys/bus/event_source/devices"

/* One CAS command moves one 64-byte line. */
static const double CAS_BYTES = 64.0;

/* Bytes per count of sysfs event ev: .scale in .unit (MiB, as the kernel gives
 * for cas_count_*); a CAS line when there is no scale. */
static double alias_bytes(const char *pmu, const char *ev)
{
	char path[PATH_MAX], buf[64];
	double scale;

	if (pmuk_path(path, sizeof(path), DEVICES "/%s/events/%s.scale", pmu, ev) ||
	    pmuk_read_text(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%lf", &scale) != 1)
		return CAS_BYTES;
	if (pmuk_path(path, sizeof(path), DEVICES "/%s/events/%s.unit", pmu, ev) ||
	    pmuk_read_text(path, buf, sizeof(buf)) < 0)
		return scale;
	return !strcmp(buf, "MiB") ? scale * 1048576.0 : !strcmp(buf, "KiB") ? scale * 1024.0 :
	       !strcmp(buf, "MB") ? scale * 1e6 : scale;
}

/* Intel: cas_count_read/write (servers), else data_reads/data_writes (clients). */
static int intel_events(struct pmuk_mc *m)
{
	static const char *const pairs[][2] = { { "cas_count_read", "cas_count_write" },
						{ "data_reads", "data_writes" } };
	char buf[128];

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		if (pmuk_pmu_alias(m->pmu, pairs[i][0], buf, sizeof(buf)) ||
		    pmuk_pmu_alias(m->pmu, pairs[i][1], buf, sizeof(buf)))
			continue;
		snprintf(m->read_ev, sizeof(m->read_ev), "%s/%s/", m->pmu, pairs[i][0]);
		snprintf(m->write_ev, sizeof(m->write_ev), "%s/%s/", m->pmu, pairs[i][1]);
		m->read_bytes = alias_bytes(m->pmu, pairs[i][0]);
		m->write_bytes = alias_bytes(m->pmu, pairs[i][1]);
		m->source = "sysfs events";
		return 0;
	}
	return -1;
}

/* AMD UMC (Linux 6.9+): event 0x0a umc_cas_cmd, rdwrmask 1 reads, 2 writes. */
static int amd_umc_events(struct pmuk_mc *m)
{
	char path[PATH_MAX];

	if (pmuk_path(path, sizeof(path), DEVICES "/%s/format/rdwrmask", m->pmu) ||
	    !pmuk_exists(path))
		return -1;
	snprintf(m->read_ev, sizeof(m->read_ev), "%s/event=0x0a,rdwrmask=0x1/", m->pmu);
	snprintf(m->write_ev, sizeof(m->write_ev), "%s/event=0x0a,rdwrmask=0x2/", m->pmu);
	m->read_bytes = m->write_bytes = CAS_BYTES;
	m->source = "AMD UMC umc_cas_cmd (PPR)";
	return 0;
}

static int is_imc(const char *name)
{
	const char *p = name + strlen("uncore_imc");

	if (strncmp(name, "uncore_imc", strlen("uncore_imc")))
		return 0;
	if (!*p)
		return 1;
	if (*p++ != '_' || !*p)
		return 0;
	return strspn(p, "0123456789") == strlen(p);
}

static int nodes_of_package(const struct pmu_topology *t, int pkg)
{
	int seen[64] = { 0 }, n = 0;

	for (size_t i = 0; i < pmu_topology_cpu_count(t); i++) {
		const struct pmu_topo_cpu *c = pmu_topology_cpu(t, i);

		if (c->package == pkg && c->node >= 0 && c->node < 64 && !seen[c->node]++)
			n++;
	}
	return n;
}

/* One entry per CPU of the PMU's cpumask. */
static int add_pmu(const struct pmu_topology *t, const struct pmuk_mc *proto,
		   struct pmuk_mc **v, size_t *n, size_t *cap)
{
	char path[PATH_MAX], mask[256] = "0";
	int *cpus = NULL;
	size_t ncpus = 0;

	if (!pmuk_path(path, sizeof(path), DEVICES "/%s/cpumask", proto->pmu))
		pmuk_read_text(path, mask, sizeof(mask));
	if (pmuk_cpulist_parse(mask, &cpus, &ncpus) || !ncpus) {
		free(cpus);
		return pmuk_fail(PMU_EIO, "%s/%s/cpumask reads '%s', not a CPU list: cannot tell "
				 "which CPU counts this memory controller", DEVICES, proto->pmu, mask);
	}
	for (size_t i = 0; i < ncpus; i++) {
		struct pmuk_mc *m;

		if (pmuk_grow((void **)v, cap, *n + 1, sizeof(**v))) {
			free(cpus);
			return pmuk_fail(PMU_ENOMEM, "out of memory listing memory controllers");
		}
		m = &(*v)[(*n)++];
		*m = *proto;
		m->cpu = cpus[i];
		m->node = pmu_topology_cpu_node(t, m->cpu);
		m->package = pmu_topology_cpu_package(t, m->cpu);
		m->package_nodes = m->package >= 0 ? nodes_of_package(t, m->package) : 0;
	}
	free(cpus);
	return 0;
}

static int cmp_mc(const void *a, const void *b)
{
	const struct pmuk_mc *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return strcmp(x->pmu, y->pmu);
}

/* What to say when no controller could be used. */
static void explain(char *why, size_t size, int saw_df, const char *unusable)
{
	if (unusable[0])
		snprintf(why, size, "no memory-controller PMU pmukit can use: %s has no "
			 "read/write CAS events in sysfs", unusable);
	else if (saw_df)
		snprintf(why, size, "no memory-controller PMU: only amd_df, whose DRAM-channel "
			 "events are family-specific and not encoded by pmukit; amd_umc_* (Linux "
			 "6.9+, Zen 4 and later) gives read and write CAS counts");
	else
		snprintf(why, size, "no memory-controller PMU: %s lists no uncore_imc_*, "
			 "amd_umc_* or amd_df (a virtual machine exposes none; on bare metal "
			 "the kernel's uncore driver for this CPU is missing)", DEVICES);
}

int pmuk_mc_discover(const struct pmu_topology *t, struct pmuk_mc **out, size_t *n,
		     char *why, size_t whysize)
{
	char path[PATH_MAX], unusable[128] = "";
	struct dirent *e;
	size_t cap = 0;
	int saw_df = 0, err = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (pmuk_path(path, sizeof(path), DEVICES) || !(d = opendir(path))) {
		explain(why, whysize, 0, "");
		return 0;
	}
	while (!err && (e = readdir(d))) {
		struct pmuk_mc m = { .cpu = -1 };
		int ok;

		snprintf(m.pmu, sizeof(m.pmu), "%.63s", e->d_name);
		saw_df |= !strcmp(e->d_name, "amd_df");
		if (is_imc(e->d_name))
			ok = !intel_events(&m);
		else if (!strncmp(e->d_name, "amd_umc_", 8))
			ok = !amd_umc_events(&m);
		else
			continue;
		if (ok)
			err = add_pmu(t, &m, out, n, &cap);
		else if (!unusable[0])
			snprintf(unusable, sizeof(unusable), "%.127s", e->d_name);
	}
	closedir(d);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
		return err;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_mc);
	else
		explain(why, whysize, saw_df, unusable);
	return 0;
}
