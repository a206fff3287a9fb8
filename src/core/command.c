/* SPDX-License-Identifier: MIT */
/* pmukit/command.h's front: the argument checks and the pid, once for every OS; the
 * process work is the backend's (core/command_int.h). */
#include "core/command_int.h"
#include "core/error.h"

static const struct pmuk_command_head *head(const struct pmu_command *cmd)
{
	return (const struct pmuk_command_head *)(const void *)cmd;
}

/* A prepared command is held before exec until pmu_command_start: it never exits
 * on its own, so waiting for it would never return. */
static int not_started(const char *fn)
{
	return pmuk_fail(PMU_EINVAL, "%s: the command is not started (call "
			 "pmu_command_start first; it would never exit)", fn);
}

int pmu_command_prepare(char *const argv[], struct pmu_command **out)
{
	if (!argv || !argv[0] || !out)
		return pmuk_fail(PMU_EINVAL, "pmu_command_prepare needs argv with a command name "
				 "and somewhere to store the command");
	*out = NULL;
	return pmuk_command_os_prepare(argv, out);
}

int pmu_command_pid(const struct pmu_command *cmd)
{
	return cmd ? head(cmd)->pid : -1;
}

int pmu_command_start(struct pmu_command *cmd)
{
	if (!cmd || head(cmd)->started)
		return pmuk_fail(PMU_EINVAL, "pmu_command_start: command missing or started already");
	return pmuk_command_os_start(cmd);
}

int pmu_command_wait(struct pmu_command *cmd, int *wait_status)
{
	if (!cmd)
		return pmuk_fail(PMU_EINVAL, "pmu_command_wait: NULL command");
	if (!head(cmd)->started)
		return not_started("pmu_command_wait");
	return pmuk_command_os_wait(cmd, wait_status);
}

int pmu_command_wait_timeout(struct pmu_command *cmd, int timeout_ms, int *wait_status)
{
	if (!cmd)
		return pmuk_fail(PMU_EINVAL, "pmu_command_wait_timeout: NULL command");
	if (timeout_ms < -1)
		return pmuk_fail(PMU_EINVAL, "pmu_command_wait_timeout: timeout %d ms (want -1 "
				 "for none, or >= 0)", timeout_ms);
	if (!head(cmd)->started)
		return not_started("pmu_command_wait_timeout");
	return pmuk_command_os_wait_timeout(cmd, timeout_ms, wait_status);
}

void pmu_command_free(struct pmu_command *cmd)
{
	if (cmd)
		pmuk_command_os_free(cmd);
}
