/* SPDX-License-Identifier: MIT */
/* pprof profile.proto: placeholder until it lands (issue 10). */
#include "core/report_int.h"
#include "core/error.h"

int pmu_report_write_pprof(struct pmu_report *r, FILE *f)
{
	(void)r;
	(void)f;
	return pmuk_fail(PMU_ENOTSUP, "pprof output is not built yet");
}
