/* SPDX-License-Identifier: MIT */
/* Capability matrix on Linux: judges what was read and probed into the eight answers. */
#include "linux/caps_linux.h"
#include "core/caps_model.h"
#include "core/error.h"
#include "core/os_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>



static const struct {
	const char *sig;
	const char *name;
} cpuid_sigs[] = {
	{ "KVMKVMKVM", "KVM" },     { "Microsoft Hv", "Hyper-V" }, { "VMwareVMware", "VMware" },
	{ "XenVMMXenVMM", "Xen" },  { "TCGTCGTCGTCG", "QEMU TCG" }, { "VBoxVBoxVBox", "VirtualBox" },
	{ "ACRNACRNACRN", "ACRN" }, { "bhyve bhyve ", "bhyve" },   { " lrpepyh  vr", "Parallels" },
};

/* DMI strings that only virtual machines carry, product names before vendors. */
static const struct {
	const char *match;
	const char *name;
} dmi_sigs[] = {
	{ "KVM", "KVM" },           { "QEMU", "QEMU" },       { "VMware", "VMware" },
	{ "VirtualBox", "VirtualBox" }, { "innotek", "VirtualBox" }, { "Xen", "Xen" },
	{ "Virtual Machine", "Hyper-V" }, { "Parallels", "Parallels" }, { "BHYVE", "bhyve" },
	{ "Google Compute Engine", "Google Compute Engine" },
};

int pmuk_caps_has_cap(const struct pmuk_caps_sys *s, int bit)
{
	return s->have_capeff && ((s->cap_eff >> bit) & 1);
}

static const char *dmi_name(const char *v)
{
	for (size_t i = 0; v[0] && i < sizeof(dmi_sigs) / sizeof(dmi_sigs[0]); i++)
		if (strstr(v, dmi_sigs[i].match))
			return dmi_sigs[i].name;
	return NULL;
}

static void judge_vm(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	const char *name = NULL;

	for (size_t i = 0; j->l->hv_vendor[0] && i < sizeof(cpuid_sigs) / sizeof(cpuid_sigs[0]); i++)
		if (!strcmp(j->l->hv_vendor, cpuid_sigs[i].sig))
			name = cpuid_sigs[i].name;
	if (!name && !strcmp(s->hv_type, "xen"))
		name = "Xen";
	if (!name)
		name = dmi_name(s->dmi_product);
	if (!name)
		name = dmi_name(s->dmi_vendor);
	j->vm = s->hv_flag || s->hv_type[0] || j->l->hv_vendor[0] || name;
	snprintf(j->hv, sizeof(j->hv), "%s", j->vm && name ? name : "");
	if (j->hv[0])
		snprintf(j->vm_phrase, sizeof(j->vm_phrase), "virtual machine (%s)", j->hv);
	else
		snprintf(j->vm_phrase, sizeof(j->vm_phrase), "virtual machine");
	if (j->vm)
		snprintf(j->no_pmu, sizeof(j->no_pmu), "no hardware PMU: %s: the hypervisor "
			 "exposes no virtual PMU", j->vm_phrase);
	else
		snprintf(j->no_pmu, sizeof(j->no_pmu), "no hardware PMU: no core PMU under "
			 "/sys/bus/event_source/devices (no kernel driver for this CPU's PMU)");
}

