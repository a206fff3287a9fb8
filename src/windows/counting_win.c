/* SPDX-License-Identifier: MIT */
/* Concern 1 on Windows:
 *   task-clock, cpu-clock  GetThreadTimes / GetProcessTimes (user + kernel time, in
 *                          whole clock ticks of 15.6 ms: stat says so); a command's job
 *                          object (JobObjectBasicAccountingInformation) with inherit
 *   ref-cycles             QueryThreadCycleTime / QueryProcessCycleTime: the driver-free
 *                          count the kernel keeps per thread, at the TSC's constant rate,
 *                          so reference cycles, not core cycles (IPC against it is wrong)
 *   page-faults            GetProcessMemoryInfo (the whole process); the job's with inherit
 *   context-switches       HCP ReadThreadProfilingData ContextSwitchCount (calling thread)
 *   cycles and the other   ETW PMC-on-CSwitch counting (pmc_counting_win.c), per thread,
 *   hardware events, HAL   process or CPU: cycles from the TotalCycles / UnhaltedCoreCycles
 *   profile sources        profile source, so instructions / cycles is the IPC. Needs an
 *                          elevated prompt (SeSystemProfilePrivilege).
 * Values are deltas from enable; time_enabled = time_running (nothing multiplexes:
 * ETW gives each PMC a counter of its own or refuses the set). */
#include "windows/win.h"
#include "core/counting_int.h"
#include "core/error.h"
#include "core/opts.h"
#include "core/event_list.h"
#include "core/scale.h"

#include <pmukit/counting.h>
#include <psapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef DWORD (APIENTRY *enable_tp_fn)(HANDLE, DWORD, DWORD64, HANDLE *);
typedef DWORD (APIENTRY *read_tp_fn)(HANDLE, DWORD, PPERFORMANCE_DATA);
typedef DWORD (APIENTRY *disable_tp_fn)(HANDLE);

struct win_counter {
	int src;
	uint64_t base;       /* raw value at the last enable */
	uint64_t acc;        /* counted while enabled before the last disable */
	int pmc;             /* PMUK_WSRC_ETW_PMC: index in the ETW PMC set */
	char *unsupported;   /* left out (skip_unsupported): why, else NULL */
};

struct pmu_counters {
	PMUK_COUNTERS_HEAD /* first: ev, nev, unit = the CPUs of a CPU target (core/counting_int.h) */
	struct win_counter *c; /* [nev] */
	int kind;
	HANDLE proc, thread; /* owned unless the calling thread/process pseudo handles */
	HANDLE hcp;          /* HCP performance data handle */
	HANDLE job;          /* the command's job object (inherit): its accounting, else NULL */
	int inherit;         /* a process target's children count too */
	struct pmuk_etw_pmc *pmc;  /* the hardware events counted through ETW */
	int enabled;
	LARGE_INTEGER t_enable, freq;
	uint64_t time_acc;   /* ns enabled before the last disable */
};

