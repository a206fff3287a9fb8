/* SPDX-License-Identifier: MIT */
/* The exporter's Windows OS hooks. Not yet done: interrupts, DPCs, clock
 * interrupts and idle break events (PDH Interrupts/sec etc.), the cpufreq
 * limits, % Processor Performance / Utility totals with their bases, and
 * counter owners (TracePmcCounterOwners): these collectors emit nothing here. */
#include "windows/win.h"
#include "core/error.h"
#include "core/exporter_int.h"

#include <pmukit/error.h>
#include <stdlib.h>
#include <time.h>

struct pmuk_expo_os {
	int unused;
};

int pmuk_expo_os_open(struct pmuk_expo_os **out)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening the exporter");
	return 0;
}

void pmuk_expo_os_close(struct pmuk_expo_os *os)
{
	free(os);
}

/* Now less the milliseconds since boot. */
double pmuk_expo_boot_time(struct pmuk_expo_os *os)
{
	(void)os;
	return (double)time(NULL) - (double)GetTickCount64() / 1000.0;
}

void pmuk_expo_freq_limits(struct pmuk_expo_os *os, int cpu, double hw[2], double scaling[2])
{
	(void)os;
	(void)cpu;
	hw[0] = hw[1] = scaling[0] = scaling[1] = 0;
}

int pmuk_expo_collect_interrupts(struct pmu_exporter *e)
{
	(void)e;
	return 0;
}

int pmuk_expo_collect_contention(struct pmu_exporter *e)
{
	(void)e;
	return 0;
}
