/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_ETW_HOST_H
#define PMUK_CORE_ETW_HOST_H

/* Host decisions of the Windows backend that need no Windows to compute, so they are
 * tested on any OS: pmukit's ETW session names and the sweep of leftovers, the
 * hypervisor CPUID leaves, the PMC owners of TracePmcCounterOwners and the HCP read
 * flags. */

#include <stddef.h>
#include <stdint.h>

/* Sessions are named "pmukit-<pid>-<n>". A .etl file session stops growing at this
 * many MB (EVENT_TRACE_PROPERTIES.MaximumFileSize): ETW drops events after it. */
#define PMUK_ETW_NAME_PREFIX "pmukit-"
#define PMUK_ETW_MAX_FILE_MB 4096u

/* 1 and *pid when name is one of pmukit's ("pmukit-<pid>" or "pmukit-<pid>-<n>",
 * decimal, no sign), else 0. */
int pmuk_etw_session_name_pid(const char *name, uint32_t *pid);
/* Whether a session found at start is a leftover to stop: pmukit's name, not this
 * process, and its process gone (alive: 1 runs, 0 gone, -1 unknown: kept). */
int pmuk_etw_sweep_decide(const char *name, uint32_t self_pid, int (*alive)(uint32_t pid,
			  void *ctx), void *ctx);

/* CPUID: leaf 1 ECX, leaf 0x40000000 EAX..EDX, and 0x40000003 EBX (read only when
 * leaf 0x40000000 says it exists). */
struct pmuk_cpuid_hv {
	uint32_t leaf1_ecx;
	uint32_t hv_max, hv_sig[3];   /* 0x40000000: EAX, EBX ECX EDX */
	uint32_t hv_features_ebx;     /* 0x40000003 EBX (Hyper-V partition privileges) */
};
struct pmuk_hv_verdict {
	int vm;                       /* a guest of a hypervisor */
	int root;                     /* the Hyper-V root partition (VBS, Hyper-V host) */
	char name[48];                /* "Hyper-V", "KVM", ... or "" */
};
/* 1 when the Hyper-V leaves are there to read (0x40000003 from "Microsoft Hv"). */
int pmuk_cpuid_hv_wants_features(const struct pmuk_cpuid_hv *c);
/* The hypervisor bit, the vendor, and Hyper-V's CreatePartitions privilege (EBX
 * bit 0 of 0x40000003), which only the root partition holds: that one is no VM. */
void pmuk_cpuid_hv_decode(const struct pmuk_cpuid_hv *c, struct pmuk_hv_verdict *v);

/* TracePmcCounterOwners (ETW_PMC_COUNTER_OWNERSHIP_STATUS): {ULONG ProcessorNumber;
 * ULONG NumberOfCounters; {ULONG OwnerType; ULONG ProfileSource; ULONG OwnerTag}[]}.
 * *held: counters with OwnerType != 0 (free). PMU_EFORMAT when cut short. */
int pmuk_etw_owners_parse(const void *buf, size_t len, uint32_t *ncounters, uint32_t *held,
			  char *list, size_t list_len);
/* Whether n PMCs can be had without starting a session: the budget of
 * pmuk_etw_pmc_check (max_query <= 0 unknown), less the counters others hold
 * (held < 0 unknown). 0, or PMU_EBUDGET / PMU_EBUSY with a sentence. */
int pmuk_etw_pmc_decide(size_t n, int sampling, int max_query, int held);

/* HCP: the ReadThreadProfilingData flags that match EnableThreadProfiling's
 * (THREAD_PROFILING_FLAG_DISPATCH 1 -> READ_..._DISPATCHING 1; a nonzero
 * HardwareCounters mask -> READ_..._HARDWARE_COUNTERS 2). */
uint32_t pmuk_hcp_read_flags(uint32_t enable_flags, uint64_t hw_counters);

#endif
