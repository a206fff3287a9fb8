/* SPDX-License-Identifier: MIT */
/* The exporter's Windows collectors beyond pmu_cpustat: PDH "\Processor
 * Information(*)" Interrupts/sec, DPCs Queued/sec, Clock Interrupts/sec, Idle
 * Break Events/sec (interrupts collector) and % Processor Performance, %
 * Processor Utility, % Privileged Utility with their bases (cpufreq
 * collector), read raw and accumulated per instance by core/pdh_math.c's
 * tracker: 32-bit counters and bases wrap modulo 2^32 into a 64-bit total, so
 * the series start at 0 when the exporter starts and never drop (where
 * windows_exporter emits the raw 32-bit value, seen as a reset on each wrap).
 * Under Wine (PdhGetRawCounterArrayW aborts there) and where the object is
 * missing these collectors emit nothing. The contention collector asks
 * TracePmcCounterOwners per processor (a query, no session). */
#include "windows/win.h"
#include "core/error.h"
#include "core/exporter_int.h"
#include "core/grow.h"
#include "core/pdh_math.h"

#include <pdh.h>
#include <pdhmsg.h>
#include <pmukit/error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { W_IRQ, W_DPC, W_CLOCK, W_BREAK, W_PERF, W_UTIL, W_PRIV, NW };

static const struct {
	const wchar_t *path;
	const char *native, *windows, *help;  /* counter names without _total */
	const char *native_base, *windows_base;  /* AVERAGE_BULK: its base's name */
} wc[NW] = {
	[W_IRQ] = { L"\\Processor Information(*)\\Interrupts/sec", "pmukit_cpu_interrupts",
		    "windows_cpu_interrupts", "Hardware interrupts received and serviced." },
	[W_DPC] = { L"\\Processor Information(*)\\DPCs Queued/sec", "pmukit_cpu_dpcs",
		    "windows_cpu_dpcs", "Deferred procedure calls queued." },
	[W_CLOCK] = { L"\\Processor Information(*)\\Clock Interrupts/sec",
		      "pmukit_cpu_clock_interrupts", "windows_cpu_clock_interrupts",
		      "Clock interrupts received." },
	[W_BREAK] = { L"\\Processor Information(*)\\Idle Break Events/sec",
		      "pmukit_cpu_idle_break_events", "windows_cpu_idle_break_events",
		      "Times the processor left an idle state." },
	[W_PERF] = { L"\\Processor Information(*)\\% Processor Performance",
		     "pmukit_cpu_processor_performance", "windows_cpu_processor_performance",
		     "% Processor Performance accumulated: rate over the base's rate is the "
		     "percentage of nominal frequency.", "pmukit_cpu_processor_performance_base",
		     "windows_cpu_processor_mperf" },
	[W_UTIL] = { L"\\Processor Information(*)\\% Processor Utility",
		     "pmukit_cpu_processor_utility", "windows_cpu_processor_utility",
		     "% Processor Utility accumulated: rate over the base's rate is the "
		     "utility percentage.", "pmukit_cpu_processor_utility_base",
		     "windows_cpu_processor_rtc" },
	[W_PRIV] = { L"\\Processor Information(*)\\% Privileged Utility",
		     "pmukit_cpu_privileged_utility", "windows_cpu_processor_privileged_utility",
		     "% Privileged Utility accumulated." },
};

struct track {
	int c;
	char inst[32];               /* the instance name, "group,index" */
	int cpu;                     /* flat id: group * 64 + index */
	struct pmuk_pdh_track t;
	uint64_t gen;                /* the scrape that last saw it */
};

struct pmuk_expo_os {
	PDH_HQUERY q;
	PDH_HCOUNTER h[NW];          /* NULL: absent on this host */
	DWORD type[NW];
	void *items;
	uint32_t items_size;
	struct track *tr;
	size_t ntr, cap;
	uint64_t gen;                /* the scrape last collected */
};

static void add_counter(struct pmuk_expo_os *os, int c)
{
	DWORD type = 0;

	if (PdhAddEnglishCounterW(os->q, wc[c].path, 0, &os->h[c]) != ERROR_SUCCESS) {
		os->h[c] = NULL;
		return;
	}
	if (pmuk_pdh_counter_type(os->h[c], &type) || !pmuk_pdh_type_known(type)) {
		PdhRemoveCounter(os->h[c]);
		os->h[c] = NULL;
	} else {
		os->type[c] = type;
	}
	pmuk_clear_detail();
}

