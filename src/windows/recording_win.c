/* SPDX-License-Identifier: MIT */
/* pmukit/recording.h on Windows: an ETW kernel session writing an .etl file.
 *   cpu-clock, task-clock  SampledProfile (PerfInfo type 46) every 10^7/freq x 100 ns
 *                          (TraceSampledProfileIntervalInfo with ProfileTime)
 *   hardware events        PMC overflow: each profile source's interval
 *                          (TraceSampledProfileIntervalInfo {source, period}), the
 *                          sources (TraceProfileSourceConfigInfo) and the
 *                          PERF_PMC_PROFILE group (PerfInfo type 47)
 *   callchain              TraceStackTracingInfo on types 46 / 47; with context
 *                          switches (--wait-stacks) also on CSwitch and ReadyThread
 *   branches               TraceLbrConfigurationInfo + TraceLbrEventListInfo on hooks
 *                          0x0F2E / 0x0F2F (Windows 10 1903+)
 * The session starts with only process, thread and image events (the rundown the
 * reader names threads and modules with); the sampling configuration is set next,
 * and the sampling groups are enabled last. The profile intervals and sources are
 * machine-wide settings of the kernel (TraceId 0): read first, and restored when the
 * session stops (etw_session.c). */
#include "windows/win.h"
#include "core/error.h"
#include "core/recording_int.h"
#include "core/opts.h"
#include "core/event_list.h"
#include "core/etw_host.h"
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
	int wait;                              /* stacks on CSwitch and ReadyThread */
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
	p->wait = o->callchain && o->context_switch;
	return 0;
}

/* Every TraceSetInformation of the plan, before the sampling groups are enabled. */
static int configure(struct pmuk_etw_session *s, const struct plan *p,
		     const struct pmu_recording_opts *o)
{
	struct pmuk_etw_event_id stacks[4];
	struct pmuk_etw_block b;
	uint32_t hooks[2];
	size_t nstacks, nhooks = 0;
	int err = 0;

	if (p->timer && (err = pmuk_etw_session_interval(s, PMUK_PROFILE_TIME, p->interval)))
		return err;
	for (size_t i = 0; i < p->nhw && !err; i++)
		err = pmuk_etw_session_interval(s, p->ids[i], p->period);
	if (err || (p->nhw && (err = pmuk_etw_session_sources(s, p->ids, p->nhw))))
		return err;
	pmuk_etw_stack_events(p->timer, p->nhw > 0, p->wait, stacks, &nstacks);
	if (o->callchain &&
	    ((err = pmuk_etw_event_ids(&b, PMUK_TRACE_STACK_TRACING_INFO, stacks, nstacks)) ||
	     (err = pmuk_etw_session_set(s, &b, "TraceStackTracingInfo"))))
		return err;
	if (p->timer)
		hooks[nhooks++] = PMUK_ETW_HOOK_SAMPLED_PROFILE;
	if (p->nhw)
		hooks[nhooks++] = PMUK_ETW_HOOK_PMC_INTERRUPT;
	if (o->branches &&
	    ((err = pmuk_etw_lbr_config(&b, 0)) ||
	     (err = pmuk_etw_session_set(s, &b, "TraceLbrConfigurationInfo")) ||
	     (err = pmuk_etw_lbr_events(&b, hooks, nhooks)) ||
	     (err = pmuk_etw_session_set(s, &b, "TraceLbrEventListInfo"))))
		return err;
	return 0;
}

/* The intervals against each profile source's MinInterval/MaxInterval, when the
 * host's list can be read (else the kernel's answer says). */
static int check_intervals(const struct plan *p)
{
	struct pmuk_win_source src[64];
	int n = pmuk_etw_sources(src, 64), err = 0;

	if (n < 0) {
		pmuk_clear_detail();
		return 0;
	}
	for (int i = 0; i < n && !err; i++) {
		struct pmuk_etw_source e = { .id = src[i].id, .min_interval = src[i].min_interval,
					     .max_interval = src[i].max_interval };
		int hw = 0;

		memcpy(e.name, src[i].name, sizeof(e.name));
		for (size_t k = 0; k < p->nhw; k++)
			hw |= p->ids[k] == e.id;
		if (p->timer && e.id == PMUK_PROFILE_TIME)
			err = pmuk_etw_interval_check(&e, p->interval, "x 100 ns");
		else if (hw)
			err = pmuk_etw_interval_check(&e, p->period, "events");
	}
	return err;
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
		return check_intervals(p);
	pmuk_etw_probe(&f);
	if ((err = pmuk_etw_pmc_decide(p->nhw, p->timer, f.max_pmc, f.pmc_owners)) ||
	    (err = pmuk_etw_resolve(p->hw, p->nhw, resolved->ids)))
		return err;
	return check_intervals(resolved);
}

