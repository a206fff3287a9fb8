/* SPDX-License-Identifier: MIT */
/* pmukit/recording.h's backend on Linux (core/recording_int.h). The Linux recording
 * is perf.data (PERFILE2) written from the perf ring buffers; that writer is a
 * separate backend still to come, so this one answers, with the way that works
 * today, instead of writing a file that nothing could read. */
#include "core/recording_int.h"
#include "core/error.h"

int pmuk_recording_os_start(const struct pmu_event_list *events, const struct pmu_target *t,
			    const struct pmu_recording_opts *o, struct pmu_recording **out)
{
	(void)events;
	(void)t;
	(void)o;
	(void)out;
	return pmuk_fail(PMU_ENOTSUP, "recordings to a file are written on Windows (.etl) "
			 "only so far; pmukit has no perf.data writer yet: sample live with "
			 "pmu_sampler_* (sampling.h) or record with 'perf record'");
}

/* No recording is ever started, so the front never passes one to these. */
int pmuk_recording_os_stop(struct pmu_recording *r, struct pmu_recording_stats *st)
{
	(void)r;
	(void)st;
	return pmuk_fail(PMU_EINVAL, "no recording: pmu_recording_start() never succeeds "
			 "on Linux yet");
}

void pmuk_recording_os_close(struct pmu_recording *r)
{
	(void)r;
}
