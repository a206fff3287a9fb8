/* SPDX-License-Identifier: MIT */
/* OS CPU-time counters from PDH "\Processor Information(*)": every counter read raw
 * (PdhGetRawCounterArrayW), its type taken at run time (PdhGetCounterInfoW), gauges
 * and % Processor Performance cooked by core/pdh_math.c, instance names "A,B" read as
 * node,index or group,processor (decided once from the topology and the names) and
 * mapped to flat CPU ids. Processor Frequency is the nominal clock: the current one
 * is nominal x % Processor Performance / 100. The times are cumulative 100 ns
 * ticks (PERF_100NSEC_TIMER, PERF_PRECISION_100NS_TIMER); core/cpustat.c takes the
 * interval percentages from their deltas. % Privileged Time includes interrupt and
 * DPC time: system is privileged less both. The C1-C3 idle states come from
 * "% Cn Time" (cumulative 100 ns) and "Cn Transitions/sec" (a cumulative count
 * read raw), where the host has them. Wine lacks the object (the counters
 * answer PDH_CSTATUS_NO_COUNTER) and aborts in PdhGetRawCounterArrayW: under Wine,
 * and wherever the object is missing, NtQuerySystemInformation serves (ntqsi_win.c). */
#include "windows/win.h"
#include "core/cpustat.h"
#include "core/error.h"
#include "core/pdh_math.h"

#include <pdh.h>
#include <pdhmsg.h>
#include <pmukit/topology.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_USER, C_PRIV, C_IDLE, C_IRQ, C_DPC, C_FREQ, C_PARK, C_PERF,
       C_C1_TIME, C_C2_TIME, C_C3_TIME, C_C1_ENTRIES, C_C2_ENTRIES, C_C3_ENTRIES, NCOUNTERS };

static const struct {
	const wchar_t *path;
	int required;
} counters[NCOUNTERS] = {
	[C_USER] = { L"\\Processor Information(*)\\% User Time", 1 },
	[C_PRIV] = { L"\\Processor Information(*)\\% Privileged Time", 1 },
	[C_IDLE] = { L"\\Processor Information(*)\\% Idle Time", 1 },
	[C_IRQ] = { L"\\Processor Information(*)\\% Interrupt Time", 0 },
	[C_DPC] = { L"\\Processor Information(*)\\% DPC Time", 0 },
	[C_FREQ] = { L"\\Processor Information(*)\\Processor Frequency", 0 },
	[C_PARK] = { L"\\Processor Information(*)\\Parking Status", 0 },
	[C_PERF] = { L"\\Processor Information(*)\\% Processor Performance", 0 },
	[C_C1_TIME] = { L"\\Processor Information(*)\\% C1 Time", 0 },
	[C_C2_TIME] = { L"\\Processor Information(*)\\% C2 Time", 0 },
	[C_C3_TIME] = { L"\\Processor Information(*)\\% C3 Time", 0 },
	[C_C1_ENTRIES] = { L"\\Processor Information(*)\\C1 Transitions/sec", 0 },
	[C_C2_ENTRIES] = { L"\\Processor Information(*)\\C2 Transitions/sec", 0 },
	[C_C3_ENTRIES] = { L"\\Processor Information(*)\\C3 Transitions/sec", 0 },
};

/* Counters read as cumulative 100 ns times. */
static int is_time_counter(int c)
{
	return c <= C_DPC || (c >= C_C1_TIME && c <= C_C3_TIME);
}

struct prev_perf {
	int cpu;
	struct pmuk_pdh_raw raw;
};

struct pdh_state {
	PDH_HQUERY q;
	PDH_HCOUNTER h[NCOUNTERS];   /* NULL: the counter is absent */
	DWORD type[NCOUNTERS];
	struct pmu_topology *topo;
	void *items;                 /* PDH_RAW_COUNTER_ITEM_W[] */
	uint32_t items_size;
	struct prev_perf *perf;      /* last % Processor Performance raw sample per CPU */
	size_t nperf;
	int scheme_known;            /* how "A,B" reads, decided at the first read */
	enum pmuk_pdh_scheme scheme;
};