static void host_facts(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	struct pmu_caps *c = j->c;

	pmuk_caps_fact(c, PMU_CONCERN_HOST,
		       "kernel", "kernel release (/proc/sys/kernel/osrelease)", "%s",
		       s->kernel[0] ? s->kernel : "unknown");
	pmuk_caps_fact(c, PMU_CONCERN_HOST,
		       "arch", "machine architecture (uname)", "%s", j->l->arch);
	if (s->vendor[0])
		pmuk_caps_fact(c, PMU_CONCERN_HOST,
			       "cpu_vendor", "vendor_id of /proc/cpuinfo", "%s", s->vendor);
	if (s->cpus_online > 0)
		pmuk_caps_fact(c, PMU_CONCERN_HOST,
			       "cpus_online", "/sys/devices/system/cpu/online", "%d",
			       s->cpus_online);
	pmuk_caps_fact(c, PMU_CONCERN_HOST, "hypervisor_flag",
		       "the CPU reports running under a hypervisor (x86 cpuinfo flag)", "%s",
		       s->hv_flag ? "yes" : "no");
	if (j->l->hv_vendor[0])
		pmuk_caps_fact(c, PMU_CONCERN_HOST,
			       "hypervisor_cpuid", "CPUID leaf 0x40000000 signature", "%s",
			       j->l->hv_vendor);
	if (s->hv_type[0])
		pmuk_caps_fact(c, PMU_CONCERN_HOST,
			       "hypervisor_type", "/sys/hypervisor/type", "%s", s->hv_type);
	if (s->dmi_vendor[0] || s->dmi_product[0])
		pmuk_caps_fact(c, PMU_CONCERN_HOST,
			       "dmi", "DMI sys_vendor / product_name", "%s / %s",
			       s->dmi_vendor, s->dmi_product);
	pmuk_caps_fact(c, PMU_CONCERN_HOST, "virtual_machine",
		       j->vm ? "hardware counters exist only if the hypervisor virtualizes the PMU"
			     : "no hypervisor detected",
		       "%s", j->vm ? j->vm_phrase : "no");
	pmuk_caps_host_set(c, s->kernel, j->l->arch, j->vm, j->hv);
}

/* What each perf_event_paranoid level allows a user without CAP_PERFMON. */
static const char *const paranoid_levels[] = {
	"no restrictions: any user may measure the kernel, all CPUs and raw tracepoint data",
	"users may measure the kernel and all CPUs; raw tracepoint data needs CAP_PERFMON",
	"users may measure their own processes in user and kernel mode; "
	"CPU-wide events need CAP_PERFMON",
	"users may measure their own processes in user space only; "
	"kernel-mode and CPU-wide events need CAP_PERFMON",
	"users without CAP_PERFMON may not use perf_event_open at all "
	"(Debian/Android kernels; mainline treats it as 2)",
};

static const char *paranoid_meaning(int level)
{
	level = level < -1 ? -1 : level > 3 ? 3 : level;
	return paranoid_levels[level + 1];
}

static void pmu_remedy(struct pmuk_caps_judge *j, int id)
{
	if (id != PMU_CONCERN_COUNTING)
		pmuk_caps_remedy(j->c, id, "as for concern 1: %s", j->vm ? "enable a virtual "
				 "PMU or run on bare metal" : "boot a kernel with this CPU's PMU driver");
	else if (j->vm)
		pmuk_caps_remedy(j->c, id, "enable a virtual PMU in the hypervisor (QEMU/KVM: "
				 "-cpu host,pmu=on; libvirt: <pmu state='on'/>; cloud: an instance type "
				 "with a vPMU) or run on bare metal");
	else
		pmuk_caps_remedy(j->c, id, "boot a kernel with the PMU driver for this CPU "
				 "(dmesg | grep -i 'performance events' shows what it found)");
}

/* perf_event_open is unusable: counting, sampling and precise sampling all go. */
static void blocked_all(struct pmuk_caps_judge *j, const char *reason, const char *remedy)
{
	for (int id = PMU_CONCERN_COUNTING; id <= PMU_CONCERN_PRECISE; id++) {
		pmuk_caps_set(j->c, id, PMU_CAP_UNAVAILABLE, "%s", reason);
		pmuk_caps_remedy(j->c, id, "%s", remedy);
	}
	j->perf_blocked = 1;
}

