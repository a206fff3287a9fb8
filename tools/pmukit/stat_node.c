/* SPDX-License-Identifier: MIT */
/* pmukit stat --per-node (-M numa): read and write bandwidth per NUMA node from the
 * memory-controller PMUs (src/linux/uncore_mc.c), each opened on a CPU of its
 * cpumask, system wide, over the command's run or --timeout. */
#include "cmd.h"
#include "stat.h"

#include <stdio.h>

#ifndef __linux__
int stat_per_node(struct stat_config *cfg)
{
	(void)cfg;
	fprintf(stderr, "pmukit stat: --per-node reads the Linux uncore memory-controller "
		"PMUs; Windows gives pmukit no memory-controller counters\n");
	return 1;
}
#else
#include "core/json.h"
#include "linux/uncore_mc.h"

#include <pmukit/pmukit.h>
#include <stdlib.h>
#include <string.h>

struct mc_open {
	struct pmu_counters *c;
	double bytes[2]; /* read, write */
};

static int open_one(const struct pmuk_mc *m, struct mc_open *o)
{
	struct pmu_target t = { .kind = PMU_TARGET_CPUS, .cpus = &m->cpu, .ncpus = 1 };
	PMU_OPTS(pmu_counters_opts, opts, .start_disabled = 1);
	struct pmu_event_list *l;
	char spec[300];
	int err;

	snprintf(spec, sizeof(spec), "%s,%s", m->read_ev, m->write_ev);
	if ((err = pmu_event_parse(spec, &l)) != 0)
		return err;
	err = pmu_counters_open(l, &t, &opts, &o->c);
	pmu_event_list_free(l);
	return err;
}

/* The command (or --timeout's sleep) between enabling and disabling every counter. */
static int run_window(struct stat_config *cfg, struct mc_open *o, size_t n, double *ns)
{
	struct pmu_command *cmd = NULL;
	double t0;
	int st = 0, err = 0, rc = 0;

	if (cfg->argv && (err = pmu_command_prepare(cfg->argv, &cmd)))
		return tool_error("stat", "preparing the command", err);
	for (size_t i = 0; i < n && !err; i++)
		err = pmu_counters_enable(o[i].c);
	t0 = stat_os_now_ns();
	if (!err && cmd && !(err = pmu_command_start(cmd))) {
		int w = pmu_command_wait_timeout(cmd, cfg->timeout_ms > 0 ? (int)cfg->timeout_ms : -1,
						 &st);

		if (w == 0)
			stat_os_terminate(cmd);
		rc = w == 1 ? tool_exit_status(st) : 0;
	} else if (!err) {
		stat_os_sleep(cfg->timeout_ms > 0 ? (int)cfg->timeout_ms : 1000);
	}
	*ns = stat_os_now_ns() - t0;
	for (size_t i = 0; i < n; i++)
		pmu_counters_disable(o[i].c);
	pmu_command_free(cmd);
	return err ? tool_error("stat", "counting the memory controllers", err) : rc;
}

static void print_text(FILE *f, const struct pmuk_mc *m, const struct mc_open *o, size_t n,
		       double ns)
{
	fprintf(f, "\n Memory bandwidth per NUMA node (memory-controller PMUs), %.3f s:\n\n",
		ns / 1e9);
	fprintf(f, "%6s %12s %12s %12s %12s  %s\n", "node", "read MiB", "write MiB", "read MB/s",
		"write MB/s", "controllers");
	for (size_t i = 0; i < n;) {
		double rd = 0, wr = 0;
		size_t k = i;

		for (; k < n && m[k].node == m[i].node; k++)
			rd += o[k].bytes[0], wr += o[k].bytes[1];
		fprintf(f, "%6d %12.1f %12.1f %12.1f %12.1f  %zu x %s... on CPU %d%s\n", m[i].node,
			rd / 1048576, wr / 1048576, rd / ns * 1e3, wr / ns * 1e3, k - i, m[i].pmu,
			m[i].cpu, m[i].package_nodes > 1 ? " (its package's nodes summed: sysfs "
			"does not say which sub-NUMA node a controller serves)" : "");
		i = k;
	}
}

static void print_json(FILE *f, const struct pmuk_mc *m, const struct mc_open *o, size_t n,
		       double ns)
{
	struct pmuk_json j;

	pmuk_json_init(&j, f, 0);
	pmuk_json_obj_begin(&j, NULL);
	pmuk_json_double(&j, "elapsed_s", ns / 1e9);
	pmuk_json_arr_begin(&j, "controllers");
	for (size_t i = 0; i < n; i++) {
		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_str(&j, "pmu", m[i].pmu);
		pmuk_json_int(&j, "cpu", m[i].cpu);
		pmuk_json_int(&j, "node", m[i].node);
		pmuk_json_str(&j, "read_event", m[i].read_ev);
		pmuk_json_str(&j, "write_event", m[i].write_ev);
		pmuk_json_double(&j, "read_bytes", o[i].bytes[0]);
		pmuk_json_double(&j, "write_bytes", o[i].bytes[1]);
		pmuk_json_obj_end(&j);
	}
	pmuk_json_arr_end(&j);
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
}

static int measure(struct stat_config *cfg, const struct pmuk_mc *m, size_t n)
{
	struct mc_open *o = calloc(n, sizeof(*o));
	double ns = 0;
	int rc = 0;

	if (!o)
		return tool_error("stat", "listing the memory controllers", PMU_ENOMEM);
	for (size_t i = 0; i < n && !rc; i++) {
		int err = open_one(&m[i], &o[i]);

		if (err) {
			fprintf(stderr, "pmukit stat: --per-node: opening %s and %s on CPU %d: %s: "
				"%s\n", m[i].read_ev, m[i].write_ev, m[i].cpu, pmu_strerror(err),
				pmu_error_detail());
			rc = 1;
		}
	}
	if (!rc)
		rc = run_window(cfg, o, n, &ns);
	for (size_t i = 0; i < n && o[i].c; i++) {
		struct pmu_reading r[2];

		if (!pmu_counters_read(o[i].c, r, 2)) {
			o[i].bytes[0] = (double)r[0].scaled * m[i].read_bytes;
			o[i].bytes[1] = (double)r[1].scaled * m[i].write_bytes;
		}
	}
	if (o[0].c && ns > 0)
		(cfg->format == STAT_JSON ? print_json : print_text)(cfg->out, m, o, n, ns);
	for (size_t i = 0; i < n; i++)
		pmu_counters_close(o[i].c);
	free(o);
	return rc;
}

int stat_per_node(struct stat_config *cfg)
{
	struct pmu_topology *t;
	struct pmuk_mc *m;
	size_t n;
	char why[400];
	int err = pmu_topology_load(&t), rc;

	if (err)
		return tool_error("stat", "--per-node needs the NUMA topology", err);
	err = pmuk_mc_discover(t, &m, &n, why, sizeof(why));
	pmu_topology_free(t);
	if (err)
		return tool_error("stat", "--per-node: finding the memory controllers", err);
	if (!n) {
		fprintf(stderr, "pmukit stat: --per-node: %s\n", why);
		return 1;
	}
	rc = measure(cfg, m, n);
	free(m);
	return rc;
}
#endif
