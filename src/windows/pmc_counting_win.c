/* SPDX-License-Identifier: MIT */
/* ETW PMC-on-CSwitch counting (concern 1 for hardware events on Windows). A real-time
 * kernel session logs the free-running PMC values of each CPU with every context
 * switch (TracePmcCounterListInfo: which profile sources, TracePmcEventListInfo:
 * on Thread/CSwitch, type 36). What a CPU counted between two switches belongs to
 * the thread switched out at the second one (CSwitch OldThreadId), so each switch
 * credits the delta since the previous switch on that CPU to that thread's target.
 * Process and Thread start and rundown events say which threads are the target's
 * (core/etw_follow.c): with inherit, a process target's descendants through
 * Process/Start ParentId, as perf stat counts a command's children. Counts reach the
 * consumer when ETW flushes its buffers: reads while counting flush first and wait
 * for it; disabling stops the session and joins the consumer, so the final read
 * has every switch (enabling again starts a new session).
 *
 * Wine: StartTraceW reports success with a fake handle and TraceSetInformation
 * answers ERROR_CALL_NOT_IMPLEMENTED; the profile-source query (TraceQuery-
 * Information) would abort, so the Wine probe goes straight to TraceSetInformation. */
#include "windows/win.h"
#include "core/error.h"
#include "core/glpi.h"
#include "core/etw_follow.h"
#include "core/etw_host.h"

#include <evntcons.h>
#include <pmukit/counting.h>
#include <pmukit/etl.h>
#include <pmukit/events.h>
#include <pmukit/topology.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PMC 8
#define PMC_MASK ((1ull << 48) - 1)  /* PMCs are 48 bits wide on x86 and arm64 */

struct pmuk_etw_pmc {
	struct pmuk_etw_session s;
	uint32_t ids[MAX_PMC];          /* profile sources, to start a session again */
	TRACEHANDLE consumer;
	HANDLE thread;
	CRITICAL_SECTION lock;
	size_t n;                       /* counters */
	int kind;
	int inherit;                    /* PMU_TARGET_PID: its children too */
	struct pmuk_etw_follow *follow; /* which threads are the target's (not CPUS) */
	char bad_event[256];            /* why a Process/Thread payload did not decode */
	int *cpus;                      /* PMU_TARGET_CPUS: flat CPU ids */
	size_t ncpus;
	int on;
	size_t nproc;                   /* processor indexes */
	int *index_cpu;                 /* [nproc]: processor index -> flat CPU id */
	uint64_t (*last)[MAX_PMC];      /* [nproc]: PMC values at the last switch */
	uint8_t *have_last;
	uint64_t total[MAX_PMC];
	uint64_t (*per_cpu)[MAX_PMC];   /* [ncpus] */
	volatile LONG64 last_ts;        /* QPC time stamp of the newest event seen */
	volatile LONG events;
};

/* Whether the slice old_tid ran belongs to the target. A thread older than the
 * session whose rundown has not arrived yet: its process, asked now. */
static int counted_thread(struct pmuk_etw_pmc *p, DWORD old_tid)
{
	int in = pmuk_etw_follow_switch(p->follow, old_tid);
	DWORD pid = 0;
	HANDLE h;

	if (in >= 0)
		return in;
	if ((h = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, old_tid))) {
		pid = GetProcessIdOfThread(h);
		CloseHandle(h);
	}
	if (pmuk_etw_follow_thread(p->follow, old_tid, pid))
		return 0;
	return pmuk_etw_follow_switch(p->follow, old_tid) == 1;
}

/* The position in the CPU target of the processor with index idx, or -1. ETW
 * gives processor indexes (0..N-1 over all groups); targets name flat ids. */
static int counted_cpu(const struct pmuk_etw_pmc *p, ULONG idx)
{
	int cpu = p->index_cpu[idx];

	for (size_t i = 0; i < p->ncpus; i++)
		if (p->cpus[i] == cpu)
			return (int)i;
	return -1;
}

