/* SPDX-License-Identifier: MIT */
/* Capability matrix on Linux, concerns 4-8: code-space decode, tracing, topology,
 * event naming, OS counters. */
#include "linux/caps_linux.h"
#include "core/caps_model.h"

#include <errno.h>
#include <string.h>
#ifdef PMUKIT_HAVE_DW
#include <elfutils/libdwfl.h>
#endif

/* User-space symbols: what this build's ELF/DWARF reader resolves. */
static void user_symbols(struct pmu_caps *c)
{
#ifdef PMUKIT_HAVE_DW
	pmuk_caps_fact(c, PMU_CONCERN_SYMBOLS,
		       "symbolizer", "reads ELF/DWARF of live processes (/proc/PID/maps) "
		       "and of recorded module maps (pmu_symbolizer_*, pmukit addr2line)",
		       "elfutils libdwfl %s", dwfl_version(NULL));
	pmuk_caps_set(c, PMU_CONCERN_SYMBOLS,
		      PMU_CAP_AVAILABLE, "user-space addresses resolve through elfutils "
		      "libdwfl to function, file:line:column and inlined calls; recorded "
		      "build-ids are checked (a stale binary gives module + offset only)");
	pmuk_caps_limit(c, PMU_CONCERN_SYMBOLS,
			"binaries without DWARF give symbol-table names only");
	pmuk_caps_remedy(c, PMU_CONCERN_SYMBOLS,
			 "install the -dbgsym (debug info) packages of the binaries "
			 "you profile, or point the symbolizer at a debuginfo path");
	pmuk_caps_limit(c, PMU_CONCERN_SYMBOLS,
			"PE images of .etl recordings resolve to module + offset only "
			"(DbgHelp and PDBs are Windows-only)");
	pmuk_caps_remedy(c, PMU_CONCERN_SYMBOLS,
			 "symbolize .etl recordings with pmukit on Windows");
#else
	pmuk_caps_set(c, PMU_CONCERN_SYMBOLS,
		      PMU_CAP_LIMITED, "this build links no ELF/DWARF reader (built "
		      "without elfutils libdw), so user-space addresses are not resolved to "
		      "functions or lines");
	pmuk_caps_remedy(c, PMU_CONCERN_SYMBOLS, "rebuild with libdw-dev (elfutils) installed");
#endif
}

/* Kernel symbols: /proc/kallsyms and the kernel's build-id. */
static void kernel_symbols(const struct pmuk_caps_sys *s, struct pmu_caps *c)
{
	if (s->kallsyms == 1)
		pmuk_caps_note(c, PMU_CONCERN_SYMBOLS,
			       "kernel symbols resolve through /proc/kallsyms "
			       "(kptr_restrict=%d)", s->kptr_restrict);
	else {
		pmuk_caps_limit(c, PMU_CONCERN_SYMBOLS,
				"kernel addresses in /proc/kallsyms are %s (kptr_restrict=%d)",
				s->kallsyms < 0 ? "unreadable" : "hidden", s->kptr_restrict);
		pmuk_caps_remedy(c, PMU_CONCERN_SYMBOLS,
				 "%s", s->kptr_restrict >= 2 ? "sysctl kernel.kptr_restrict=1 "
				 "and run with CAP_SYSLOG (root)" : "run with CAP_SYSLOG (root), or "
				 "sysctl kernel.kptr_restrict=0 with kernel.perf_event_paranoid=1");
	}
	if (s->kernel_build_id[0]) {
		pmuk_caps_note(c, PMU_CONCERN_SYMBOLS,
			       "the kernel build-id is readable from /sys/kernel/notes");
	} else {
		pmuk_caps_limit(c, PMU_CONCERN_SYMBOLS,
				"the kernel build-id is not readable from /sys/kernel/notes, "
				"so kernel samples cannot be matched to a vmlinux by build-id");
		pmuk_caps_remedy(c, PMU_CONCERN_SYMBOLS,
				 "mount sysfs at /sys (mount -t sysfs sysfs /sys); a kernel "
				 "linked without --build-id has no note to read: match its vmlinux "
				 "by release instead");
	}
}

