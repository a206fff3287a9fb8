/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_COMMAND_H
#define PMUKIT_COMMAND_H

/* A child command prepared but held before exec, so counters (or a sampler) can be
 * attached to it first and count it from its very first instruction. */

#ifdef __cplusplus
extern "C" {
#endif

struct pmu_command;

/* Forks; the child waits until pmu_command_start(), then execs argv[0] (PATH search).
 * An exec failure is reported by pmu_command_start() as PMU_ENOENT/PMU_EPERM. */
int pmu_command_prepare(char *const argv[], struct pmu_command **out);
int pmu_command_pid(const struct pmu_command *cmd);
int pmu_command_start(struct pmu_command *cmd);
/* Waits for the child; *wait_status is the raw wait status. Returns PMU_EIO with
 * errno EINTR semantics (detail "interrupted") when a signal arrives first. */
int pmu_command_wait(struct pmu_command *cmd, int *wait_status);
/* Both waits return PMU_EINVAL for a command not started (held before exec, it
 * would never exit). */
/* Waits up to timeout_ms (-1: forever) for the child to exit. Returns 1 once it has
 * exited (*wait_status as for pmu_command_wait, if wait_status is not NULL), 0 when
 * the time ran out first, or PMU_EIO (detail "interrupted") when a signal arrived
 * first. Lets one loop wait for the command and tick an interval timer on every OS. */
int pmu_command_wait_timeout(struct pmu_command *cmd, int timeout_ms, int *wait_status);
/* Kills (if still running) and reaps the child, then frees. */
void pmu_command_free(struct pmu_command *cmd);

#ifdef __cplusplus
}
#endif
#endif