int pmuk_win_count_source(int generic, int kind, char *why, size_t n)
{
	const char *wine = pmuk_wine_version();
	int self = kind == PMU_TARGET_SELF, thread = self || kind == PMU_TARGET_TID;

	int hw = (generic >= 0 && generic <= PMU_GENERIC_REF_CYCLES) ||
		 generic == PMU_GENERIC_HW_CACHE;

	if (wine && hw && !(generic == PMU_GENERIC_REF_CYCLES && kind != PMU_TARGET_CPUS)) {
		snprintf(why, n, PMUK_WINE_LACKS "ETW kernel sessions: StartTraceW returns success "
			 "with a fake handle and TraceSetInformation(TracePmcCounterListInfo) "
			 "returns ERROR_CALL_NOT_IMPLEMENTED", wine);
		return PMUK_WSRC_NONE;
	}
	if (kind == PMU_TARGET_CPUS) {
		if (hw)
			return PMUK_WSRC_ETW_PMC;
		snprintf(why, n, "Windows keeps no per-CPU count of software events; hardware "
			 "events count CPU-wide through ETW");
		return PMUK_WSRC_NONE;
	}
	if (wine && kind == PMU_TARGET_PID &&
	    (generic == PMU_GENERIC_TASK_CLOCK || generic == PMU_GENERIC_CPU_CLOCK ||
	     generic == PMU_GENERIC_PAGE_FAULTS)) {
		snprintf(why, n, "Wine %s reports zero CPU time and page faults for other "
			 "processes (GetProcessTimes, GetProcessMemoryInfo)", wine);
		return PMUK_WSRC_NONE;
	}
	switch (generic) {
	case PMU_GENERIC_TASK_CLOCK:
	case PMU_GENERIC_CPU_CLOCK:
		return PMUK_WSRC_CPU_TIME;
	case PMU_GENERIC_REF_CYCLES:
		if (kind == PMU_TARGET_CPUS)
			return PMUK_WSRC_ETW_PMC;
		if (wine) {
			snprintf(why, n, PMUK_WINE_LACKS "QueryThreadCycleTime (it returns FALSE)",
				 wine);
			return PMUK_WSRC_NONE;
		}
		return PMUK_WSRC_CYCLE_TIME;
	case PMU_GENERIC_PAGE_FAULTS:
		if (thread) {
			snprintf(why, n, "Windows counts page faults per process only "
				 "(GetProcessMemoryInfo); count a process instead");
			return PMUK_WSRC_NONE;
		}
		return PMUK_WSRC_PAGE_FAULTS;
	case PMU_GENERIC_CONTEXT_SWITCHES:
		if (wine) {
			snprintf(why, n, PMUK_WINE_LACKS "EnableThreadProfiling (HCP)", wine);
			return PMUK_WSRC_NONE;
		}
		if (!self) {
			snprintf(why, n, "HCP counts context switches of the calling thread only "
				 "(EnableThreadProfiling takes the current thread)");
			return PMUK_WSRC_NONE;
		}
		return PMUK_WSRC_HCP_CSWITCH;
	default:
		break;
	}
	if (hw)  /* HCP reads only PMCs a kernel driver configured: ETW it is */
		return PMUK_WSRC_ETW_PMC;
	snprintf(why, n, "Windows keeps no such count (no source for it in Win32)");
	return PMUK_WSRC_NONE;
}

static uint64_t ft100(const FILETIME *f)
{
	return ((uint64_t)f->dwHighDateTime << 32 | f->dwLowDateTime);
}

/* The command and every process it started, through its job object. */
static int read_job(const struct pmu_counters *p, int src, uint64_t *v)
{
	struct pmuk_job_counts c;
	int err = pmuk_job_accounting(p->job, &c);

	if (!err)
		*v = src == PMUK_WSRC_CPU_TIME ? c.cpu_100ns * 100 : c.page_faults;
	return err;
}

static int read_raw(struct pmu_counters *p, int src, uint64_t *v)
{
	FILETIME a, b, k, u;
	PROCESS_MEMORY_COUNTERS pmc = { .cb = sizeof(pmc) };
	PERFORMANCE_DATA pd = { .Size = sizeof(pd), .Version = PERFORMANCE_DATA_VERSION };
	ULONG64 cyc;
	BOOL ok;
	DWORD e;
	read_tp_fn rd;

	if (p->job && (src == PMUK_WSRC_CPU_TIME || src == PMUK_WSRC_PAGE_FAULTS))
		return read_job(p, src, v);
	switch (src) {
	case PMUK_WSRC_CPU_TIME:
		ok = p->thread ? GetThreadTimes(p->thread, &a, &b, &k, &u)
			       : GetProcessTimes(p->proc, &a, &b, &k, &u);
		if (!ok)
			break;
		*v = (ft100(&k) + ft100(&u)) * 100;
		return 0;
	case PMUK_WSRC_CYCLE_TIME:
		ok = p->thread ? QueryThreadCycleTime(p->thread, &cyc)
			       : QueryProcessCycleTime(p->proc, &cyc);
		if (!ok)
			break;
		*v = cyc;
		return 0;
	case PMUK_WSRC_PAGE_FAULTS:
		if (!GetProcessMemoryInfo(p->proc, &pmc, sizeof(pmc)))
			break;
		*v = pmc.PageFaultCount;
		return 0;
	case PMUK_WSRC_ETW_PMC:
		*v = 0;  /* counted in pmc_counting_win.c; read through pmuk_etw_pmc_read */
		return 0;
	case PMUK_WSRC_NONE:
		*v = 0;  /* left out: skip_unsupported */
		return 0;
	case PMUK_WSRC_HCP_CSWITCH:
		rd = (read_tp_fn)(void (*)(void))pmuk_win_proc(L"kernel32.dll",
							      "ReadThreadProfilingData");
		e = rd ? rd(p->hcp, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd) : ERROR_PROC_NOT_FOUND;
		if (e != ERROR_SUCCESS)
			return pmuk_fail(PMU_EIO, "ReadThreadProfilingData failed: %s",
					 pmuk_win_strerror(e));
		*v = pd.ContextSwitchCount;
		return 0;
	}
	return pmuk_fail(PMU_EIO, "reading the counts of the target failed: %s",
			 pmuk_win_strerror(GetLastError()));
}