static void pdh_close(void *state)
{
	struct pdh_state *st = state;

	if (!st)
		return;
	if (st->q)
		PdhCloseQuery(st->q);
	pmu_topology_free(st->topo);
	free(st->items);
	free(st->perf);
	free(st);
}

static int is_timer(DWORD type)
{
	return type == PMUK_PERF_100NSEC_TIMER || type == PMUK_PERF_PRECISION_100NS_TIMER;
}

/* An instance name as ASCII (the digits, commas and _Total that matter are). */
static void instance_name(const wchar_t *w, char *name, size_t size)
{
	size_t i;

	for (i = 0; w[i] && i + 1 < size; i++)
		name[i] = w[i] < 128 ? (char)w[i] : '?';
	name[i] = '\0';
}

/* The flat CPU id of an instance name; -1 for totals and names the topology lacks. */
static int instance_cpu(const struct pdh_state *st, const wchar_t *w)
{
	struct pmuk_pdh_instance inst;
	char name[64];
	int cpu;

	instance_name(w, name, sizeof(name));
	if (pmuk_pdh_instance_parse(name, &inst) || inst.kind != PMUK_PDH_INST_CPU ||
	    pmuk_pdh_instance_cpu(st->topo, st->scheme, &inst, &cpu))
		return -1;
	return cpu;
}

/* Decides node,index vs group,processor from every name of the first read. */
static int decide_scheme(struct pdh_state *st, const void *items, DWORD count)
{
	char (*names)[64] = calloc(count ? count : 1, sizeof(*names));
	const char **p = calloc(count ? count : 1, sizeof(*p));
	int err;

	if (!names || !p) {
		free(names);
		free(p);
		return pmuk_fail(PMU_ENOMEM, "out of memory reading PDH instance names");
	}
	for (DWORD i = 0; i < count; i++) {
		instance_name(((const PDH_RAW_COUNTER_ITEM_W *)items)[i].szName, names[i], 64);
		p[i] = names[i];
	}
	err = pmuk_pdh_instance_scheme(st->topo, p, count, &st->scheme);
	st->scheme_known = !err;
	if (!err)
		pmuk_log(PMU_LOG_DEBUG, "cpustat: PDH instance names read as %s",
			 st->scheme == PMUK_PDH_BY_NODE ? "node,index" : "group,processor");
	free(names);
	free(p);
	return err;
}

static struct pmuk_cpustat_raw *cpu_of(struct pmuk_cpustat_snap *snap, int cpu)
{
	for (size_t i = 0; i < snap->n; i++)
		if (snap->cpu[i].cpu == cpu)
			return &snap->cpu[i];
	return pmuk_cpustat_add(snap, cpu);
}

/* % Processor Performance of the interval: dN/dB against this CPU's last sample. */
static int perf(struct pdh_state *st, struct pmuk_cpustat_raw *r, const struct pmuk_pdh_raw *raw)
{
	struct pmuk_pdh_value v;
	struct prev_perf *p = NULL;

	for (size_t i = 0; i < st->nperf; i++)
		if (st->perf[i].cpu == r->cpu)
			p = &st->perf[i];
	if (!p) {
		if (!(p = realloc(st->perf, (st->nperf + 1) * sizeof(*p))))
			return pmuk_fail(PMU_ENOMEM, "out of memory reading PDH counters");
		st->perf = p;
		p = &st->perf[st->nperf++];
		p->cpu = r->cpu;
	} else if (!pmuk_pdh_cook(st->type[C_PERF], &p->raw, raw, PMUK_PDH_100NS_FREQ, &v)) {
		r->perf_percent = v.value;
	}
	pmuk_clear_detail();
	p->raw = *raw;
	return 0;
}