/* Counter policy: paranoid, credentials, and whether perf_event_open works at all. */
static void judge_policy(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	const struct pmuk_caps_live *l = j->l;
	struct pmu_caps *c = j->c;
	char why[256];
	int perfmon = pmuk_caps_has_cap(s, PMUK_CAP_PERFMON);
	int admin = pmuk_caps_has_cap(s, PMUK_CAP_SYS_ADMIN);

	j->priv = perfmon || admin;
	if (s->have_capeff)
		pmuk_caps_fact(c, PMU_CONCERN_COUNTING, "capabilities", j->priv ?
			       "CAP_PERFMON or CAP_SYS_ADMIN held: perf_event_paranoid does not apply" :
			       "neither CAP_PERFMON nor CAP_SYS_ADMIN: perf_event_paranoid applies",
			       "CapEff=%016llx perfmon=%s sys_admin=%s", (unsigned long long)s->cap_eff,
			       perfmon ? "yes" : "no", admin ? "yes" : "no");
	if (s->euid >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_COUNTING, "euid", s->euid == 0 && !j->priv ?
			       "uid 0 without the capabilities (a container?) is not privileged for perf"
			       : "effective user id", "%d", s->euid);
	if (!s->have_perf) {
		blocked_all(j, "the kernel has no perf_event support "
			    "(/proc/sys/kernel/perf_event_paranoid is absent)",
			    "boot a kernel built with CONFIG_PERF_EVENTS");
		return;
	}
	pmuk_caps_fact(c, PMU_CONCERN_COUNTING,
		       "perf_event_paranoid", paranoid_meaning(s->paranoid), "%d", s->paranoid);
	/* The probe counts its own thread in user space, which only paranoid >= 3
	 * (Debian, Android) refuses a user without CAP_PERFMON; any other refusal
	 * comes from a seccomp filter (containers) or an LSM. */
	if ((l->sw_count_err == EACCES || l->sw_count_err == EPERM ||
	     l->sw_count_err == PMUK_NOT_PROBED) && s->paranoid >= 3 && !j->priv) {
		snprintf(why, sizeof(why), "perf_event_open is denied: perf_event_paranoid=%d "
			 "forbids it to users without CAP_PERFMON", s->paranoid);
		blocked_all(j, why, "run as root or grant CAP_PERFMON (setcap cap_perfmon=ep "
			    "pmukit), or lower it: sysctl kernel.perf_event_paranoid=2");
	} else if (l->sw_count_err == EACCES || l->sw_count_err == EPERM) {
		snprintf(why, sizeof(why), "perf_event_open is denied (%s) although "
			 "perf_event_paranoid=%d%s allows it: a seccomp filter or an LSM policy "
			 "(SELinux, AppArmor) refuses it", pmuk_caps_errno_name(l->sw_count_err),
			 s->paranoid, j->priv ? " and CAP_PERFMON" : "");
		blocked_all(j, why, "allow perf_event_open in the seccomp profile (containers: "
			    "docker run --security-opt seccomp=PROFILE with perf_event_open allowed, "
			    "or --cap-add PERFMON) and check the audit log for LSM denials");
	} else if (l->sw_count_err > 0) {
		snprintf(why, sizeof(why), "perf_event_open(task-clock) failed with %s: %s",
			 pmuk_caps_errno_name(l->sw_count_err),
			 pmuk_caps_errno_meaning(l->sw_count_err));
		blocked_all(j, why, "check dmesg and the seccomp/LSM policy of this process");
	}
	if (l->cpu_wide_err != PMUK_NOT_PROBED)
		pmuk_caps_fact(c, PMU_CONCERN_COUNTING, "cpu_wide_counting",
			       l->cpu_wide_err ? pmuk_caps_errno_meaning(l->cpu_wide_err)
					       : "counting every task on a CPU is allowed",
			       "%s", l->cpu_wide_err ? pmuk_caps_errno_name(l->cpu_wide_err) : "ok");
}

/* The limits perf_event_paranoid puts on an unprivileged user, per concern. */
static void paranoid_limits(struct pmuk_caps_judge *j, int id)
{
	const struct pmuk_caps_sys *s = j->s;

	if (j->priv || j->perf_blocked || s->paranoid < 1)
		return;
	if (s->paranoid >= 2)
		pmuk_caps_limit(j->c, id, "perf_event_paranoid=%d: user space of your own processes "
				"only; kernel-mode and CPU-wide %s need CAP_PERFMON", s->paranoid,
				id == PMU_CONCERN_COUNTING ? "counting" : "sampling");
	else
		pmuk_caps_limit(j->c, id, "perf_event_paranoid=1: CPU-wide %s needs CAP_PERFMON",
				id == PMU_CONCERN_COUNTING ? "counting" : "sampling");
	/* kernel mode needs paranoid <= 1, CPU-wide <= 0 */
	pmuk_caps_remedy(j->c, id, "run as root or grant CAP_PERFMON (setcap cap_perfmon=ep "
			 "pmukit), or %s", s->paranoid >= 2 ? "sysctl kernel.perf_event_paranoid=1 "
			 "for kernel mode (0 for CPU-wide too)" : "sysctl kernel.perf_event_paranoid=0");
}