static int open_target(struct pmu_counters *p, const struct pmu_target *t)
{
	DWORD access = PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ | SYNCHRONIZE;

	switch (t->kind) {
	case PMU_TARGET_SELF:
		p->thread = GetCurrentThread();
		p->proc = GetCurrentProcess();
		return 0;
	case PMU_TARGET_TID:
		p->thread = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)t->pid);
		if (!p->thread)
			break;
		return 0;
	case PMU_TARGET_CPUS:
		return 0;
	case PMU_TARGET_PID:
		p->proc = OpenProcess(access, FALSE, (DWORD)t->pid);
		if (!p->proc) /* PROCESS_VM_READ is refused for protected processes */
			p->proc = OpenProcess(access & ~PROCESS_VM_READ, FALSE, (DWORD)t->pid);
		if (!p->proc)
			break;
		return 0;
	default:
		return pmuk_fail(PMU_EINVAL, "unknown target kind %d", (int)t->kind);
	}
	if (GetLastError() == ERROR_INVALID_PARAMETER)
		return pmuk_fail(PMU_ESRCH, "no %s with id %d", t->kind == PMU_TARGET_TID ?
				 "thread" : "process", t->pid);
	return pmuk_fail(PMU_EPERM, "cannot open %s %d: %s (another user's process needs "
			 "SeDebugPrivilege)", t->kind == PMU_TARGET_TID ? "thread" : "process",
			 t->pid, pmuk_win_strerror(GetLastError()));
}

/* Under Wine a hardware event (ref-cycles on threads aside) asks the ETW calls
 * themselves, so the detail says what they answered; 0 for any other event. */
static int wine_pmc_probe(const struct pmu_event *ev, const struct pmu_target *t)
{
	struct pmuk_etw_pmc *pmc;
	char why[512];
	int err, hw = (ev->generic >= 0 && ev->generic <= PMU_GENERIC_REF_CYCLES) ||
		      ev->generic == PMU_GENERIC_HW_CACHE;

	if (!pmuk_wine_version() || !hw ||
	    (ev->generic == PMU_GENERIC_REF_CYCLES && t->kind != PMU_TARGET_CPUS))
		return 0;
	if (!(err = pmuk_etw_pmc_open(&ev, 1, t, 0, &pmc))) {
		pmuk_etw_pmc_close(pmc);
		return 0;
	}
	snprintf(why, sizeof(why), "%s", pmu_error_detail());
	return pmuk_fail(err, "cannot count '%s' here: %s", ev->name, why);
}

