/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_PFM_DL_H
#define PMUK_LINUX_PFM_DL_H

/* libpfm4, loaded on first use (dlopen) rather than at process start: its
 * event tables are full of pointers, relocated when the library is loaded
 * (about 2 MB of pages, 1 MB of them dirty), a cost that a process naming no
 * libpfm4 event (pmukit exporter, pmukit stat -e task-clock) should not pay. */

#ifdef PMUKIT_HAVE_PFM
#include <perfmon/pfmlib.h>

struct pmuk_pfm_api {
	pfm_err_t (*initialize)(void);
	const char *(*strerror)(int code);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t pmu, pfm_pmu_info_t *output);
	int (*get_event_next)(int idx);
	pfm_err_t (*get_event_info)(int idx, pfm_os_t os, pfm_event_info_t *output);
	pfm_err_t (*get_os_event_encoding)(const char *str, int dfl_plm, pfm_os_t os,
					   void *args);
};

/* The functions, set by pmuk_pfm_load (pmuk_pfm_ready, linux/pmu_sysfs.h, calls
 * it once before pfm_initialize: use them only after pmuk_pfm_ready says 1). */
extern struct pmuk_pfm_api pmuk_pfm;

/* 0, or -1 with why it failed in buf (libpfm4's package missing). */
int pmuk_pfm_load(char *buf, size_t size);
#endif

#endif