static void core_pmu_list(const struct pmuk_caps_sys *s, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int i = 0; i < s->ncore; i++) {
		size_t n = strlen(buf);

		snprintf(buf + n, size - n, "%s%s", i ? "," : "", s->core[i].name);
	}
}

/* What counting rests on: the core PMUs, their counters, who else holds them. */
static void counting_facts(struct pmuk_caps_judge *j, const char *cores)
{
	const struct pmuk_caps_sys *s = j->s;
	const struct pmuk_caps_live *l = j->l;
	struct pmu_caps *c = j->c;

	pmuk_caps_fact(c, PMU_CONCERN_COUNTING,
		       "core_pmus", s->ncore > 1 ? "hybrid CPU: one core PMU per core type; "
		       "an event opens on one type" : "CPU core PMUs in /sys/bus/event_source/devices",
		       "%s", s->ncore ? cores : "none");
	for (int i = 0; i < s->ncore; i++)
		if (s->core[i].gp_counters >= 0)
			pmuk_caps_fact(c, PMU_CONCERN_COUNTING,
				       "counters", "hardware counters per CPU (from libpfm4); "
				       "more events than this are multiplexed", "%s: %d general-purpose"
				       " + %d fixed", s->core[i].name, s->core[i].gp_counters,
				       s->core[i].fixed_counters);
	if (l->hw_count_err != PMUK_NOT_PROBED)
		pmuk_caps_fact(c, PMU_CONCERN_COUNTING, "cycles_open",
			       l->hw_count_err ? pmuk_caps_errno_meaning(l->hw_count_err)
					       : "perf_event_open(PERF_TYPE_HARDWARE, cycles) works",
			       "%s", l->hw_count_err ? pmuk_caps_errno_name(l->hw_count_err) : "ok");
	if (s->nmi_watchdog >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_COUNTING,
			       "nmi_watchdog", s->nmi_watchdog && s->ncore && j->x86 ?
			       "the hard-lockup detector keeps one hardware counter busy on every CPU"
			       : "the hard-lockup detector holds no counter", "%d", s->nmi_watchdog);
	if (s->rdpmc >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_COUNTING,
			       "rdpmc", s->rdpmc == 0 ? "user-space rdpmc is disabled"
			       : s->rdpmc == 1 ? "rdpmc allowed to a process with an open event (self-monitoring)"
			       : "rdpmc allowed always", "%d", s->rdpmc);
	if (s->perf_user_access >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_COUNTING, "perf_user_access", s->perf_user_access ?
			       "arm64 user-space counter reads allowed for self-monitoring"
			       : "arm64 user-space counter reads disabled", "%d", s->perf_user_access);
	pmuk_caps_fact(c, PMU_CONCERN_COUNTING,
		       "perf_event_holders", "other processes with perf_event fds share the "
		       "counters with us (scan of /proc/*/fd)", "%d%s%s", s->holders,
		       s->holders ? ": " : "", s->holder_list);
	if (s->hidden_procs)
		pmuk_caps_fact(c, PMU_CONCERN_COUNTING,
			       "perf_event_holders_hidden", "processes whose fds this user "
			       "cannot read, so their perf_event use is unknown", "%d", s->hidden_procs);
}