/* What the user should know of this session: said once it runs. */
static void notes(struct pmu_recording *r, const struct plan *p)
{
	size_t o = 0;

	o += (size_t)snprintf(r->notes, sizeof(r->notes), "the .etl stops growing at %u MB "
			      "(MaximumFileSize): ETW drops and counts the events past it\n",
			      PMUK_ETW_MAX_FILE_MB);
	if (o < sizeof(r->notes) && (p->timer || p->nhw))
		o += (size_t)snprintf(r->notes + o, sizeof(r->notes) - o, "the profile intervals "
				      "are machine-wide: other profiling sessions see them until "
				      "pmukit sets the previous ones back at the end\n");
	if (o < sizeof(r->notes) && r->s.machine.unrestorable)
		snprintf(r->notes + o, sizeof(r->notes) - o, "%zu machine-wide profile setting(s) "
			 "could not be read first (TraceQueryInformation refused), so they stay "
			 "as pmukit set them\n", r->s.machine.unrestorable);
}

int pmuk_recording_os_start(const struct pmu_event_list *events, const struct pmu_target *target,
			    const struct pmu_recording_opts *opts, struct pmu_recording **out)
{
	struct pmu_recording *r;
	struct plan p;
	struct pmuk_etw_groups g = { .classic = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD |
					       EVENT_TRACE_FLAG_IMAGE_LOAD };
	uint32_t mask[8];
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
	err = pmuk_etw_session_start(&r->s, opts->path, opts->buffer_kb, g.classic);
	if (!err)
		err = configure(&r->s, &p, opts);
	g.profile = p.timer;
	g.cswitch = opts->context_switch;
	g.ready_thread = p.wait;
	g.pmc = p.nhw > 0;
	pmuk_etw_group_mask(&g, mask);
	if (!err)
		err = pmuk_etw_session_enable(&r->s, mask);
	if (err) {
		/* StartTraceW created the file only if it succeeded: a failed start leaves
		 * what was at the path (the user's file) alone. */
		int created = r->s.running && !pmuk_wine_version();
		WCHAR w[MAX_PATH * 2];

		pmuk_recording_os_close(r);
		if (created && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, opts->path, -1,
						   w, MAX_PATH * 2))
			DeleteFileW(w);  /* a session that never recorded */
		return err;
	}
	notes(r, &p);
	*out = r;
	return 0;
}

int pmuk_recording_os_stop(struct pmu_recording *r, struct pmu_recording_stats *st)
{
	WIN32_FILE_ATTRIBUTE_DATA a;
	WCHAR w[MAX_PATH * 2];
	/* Stops the session and sets the machine-wide profile settings back. */
	int err = pmuk_etw_session_stop(&r->s);

	/* what xperf's merge adds, for symbolizing elsewhere (formats/etl_merge.c) */
	if (!err && pmuk_etl_merge_recording(r->path, NULL))
		pmuk_log(PMU_LOG_WARN, "%s: no PDB identities added: %s", r->path, pmu_error_detail());
	st->events_lost = r->s.events_lost;
	st->buffers_written = r->s.buffers_written;
	st->buffers_lost = r->s.buffers_lost;
	/* The path is UTF-8, as StartTraceW was given it (etw_session.c). */
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, r->path, -1, w, MAX_PATH * 2) &&
	    GetFileAttributesExW(w, GetFileExInfoStandard, &a))
		st->bytes = (uint64_t)a.nFileSizeHigh << 32 | a.nFileSizeLow;
	return err;
}

void pmuk_recording_os_close(struct pmu_recording *r)
{
	pmuk_etw_session_free(&r->s);
	free(r);
}