static void cswitch(struct pmuk_etw_pmc *p, const EVENT_RECORD *r, const uint64_t *v, size_t nv)
{
	ULONG cpu = GetEventProcessorIndex(r);
	DWORD old_tid;
	uint64_t d[MAX_PMC];
	int credit = 0, ci = -1;

	if (r->UserDataLength < 8 || cpu >= p->nproc || nv < p->n)
		return;
	memcpy(&old_tid, (const char *)r->UserData + 4, 4);
	for (size_t k = 0; k < p->n; k++)
		d[k] = (v[k] - p->last[cpu][k]) & PMC_MASK;
	if (p->on && p->have_last[cpu]) {
		if (p->kind == PMU_TARGET_CPUS)
			credit = (ci = counted_cpu(p, cpu)) >= 0;
		else
			credit = counted_thread(p, old_tid);
	}
	for (size_t k = 0; credit && k < p->n; k++) {
		p->total[k] += d[k];
		if (ci >= 0)
			p->per_cpu[ci][k] += d[k];
	}
	memcpy(p->last[cpu], v, p->n * sizeof(*v));
	p->have_last[cpu] = 1;
}

static int same_guid(const GUID *a, const struct pmu_guid *g)
{
	return a->Data1 == g->d1 && a->Data2 == g->d2 && a->Data3 == g->d3 &&
	       !memcmp(a->Data4, g->d4, 8);
}

/* A Process or Thread event, as the .etl reader would give it, to the target. */
static void follow(struct pmuk_etw_pmc *p, const EVENT_RECORD *r)
{
	const EVENT_HEADER *h = &r->EventHeader;
	struct pmu_etl_event ev;

	memset(&ev, 0, sizeof(ev));
	memcpy(&ev.provider, &h->ProviderId, sizeof(ev.provider));
	ev.opcode = h->EventDescriptor.Opcode;
	ev.version = h->EventDescriptor.Version;
	ev.flags = h->Flags;
	ev.pointer_size = h->Flags & EVENT_HEADER_FLAG_32_BIT_HEADER ? 4 : 8;
	ev.payload = r->UserData;
	ev.payload_size = r->UserDataLength;
	EnterCriticalSection(&p->lock);
	if (pmuk_etw_follow_event(p->follow, &ev) && !p->bad_event[0])
		snprintf(p->bad_event, sizeof(p->bad_event), "%s", pmu_error_detail());
	LeaveCriticalSection(&p->lock);
}

static void WINAPI on_event(PEVENT_RECORD r)
{
	struct pmuk_etw_pmc *p = r->UserContext;
	const EVENT_HEADER *h = &r->EventHeader;
	const uint64_t *v = NULL;
	size_t nv = 0;

	InterlockedExchange64(&p->last_ts, h->TimeStamp.QuadPart);
	InterlockedIncrement(&p->events);
	if (!same_guid(&h->ProviderId, &pmuk_etw_thread_guid)) {
		if (p->follow && same_guid(&h->ProviderId, &pmuk_etw_process_guid))
			follow(p, r);
		return;
	}
	if (h->EventDescriptor.Opcode != PMUK_ETW_TYPE_CSWITCH) {
		if (p->follow)
			follow(p, r);
		return;
	}
	for (USHORT i = 0; i < r->ExtendedDataCount; i++)
		if (r->ExtendedData[i].ExtType == EVENT_HEADER_EXT_TYPE_PMC_COUNTERS) {
			v = (const uint64_t *)(uintptr_t)r->ExtendedData[i].DataPtr;
			nv = r->ExtendedData[i].DataSize / sizeof(uint64_t);
		}
	if (!v)
		return;
	EnterCriticalSection(&p->lock);
	cswitch(p, r, v, nv);
	LeaveCriticalSection(&p->lock);
}

static DWORD WINAPI consume(void *arg)
{
	struct pmuk_etw_pmc *p = arg;

	ProcessTrace(&p->consumer, 1, NULL, NULL);
	return 0;
}

/* Under Wine: the calls that answer, to report what they answered. */
static int wine_probe(void)
{
	struct pmuk_etw_session s;
	struct pmuk_etw_block b;
	uint32_t id = 2;  /* KPROFILE_SOURCE ProfileTotalIssues */
	int err = pmuk_etw_session_start(&s, NULL, 64, 0);

	if (!err && !(err = pmuk_etw_source_ids(&b, PMUK_TRACE_PMC_COUNTER_LIST_INFO, &id, 1)))
		err = pmuk_etw_session_set(&s, &b, "TracePmcCounterListInfo");
	pmuk_etw_session_free(&s);
	if (!err)
		err = pmuk_fail(PMU_ENOTSUP, PMUK_WINE_LACKS "TraceQueryInformation (it aborts): "
				"the profile sources cannot be resolved", pmuk_wine_version());
	return err;
}

