/* SPDX-License-Identifier: MIT */
#include <pmukit/version.h>

const char *pmu_version(void)
{
	return PMUKIT_VERSION;
}
