/* SPDX-License-Identifier: MIT */
/* perf.data reader: placeholder until the reader lands (issue 10). */
#include "formats/trace_int.h"
#include "core/error.h"

int pmuk_trace_open_perf(struct pmu_trace *t, const char *path, FILE *f, int pipe_mode)
{
	(void)t;
	(void)pipe_mode;
	if (f != stdin)
		fclose(f);
	return pmuk_fail(PMU_ENOTSUP, "%s: perf.data reading is not built yet", path);
}
