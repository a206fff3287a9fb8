/* SPDX-License-Identifier: MIT */
/* pmukit/recording.h on Linux. The Linux recording is perf.data (PERFILE2) written
 * from the perf ring buffers; that writer is a separate backend still to come, so
 * this one answers, with the way that works today, instead of writing a file that
 * nothing could read. */
#include "core/error.h"
#include "core/opts.h"

#include <pmukit/error.h>
#include <pmukit/recording.h>
#include <stddef.h>

int pmu_recording_start(const struct pmu_event_list *events, const struct pmu_target *target,
			const struct pmu_recording_opts *opts, struct pmu_recording **out)
{
	int err;

	(void)events;
	(void)target;
	if (out)
		*out = NULL;
	/* Options a caller got wrong are reported as on Windows, before ENOTSUP. */
	if ((err = PMUK_OPTS_VALID(opts, pmu_recording_opts)) < 0)
		return err;
	return pmuk_fail(PMU_ENOTSUP, "recordings to a file are written on Windows (.etl) "
			 "only so far; pmukit has no perf.data writer yet: sample live with "
			 "pmu_sampler_* (sampling.h) or record with 'perf record'");
}

int pmu_recording_stop(struct pmu_recording *r, struct pmu_recording_stats *st, size_t size)
{
	(void)r;
	(void)st;
	(void)size;
	return pmuk_fail(PMU_EINVAL, "no recording: pmu_recording_start() never succeeds "
			 "on Linux yet");
}

const char *pmu_recording_path(const struct pmu_recording *r)
{
	(void)r;
	return NULL;
}

void pmu_recording_close(struct pmu_recording *r)
{
	(void)r;
}