int pmuk_etw_resolve(const struct pmu_event *const *ev, size_t n, uint32_t *ids)
{
	struct pmuk_win_source src[64];
	struct pmuk_etw_source v[64];
	int ns = pmuk_etw_sources(src, 64);

	if (ns < 0)
		return ns;
	for (int i = 0; i < ns; i++) {
		memset(&v[i], 0, sizeof(v[i]));
		memcpy(v[i].name, src[i].name, sizeof(v[i].name));
		v[i].id = src[i].id;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pmuk_etw_source *s;
		char name[128], *colon;

		if (ev[i]->exclude_user || ev[i]->exclude_kernel)
			return pmuk_fail(PMU_ENOTSUP, "'%s': ETW PMCs count user and kernel mode "
					 "together; drop the :u/:k modifier", ev[i]->name);
		if (ev[i]->kind == PMU_EVENT_RAW && !strcmp(ev[i]->pmu, "hal")) {
			ids[i] = (uint32_t)ev[i]->config;
			continue;
		}
		memcpy(name, ev[i]->name, sizeof(name));
		if ((colon = strchr(name, ':')))
			*colon = '\0';
		if (!(s = pmuk_etw_source_find(v, (size_t)ns, name)))
			return PMU_ENOENT;
		ids[i] = s->id;
	}
	return 0;
}

static int setup(struct pmuk_etw_pmc *p)
{
	static const struct pmuk_etw_event_id on_cswitch = {
		.guid = { 0x3d6fa8d1, 0xfe05, 0x11d0,
			  { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } },
		.type = PMUK_ETW_TYPE_CSWITCH,
	};
	const ULONG flags = EVENT_TRACE_FLAG_THREAD |
			    (p->kind == PMU_TARGET_PID && p->inherit ? EVENT_TRACE_FLAG_PROCESS : 0);
	const struct pmuk_etw_groups g = { .classic = flags, .cswitch = 1 };
	EVENT_TRACE_LOGFILEW lf;
	struct pmuk_etw_block b;
	uint32_t mask[8];
	int err;

	pmuk_etw_group_mask(&g, mask);
	if ((err = pmuk_etw_profile_privilege()) ||
	    (err = pmuk_etw_session_start(&p->s, NULL, 256, flags)) ||
	    (err = pmuk_etw_source_ids(&b, PMUK_TRACE_PMC_COUNTER_LIST_INFO, p->ids, p->n)) ||
	    (err = pmuk_etw_session_set(&p->s, &b, "TracePmcCounterListInfo")) ||
	    (err = pmuk_etw_event_ids(&b, PMUK_TRACE_PMC_EVENT_LIST_INFO, &on_cswitch, 1)) ||
	    (err = pmuk_etw_session_set(&p->s, &b, "TracePmcEventListInfo")))
		return err;
	memset(&lf, 0, sizeof(lf));
	lf.LoggerName = p->s.name;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD |
			      PROCESS_TRACE_MODE_RAW_TIMESTAMP;
	lf.EventRecordCallback = on_event;
	lf.Context = p;
	p->consumer = OpenTraceW(&lf);
	if (p->consumer == INVALID_PROCESSTRACE_HANDLE)
		return pmuk_fail(PMU_EIO, "OpenTraceW on the real-time session failed: %s",
				 pmuk_win_strerror(GetLastError()));
	if (!(p->thread = CreateThread(NULL, 0, consume, p, 0, NULL)))
		return pmuk_fail(PMU_EIO, "CreateThread for the ETW consumer failed: %s",
				 pmuk_win_strerror(GetLastError()));
	return pmuk_etw_session_enable(&p->s, mask);
}

static int fin_stop(void *ctx)
{
	struct pmuk_etw_pmc *p = ctx;

	pmuk_etw_session_free(&p->s);  /* stops, restores, unregisters */
	return 0;
}

static int fin_join(void *ctx, unsigned ms)
{
	struct pmuk_etw_pmc *p = ctx;

	return p->thread && WaitForSingleObject(p->thread, ms) != WAIT_OBJECT_0 ? -1 : 0;
}

static void fin_close(void *ctx)
{
	struct pmuk_etw_pmc *p = ctx;

	if (p->consumer != INVALID_PROCESSTRACE_HANDLE)
		CloseTrace(p->consumer);
	p->consumer = INVALID_PROCESSTRACE_HANDLE;
}