void pmuk_caps_judge_symbols(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	struct pmu_caps *c = j->c;

	if (s->kptr_restrict >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_SYMBOLS, "kptr_restrict", s->kptr_restrict == 0 ?
			       "kernel addresses shown when perf_event_paranoid<=1 or with CAP_SYSLOG"
			       : s->kptr_restrict == 1 ? "kernel addresses shown only with CAP_SYSLOG"
			       : "kernel addresses hidden from everyone", "%d", s->kptr_restrict);
	pmuk_caps_fact(c, PMU_CONCERN_SYMBOLS,
		       "kallsyms", "/proc/kallsyms as this process reads it", "%s",
		       s->kallsyms < 0 ? "unreadable" : s->kallsyms ? "addresses shown"
		       : "addresses hidden (zeros)");
	pmuk_caps_fact(c, PMU_CONCERN_SYMBOLS,
		       "kernel_build_id", "NT_GNU_BUILD_ID note of /sys/kernel/notes: "
		       "matches samples to the right vmlinux", "%s",
		       s->kernel_build_id[0] ? s->kernel_build_id : "unreadable");
	user_symbols(c);
	kernel_symbols(s, c);
}

void pmuk_caps_judge_tracing(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	struct pmu_caps *c = j->c;
	int admin = pmuk_caps_has_cap(s, PMUK_CAP_SYS_ADMIN);

	pmuk_caps_fact(c, PMU_CONCERN_TRACING,
		       "tracefs", "where tracepoint names, formats and ids are read", "%s",
		       s->tracefs_mount[0] ? s->tracefs_mount : s->tracefs_known ?
		       "not mounted (supported by the kernel)" : "not supported by the kernel");
	pmuk_caps_fact(c, PMU_CONCERN_TRACING,
		       "tracepoint_pmu", "perf_event_open can count and sample tracepoints",
		       "%s", s->have_tracepoint_pmu ? "yes" : "no");
	if (!s->have_tracepoint_pmu && !s->tracefs_known && !s->tracefs_mount[0]) {
		pmuk_caps_set(c, PMU_CONCERN_TRACING,
			      PMU_CAP_UNAVAILABLE, "the kernel has no tracepoint support "
			      "(no tracefs, no tracepoint PMU)");
		pmuk_caps_remedy(c, PMU_CONCERN_TRACING,
				 "boot a kernel with CONFIG_FTRACE and CONFIG_EVENT_TRACING");
		return;
	}
	if (s->tracefs_mount[0] && s->tracefs_readable) {
		pmuk_caps_set(c, PMU_CONCERN_TRACING,
			      PMU_CAP_AVAILABLE, "tracefs at %s: tracepoint names, formats "
			      "and ids are readable", s->tracefs_mount);
	} else if (s->tracefs_mount[0]) {
		pmuk_caps_set(c, PMU_CONCERN_TRACING,
			      PMU_CAP_UNAVAILABLE, "tracefs is mounted at %s but this user "
			      "cannot read it (root-only by default)", s->tracefs_mount);
		pmuk_caps_remedy(c, PMU_CONCERN_TRACING,
				 "run as root, or remount it for a group: mount -o "
				 "remount,gid=GROUP,mode=0750 %s", s->tracefs_mount);
		return;
	} else if (admin) {
		/* pmuk_tracefs_events mounts it on first use, as perf does */
		pmuk_caps_set(c, PMU_CONCERN_TRACING,
			      PMU_CAP_AVAILABLE, "tracefs is not mounted yet: pmukit mounts it "
			      "at /sys/kernel/tracing when tracepoints are first named or listed");
	} else {
		pmuk_caps_set(c, PMU_CONCERN_TRACING,
			      PMU_CAP_UNAVAILABLE, "tracefs is not mounted and mounting it "
			      "needs root");
		pmuk_caps_remedy(c, PMU_CONCERN_TRACING,
				 "run pmukit as root once (it mounts tracefs, as perf does), "
				 "or ask root to run: mount -t tracefs nodev /sys/kernel/tracing");
		return;
	}
	if (j->perf_blocked) {
		pmuk_caps_limit(c, PMU_CONCERN_TRACING,
				"tracepoints cannot be counted or sampled: perf_event_open "
				"is unusable here (concern 1)");
		pmuk_caps_remedy(c, PMU_CONCERN_TRACING, "as for concern 1");
	} else if (!s->have_tracepoint_pmu) {
		pmuk_caps_limit(c, PMU_CONCERN_TRACING,
				"tracepoints cannot be counted or sampled: the kernel has "
				"no tracepoint PMU");
		pmuk_caps_remedy(c, PMU_CONCERN_TRACING,
				 "boot a kernel built with CONFIG_EVENT_TRACING and "
				 "CONFIG_PERF_EVENTS");
	} else if (!j->priv && s->paranoid > -1) {
		pmuk_caps_limit(c, PMU_CONCERN_TRACING,
				"perf_event_paranoid=%d: raw tracepoint payloads "
				"(PERF_SAMPLE_RAW) need CAP_PERFMON", s->paranoid);
		pmuk_caps_remedy(c, PMU_CONCERN_TRACING,
				 "run as root or grant CAP_PERFMON (setcap cap_perfmon=ep "
				 "pmukit), or sysctl kernel.perf_event_paranoid=-1");
	}
}

