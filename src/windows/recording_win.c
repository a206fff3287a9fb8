/* SPDX-License-Identifier: MIT */
/* pmukit/recording.h on Windows: an ETW kernel session writing an .etl file.
 *   cpu-clock, task-clock  SampledProfile (PerfInfo type 46) every 10^7/freq x 100 ns
 *                          (TraceSampledProfileIntervalInfo with ProfileTime)
 *   hardware events        PMC overflow: each profile source's interval
 *                          (TraceSampledProfileIntervalInfo {source, period}), the
 *                          sources (TraceProfileSourceConfigInfo) and the
 *                          PERF_PMC_PROFILE group (PerfInfo type 47)
 *   callchain              TraceStackTracingInfo on types 46 / 47
 *   branches               TraceLbrConfigurationInfo + TraceLbrEventListInfo on 46 / 47
 *                          (Windows 10 1903+)
 * The session starts with only process, thread and image events (the rundown the
 * reader names threads and modules with); the sampling configuration is set next,
 * and the sampling groups are enabled last. The profile intervals are machine-wide
 * settings of the kernel: another profiling session sees them too. */
#include "windows/win.h"
#include "core/error.h"
#include "core/recording_int.h"
#include "core/opts.h"
#include "core/event_list.h"
#include "formats/etl_merge.h"

#include <pmukit/recording.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_TIMER_100NS 1221u  /* the kernel's shortest profile interval, 0.1221 ms */

struct pmu_recording {
	PMUK_RECORDING_HEAD /* first: path (core/recording_int.h) */
	struct pmuk_etw_session s;
};

PMUK_RECORDING_HEAD_CHECK(struct pmu_recording);

static int is_timer(const struct pmu_event *ev)
{
	return ev->generic == PMU_GENERIC_CPU_CLOCK || ev->generic == PMU_GENERIC_TASK_CLOCK;
}

static int is_hw(const struct pmu_event *ev)
{
	return (ev->generic >= 0 && ev->generic <= PMU_GENERIC_REF_CYCLES) ||
	       ev->generic == PMU_GENERIC_HW_CACHE ||
	       (ev->kind == PMU_EVENT_RAW && !strcmp(ev->pmu, "hal"));
}

struct plan {
	int timer;
	uint32_t interval;                     /* 100 ns, timer */
	const struct pmu_event *hw[PMUK_ETW_MAX_IDS];
	uint32_t ids[PMUK_ETW_MAX_IDS];
	size_t nhw;
	uint32_t period;
};

static int plan(const struct pmu_event_list *events, const struct pmu_recording_opts *o,
		struct plan *p)
{
	uint64_t freq = o->freq ? o->freq : 1000;

	memset(p, 0, sizeof(*p));
	if (o->stack_user)
		return pmuk_fail(PMU_ENOTSUP, "copies of the user stack (--call-graph dwarf) are "
				 "not recorded on Windows: ETW walks the stacks itself; use -g");
	if (o->data_addr)
		return pmuk_fail(PMU_ENOTSUP, "data addresses (-d) are not recorded on Windows: "
				 "precise data-source sampling is not public there (see pmukit caps)");
	p->timer = !events;
	for (size_t i = 0; events && i < events->n; i++) {
		const struct pmu_event *ev = &events->ev[i];

		if (is_timer(ev))
			p->timer = 1;
		else if (is_hw(ev) && p->nhw < PMUK_ETW_MAX_IDS)
			p->hw[p->nhw++] = ev;
		else
			return pmuk_fail(PMU_ENOTSUP, "'%s' cannot be sampled on Windows: ETW "
					 "samples on the timer (cpu-clock) or on PMC overflow "
					 "(hardware events and HAL profile sources)", ev->name);
	}
	if (freq > 10000000u / MIN_TIMER_100NS)
		return pmuk_fail(PMU_EINVAL, "%llu timer samples per second: Windows takes at "
				 "most %u (a %u x 100 ns interval)", (unsigned long long)freq,
				 10000000u / MIN_TIMER_100NS, MIN_TIMER_100NS);
	p->interval = (uint32_t)(10000000u / freq);
	if (o->period > UINT32_MAX)
		return pmuk_fail(PMU_EINVAL, "a period of %llu events: ETW profile intervals "
				 "are 32-bit", (unsigned long long)o->period);
	p->period = o->period ? (uint32_t)o->period : 1000003u;
	return 0;
}

/* Every TraceSetInformation of the plan, before the sampling groups are enabled. */
static int configure(struct pmuk_etw_session *s, const struct plan *p,
		     const struct pmu_recording_opts *o)
{
	struct pmuk_etw_event_id on[2];
	struct pmuk_etw_block b;
	size_t non = 0;
	int err = 0;

	if (p->timer) {
		on[non++] = (struct pmuk_etw_event_id){ pmuk_etw_perfinfo_guid,
							PMUK_ETW_TYPE_SAMPLED_PROFILE };
		if ((err = pmuk_etw_profile_interval(&b, PMUK_PROFILE_TIME, p->interval)) ||
		    (err = pmuk_etw_session_set(s, &b, "TraceSampledProfileIntervalInfo")))
			return err;
	}
	if (p->nhw) {
		on[non++] = (struct pmuk_etw_event_id){ pmuk_etw_perfinfo_guid,
							PMUK_ETW_TYPE_PMC_INTERRUPT };
		for (size_t i = 0; i < p->nhw && !err; i++)
			if (!(err = pmuk_etw_profile_interval(&b, p->ids[i], p->period)))
				err = pmuk_etw_session_set(s, &b, "TraceSampledProfileIntervalInfo");
		if (err || (err = pmuk_etw_source_ids(&b, PMUK_TRACE_PROFILE_SOURCE_CONFIG_INFO,
						      p->ids, p->nhw)) ||
		    (err = pmuk_etw_session_set(s, &b, "TraceProfileSourceConfigInfo")))
			return err;
	}
	if (o->callchain &&
	    ((err = pmuk_etw_event_ids(&b, PMUK_TRACE_STACK_TRACING_INFO, on, non)) ||
	     (err = pmuk_etw_session_set(s, &b, "TraceStackTracingInfo"))))
		return err;
	if (o->branches &&
	    ((err = pmuk_etw_lbr_config(&b, 0)) ||
	     (err = pmuk_etw_session_set(s, &b, "TraceLbrConfigurationInfo")) ||
	     (err = pmuk_etw_event_ids(&b, PMUK_TRACE_LBR_EVENT_LIST_INFO, on, non)) ||
	     (err = pmuk_etw_session_set(s, &b, "TraceLbrEventListInfo"))))
		return err;
	return 0;
}