/* Stop, join, close (core/etw_machine.c): the final read then has every switch.
 * 0, or -1 when the consumer did not end. */
static int finish(struct pmuk_etw_pmc *p)
{
	const struct pmuk_etw_finish_ops ops = { p, fin_stop, fin_join, fin_close };

	if (pmuk_etw_consumer_finish(&ops))
		return -1;
	if (p->thread)
		CloseHandle(p->thread);
	p->thread = NULL;
	return 0;
}

/* Processor index -> flat CPU id (group * 64 + number) through the topology. */
static int index_map(struct pmuk_etw_pmc *p)
{
	struct pmu_topology *t;
	int err = pmu_topology_load(&t);

	if (err)
		return err;
	if (!(p->index_cpu = calloc(p->nproc, sizeof(*p->index_cpu)))) {
		pmu_topology_free(t);
		return pmuk_fail(PMU_ENOMEM, "out of memory for the CPU map");
	}
	for (size_t i = 0; i < p->nproc; i++)
		p->index_cpu[i] = pmuk_glpi_index_cpu(t, (unsigned)i);
	pmu_topology_free(t);
	return 0;
}

static int target(struct pmuk_etw_pmc *p, const struct pmu_target *t)
{
	size_t n = t->cpus ? t->ncpus : p->nproc;

	p->kind = t->kind;
	if (t->kind == PMU_TARGET_PID)
		return pmuk_etw_follow_new(p->inherit ? PMUK_FOLLOW_TREE : PMUK_FOLLOW_PROCESS,
					   (uint32_t)t->pid, &p->follow);
	if (t->kind != PMU_TARGET_CPUS)
		return pmuk_etw_follow_new(PMUK_FOLLOW_THREAD, t->kind == PMU_TARGET_TID ?
					   (uint32_t)t->pid : GetCurrentThreadId(), &p->follow);
	if (!n)
		return pmuk_fail(PMU_EINVAL, "the CPU target names no CPU");
	if (!(p->cpus = calloc(n, sizeof(*p->cpus))) ||
	    !(p->per_cpu = calloc(n, sizeof(*p->per_cpu))))
		return pmuk_fail(PMU_ENOMEM, "out of memory for the CPU list");
	for (size_t i = 0; i < n; i++) {
		size_t k;

		p->cpus[i] = t->cpus ? t->cpus[i] : p->index_cpu[i];
		for (k = 0; k < p->nproc && p->index_cpu[k] != p->cpus[i]; k++)
			;
		if (k == p->nproc || p->cpus[i] < 0)
			return pmuk_fail(PMU_EINVAL, "CPU %d is not an active processor (Windows "
					 "CPU ids are group * 64 + number; see 'pmukit topo')",
					 p->cpus[i]);
	}
	p->ncpus = n;
	return 0;
}

size_t pmuk_etw_pmc_cpus(const struct pmuk_etw_pmc *p, const int **cpus)
{
	*cpus = p->cpus;
	return p->ncpus;
}

int pmuk_etw_pmc_check_events(const struct pmu_event *const *ev, size_t n, uint32_t *ids)
{
	struct pmuk_etw_facts f;
	int err;

	if (pmuk_wine_version())
		return wine_probe();
	if (!pmuk_win_at_least(6, 2, 0))
		return pmuk_fail(PMU_ENOTSUP, "ETW PMC counting (TracePmcCounterListInfo) needs "
				 "Windows 8 or later");
	if (n > MAX_PMC)
		return pmuk_fail(PMU_EBUDGET, "%zu hardware counters; ETW sessions take %d", n,
				 MAX_PMC);
	/* Queries only (TraceMaxPmcCounterQuery, TracePmcCounterOwners, the profile
	 * sources): deciding starts no session that could leave counters configured. */
	pmuk_etw_probe(&f);
	if (!f.usable)
		return pmuk_fail(PMU_ENOTSUP, "no ETW PMC counting here: %s", f.why);
	if (!f.nsources)
		return pmuk_fail(PMU_ENOTSUP, "this host offers no profile sources "
				 "(TraceProfileSourceListInfo is empty): no PMC to count with");
	if ((err = pmuk_etw_pmc_decide(n, 0, f.max_pmc, f.pmc_owners)))
		return err;
	return pmuk_etw_resolve(ev, n, ids);
}