/* Which sources of sampled data addresses (for data address -> node) exist here:
 * PEBS (Intel core PMU with precise_ip), IBS (ibs_op), SPE (arm_spe) by their sysfs
 * PMUs and caps, and the software page-faults event, which every kernel has. */
static void data_address_sources(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	const struct pmuk_caps_live *l = j->l;
	struct pmu_caps *c = j->c;
	int precise = l->precise_max != PMUK_NOT_PROBED ? l->precise_max > 0 : s->max_precise > 0;
	int pebs = j->x86 && precise && !strcmp(s->vendor, "GenuineIntel");
	const char *hw_why = j->perf_blocked ? "perf_event_open is unusable (concern 1)" :
			     s->ncore == 0 ? j->no_pmu : "the core PMU samples without data "
			     "addresses (no precise_ip) and there is no ibs_op or arm_spe PMU";

	pmuk_caps_fact(c, PMU_CONCERN_TOPOLOGY, "data_address_sources",
		       "where sampled data addresses come from (-d): PEBS (Intel, precise_ip), "
		       "IBS (ibs_op PMU), SPE (arm_spe PMU); page-faults (software, exact "
		       "faulting addresses) always", "%s%s%spage-faults", pebs ? "PEBS " : "",
		       s->have_ibs_op ? "IBS " : "", s->have_spe ? "SPE " : "");
	if (!pebs || !s->have_ibs_op || !s->have_spe)
		pmuk_caps_fact(c, PMU_CONCERN_TOPOLOGY, "data_address_sources_missing",
			       "the hardware sources this host lacks, and why", "%s%s%s: %s",
			       pebs ? "" : "PEBS ", s->have_ibs_op ? "" : "IBS ",
			       s->have_spe ? "" : "SPE", pebs || s->have_ibs_op || s->have_spe ?
			       "each is a PMU of another CPU vendor" : hw_why);
	if (j->perf_blocked) {
		pmuk_caps_limit(c, PMU_CONCERN_TOPOLOGY, "sampled data address -> node "
				"attribution needs perf_event_open, which is unusable here");
		pmuk_caps_remedy(c, PMU_CONCERN_TOPOLOGY, "as for concern 1");
	} else if (!pebs && !s->have_ibs_op && !s->have_spe) {
		pmuk_caps_limit(c, PMU_CONCERN_TOPOLOGY, "no hardware data-address sampling "
				"(concern 3: no PEBS, IBS or SPE: %s): only the software page-faults event "
				"gives data addresses (first touches, which decide placement)",
				hw_why);
		pmuk_caps_remedy(c, PMU_CONCERN_TOPOLOGY, "record -e page-faults -d; for loads "
				 "and stores, a host with PEBS, IBS or SPE (as for concern 3)");
	}
}

