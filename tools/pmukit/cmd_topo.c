/* SPDX-License-Identifier: MIT */
/* pmukit topo: packages, dies, cores, caches and NUMA nodes of this host. */
#include "cmd.h"

#include <pmukit/pmukit.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit topo [--json]\n\n"
		   "Shows the CPU topology: packages, dies, cores (with their type on hybrid\n"
		   "CPUs and the PMU serving them), logical CPUs online and offline, caches\n"
		   "and NUMA nodes with memory and distances.\n\n"
		   "  --json   one JSON object (packages, dies, cores, cpus, caches, numa_nodes)\n"
		   "  --help   this text\n\n"
		   "PMUKIT_SYSROOT=DIR reads DIR/sys instead of /sys (fixture trees).\n");
}

int cmd_topo(int argc, char **argv)
{
	struct pmu_topology *t;
	int json = 0, err;

	if ((err = tool_json_option(argc, argv, usage, &json)) >= 0)
		return err;
	err = pmu_topology_load(&t);
	if (err)
		return tool_error("topo", "reading the topology", err);
	err = json ? pmu_topology_write_json(t, stdout, PMU_JSON_PRETTY)
		   : pmu_topology_write_text(t, stdout);
	pmu_topology_free(t);
	if (err)
		return tool_error("topo", "writing the output", err);
	return tool_flush_stdout("topo", "the topology");
}