/* Hardware counting, software only, or hardware present but failing to open. */
static void counting_verdict(struct pmuk_caps_judge *j, const char *cores)
{
	const struct pmuk_caps_sys *s = j->s;
	const struct pmuk_caps_live *l = j->l;
	struct pmu_caps *c = j->c;

	if (!s->ncore) {
		pmuk_caps_set(c, PMU_CONCERN_COUNTING,
			      PMU_CAP_LIMITED, "%s; software counters only (task-clock, "
			      "cpu-clock, page-faults, context-switches, ...)", j->no_pmu);
		pmu_remedy(j, PMU_CONCERN_COUNTING);
	} else if (l->hw_count_err > 0) {
		pmuk_caps_set(c, PMU_CONCERN_COUNTING,
			      PMU_CAP_LIMITED, "hardware PMU %s present but cycles fails to "
			      "open with %s (%s); software counters work", cores,
			      pmuk_caps_errno_name(l->hw_count_err),
			      pmuk_caps_errno_meaning(l->hw_count_err));
		pmuk_caps_remedy(c, PMU_CONCERN_COUNTING,
				 "%s", l->hw_count_err == EBUSY || l->hw_count_err == ENOSPC ?
				 "stop the tool holding the counters (see perf_event_holders; a "
				 "hypervisor or firmware may hold them too)" : "check dmesg for what "
				 "the PMU driver reported at boot");
	} else {
		pmuk_caps_set(c, PMU_CONCERN_COUNTING,
			      PMU_CAP_AVAILABLE, "hardware and software counters on %s%s",
			      cores, s->ncore > 1 ? " (hybrid: an event counts on one core type)" : "");
	}
}

/* What takes counters away or makes reads cost a system call. */
static void counting_limits(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	struct pmu_caps *c = j->c;

	if (s->nmi_watchdog == 1 && j->x86) {
		pmuk_caps_limit(c, PMU_CONCERN_COUNTING,
				"one counter is taken by the NMI watchdog");
		pmuk_caps_remedy(c, PMU_CONCERN_COUNTING,
				 "echo 0 > /proc/sys/kernel/nmi_watchdog to free it");
	}
	if (s->holders) {
		pmuk_caps_limit(c, PMU_CONCERN_COUNTING,
				"%d other process(es) hold perf_event fds (%s): counters are "
				"shared and may be multiplexed", s->holders, s->holder_list);
		pmuk_caps_remedy(c, PMU_CONCERN_COUNTING,
				 "stop those tools or expect time_running < time_enabled");
	}
	if (s->rdpmc == 0) {
		pmuk_caps_limit(c, PMU_CONCERN_COUNTING,
				"rdpmc self-reads are disabled, so every read is a system call");
		pmuk_caps_remedy(c, PMU_CONCERN_COUNTING,
				 "echo 1 > /sys/bus/event_source/devices/%s/rdpmc", s->core[0].name);
	}
	if (s->perf_user_access == 0) {
		pmuk_caps_limit(c, PMU_CONCERN_COUNTING, "user-space counter reads are disabled "
				"(kernel.perf_user_access=0), so every read is a system call");
		pmuk_caps_remedy(c, PMU_CONCERN_COUNTING, "sysctl kernel.perf_user_access=1");
	}
}

static void judge_counting(struct pmuk_caps_judge *j)
{
	char cores[256];

	core_pmu_list(j->s, cores, sizeof(cores));
	counting_facts(j, cores);
	if (j->perf_blocked)
		return;
	counting_verdict(j, cores);
	paranoid_limits(j, PMU_CONCERN_COUNTING);
	if (j->s->ncore)
		counting_limits(j);
}

/* What sampling rests on: the kernel's rate and memory limits, the cpu-clock probe. */
static void sampling_facts(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	const struct pmuk_caps_live *l = j->l;
	struct pmu_caps *c = j->c;

	if (s->max_sample_rate >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_SAMPLING,
			       "perf_event_max_sample_rate", "samples per second per CPU above "
			       "which the kernel throttles (it lowers this itself when sampling "
			       "costs too much)", "%d", s->max_sample_rate);
	if (s->cpu_time_max_percent >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_SAMPLING,
			       "perf_cpu_time_max_percent", "share of CPU time sampling "
			       "interrupts may take before the kernel lowers the sample rate",
			       "%d", s->cpu_time_max_percent);
	if (s->mlock_kb >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_SAMPLING,
			       "perf_event_mlock_kb", "ring-buffer KiB each user may lock per "
			       "online CPU before RLIMIT_MEMLOCK is charged; CAP_IPC_LOCK lifts both",
			       "%d", s->mlock_kb);
	if (l->sw_sample_err != PMUK_NOT_PROBED)
		pmuk_caps_fact(c, PMU_CONCERN_SAMPLING, "cpu_clock_sampling", l->sw_sample_err ?
			       pmuk_caps_errno_meaning(l->sw_sample_err) : l->sw_sample_records ?
			       "cpu-clock samples with call chains arrived in the ring buffer"
			       : "the ring buffer mapped, but no sample arrived within 50 ms", "%s",
			       l->sw_sample_err ? pmuk_caps_errno_name(l->sw_sample_err) : "ok");
}