void pmuk_caps_judge_topology(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	const struct pmuk_caps_live *l = j->l;
	struct pmu_caps *c = j->c;
	int nodes = s->numa_nodes > 0 ? s->numa_nodes : 1;

#ifdef PMUKIT_HAVE_HWLOC
	pmuk_caps_fact(c, PMU_CONCERN_TOPOLOGY,
		       "hwloc", "portable topology: packages, caches, NUMA distances", "built in");
#else
	pmuk_caps_fact(c, PMU_CONCERN_TOPOLOGY,
		       "hwloc", "this build has no hwloc (PMUKIT_HAVE_HWLOC unset)", "not built in");
#endif
	pmuk_caps_fact(c, PMU_CONCERN_TOPOLOGY,
		       "numa_nodes", s->numa_nodes < 0 ? "no /sys/devices/system/node: "
		       "the kernel has no NUMA support" : "/sys/devices/system/node/node*", "%d", nodes);
	if (l->move_pages_err > 0)
		pmuk_caps_fact(c, PMU_CONCERN_TOPOLOGY,
			       "move_pages", pmuk_caps_errno_meaning(l->move_pages_err), "%s",
			       pmuk_caps_errno_name(l->move_pages_err));
	else if (l->move_pages_err == 0)
		pmuk_caps_fact(c, PMU_CONCERN_TOPOLOGY,
			       "move_pages", "query mode answered the node of a touched page",
			       "ok (node %d)", l->move_pages_node);
	pmuk_caps_set(c, PMU_CONCERN_TOPOLOGY,
		      PMU_CAP_AVAILABLE, "%d NUMA node%s%s%s", nodes, nodes == 1 ? "" : "s",
		      s->cpus_online > 0 ? ", CPU topology in sysfs" : "",
		      l->move_pages_err == 0 ? ", page -> node queries (move_pages)" : "");
	if (!s->have_topology) {
		pmuk_caps_limit(c, PMU_CONCERN_TOPOLOGY,
				"no CPU topology in /sys/devices/system/cpu/cpu0/topology: "
				"cores and packages are not known");
		pmuk_caps_remedy(c, PMU_CONCERN_TOPOLOGY,
				 "mount sysfs at /sys (mount -t sysfs sysfs /sys)");
	}
	if (l->move_pages_err > 0) {
		pmuk_caps_limit(c, PMU_CONCERN_TOPOLOGY,
				"move_pages fails with %s (%s), so pages cannot be mapped "
				"to nodes", pmuk_caps_errno_name(l->move_pages_err),
				pmuk_caps_errno_meaning(l->move_pages_err));
		pmuk_caps_remedy(c, PMU_CONCERN_TOPOLOGY,
				 "%s", l->move_pages_err == ENOSYS ? "boot a kernel with "
				 "CONFIG_NUMA for page -> node queries" : "allow move_pages in the "
				 "seccomp profile of this process (containers filter it)");
	}
	data_address_sources(j);
	pmuk_caps_fact(c, PMU_CONCERN_TOPOLOGY, "memory_controller_pmus",
		       "bandwidth per node (stat --per-node): uncore_imc_* (Intel), amd_umc_* "
		       "(AMD); amd_df alone has no encoding in pmukit", "%s",
		       strstr(s->pmus, "uncore_imc") ? "uncore_imc" :
		       strstr(s->pmus, "amd_umc_") ? "amd_umc" :
		       strstr(s->pmus, "amd_df") ? "amd_df only (unusable)" : "none");
}

void pmuk_caps_judge_events(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	const struct pmuk_caps_live *l = j->l;
	struct pmu_caps *c = j->c;

	pmuk_caps_fact(c, PMU_CONCERN_EVENTS, "sysfs_pmus", "/sys/bus/event_source/devices", "%s",
		       s->pmus[0] ? s->pmus : "none");
	pmuk_caps_fact(c, PMU_CONCERN_EVENTS,
		       "libpfm4", l->pfm < 0 ? "PMUKIT_HAVE_PFM unset: no CPU-specific "
		       "event tables" : l->pfm ? "PMUs libpfm4 finds present" :
		       l->pfm_why[0] ? l->pfm_why : "pfm_initialize failed", "%s",
		       l->pfm < 0 ? "not built in" :
		       l->pfm ? (l->pfm_pmus[0] ? l->pfm_pmus : "none present") : "failed");
	if (j->perf_blocked) {
		pmuk_caps_set(c, PMU_CONCERN_EVENTS,
			      PMU_CAP_LIMITED, "names resolve to encodings, but "
			      "perf_event_open is unusable here (concern 1)");
		pmuk_caps_remedy(c, PMU_CONCERN_EVENTS, "as for concern 1");
	} else if (!s->ncore) {
		pmuk_caps_set(c, PMU_CONCERN_EVENTS,
			      PMU_CAP_LIMITED, "software events, tracepoints and the sysfs "
			      "PMUs (%s) can be named; hardware event names have no PMU to encode "
			      "for", s->pmus[0] ? s->pmus : "none");
		pmuk_caps_remedy(c, PMU_CONCERN_EVENTS, "as for concern 1 (no hardware PMU)");
	} else if (l->pfm < 0) {
		pmuk_caps_set(c, PMU_CONCERN_EVENTS,
			      PMU_CAP_LIMITED, "generic, sysfs-alias (pmu/event/) and raw "
			      "(rNNNN) events only: libpfm4 is not built in");
		pmuk_caps_remedy(c, PMU_CONCERN_EVENTS,
				 "install libpfm4 (libpfm4-dev) and rebuild pmukit");
	} else if (!l->pfm) {
		pmuk_caps_set(c, PMU_CONCERN_EVENTS,
			      PMU_CAP_LIMITED, "generic, sysfs-alias and raw events only: libpfm4 "
			      "is not usable (%s)", l->pfm_why[0] ? l->pfm_why : "failed");
		pmuk_caps_remedy(c, PMU_CONCERN_EVENTS, "install libpfm4 (Debian: apt install libpfm4)");
	} else if (!l->pfm_core) {
		pmuk_caps_set(c, PMU_CONCERN_EVENTS,
			      PMU_CAP_LIMITED, "libpfm4 has no event table for this CPU "
			      "(found: %s); generic, sysfs-alias and raw events work",
			      l->pfm_pmus[0] ? l->pfm_pmus : "none");
		pmuk_caps_remedy(c, PMU_CONCERN_EVENTS,
				 "use a newer libpfm4, or sysfs aliases and raw encodings");
	} else {
		pmuk_caps_set(c, PMU_CONCERN_EVENTS,
			      PMU_CAP_AVAILABLE, "libpfm4 event tables (%s), generic events, "
			      "sysfs aliases and raw encodings", l->pfm_pmus);
	}
}