/* The hardware events go to one ETW PMC-on-CSwitch session. */
static int open_pmc(struct pmu_counters *p, const struct pmu_target *t)
{
	const struct pmu_event *ev[PMUK_ETW_MAX_IDS];
	size_t k = 0;
	int err;

	for (size_t i = 0; i < p->nev; i++)
		if (p->c[i].src == PMUK_WSRC_ETW_PMC && k < PMUK_ETW_MAX_IDS) {
			p->c[i].pmc = (int)k;
			ev[k++] = &p->ev[i];
		}
	if (!k)
		return 0;
	if ((err = pmuk_etw_pmc_open(ev, k, t, p->inherit, &p->pmc)))
		return err;
	if (t->kind == PMU_TARGET_CPUS) {
		const int *cpus;

		/* Flat ids (group * 64 + number), as the ETW side maps them. */
		p->nunits = pmuk_etw_pmc_cpus(p->pmc, &cpus);
		if (!(p->unit = calloc(p->nunits ? p->nunits : 1, sizeof(*p->unit))))
			return pmuk_fail(PMU_ENOMEM, "out of memory for the CPU list");
		memcpy(p->unit, cpus, p->nunits * sizeof(*p->unit));
	}
	return 0;
}

static int hcp_enable(struct pmu_counters *p)
{
	enable_tp_fn en = (enable_tp_fn)(void (*)(void))pmuk_win_proc(L"kernel32.dll",
								      "EnableThreadProfiling");
	DWORD e = en ? en(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &p->hcp)
		     : ERROR_PROC_NOT_FOUND;

	if (e != ERROR_SUCCESS) {
		p->hcp = NULL;
		return pmuk_fail(e == ERROR_ACCESS_DENIED ? PMU_EBUSY : PMU_ENOTSUP,
				 "EnableThreadProfiling failed: %s (one profiling application "
				 "at a time: HCP is single-tenant)", pmuk_win_strerror(e));
	}
	return 0;
}

/* skip_unsupported: counter i is left out, with the last error as its reason. */
static int leave_out(struct win_counter *c)
{
	c->src = PMUK_WSRC_NONE;
	if (!(c->unsupported = _strdup(pmu_error_detail())))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening counters");
	pmuk_clear_detail();
	return 0;
}

/* The ETW PMC session for the hardware events. With skip_unsupported, when the
 * session cannot take them all, each is tried alone: those that fail are left out
 * with their own reason and the session opens with the rest. */
static int open_pmc_or_leave_out(struct pmu_counters *p, const struct pmu_target *t, int skip)
{
	int err = open_pmc(p, t), left = 0;
	uint32_t id;

	if (err != PMU_ENOTSUP || !skip)
		return err;
	for (size_t i = 0; i < p->nev; i++) {
		const struct pmu_event *ev = &p->ev[i];

		if (p->c[i].src != PMUK_WSRC_ETW_PMC)
			continue;
		/* Decided from queries: no session per event (issue 13 item 10). */
		if ((err = pmuk_etw_pmc_check_events(&ev, 1, &id)) == 0) {
			left++;
		} else if (err != PMU_ENOTSUP || (err = leave_out(&p->c[i]))) {
			return err;
		}
	}
	return left ? open_pmc(p, t) : 0;
}

/* Nothing to count when every event was left out: each distinct reason is the error
 * (unless allow_empty). */
static int all_left_out(const struct pmu_counters *p, int allow_empty)
{
	const char *why[64];
	size_t n = 0;

	if (allow_empty)
		return 0;
	for (size_t i = 0; i < p->nev; i++) {
		if (!p->c[i].unsupported)
			return 0;
		if (n < sizeof(why) / sizeof(why[0]))
			why[n++] = p->c[i].unsupported;
	}
	return pmuk_fail_reasons(PMU_ENOTSUP, why, n);
}

PMUK_COUNTERS_HEAD_CHECK(struct pmu_counters);

