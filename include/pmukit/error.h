/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_ERROR_H
#define PMUKIT_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Every function returns 0 on success or one of these negative codes.
 * pmu_error_detail() then says why, in a sentence, for the calling thread. */
enum pmu_error {
	PMU_OK = 0,
	PMU_EINVAL = -1,      /* bad argument */
	PMU_ENOMEM = -2,      /* out of memory */
	PMU_ENOTSUP = -3,     /* this host or OS cannot do it (no PMU, no surface) */
	PMU_EPERM = -4,       /* not allowed (paranoid level, capability, privilege) */
	PMU_ENOENT = -5,      /* no such event, PMU, file */
	PMU_EPARSE = -6,      /* an event specification did not parse */
	PMU_EBUDGET = -7,     /* a group needs more counters than the PMU has */
	PMU_EBUSY = -8,       /* the resource is held by someone else */
	PMU_ESRCH = -9,       /* no such process or thread */
	PMU_EIO = -10,        /* a system call failed for another reason */
	PMU_EFORMAT = -11,    /* corrupt or truncated input */
	PMU_ERANGE = -12,     /* a buffer was too small */
};

/* A fixed phrase for the code. */
const char *pmu_strerror(int err);

/* The sentence explaining the last failure in this thread (never NULL). */
const char *pmu_error_detail(void);

enum pmu_log_level { PMU_LOG_ERROR, PMU_LOG_WARN, PMU_LOG_INFO, PMU_LOG_DEBUG };

/* The library never prints; it hands messages to this callback (NULL: drop). */
typedef void (*pmu_log_fn)(enum pmu_log_level level, const char *msg, void *ctx);
void pmu_log_set(pmu_log_fn fn, void *ctx);

/* Every /sys and /proc read goes through this root prefix ("" by default, or the
 * PMUKIT_SYSROOT environment variable), so tests can point pmukit at fixture trees. */
int pmu_sysroot_set(const char *root);
const char *pmu_sysroot(void);

#ifdef __cplusplus
}
#endif
#endif