void pmuk_caps_judge_oscounters(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	struct pmu_caps *c = j->c;

	pmuk_caps_fact(c, PMU_CONCERN_OSCOUNTERS,
		       "proc_stat", "per-CPU user/system/idle/iowait/steal time", "%s",
		       s->proc_stat ? "readable" : "unreadable");
	pmuk_caps_fact(c, PMU_CONCERN_OSCOUNTERS,
		       "cpufreq", "per-CPU frequency (/sys/devices/system/cpu/cpu0/cpufreq)",
		       "%s", s->cpufreq ? (s->cpufreq_driver[0] ? s->cpufreq_driver : "present") : "absent");
	pmuk_caps_fact(c, PMU_CONCERN_OSCOUNTERS,
		       "cpuidle", "idle-state residency (/sys/devices/system/cpu/cpu0/cpuidle)",
		       "%s", s->cpuidle ? (s->cpuidle_driver[0] ? s->cpuidle_driver : "present") : "absent");
	if (!s->proc_stat) {
		pmuk_caps_set(c, PMU_CONCERN_OSCOUNTERS,
			      PMU_CAP_UNAVAILABLE, "/proc/stat is not readable");
		pmuk_caps_remedy(c, PMU_CONCERN_OSCOUNTERS,
				 "mount procfs: mount -t proc proc /proc");
		return;
	}
	pmuk_caps_set(c, PMU_CONCERN_OSCOUNTERS,
		      PMU_CAP_AVAILABLE, "per-CPU user/nice/system/idle/iowait/irq/"
		      "softirq/steal time from /proc/stat%s%s (pmu_cpustat_*, 'pmukit cpustat')",
		      s->cpufreq ? ", frequency from cpufreq scaling_cur_freq" : "",
		      s->cpuidle ? ", idle-state (C-state) residency from cpuidle" : "");
	if (!s->cpufreq) {
		pmuk_caps_limit(c, PMU_CONCERN_OSCOUNTERS,
				"no cpufreq: CPU frequency is not exposed%s",
				j->vm ? " (usual in a virtual machine)" : "");
		pmuk_caps_remedy(c, PMU_CONCERN_OSCOUNTERS,
				 "%s", j->vm ? "none inside this virtual machine: the "
				 "hypervisor owns the CPU frequency (read it on the host)" :
				 "load the cpufreq driver for this CPU (intel_pstate, amd-pstate, "
				 "acpi-cpufreq or cppc_cpufreq)");
	}
	if (!s->cpuidle) {
		pmuk_caps_limit(c, PMU_CONCERN_OSCOUNTERS,
				"no cpuidle: idle-state residency is not exposed");
		pmuk_caps_remedy(c, PMU_CONCERN_OSCOUNTERS,
				 "boot with a cpuidle driver (intel_idle, acpi_idle%s)",
				 j->vm ? ", or cpuidle-haltpoll in a KVM guest" : "");
	}
}
