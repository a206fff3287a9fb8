/* SPDX-License-Identifier: MIT */
/* pmu_command_wait_timeout through pmukit.dll: runs EXIT_WITH.exe 3 800 (spins 800 ms,
 * exits 3), expects 0 (still running) from short waits, then 1 with status 3, and 1
 * again after that. Exit 0 pass, 1 fail.
 *   count_command.exe PATH\TO\exit_with.exe */
#include <pmukit/pmukit.h>
#include <stdio.h>
#include <windows.h>

int main(int argc, char **argv)
{
	char *args[] = { argc > 1 ? argv[1] : NULL, "3", "800", NULL };
	struct pmu_command *cmd;
	int status = -1, r, bad = 0;
	ULONGLONG t0;

	if (argc != 2 || pmu_command_prepare(args, &cmd)) {
		printf("prepare: %s\n", pmu_error_detail());
		return 1;
	}
	if (pmu_command_wait_timeout(cmd, -2, &status) != PMU_EINVAL)
		bad++, printf("timeout -2 not refused\n");
	if (pmu_command_start(cmd)) {
		printf("start: %s\n", pmu_error_detail());
		return 1;
	}
	t0 = GetTickCount64();
	if ((r = pmu_command_wait_timeout(cmd, 100, &status)) != 0)
		bad++, printf("wait 100 ms: %d (want 0: still running)\n", r);
	if (GetTickCount64() - t0 < 90)
		bad++, printf("wait 100 ms returned after %llu ms\n", GetTickCount64() - t0);
	if ((r = pmu_command_wait_timeout(cmd, 30000, &status)) != 1 || status != 3)
		bad++, printf("wait: %d status %d (want 1, 3): %s\n", r, status, pmu_error_detail());
	status = -1;
	if ((r = pmu_command_wait_timeout(cmd, 0, &status)) != 1 || status != 3)
		bad++, printf("wait again: %d status %d (want 1, 3)\n", r, status);
	pmu_command_free(cmd);
	printf("wait_timeout: %s\n", bad ? "FAIL" : "ok");
	return bad != 0;
}