/* What the host must offer before anything is started. */
static int preflight(const struct plan *p, const struct pmu_target *t,
		     const struct pmu_recording_opts *o, struct plan *resolved)
{
	struct pmuk_etw_facts f;
	int err;

	if (t && t->kind == PMU_TARGET_CPUS && t->cpus &&
	    t->ncpus != GetActiveProcessorCount(ALL_PROCESSOR_GROUPS))
		return pmuk_fail(PMU_ENOTSUP, "ETW samples every CPU; it takes no CPU subset");
	if (pmuk_wine_version() && !p->nhw)
		return 0;  /* the session calls themselves say what Wine lacks */
	if (pmuk_wine_version())  /* the profile-source query (it aborts there) says */
		return pmuk_etw_resolve(p->hw, p->nhw, resolved->ids);
	if (p->nhw && !pmuk_win_at_least(6, 2, 0))
		return pmuk_fail(PMU_ENOTSUP, "PMC-overflow sampling (TraceProfileSourceConfig"
				 "Info) needs Windows 8 or later");
	if (o->branches && !pmuk_win_at_least(10, 0, 18362))
		return pmuk_fail(PMU_ENOTSUP, "LBR recording (TraceLbrConfigurationInfo) needs "
				 "Windows 10 1903 (build 18362) or later");
	if (!p->nhw)
		return 0;
	pmuk_etw_probe(&f);
	if ((err = pmuk_etw_pmc_check(p->nhw, p->timer, f.max_pmc)))
		return err;
	return pmuk_etw_resolve(p->hw, p->nhw, resolved->ids);
}

int pmuk_recording_os_start(const struct pmu_event_list *events, const struct pmu_target *target,
			    const struct pmu_recording_opts *opts, struct pmu_recording **out)
{
	struct pmu_recording *r;
	struct plan p;
	ULONG base = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD |
		     EVENT_TRACE_FLAG_IMAGE_LOAD, mask[8] = { 0 };
	int err;

	if (!opts->path || !opts->path[0])
		return pmuk_fail(PMU_EINVAL, "pmu_recording_start needs options with a path");
	if ((err = plan(events, opts, &p)) || (err = preflight(&p, target, opts, &p)))
		return err;
	if (!pmuk_wine_version() && (err = pmuk_etw_profile_privilege()))
		return err;
	if (!(r = calloc(1, sizeof(*r))))
		return pmuk_fail(PMU_ENOMEM, "out of memory starting a recording");
	snprintf(r->path, sizeof(r->path), "%s", opts->path);
	err = pmuk_etw_session_start(&r->s, opts->path, opts->buffer_kb, base);
	if (!err)
		err = configure(&r->s, &p, opts);
	mask[0] = base | (p.timer ? EVENT_TRACE_FLAG_PROFILE : 0) |
		  (opts->context_switch ? EVENT_TRACE_FLAG_CSWITCH : 0);
	if (p.nhw)
		mask[PMUK_PERF_PMC_PROFILE_MASK] |= PMUK_PERF_PMC_PROFILE_BIT;
	if (!err)
		err = pmuk_etw_session_enable(&r->s, mask);
	if (err) {
		/* StartTraceW created the file only if it succeeded: a failed start leaves
		 * what was at the path (the user's file) alone. */
		int created = r->s.running && !pmuk_wine_version();
		WCHAR w[MAX_PATH * 2];

		pmuk_recording_os_close(r);
		if (created && MultiByteToWideChar(CP_UTF8, 0, opts->path, -1, w, MAX_PATH * 2))
			DeleteFileW(w);  /* a session that never recorded */
		return err;
	}
	*out = r;
	return 0;
}

int pmuk_recording_os_stop(struct pmu_recording *r, struct pmu_recording_stats *st)
{
	WIN32_FILE_ATTRIBUTE_DATA a;
	WCHAR w[MAX_PATH * 2];
	int err = pmuk_etw_session_stop(&r->s);

	/* what xperf's merge adds, for symbolizing elsewhere (formats/etl_merge.c) */
	if (!err && pmuk_etl_merge_recording(r->path, NULL))
		pmuk_log(PMU_LOG_WARN, "%s: no PDB identities added: %s", r->path, pmu_error_detail());
	st->events_lost = r->s.events_lost;
	st->buffers_written = r->s.buffers_written;
	st->buffers_lost = r->s.buffers_lost;
	/* The path is UTF-8, as StartTraceW was given it (etw_session.c). */
	if (MultiByteToWideChar(CP_UTF8, 0, r->path, -1, w, MAX_PATH * 2) &&
	    GetFileAttributesExW(w, GetFileExInfoStandard, &a))
		st->bytes = (uint64_t)a.nFileSizeHigh << 32 | a.nFileSizeLow;
	return err;
}

void pmuk_recording_os_close(struct pmu_recording *r)
{
	pmuk_etw_session_free(&r->s);
	free(r);
}