static int put(struct pdh_state *st, int c, struct pmuk_cpustat_raw *r,
	       const PDH_RAW_COUNTER *rc)
{
	struct pmuk_pdh_raw raw = {
		.value = (uint64_t)rc->FirstValue, .base = (uint64_t)rc->SecondValue,
		.time = (uint64_t)rc->TimeStamp.dwHighDateTime << 32 | rc->TimeStamp.dwLowDateTime,
	};
	static const int kind[] = {
		[C_USER] = PMU_CPUTIME_USER, [C_PRIV] = PMU_CPUTIME_SYSTEM,
		[C_IDLE] = PMU_CPUTIME_IDLE, [C_IRQ] = PMU_CPUTIME_IRQ, [C_DPC] = PMU_CPUTIME_SOFTIRQ,
	};
	struct pmuk_pdh_value v;

	if (c <= C_DPC) {
		r->ns[kind[c]] = raw.value * 100;
		r->has |= 1u << kind[c];
		return 0;
	}
	if (c == C_PERF)
		return perf(st, r, &raw);
	if (c >= C_C1_TIME) {
		int level = (c - C_C1_TIME) % 3;  /* C1, C2, C3 */

		for (int k = (int)r->nidle; k <= level; k++)
			snprintf(r->idle[k].name, sizeof(r->idle[k].name), "C%d", k + 1);
		if (r->nidle < (uint32_t)level + 1)
			r->nidle = (uint32_t)level + 1;
		if (c <= C_C3_TIME)
			r->idle[level].ns = raw.value * 100;
		else
			r->idle[level].entries = raw.value;
		return 0;
	}
	if (pmuk_pdh_cook(st->type[c], NULL, &raw, PMUK_PDH_100NS_FREQ, &v))
		return 0;  /* not a gauge on this host: leave it unknown */
	if (c == C_FREQ)
		r->freq_mhz = v.value;
	else
		r->parked = v.value != 0;
	return 0;
}

/* PdhGetRawCounterArrayW and PdhGetCounterInfoW under the sizing protocol of
 * core/pdh_math.h: a non-zero size that is too small is answered with a size not to
 * be trusted (or PDH_INVALID_ARGUMENT), so only a size-0 call sizes the buffer. */
struct raw_call {
	PDH_HCOUNTER h;
	DWORD count;
};

static uint32_t raw_array(void *ctx, uint32_t *size, void *buf)
{
	struct raw_call *rc = ctx;
	DWORD n = *size;
	PDH_STATUS s;

	rc->count = 0;
	s = PdhGetRawCounterArrayW(rc->h, &n, &rc->count, buf);
	*size = n;
	return (uint32_t)s;
}

static uint32_t counter_info(void *ctx, uint32_t *size, void *buf)
{
	DWORD n = *size;
	PDH_STATUS s = PdhGetCounterInfoW(*(PDH_HCOUNTER *)ctx, FALSE, &n, buf);

	*size = n;
	return (uint32_t)s;
}

int pmuk_pdh_counter_type(HANDLE h, DWORD *type)
{
	/* PDH_COUNTER_INFO_W is followed by its strings: sized by the protocol */
	void *info = NULL;
	uint32_t cap = 0;
	int err = pmuk_pdh_sized_call(counter_info, &h, &info, &cap, "PdhGetCounterInfoW");

	if (!err)
		*type = ((PDH_COUNTER_INFO_W *)info)->dwType;
	free(info);
	return err;
}

int pmuk_pdh_raw_items(PDH_HCOUNTER h, void **buf, uint32_t *cap, DWORD *count,
		       const char *what)
{
	struct raw_call rc = { .h = h };
	int err = pmuk_pdh_sized_call(raw_array, &rc, buf, cap, what);

	*count = err ? 0 : rc.count;
	return err;
}

static int read_counter(struct pdh_state *st, int c, struct pmuk_cpustat_snap *snap)
{
	DWORD count;
	char what[128];
	int err;

	snprintf(what, sizeof(what), "PdhGetRawCounterArrayW(%ls)", counters[c].path);
	if ((err = pmuk_pdh_raw_items(st->h[c], &st->items, &st->items_size, &count, what)))
		return err;
	if (!st->scheme_known && (err = decide_scheme(st, st->items, count)))
		return err;
	for (DWORD i = 0; i < count && !err; i++) {
		const PDH_RAW_COUNTER_ITEM_W *it = (const PDH_RAW_COUNTER_ITEM_W *)st->items + i;
		struct pmuk_cpustat_raw *r;
		int cpu = instance_cpu(st, it->szName);

		if (cpu < 0 || it->RawValue.CStatus > PDH_CSTATUS_NEW_DATA)
			continue;
		if (!(r = cpu_of(snap, cpu)))
			return pmuk_fail(PMU_ENOMEM, "out of memory reading PDH counters");
		err = put(st, c, r, &it->RawValue);
	}
	return err;
}