int pmuk_counters_os_open(const struct pmu_event *ev, size_t nev, const struct pmu_target *target,
			  const struct pmu_counters_opts *o, struct pmu_counters **out)
{
	struct pmu_counters *p;
	char why[320];
	int err = 0;
	/* inherit is implied: process counts include every thread */
	int skip = o->skip_unsupported;
	int allow_empty = skip && o->allow_empty;

	if (target->pids && target->npids > 1)
		return pmuk_fail(PMU_ENOTSUP, "several processes or threads in one target are "
				 "counted on Linux only; on Windows count one at a time");
	p = calloc(1, sizeof(*p));
	if (!p || !(p->c = calloc(nev, sizeof(*p->c))) || !(p->ev = calloc(nev, sizeof(*p->ev)))) {
		free(p ? p->c : NULL);
		free(p);
		return pmuk_fail(PMU_ENOMEM, "out of memory opening counters");
	}
	p->nev = nev;
	p->kind = target->kind;
	p->cpu_target = target->kind == PMU_TARGET_CPUS;
	if (!p->cpu_target)
		p->no_threads = "Windows counters are kept per process or thread as a whole, "
				"not per thread of a process";
	for (size_t i = 0; i < p->nev && !err; i++) {
		const struct pmu_event *e = &ev[i];

		p->ev[i] = *e;
		p->c[i].pmc = -1;
		if (e->kind == PMU_EVENT_RAW && !strcmp(e->pmu, "hal"))
			p->c[i].src = PMUK_WSRC_ETW_PMC;
		else
			p->c[i].src = pmuk_win_count_source(e->generic, target->kind, why,
							    sizeof(why));
		if (p->c[i].src == PMUK_WSRC_NONE)
			err = wine_pmc_probe(e, target);
		if (p->c[i].src == PMUK_WSRC_NONE && !err)
			err = pmuk_fail(PMU_ENOTSUP, "cannot count '%s' here: %s", e->name, why);
		if (err == PMU_ENOTSUP && skip)
			err = leave_out(&p->c[i]);
	}
	if (!err)
		err = open_target(p, target);
	/* a command pmukit started runs in a job: count what it starts too */
	p->inherit = o->inherit && target->kind == PMU_TARGET_PID;
	if (!err && p->inherit)
		p->job = pmuk_command_job_dup(target->pid);
	if (!err)
		err = open_pmc_or_leave_out(p, target, skip);
	if (!err)
		err = all_left_out(p, allow_empty);
	for (size_t i = 0; i < p->nev && !err; i++)
		if (p->c[i].src == PMUK_WSRC_HCP_CSWITCH && !p->hcp)
			err = hcp_enable(p);
	QueryPerformanceFrequency(&p->freq);
	for (size_t i = 0; i < p->nev && !err; i++) /* proves every source reads */
		err = read_raw(p, p->c[i].src, &p->c[i].base);
	if (!err && !o->start_disabled)
		err = pmuk_counters_os_enable(p);
	if (err) {
		pmuk_counters_os_close(p);
		return err;
	}
	*out = p;
	return 0;
}

/* ETW gives each PMC a counter of its own or refuses the set at open: no budget to
 * judge beforehand. */
int pmuk_counters_check_budget(const struct pmu_event *ev, size_t n)
{
	(void)ev;
	(void)n;
	return 0;
}

/* The calling thread's events this host counts: task-clock always (GetThreadTimes),
 * ref-cycles (not core cycles: that needs an ETW session) and context-switches where
 * the host provides them (not under Wine). */
const char *pmuk_counters_self_default(void)
{
	static const int gen[] = { PMU_GENERIC_REF_CYCLES, PMU_GENERIC_CONTEXT_SWITCHES };
	static const char *const name[] = { "ref-cycles", "context-switches" };
	static _Thread_local char spec[64];
	char why[320];

	snprintf(spec, sizeof(spec), "task-clock");
	for (size_t i = 0; i < sizeof(gen) / sizeof(gen[0]); i++)
		if (pmuk_win_count_source(gen[i], PMU_TARGET_SELF, why, sizeof(why)) !=
		    PMUK_WSRC_NONE)
			snprintf(spec + strlen(spec), sizeof(spec) - strlen(spec), ",%s", name[i]);
	return spec;
}

static uint64_t elapsed_ns(const struct pmu_counters *p)
{
	LARGE_INTEGER now;

	QueryPerformanceCounter(&now);
	return (uint64_t)((double)(now.QuadPart - p->t_enable.QuadPart) * 1e9 /
			  (double)p->freq.QuadPart);
}

