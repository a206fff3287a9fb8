/* SPDX-License-Identifier: MIT */
/* The portable record model: names for printing and JSON. */
#include <pmukit/sampling.h>

static const char *const kind_names[PMU_RECORD_KIND_COUNT] = {
	[PMU_RECORD_SAMPLE] = "sample",
	[PMU_RECORD_COMM] = "comm",
	[PMU_RECORD_FORK] = "fork",
	[PMU_RECORD_EXIT] = "exit",
	[PMU_RECORD_MMAP] = "mmap",
	[PMU_RECORD_SWITCH] = "switch",
	[PMU_RECORD_LOST] = "lost",
	[PMU_RECORD_THROTTLE] = "throttle",
	[PMU_RECORD_UNTHROTTLE] = "unthrottle",
	[PMU_RECORD_SYMBOL] = "symbol",
};

const char *pmu_record_kind_name(enum pmu_record_kind kind)
{
	if ((unsigned)kind >= PMU_RECORD_KIND_COUNT)
		return "unknown";
	return kind_names[kind];
}

/* pmu_record is frozen (pmukit/opts.h): sample.ext had to fit in the union the
 * mmap member already sized. */
#include <stddef.h>
_Static_assert(sizeof(void *) != 8 || sizeof(struct pmu_record) == 160,
	       "struct pmu_record changed size");
