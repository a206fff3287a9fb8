/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_CAPS_LINUX_H
#define PMUK_LINUX_CAPS_LINUX_H

#include <pmukit/caps.h>
#include <pmukit/events.h>
#include <stdint.h>

/* The Linux capability probe in three steps: read files (through the sysroot, so
 * tests use fixture trees), run syscall probes (live only; tests inject results),
 * then judge both into the matrix. */

#define PMUK_NOT_PROBED (-1)   /* errno fields: not probed; otherwise 0 = worked */
#define PMUK_CAPS_MAX_CORE 8

/* Everything read from /proc and /sys; -1 in an int field means "file absent". */
struct pmuk_caps_sys {
	char kernel[128];
	char vendor[32];            /* /proc/cpuinfo vendor_id (x86) */
	/* perf_event policy */
	int have_perf;              /* /proc/sys/kernel/perf_event_paranoid exists */
	int paranoid;
	int have_capeff;
	uint64_t cap_eff;           /* CapEff of /proc/self/status */
	int euid;
	int mlock_kb, max_sample_rate, cpu_time_max_percent;
	int nmi_watchdog;
	int rdpmc, perf_user_access;
	int max_precise, lbr_depth;
	/* PMUs */
	struct pmu_device core[PMUK_CAPS_MAX_CORE];
	int ncore;
	char pmus[1024];            /* every sysfs PMU, comma-separated */
	int have_spe, have_ibs_op, have_intel_pt, have_tracepoint_pmu;
	/* virtual machine */
	int hv_flag;                /* "hypervisor" in the cpuinfo flags */
	char hv_type[32];           /* /sys/hypervisor/type */
	char dmi_vendor[64], dmi_product[64];
	/* tracing */
	char tracefs_mount[256];    /* where tracefs (or debugfs/tracing) is, "" when not */
	int tracefs_readable;       /* its events/ directory can be read */
	int tracefs_known;          /* tracefs in /proc/filesystems */
	/* topology */
	int numa_nodes;             /* -1: no /sys/devices/system/node */
	int cpus_online;
	int have_topology;
	/* code-space decode */
	int kptr_restrict;
	int kallsyms;               /* -1 unreadable, 0 addresses hidden, 1 addresses shown */
	char kernel_build_id[41];
	/* counter ownership */
	int holders;                /* other processes holding perf_event fds */
	char holder_list[512];      /* "pid(comm) ..." */
	int hidden_procs;           /* processes whose fds we could not read */
	/* OS counters */
	int proc_stat;
	char cpufreq_driver[32];    /* "" with cpufreq present but no driver name */
	int cpufreq, cpuidle;
	char cpuidle_driver[32];
};

/* Results of the syscall probes (errno, 0 = worked, PMUK_NOT_PROBED) and of libraries. */
struct pmuk_caps_live {
	char arch[32];
	char hv_vendor[16];         /* CPUID 0x40000000 signature, "" when none */
	int sw_count_err;           /* task-clock counting of this thread (user only) */
	int cpu_wide_err;           /* cpu-clock counting CPU-wide on CPU 0 */
	int hw_count_err;           /* cycles counting of this thread */
	int hw_sample_err;          /* cycles sampling */
	int precise_max;            /* highest precise_ip accepted, PMUK_NOT_PROBED */
	int branch_err;             /* cycles sampling with PERF_SAMPLE_BRANCH_STACK */
	int sw_sample_err;          /* cpu-clock sampling + callchain through the ring buffer */
	int sw_sample_records;      /* samples seen in the ring buffer during the probe */
	int move_pages_err;
	int move_pages_node;
	int pfm;                    /* 1 libpfm4 initialised, 0 failed, -1 not built in */
	char pfm_why[512];          /* when 0: why (pmuk_pfm_why), "" when not known */
	char pfm_pmus[512];         /* PMUs libpfm4 reports present */
	int pfm_core;               /* libpfm4 knows this CPU's core PMU */
};

int pmuk_caps_read_sys(struct pmuk_caps_sys *s);
/* Reads /proc/self/status fields into s; split out for its fixture test. */
void pmuk_caps_read_status(struct pmuk_caps_sys *s);
void pmuk_caps_read_host(struct pmuk_caps_sys *s);
void pmuk_caps_probe_live(struct pmuk_caps_live *l, int have_core_pmu);
/* What a perf_event_open errno means, in a phrase. */
const char *pmuk_caps_errno_meaning(int err);
const char *pmuk_caps_errno_name(int err);

/* Capability bits of CapEff (include/uapi/linux/capability.h). */
#define PMUK_CAP_SYS_ADMIN 21
#define PMUK_CAP_PERFMON 38

/* The state shared by the judges of each concern. */
struct pmuk_caps_judge {
	const struct pmuk_caps_sys *s;
	const struct pmuk_caps_live *l;
	struct pmu_caps *c;
	char hv[64];          /* hypervisor name, "" when unnamed */
	int vm;
	int priv;             /* CAP_PERFMON or CAP_SYS_ADMIN: paranoid does not apply */
	int x86;
	int perf_blocked;     /* perf_event_open unusable: concerns 1-3 unavailable */
	char vm_phrase[96];   /* "virtual machine (KVM)" */
	char no_pmu[192];     /* "no hardware PMU: ..." with the likely cause */
};

int pmuk_caps_has_cap(const struct pmuk_caps_sys *s, int bit);
void pmuk_caps_judge_symbols(struct pmuk_caps_judge *j);
void pmuk_caps_judge_tracing(struct pmuk_caps_judge *j);
void pmuk_caps_judge_topology(struct pmuk_caps_judge *j);
void pmuk_caps_judge_events(struct pmuk_caps_judge *j);
void pmuk_caps_judge_oscounters(struct pmuk_caps_judge *j);

int pmuk_caps_build(const struct pmuk_caps_sys *s, const struct pmuk_caps_live *l,
		    struct pmu_caps **out);
/* pmu_caps_probe() with injected syscall results (NULL: probe live). */
int pmuk_caps_probe_with(const struct pmuk_caps_live *live, struct pmu_caps **out);

#endif