int pmuk_counters_os_enable(struct pmu_counters *p)
{
	int err = 0;

	if (p->enabled)
		return 0;
	for (size_t i = 0; i < p->nev && !err; i++)
		err = read_raw(p, p->c[i].src, &p->c[i].base);
	if (!err && p->pmc)
		err = pmuk_etw_pmc_enable(p->pmc, 1);
	if (err)
		return err;
	QueryPerformanceCounter(&p->t_enable);
	p->enabled = 1;
	return 0;
}

int pmuk_counters_os_disable(struct pmu_counters *p)
{
	uint64_t v;
	int err = 0;

	if (!p->enabled)
		return 0;
	for (size_t i = 0; i < p->nev && !err; i++)
		if (!(err = read_raw(p, p->c[i].src, &v)))
			p->c[i].acc += v - p->c[i].base;
	if (!err && p->pmc)
		err = pmuk_etw_pmc_enable(p->pmc, 0);
	p->time_acc += elapsed_ns(p);
	p->enabled = 0;
	return err;
}

int pmuk_counters_os_reset(struct pmu_counters *p)
{
	int err = 0;

	for (size_t i = 0; i < p->nev && !err; i++) {
		p->c[i].acc = 0;
		if (p->enabled)
			err = read_raw(p, p->c[i].src, &p->c[i].base);
	}
	if (p->pmc)
		pmuk_etw_pmc_reset(p->pmc);
	p->time_acc = 0;
	if (p->enabled)
		QueryPerformanceCounter(&p->t_enable);
	return err;
}

const char *pmuk_counters_os_unsupported(const struct pmu_counters *p, size_t i)
{
	return p->c[i].unsupported;
}

/* Windows counts no groups: an event is only ever left out for its own reason. */
int pmuk_counters_os_left_with_group(const struct pmu_counters *p, size_t i)
{
	(void)p;
	(void)i;
	return 0;
}

/* Fills out[] for all targets (cpu_index -1) or one CPU of a CPU target. */
static int read_all(struct pmu_counters *p, int cpu_index, struct pmu_reading *out)
{
	uint64_t t = p->time_acc + (p->enabled ? elapsed_ns(p) : 0), v;
	int err;

	for (size_t i = 0; i < p->nev; i++) {
		if (p->c[i].unsupported) {
			pmuk_reading_set(&out[i], 0, 0, 0);
			out[i].flags = PMU_READING_UNSUPPORTED;
			continue;
		}
		if (p->c[i].src == PMUK_WSRC_ETW_PMC) {
			if ((err = pmuk_etw_pmc_read(p->pmc, (size_t)p->c[i].pmc, cpu_index, &v)))
				return err;
		} else {
			v = p->c[i].acc;
			if (p->enabled) {
				if ((err = read_raw(p, p->c[i].src, &v)))
					return err;
				v = p->c[i].acc + (v - p->c[i].base);
			}
		}
		pmuk_reading_set(&out[i], v, t, t);
	}
	return 0;
}

int pmuk_counters_os_read(struct pmu_counters *p, size_t index, struct pmu_reading *out)
{
	return read_all(p, index == SIZE_MAX ? -1 : (int)index, out);
}

void pmuk_counters_os_close(struct pmu_counters *p)
{
	disable_tp_fn dis;

	if (p->hcp && (dis = (disable_tp_fn)(void (*)(void))pmuk_win_proc(L"kernel32.dll",
									  "DisableThreadProfiling")))
		dis(p->hcp);
	pmuk_etw_pmc_close(p->pmc);
	free(p->unit);
	if (p->thread && p->kind == PMU_TARGET_TID)
		CloseHandle(p->thread);
	if (p->proc && p->kind == PMU_TARGET_PID)
		CloseHandle(p->proc);
	if (p->job)
		CloseHandle(p->job);
	for (size_t i = 0; p->c && i < p->nev; i++)
		free(p->c[i].unsupported);
	free(p->c);
	free(p->ev);
	free(p);
}