/* Ring-buffer sampling failing, timer only, or hardware overflow too; 0 when it
 * failed (nothing more to say), else 1. */
static int sampling_verdict(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	const struct pmuk_caps_live *l = j->l;
	struct pmu_caps *c = j->c;

	if (l->sw_sample_err > 0) {
		pmuk_caps_set(c, PMU_CONCERN_SAMPLING,
			      PMU_CAP_UNAVAILABLE, "cpu-clock sampling through the ring buffer "
			      "failed with %s: %s", pmuk_caps_errno_name(l->sw_sample_err),
			      pmuk_caps_errno_meaning(l->sw_sample_err));
		pmuk_caps_remedy(c, PMU_CONCERN_SAMPLING,
				 "%s", l->sw_sample_err == EPERM || l->sw_sample_err == ENOMEM ?
				 "map smaller rings, or raise kernel.perf_event_mlock_kb or "
				 "RLIMIT_MEMLOCK (ulimit -l)" : "check dmesg and the seccomp/LSM "
				 "policy of this process");
		return 0;
	}
	if (!s->ncore) {
		pmuk_caps_set(c, PMU_CONCERN_SAMPLING,
			      PMU_CAP_LIMITED, "timer-based software sampling only (cpu-clock); "
			      "no hardware overflow sampling without a PMU");
		pmu_remedy(j, PMU_CONCERN_SAMPLING);
	} else if (l->hw_sample_err > 0) {
		pmuk_caps_set(c, PMU_CONCERN_SAMPLING,
			      PMU_CAP_LIMITED, "cycles overflow sampling fails with %s (%s); "
			      "timer-based cpu-clock sampling works",
			      pmuk_caps_errno_name(l->hw_sample_err),
			      pmuk_caps_errno_meaning(l->hw_sample_err));
		pmuk_caps_remedy(c, PMU_CONCERN_SAMPLING,
				 "%s", l->hw_sample_err == EOPNOTSUPP ? "sample cpu-clock "
				 "instead; the PMU raises no overflow interrupt (on Arm boards the "
				 "device tree or ACPI must describe the PMU interrupt)" : "sample "
				 "cpu-clock instead, and check dmesg for what the PMU driver reported");
	} else {
		pmuk_caps_set(c, PMU_CONCERN_SAMPLING,
			      PMU_CAP_AVAILABLE, "hardware overflow and timer sampling with "
			      "call stacks through the perf ring buffer");
	}
	return 1;
}

static void judge_sampling(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	struct pmu_caps *c = j->c;

	sampling_facts(j);
	if (j->perf_blocked || !sampling_verdict(j))
		return;
	paranoid_limits(j, PMU_CONCERN_SAMPLING);
	if (s->max_sample_rate >= 0 && s->max_sample_rate < 1000) {
		pmuk_caps_limit(c, PMU_CONCERN_SAMPLING,
				"the kernel caps sampling at %d Hz per CPU", s->max_sample_rate);
		pmuk_caps_remedy(c, PMU_CONCERN_SAMPLING,
				 "sysctl kernel.perf_event_max_sample_rate=10000 (the kernel "
				 "lowers it again when sampling takes more than "
				 "perf_cpu_time_max_percent of the CPU)");
	}
}

/* What precise sampling rests on: the advertised and probed precise_ip, branch
 * stacks, the PMUs that sample data addresses. */