static int pdh_read(void *state, struct pmuk_cpustat_snap *snap)
{
	struct pdh_state *st = state;
	LARGE_INTEGER now, freq;
	PDH_STATUS s = PdhCollectQueryData(st->q);
	int err = 0;

	if (s != ERROR_SUCCESS)
		return pmuk_fail(PMU_EIO, "PdhCollectQueryData failed: PDH status 0x%08lx",
				 (unsigned long)s);
	QueryPerformanceCounter(&now);
	QueryPerformanceFrequency(&freq);
	snap->wall_ns = (uint64_t)((double)now.QuadPart * 1e9 / (double)freq.QuadPart);
	for (int c = 0; c < NCOUNTERS && !err; c++)
		if (st->h[c])
			err = read_counter(st, c, snap);
	for (size_t i = 0; i < snap->n; i++) {
		struct pmuk_cpustat_raw *r = &snap->cpu[i];
		uint64_t rest = r->ns[PMU_CPUTIME_IRQ] + r->ns[PMU_CPUTIME_SOFTIRQ];

		r->ns[PMU_CPUTIME_SYSTEM] = r->ns[PMU_CPUTIME_SYSTEM] > rest
					    ? r->ns[PMU_CPUTIME_SYSTEM] - rest : 0;
		/* Processor Frequency read into freq_mhz is nominal: make it current. */
		r->freq_mhz = pmuk_pdh_current_mhz(r->freq_mhz, r->perf_percent, 0);
	}
	return err;
}

/* Opens the PDH query; PMU_ENOENT (detail set) when the object or a time counter
 * is missing or of a type pmukit does not read as time. */
static int pdh_open(struct pdh_state *st)
{
	PDH_STATUS s = PdhOpenQueryW(NULL, 0, &st->q);
	int err = 0;

	if (s != ERROR_SUCCESS)
		return pmuk_fail(PMU_ENOENT, "PdhOpenQuery failed: PDH status 0x%08lx",
				 (unsigned long)s);
	for (int c = 0; c < NCOUNTERS; c++) {
		s = PdhAddEnglishCounterW(st->q, counters[c].path, 0, &st->h[c]);
		if (s != ERROR_SUCCESS) {
			err = pmuk_fail(PMU_ENOENT, "PDH %ls: missing, PDH status 0x%08lx",
					counters[c].path, (unsigned long)s);
		} else if (!(err = pmuk_pdh_counter_type(st->h[c], &st->type[c]))) {
			if (is_time_counter(c) && !is_timer(st->type[c]))
				err = pmuk_fail(PMU_ENOENT, "PDH %ls: a counter type pmukit does "
						"not read as time: 0x%08lx", counters[c].path,
						(unsigned long)st->type[c]);
		}
		if (!err)
			continue;
		if (counters[c].required)
			return err;
		pmuk_clear_detail();
		if (st->h[c])
			PdhRemoveCounter(st->h[c]);
		st->h[c] = NULL;
	}
	return pmu_topology_load(&st->topo);
}

int pmuk_cpustat_backend_open(const struct pmu_cpustat_opts *opts,
			      struct pmuk_cpustat_backend *b)
{
	struct pdh_state *st;
	int err;

	/* PdhGetRawCounterArrayW aborts the process under Wine: never reach it there. */
	if (pmuk_wine_version() || opts->windows_ntqsi)
		return pmuk_ntqsi_cpustat_open(b);
	if (!(st = calloc(1, sizeof(*st))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening PDH");
	if ((err = pdh_open(st))) {
		pmuk_log(PMU_LOG_DEBUG, "cpustat: %s; using NtQuerySystemInformation",
			 pmu_error_detail());
		pdh_close(st);
		return pmuk_ntqsi_cpustat_open(b);
	}
	b->source = "pdh";
	b->state = st;
	b->read = pdh_read;
	b->close = pdh_close;
	return 0;
}