int pmuk_etw_pmc_open(const struct pmu_event *const *ev, size_t n, const struct pmu_target *t,
		      int inherit, struct pmuk_etw_pmc **out)
{
	struct pmuk_etw_pmc *p;
	uint32_t ids[MAX_PMC];
	int err;

	*out = NULL;
	if (pmuk_wine_version())
		return wine_probe();
	if ((err = pmuk_etw_pmc_check_events(ev, n, ids)))
		return err;
	if (!(p = calloc(1, sizeof(*p))))
		return pmuk_fail(PMU_ENOMEM, "out of memory for ETW PMC counting");
	InitializeCriticalSection(&p->lock);
	p->n = n;
	p->inherit = inherit;
	memcpy(p->ids, ids, n * sizeof(*ids));
	p->nproc = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
	p->consumer = INVALID_PROCESSTRACE_HANDLE;
	if (!(p->last = calloc(p->nproc, sizeof(*p->last))) ||
	    !(p->have_last = calloc(p->nproc, 1)))
		err = pmuk_fail(PMU_ENOMEM, "out of memory for ETW PMC counting");
	if (!err && t->kind == PMU_TARGET_CPUS)
		err = index_map(p);
	if (!err)
		err = target(p, t);
	if (!err)
		err = setup(p);
	if (err) {
		pmuk_etw_pmc_close(p);
		return err;
	}
	*out = p;
	return 0;
}

/* Flushes the session and waits (up to 2 s) until the consumer saw it through. */
static void sync_consumer(struct pmuk_etw_pmc *p)
{
	LARGE_INTEGER now;

	if (!p->s.running || !p->thread)
		return;  /* stopped: the consumer ended after the last buffer */
	QueryPerformanceCounter(&now);
	if (pmuk_etw_session_flush(&p->s))
		return;
	for (int i = 0; i < 200 && InterlockedCompareExchange64(&p->last_ts, 0, 0) < now.QuadPart;
	     i++)
		Sleep(10);
}

int pmuk_etw_pmc_enable(struct pmuk_etw_pmc *p, int on)
{
	int err;

	if (!on && p->thread && finish(p))
		return pmuk_fail(PMU_EIO, "the ETW consumer thread did not end after the "
				 "session stopped: the counts may miss the last switches");
	if (on && !p->thread && (err = setup(p))) {
		finish(p);
		return err;
	}
	EnterCriticalSection(&p->lock);
	if (on && !p->on)  /* count from each CPU's next switch on */
		memset(p->have_last, 0, p->nproc);
	p->on = on;
	LeaveCriticalSection(&p->lock);
	return 0;
}

void pmuk_etw_pmc_reset(struct pmuk_etw_pmc *p)
{
	EnterCriticalSection(&p->lock);
	memset(p->total, 0, sizeof(p->total));
	if (p->per_cpu)
		memset(p->per_cpu, 0, p->ncpus * sizeof(*p->per_cpu));
	LeaveCriticalSection(&p->lock);
}

int pmuk_etw_pmc_read(struct pmuk_etw_pmc *p, size_t i, int cpu_index, uint64_t *value)
{
	if (i >= p->n || (cpu_index >= 0 && (size_t)cpu_index >= p->ncpus))
		return pmuk_fail(PMU_ERANGE, "no PMC counter %zu / CPU index %d", i, cpu_index);
	if (p->on && i == 0 && cpu_index <= 0)
		sync_consumer(p);
	EnterCriticalSection(&p->lock);
	*value = cpu_index >= 0 ? p->per_cpu[cpu_index][i] : p->total[i];
	LeaveCriticalSection(&p->lock);
	return 0;
}

void pmuk_etw_pmc_close(struct pmuk_etw_pmc *p)
{
	if (!p)
		return;
	if (finish(p)) {
		/* The consumer may still call on_event with p: leak p, not free it. */
		pmuk_log(PMU_LOG_WARN, "ETW consumer thread did not end; leaking its state");
		return;
	}
	if (p->bad_event[0])
		pmuk_log(PMU_LOG_WARN, "a Process or Thread event of the counting session did not "
			 "decode: some of the command's threads may be missing from the counts (%s)",
			 p->bad_event);
	DeleteCriticalSection(&p->lock);
	pmuk_etw_follow_free(p->follow);
	free(p->last);
	free(p->have_last);
	free(p->cpus);
	free(p->per_cpu);
	free(p->index_cpu);
	free(p);
}