static void precise_facts(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	const struct pmuk_caps_live *l = j->l;
	struct pmu_caps *c = j->c;

	if (s->max_precise >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_PRECISE,
			       "max_precise", "precise_ip the core PMU advertises (caps/max_precise)",
			       "%d", s->max_precise);
	if (s->lbr_depth >= 0)
		pmuk_caps_fact(c, PMU_CONCERN_PRECISE,
			       "branch_depth", "branch-stack entries per sample (caps/branches)",
			       "%d", s->lbr_depth);
	if (l->precise_max != PMUK_NOT_PROBED)
		pmuk_caps_fact(c, PMU_CONCERN_PRECISE,
			       "precise_ip_probe", "highest precise_ip the kernel accepted on "
			       "cycles (0: skid not reduced)", "%d", l->precise_max);
	if (l->branch_err != PMUK_NOT_PROBED)
		pmuk_caps_fact(c, PMU_CONCERN_PRECISE, "branch_stack_probe", l->branch_err ?
			       pmuk_caps_errno_meaning(l->branch_err) :
			       "PERF_SAMPLE_BRANCH_STACK on cycles works", "%s",
			       l->branch_err ? pmuk_caps_errno_name(l->branch_err) : "ok");
	pmuk_caps_fact(c, PMU_CONCERN_PRECISE,
		       "precise_surfaces", "PMUs that sample data addresses precisely "
		       "(arm_spe: ARM SPE, ibs_op: AMD IBS, intel_pt: trace)", "%s%s%s%s",
		       s->have_spe ? "arm_spe " : "", s->have_ibs_op ? "ibs_op " : "",
		       s->have_intel_pt ? "intel_pt " : "",
		       s->have_spe || s->have_ibs_op || s->have_intel_pt ? "" : "none");
}

/* The surfaces this PMU offers, listed in surf ("PEBS, IBS, ..., " with a trailing
 * ", "; "" when none): *precise, *branch and *datasrc say which kinds. */
static void precise_surfaces(struct pmuk_caps_judge *j, char *surf, size_t size, int *precise,
			     int *branch, int *datasrc)
{
	const struct pmuk_caps_sys *s = j->s;
	const struct pmuk_caps_live *l = j->l;
	int intel = !strcmp(s->vendor, "GenuineIntel");

	/* Only x86 core PMUs (PEBS, IBS) act on precise_ip; arm_pmu accepts and ignores it. */
	*precise = l->precise_max != PMUK_NOT_PROBED ? l->precise_max > 0 : s->max_precise > 0;
	if (*precise && !j->x86) {
		pmuk_caps_fact(j->c, PMU_CONCERN_PRECISE,
			       "precise_ip_ignored", "the kernel accepts precise_ip on this "
			       "architecture's core PMU without reducing skid", "%s", l->arch);
		*precise = 0;
	}
	*branch = l->branch_err != PMUK_NOT_PROBED ? l->branch_err == 0 : s->lbr_depth > 0;
	*datasrc = s->have_spe || s->have_ibs_op || (*precise && intel);
	surf[0] = '\0';
	if (*precise && intel)
		strcat(surf, "PEBS, ");
	if (s->have_ibs_op)
		strcat(surf, "IBS, ");
	if (s->have_spe)
		strcat(surf, "SPE, ");
	if (*precise)
		snprintf(surf + strlen(surf), size - strlen(surf), "precise_ip up to %d, ",
			 l->precise_max != PMUK_NOT_PROBED ? l->precise_max : s->max_precise);
	if (*branch)
		strcat(surf, "branch stack, ");
}

/* What an available precise concern still lacks, and the privilege it needs. */
static void precise_limits(struct pmuk_caps_judge *j, int precise, int branch, int datasrc)
{
	const struct pmuk_caps_sys *s = j->s;
	struct pmu_caps *c = j->c;
	int skid = !precise && !s->have_ibs_op && !s->have_spe;

	if (!datasrc)
		pmuk_caps_limit(c, PMU_CONCERN_PRECISE,
				"no data-source surface (PEBS, IBS or SPE): no data addresses "
				"or memory levels");
	if (!branch)
		pmuk_caps_limit(c, PMU_CONCERN_PRECISE, "no branch stack");
	if (skid)
		pmuk_caps_limit(c, PMU_CONCERN_PRECISE, "sample IPs carry skid");
	if (!datasrc || !branch || skid)
		pmuk_caps_remedy(c, PMU_CONCERN_PRECISE,
				 "%s", j->vm ? "virtual PMUs rarely pass PEBS, LBR or SPE "
				 "through; run on bare metal" : "none in software: what is missing "
				 "is a feature of this CPU's PMU");
	if (!j->priv && s->paranoid >= 2) {
		pmuk_caps_limit(c, PMU_CONCERN_PRECISE,
				"perf_event_paranoid=%d: physical data addresses and kernel "
				"samples need CAP_PERFMON", s->paranoid);
		pmuk_caps_remedy(c, PMU_CONCERN_PRECISE,
				 "run as root or grant CAP_PERFMON, or sysctl "
				 "kernel.perf_event_paranoid=1");
	}
}

