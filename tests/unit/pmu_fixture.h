/* SPDX-License-Identifier: MIT */
/* Fixture sysfs/tracefs trees for the event tests: pmu_fixture_make(kind) writes
 * one under a temporary directory and returns its root (for pmu_sysroot_set).
 *   "x86"    cpu (formats, events/), msr, power, software, tracepoint + tracefs
 *   "hybrid" cpu_core (type 4, cpus 0-7) and cpu_atom (type 10, cpus 8-15)
 *   "arm64"  armv8_pmuv3_0 (type 8, cpus 0-3), arm_spe_0 (type 9, a config3 format)
 *   "amd"    cpu whose event select is split: "config:0-7,32-35"
 *   "server" x86 plus ten uncore_imc_N PMUs sharing the alias cas_count_read
 *   "none"   a VM without a PMU: software, tracepoint, msr; tracefs not mounted */
#ifndef PMU_FIXTURE_H
#define PMU_FIXTURE_H

#include "fixture_tree.h"

static void fx_write(const char *root, const char *rel, const char *text)
{
	fixture_writeln(root, rel, "%s", text);
}

#define DEV "sys/bus/event_source/devices/"

static void fx_x86_cpu_formats(const char *root, const char *pmu)
{
	static const char *const f[][2] = {
		{ "event", "config:0-7" }, { "umask", "config:8-15" }, { "edge", "config:18" },
		{ "inv", "config:23" }, { "cmask", "config:24-31" }, { "ldlat", "config1:0-15" },
		{ "frontend", "config2:0-23" },
	};
	char rel[256];

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(rel, sizeof(rel), DEV "%s/format/%s", pmu, f[i][0]);
		fx_write(root, rel, f[i][1]);
	}
	snprintf(rel, sizeof(rel), DEV "%s/events/cpu-cycles", pmu);
	fx_write(root, rel, "event=0x3c");
	snprintf(rel, sizeof(rel), DEV "%s/events/mem-loads", pmu);
	fx_write(root, rel, "event=0xcd,umask=0x1,ldlat=3");
	/* perf's parameterised alias: the event must say ldlat=N itself */
	snprintf(rel, sizeof(rel), DEV "%s/events/mem-loads-ldlat", pmu);
	fx_write(root, rel, "event=0xcd,umask=0x1,ldlat=?");
	snprintf(rel, sizeof(rel), DEV "%s/events/spaced", pmu);
	fx_write(root, rel, "event=0x3c, umask=0x01 ");
}

static void fx_common(const char *root, int tracefs)
{
	fx_write(root, DEV "software/type", "1");
	fx_write(root, DEV "tracepoint/type", "2");
	fx_write(root, DEV "msr/type", "10");
	fx_write(root, DEV "msr/format/event", "config:0-63");
	fx_write(root, DEV "msr/events/tsc", "event=0x00");
	fx_write(root, DEV "msr/events/smi", "event=0x04");
	if (tracefs) {
		fx_write(root, "sys/kernel/tracing/events/header_page", "x");
		fx_write(root, "sys/kernel/tracing/events/sched/sched_switch/id", "316");
		fx_write(root, "sys/kernel/tracing/events/sched/sched_wakeup/id", "318");
		fx_write(root, "sys/kernel/tracing/events/irq/irq_handler_entry/id", "120");
	}
}

static char *pmu_fixture_make(const char *kind)
{
	char *root = malloc(64);

	if (!root)
		abort();
	fixture_create(root, 64, "fixture");
	if (!strcmp(kind, "x86") || !strcmp(kind, "server")) {
		fx_common(root, 1);
		fx_write(root, DEV "cpu/type", "4");
		fx_x86_cpu_formats(root, "cpu");
		fx_write(root, DEV "power/type", "9");
		fx_write(root, DEV "power/cpumask", "0");
		fx_write(root, DEV "power/format/event", "config:0-7");
		fx_write(root, DEV "power/events/energy-pkg", "event=0x02");
		fx_write(root, DEV "power/events/energy-pkg.scale", "2.3283064365386962890625e-10");
		fx_write(root, DEV "power/events/energy-pkg.unit", "Joules");
		for (int i = 0; !strcmp(kind, "server") && i < 10; i++) {
			char rel[128], val[16];

			snprintf(rel, sizeof(rel), DEV "uncore_imc_%d/type", i);
			snprintf(val, sizeof(val), "%d", 20 + i);
			fx_write(root, rel, val);
			snprintf(rel, sizeof(rel), DEV "uncore_imc_%d/cpumask", i);
			fx_write(root, rel, "0");
			snprintf(rel, sizeof(rel), DEV "uncore_imc_%d/format/event", i);
			fx_write(root, rel, "config:0-7");
			snprintf(rel, sizeof(rel), DEV "uncore_imc_%d/format/umask", i);
			fx_write(root, rel, "config:8-15");
			snprintf(rel, sizeof(rel), DEV "uncore_imc_%d/events/cas_count_read", i);
			fx_write(root, rel, "event=0x04,umask=0x03");
		}
	} else if (!strcmp(kind, "amd")) {
		fx_common(root, 1);
		fx_write(root, DEV "cpu/type", "4");
		fx_write(root, DEV "cpu/format/event", "config:0-7,32-35");
		fx_write(root, DEV "cpu/format/umask", "config:8-15");
		fx_write(root, DEV "cpu/format/edge", "config:18");
		fx_write(root, DEV "cpu/events/ls_dispatch", "event=0x129,umask=0x1");
	} else if (!strcmp(kind, "hybrid")) {
		fx_common(root, 1);
		fx_write(root, DEV "cpu_core/type", "4");
		fx_write(root, DEV "cpu_core/cpus", "0-7");
		fx_x86_cpu_formats(root, "cpu_core");
		fx_write(root, DEV "cpu_atom/type", "10");
		fx_write(root, DEV "cpu_atom/cpus", "8-15");
		fx_x86_cpu_formats(root, "cpu_atom");
		fx_write(root, DEV "msr/type", "11");
	} else if (!strcmp(kind, "arm64")) {
		fx_common(root, 1);
		fx_write(root, DEV "armv8_pmuv3_0/type", "8");
		fx_write(root, DEV "armv8_pmuv3_0/cpus", "0-3");
		fx_write(root, DEV "armv8_pmuv3_0/format/event", "config:0-15");
		fx_write(root, DEV "armv8_pmuv3_0/format/long", "config1:0");
		fx_write(root, DEV "armv8_pmuv3_0/events/cpu_cycles", "event=0x0011");
		fx_write(root, DEV "arm_spe_0/type", "9");
		fx_write(root, DEV "arm_spe_0/cpumask", "0-3");
		fx_write(root, DEV "arm_spe_0/format/ts_enable", "config:0");
		fx_write(root, DEV "arm_spe_0/format/min_latency", "config2:0-11");
		fx_write(root, DEV "arm_spe_0/format/inv_event_filter", "config3:0-63");
	} else {
		fx_common(root, 0);
	}
	return root;
}

static void pmu_fixture_free(char *root)
{
	if (root && !strncmp(root, "/tmp/pmukit-fixture-", 20))
		fixture_remove(root);
	free(root);
}

#endif
