/* SPDX-License-Identifier: MIT */
/* pmukit/recording.h: the front (src/core/recording.c: argument checks, the opts
 * load, the stats copy-out, the path) and what each OS's backend implements
 * (src/windows/recording_win.c with ETW; src/linux/recording_linux.c says why not yet). */
#ifndef PMUK_CORE_RECORDING_INT_H
#define PMUK_CORE_RECORDING_INT_H

#include <stddef.h>

#include <pmukit/recording.h>

/* The first members of every backend's struct pmu_recording (layout asserted there). */
#define PMUK_RECORDING_HEAD \
	char path[1024];       /* the file written, UTF-8 */ \
	char notes[1024];      /* pmu_recording_notes: sentences, one a line */

struct pmuk_recording_head {
	PMUK_RECORDING_HEAD
};

#define PMUK_RECORDING_HEAD_CHECK(T) \
	_Static_assert(offsetof(T, path) == 0, "PMUK_RECORDING_HEAD first")

/* Backend, called with checked arguments: o is loaded, *out is NULL; st is the
 * library's own stats, zeroed. (The path is the backend's to require: only a backend
 * that writes a file needs one.) */
int pmuk_recording_os_start(const struct pmu_event_list *events, const struct pmu_target *t,
			    const struct pmu_recording_opts *o, struct pmu_recording **out);
int pmuk_recording_os_stop(struct pmu_recording *r, struct pmu_recording_stats *st);
void pmuk_recording_os_close(struct pmu_recording *r);

#endif
