/* SPDX-License-Identifier: MIT */
/* Flame graph SVG: placeholder until it lands (issue 10). */
#include "core/report_int.h"
#include "core/error.h"

int pmu_report_write_svg(struct pmu_report *r, FILE *f, const char *title)
{
	(void)r;
	(void)f;
	(void)title;
	return pmuk_fail(PMU_ENOTSUP, "SVG flame graphs are not built yet");
}