static void judge_precise(struct pmuk_caps_judge *j)
{
	const struct pmuk_caps_sys *s = j->s;
	struct pmu_caps *c = j->c;
	char surf[256];
	int precise, branch, datasrc;

	precise_facts(j);
	if (j->perf_blocked)
		return;
	if (!s->ncore) {
		pmuk_caps_set(c, PMU_CONCERN_PRECISE,
			      PMU_CAP_UNAVAILABLE, "%s; precise sampling (PEBS, IBS, SPE), data "
			      "addresses, data source and branch stacks all need one", j->no_pmu);
		pmu_remedy(j, PMU_CONCERN_PRECISE);
		return;
	}
	precise_surfaces(j, surf, sizeof(surf), &precise, &branch, &datasrc);
	if (!surf[0]) {
		pmuk_caps_set(c, PMU_CONCERN_PRECISE,
			      PMU_CAP_UNAVAILABLE, "the %s PMU offers neither precise sampling "
			      "(no PEBS/IBS; on Arm that needs the SPE PMU, arm_spe, absent here), a "
			      "data-source PMU nor branch stacks", s->core[0].name);
		pmuk_caps_remedy(c, PMU_CONCERN_PRECISE,
				 "%s", j->vm ? "virtual PMUs rarely pass PEBS, LBR or SPE "
				 "through; run on bare metal" : j->x86 ? "check dmesg: the PMU "
				 "driver found no PEBS or LBR on this CPU" : "use a CPU with SPE and "
				 "a kernel with the arm_spe_pmu driver (or an x86 CPU with PEBS or "
				 "IBS)");
		return;
	}
	surf[strlen(surf) - 2] = '\0';
	pmuk_caps_set(c, PMU_CONCERN_PRECISE, PMU_CAP_AVAILABLE, "%s", surf);
	precise_limits(j, precise, branch, datasrc);
}

int pmuk_caps_build(const struct pmuk_caps_sys *s, const struct pmuk_caps_live *l,
		    struct pmu_caps **out)
{
	struct pmuk_caps_judge j = { .s = s, .l = l };
	int err;

	*out = NULL;
	j.c = pmuk_caps_new("Linux");
	if (!j.c)
		return pmuk_fail(PMU_ENOMEM, "out of memory while building the capability matrix");
	j.x86 = !strcmp(l->arch, "x86_64") || (l->arch[0] == 'i' && strstr(l->arch, "86"));
	judge_vm(&j);
	host_facts(&j);
	judge_policy(&j);
	judge_counting(&j);
	judge_sampling(&j);
	judge_precise(&j);
	pmuk_caps_judge_symbols(&j);
	pmuk_caps_judge_tracing(&j);
	pmuk_caps_judge_topology(&j);
	pmuk_caps_judge_events(&j);
	pmuk_caps_judge_oscounters(&j);
	err = pmuk_caps_failed(j.c);
	if (err) {
		pmu_caps_free(j.c);
		return err;
	}
	*out = j.c;
	return 0;
}

int pmuk_caps_probe_with(const struct pmuk_caps_live *live, struct pmu_caps **out)
{
	struct pmuk_caps_sys *s;
	struct pmuk_caps_live probed;
	int err;

	if (!out)
		return pmuk_fail(PMU_EINVAL, "pmu_caps_probe needs somewhere to store the matrix");
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return pmuk_fail(PMU_ENOMEM, "out of memory while probing capabilities");
	pmuk_caps_read_sys(s);
	if (!live) {
		pmuk_caps_probe_live(&probed, s->ncore > 0);
		live = &probed;
	}
	err = pmuk_caps_build(s, live, out);
	free(s);
	return err;
}

int pmuk_os_caps_probe(struct pmu_caps **out)
{
	return pmuk_caps_probe_with(NULL, out);
}