int pmuk_expo_os_open(struct pmuk_expo_os **out)
{
	struct pmuk_expo_os *os;

	if (!(*out = os = calloc(1, sizeof(*os))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening the exporter");
	/* PdhGetRawCounterArrayW aborts the process under Wine: never reach it there. */
	if (pmuk_wine_version() || PdhOpenQueryW(NULL, 0, &os->q) != ERROR_SUCCESS) {
		os->q = NULL;
		return 0;
	}
	for (int c = 0; c < NW; c++)
		add_counter(os, c);
	return 0;
}

void pmuk_expo_os_close(struct pmuk_expo_os *os)
{
	if (!os)
		return;
	if (os->q)
		PdhCloseQuery(os->q);
	free(os->items);
	free(os->tr);
	free(os);
}

/* Now less the milliseconds since boot. */
double pmuk_expo_boot_time(struct pmuk_expo_os *os)
{
	(void)os;
	return (double)time(NULL) - (double)GetTickCount64() / 1000.0;
}

void pmuk_expo_freq_limits(struct pmuk_expo_os *os, int cpu, double hw[2], double scaling[2])
{
	(void)os;
	(void)cpu;
	hw[0] = hw[1] = scaling[0] = scaling[1] = 0;
}

/* The tracker of counter c on instance inst, made when new; NULL without memory. */
static struct track *track_of(struct pmuk_expo_os *os, int c, const char *inst, int cpu)
{
	struct track *t;

	for (size_t i = 0; i < os->ntr; i++)
		if (os->tr[i].c == c && !strcmp(os->tr[i].inst, inst))
			return &os->tr[i];
	if (pmuk_grow((void **)&os->tr, &os->cap, os->ntr + 1, sizeof(*os->tr)))
		return NULL;
	t = &os->tr[os->ntr];
	t->c = c;
	t->cpu = cpu;
	snprintf(t->inst, sizeof(t->inst), "%s", inst);
	if (pmuk_pdh_track_init(&t->t, os->type[c], PMUK_PDH_100NS_FREQ))
		return NULL;
	os->ntr++;
	return t;
}

static int read_counter(struct pmuk_expo_os *os, int c)
{
	DWORD count;
	int err;

	if ((err = pmuk_pdh_raw_items(os->h[c], &os->items, &os->items_size, &count,
				      "PdhGetRawCounterArrayW")))
		return err;
	for (DWORD i = 0; i < count; i++) {
		const PDH_RAW_COUNTER_ITEM_W *it = (const PDH_RAW_COUNTER_ITEM_W *)os->items + i;
		const PDH_RAW_COUNTER *r = &it->RawValue;
		struct pmuk_pdh_raw raw = {
			.value = (uint64_t)r->FirstValue, .base = (uint64_t)r->SecondValue,
			.time = (uint64_t)r->TimeStamp.dwHighDateTime << 32 |
				r->TimeStamp.dwLowDateTime,
		};
		struct pmuk_pdh_instance inst;
		char name[32];
		struct track *t;
		size_t k;

		for (k = 0; it->szName[k] && k + 1 < sizeof(name); k++)
			name[k] = it->szName[k] < 128 ? (char)it->szName[k] : '?';
		name[k] = '\0';
		if (r->CStatus > PDH_CSTATUS_NEW_DATA || pmuk_pdh_instance_parse(name, &inst) ||
		    inst.kind != PMUK_PDH_INST_CPU)
			continue;  /* totals and counters without data */
		if (!(t = track_of(os, c, name, inst.first * 64 + inst.index)))
			return pmuk_fail(PMU_ENOMEM, "out of memory reading PDH counters");
		pmuk_pdh_track_add(&t->t, &raw);
		t->gen = os->gen;
	}
	pmuk_clear_detail();
	return 0;
}

/* One PDH collection per scrape, whichever collector asks first. */
static int collect(struct pmu_exporter *e)
{
	struct pmuk_expo_os *os = e->os;
	int err = 0;

	if (!os->q || os->gen == e->gen)
		return 0;
	os->gen = e->gen;
	if (PdhCollectQueryData(os->q) != ERROR_SUCCESS)
		return 0;  /* no data this time: the series are left out, not an error */
	for (int c = 0; c < NW && !err; c++)
		if (os->h[c])
			err = read_counter(os, c);
	return err;
}

/* The samples of counter c (and of its base for AVERAGE_BULK). */
static int emit(struct pmu_exporter *e, int c)
{
	int win = e->o.compat == PMU_EXPORTER_COMPAT_WINDOWS, err = 0;
	const char *base = win ? wc[c].windows_base : wc[c].native_base;
	struct pmuk_expo_os *os = e->os;
	struct pmu_mfamily *f = NULL, *fb = NULL;

	for (size_t i = 0; i < os->ntr && !err; i++) {
		struct track *t = &os->tr[i];
		char cpu[24];

		if (t->c != c || t->gen != os->gen)
			continue;
		if (!f && (err = pmuk_expo_family(e, win ? wc[c].windows : wc[c].native,
						  PMU_MTYPE_COUNTER, wc[c].help, NULL, &f)))
			break;
		if (win)
			snprintf(cpu, sizeof(cpu), "%s", t->inst);  /* windows_exporter: as PDH says */
		else
			pmuk_expo_cpu_label(e, t->cpu, cpu, sizeof(cpu));
		const char *l[] = { win ? "core" : "cpu", cpu, NULL };

		err = pmuk_expo_counter(e, f, l, (double)t->t.total, e->created);
		if (err || !base || os->type[c] != PMUK_PERF_AVERAGE_BULK)
			continue;
		if (!fb && (err = pmuk_expo_family(e, base, PMU_MTYPE_COUNTER,
						   "The base of the counter of the same name, "
						   "accumulated across 32-bit wraps.", NULL, &fb)))
			break;
		err = pmuk_expo_counter(e, fb, l, (double)t->t.base_total, e->created);
	}
	return err;
}

int pmuk_expo_collect_interrupts(struct pmu_exporter *e)
{
	int err = collect(e);

	for (int c = W_IRQ; c <= W_BREAK && !err; c++)
		err = emit(e, c);
	return err;
}

int pmuk_expo_collect_cpufreq_os(struct pmu_exporter *e)
{
	int err = collect(e);

	for (int c = W_PERF; c <= W_PRIV && !err; c++)
		err = emit(e, c);
	return err;
}

/* Counters per processor and how many of them another owner (a profiler, a driver,
 * the hypervisor) holds now. Where the class cannot be asked, one gauge at 0 with the
 * reason, as the pmu collector does, not an error per scrape. */
int pmuk_expo_collect_contention(struct pmu_exporter *e)
{
	DWORD ncpu = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
	struct pmu_mfamily *fa, *fh = NULL, *ft = NULL;
	uint32_t n, held;
	int err;

	if ((err = pmuk_expo_family(e, "pmukit_pmu_owners_available", PMU_MTYPE_GAUGE,
				    "1 when TracePmcCounterOwners answers; else 0 with the reason.",
				    NULL, &fa)))
		return err;
	if (pmuk_etw_pmc_owners(0, &n, &held)) {
		const char *l[] = { "reason", pmu_error_detail(), NULL };

		err = pmuk_expo_gauge(e, fa, l, 0);
		pmuk_clear_detail();
		return err;
	}
	if ((err = pmuk_expo_gauge(e, fa, NULL, 1)) ||
	    (err = pmuk_expo_family(e, "pmukit_pmu_counters", PMU_MTYPE_GAUGE,
				    "Hardware counters of the processor (TracePmcCounterOwners).",
				    NULL, &ft)) ||
	    (err = pmuk_expo_family(e, "pmukit_pmu_counters_held", PMU_MTYPE_GAUGE,
				    "Hardware counters of the processor another owner holds now.",
				    NULL, &fh)))
		return err;
	for (DWORD c = 0; c < ncpu && !err; c++) {
		char cpu[16];
		const char *l[] = { "cpu", cpu, NULL };

		if (pmuk_etw_pmc_owners(c, &n, &held)) {
			pmuk_clear_detail(); /* this processor went away: no series */
			continue;
		}
		pmuk_expo_cpu_label(e, (int)c, cpu, sizeof(cpu));
		if (!(err = pmuk_expo_gauge(e, ft, l, n)))
			err = pmuk_expo_gauge(e, fh, l, held);
	}
	return err;
}
