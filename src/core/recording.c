/* SPDX-License-Identifier: MIT */
/* pmukit/recording.h's front: argument checks, the opts load, the stats copy-out and
 * the path, once for every OS; the recording is the backend's (core/recording_int.h). */
#include "core/recording_int.h"
#include "core/error.h"
#include "core/opts.h"

int pmu_recording_start(const struct pmu_event_list *events, const struct pmu_target *target,
			const struct pmu_recording_opts *opts, struct pmu_recording **out)
{
	struct pmu_recording_opts o;
	int err;

	if (out)
		*out = NULL;
	/* Options a caller got wrong are reported before anything else, on every OS. */
	if ((err = PMUK_OPTS_LOAD(o, opts, pmu_recording_opts)) < 0)
		return err;
	if (!out)
		return pmuk_fail(PMU_EINVAL, "pmu_recording_start needs somewhere to store the "
				 "recording");
	return pmuk_recording_os_start(events, target, &o, out);
}

int pmu_recording_stop(struct pmu_recording *r, struct pmu_recording_stats *st, size_t size)
{
	struct pmu_recording_stats s = { 0 };
	int err;

	if (!r)
		return pmuk_fail(PMU_EINVAL, "no recording");
	/* Checked before stopping: a bad size must not end a recording unreported. */
	if (st && size == 0)
		return pmuk_fail(PMU_EINVAL, "pmu_recording_stop: size 0 for the stats; pass "
				 "sizeof(struct pmu_recording_stats)");
	err = pmuk_recording_os_stop(r, &s);
	if (!err && st)
		err = PMUK_COPY_OUT(st, size, s, pmu_recording_stats);
	return err;
}

const char *pmu_recording_path(const struct pmu_recording *r)
{
	return r ? ((const struct pmuk_recording_head *)(const void *)r)->path : NULL;
}

const char *pmu_recording_notes(const struct pmu_recording *r)
{
	return r ? ((const struct pmuk_recording_head *)(const void *)r)->notes : NULL;
}

void pmu_recording_close(struct pmu_recording *r)
{
	if (r)
		pmuk_recording_os_close(r);
}
