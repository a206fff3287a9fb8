/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_PMU_SYSFS_H
#define PMUK_LINUX_PMU_SYSFS_H

#include <pmukit/events.h>
#include <stddef.h>
#include <stdint.h>

/* /sys/bus/event_source/devices, read through the sysroot. */

#define PMUK_CONFIG_WORDS 4  /* config, config1, config2, config3 (Linux 6.3+) */

/* One format/ file: "config1:0-7,21" names which config word and which bits a term fills. */
struct pmuk_format {
	char name[32];
	int word;          /* 0: config, 1: config1, 2: config2, 3: config3 */
	uint64_t mask;     /* bits the value is spread over, low bits first */
};

/* All PMUs of the host, sorted by name; *out is malloc'd (free()). The list is read
 * once per sysroot (again when its devices directory changes), not on every call.
 * Counter budgets are -1 here (libpfm4 not loaded for them): pmu_device_lookup and
 * pmu_device_core_list give them. */
int pmuk_pmu_scan(struct pmu_device **out, int *n);
/* 1 when the PMU's events live in the kernel's software context (software, tracepoint,
 * breakpoint, msr, kprobe, uprobe): they may join a group led by a hardware event. */
int pmuk_pmu_is_software(const char *name, uint32_t type);
/* The format terms of one PMU (possibly none); *out is malloc'd (free()). */
int pmuk_pmu_formats(const char *pmu, struct pmuk_format **out, int *n);
/* Parses one format file body ("config:0-7,32-35"); PMU_EFORMAT if malformed. */
int pmuk_format_parse(const char *text, struct pmuk_format *f);
/* Deposits val into the bits of f (into cfg[f->word]), its low bits into the lowest
 * format bit first, across gaps; PMU_ERANGE when val does not fit. */
int pmuk_format_apply(const struct pmuk_format *f, uint64_t val, uint64_t cfg[PMUK_CONFIG_WORDS]);
/* Reads events/NAME of a PMU ("event=0x3c,umask=0x00"); PMU_ENOENT when absent. */
int pmuk_pmu_alias(const char *pmu, const char *alias, char *buf, size_t n);
/* The event alias names of a PMU (no .scale/.unit/... files), as one malloc'd
 * array of 64-byte names; *out NULL and *n 0 when none. */
int pmuk_pmu_alias_names(const char *pmu, char (**out)[64], int *n);
/* The sysfs path of a PMU file for error messages. */
const char *pmuk_pmu_devices_dir(void);

/* libpfm4 is initialised once; returns 1 when usable (0 when compiled out or failed). */
int pmuk_pfm_ready(void);
/* Why libpfm4 built in is not usable, a sentence naming the file and its package
 * ("cannot load libpfm.so.4 (Debian: apt install libpfm4): ..."), or NULL when it
 * is usable or not built in. Loads it first, as pmuk_pfm_ready. */
const char *pmuk_pfm_why(void);
#ifdef PMUKIT_HAVE_PFM
#include "linux/pfm_dl.h"  /* libpfm4 and pmuk_pfm, its functions */
/* libpfm4's facts of PMU p into *pi (zeroed, its size set): 1, or 0 when it has
 * none (pfm_for_all_pmus walks every PMU libpfm4 knows, present or not). */
int pmuk_pfm_pmu_info(pfm_pmu_t p, pfm_pmu_info_t *pi);
#endif

#endif
