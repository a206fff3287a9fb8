/* SPDX-License-Identifier: MIT */
/* OS CPU-time counters from NtQuerySystemInformation(SystemProcessorPerformance-
 * Information): idle, kernel, user, DPC and interrupt time per logical processor,
 * in 100 ns. The fallback where PDH "Processor Information" is missing, and the
 * source under Wine (there the values are /proc/stat x 100000: kernel = system +
 * idle + iowait + irq + softirq + steal, user = user + nice). Kernel time includes
 * idle, DPC and interrupt time, so system = kernel - idle - DPC - interrupt. With
 * more than one processor group, NtQuerySystemInformationEx asks group by group. */
#include "windows/win.h"
#include "core/cpustat.h"
#include "core/error.h"

#include <stdlib.h>

#define SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION_CLASS 8

/* SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION (winternl.h hides the DPC and
 * interrupt times as Reserved1[]). */
struct sppi {
	LARGE_INTEGER idle, kernel, user, dpc, interrupt;
	ULONG interrupts;
};

typedef LONG (NTAPI *ntqsi_fn)(ULONG, PVOID, ULONG, PULONG);
typedef LONG (NTAPI *ntqsi_ex_fn)(ULONG, PVOID, ULONG, PVOID, ULONG, PULONG);

struct ntqsi_state {
	ntqsi_fn q;
	ntqsi_ex_fn qex;
	WORD groups;
	struct sppi *buf;
	ULONG cap;             /* entries in buf */
};

static uint64_t t100(LARGE_INTEGER v)
{
	return v.QuadPart > 0 ? (uint64_t)v.QuadPart * 100 : 0;
}

static int add(struct pmuk_cpustat_snap *snap, int cpu, const struct sppi *p)
{
	struct pmuk_cpustat_raw *r = pmuk_cpustat_add(snap, cpu);
	uint64_t kernel, rest;

	if (!r)
		return pmuk_fail(PMU_ENOMEM, "out of memory reading CPU times");
	kernel = t100(p->kernel);
	rest = t100(p->idle) + t100(p->dpc) + t100(p->interrupt);
	r->ns[PMU_CPUTIME_USER] = t100(p->user);
	r->ns[PMU_CPUTIME_SYSTEM] = kernel > rest ? kernel - rest : 0;
	r->ns[PMU_CPUTIME_IDLE] = t100(p->idle);
	r->ns[PMU_CPUTIME_IRQ] = t100(p->interrupt);
	r->ns[PMU_CPUTIME_SOFTIRQ] = t100(p->dpc);
	r->has = 1u << PMU_CPUTIME_USER | 1u << PMU_CPUTIME_SYSTEM | 1u << PMU_CPUTIME_IDLE |
		 1u << PMU_CPUTIME_IRQ | 1u << PMU_CPUTIME_SOFTIRQ;
	return 0;
}

static int ntqsi_read(void *state, struct pmuk_cpustat_snap *snap)
{
	struct ntqsi_state *st = state;
	LARGE_INTEGER now, freq;
	int err = 0;

	QueryPerformanceCounter(&now);
	QueryPerformanceFrequency(&freq);
	snap->wall_ns = (uint64_t)((double)now.QuadPart * 1e9 / (double)freq.QuadPart);
	for (WORD g = 0; g < st->groups && !err; g++) {
		ULONG ret = 0, len = st->cap * (ULONG)sizeof(*st->buf);
		LONG s;

		if (st->groups == 1)
			s = st->q(SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION_CLASS, st->buf, len, &ret);
		else
			s = st->qex(SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION_CLASS, &g, sizeof(g),
				    st->buf, len, &ret);
		if (s < 0)
			return pmuk_fail(PMU_EIO, "NtQuerySystemInformation(SystemProcessor"
					 "PerformanceInformation) failed for processor group %u: "
					 "NTSTATUS 0x%08lx", (unsigned)g, (unsigned long)s);
		for (ULONG i = 0; i < ret / sizeof(*st->buf) && !err; i++)
			err = add(snap, g * 64 + (int)i, &st->buf[i]);
	}
	return err;
}

static void ntqsi_close(void *state)
{
	struct ntqsi_state *st = state;

	if (st)
		free(st->buf);
	free(st);
}

int pmuk_ntqsi_cpustat_open(struct pmuk_cpustat_backend *b)
{
	struct ntqsi_state *st = calloc(1, sizeof(*st));

	if (!st)
		return pmuk_fail(PMU_ENOMEM, "out of memory opening the CPU times");
	st->q = (ntqsi_fn)(void (*)(void))pmuk_win_proc(L"ntdll.dll", "NtQuerySystemInformation");
	st->groups = GetActiveProcessorGroupCount();
	if (st->groups > 1)
		st->qex = (ntqsi_ex_fn)(void (*)(void))pmuk_win_proc(L"ntdll.dll",
								     "NtQuerySystemInformationEx");
	if (!st->groups)
		st->groups = 1;
	st->cap = 64;
	st->buf = calloc(st->cap, sizeof(*st->buf));
	if (!st->buf || !st->q || (st->groups > 1 && !st->qex)) {
		int err = !st->buf ? pmuk_fail(PMU_ENOMEM, "out of memory opening the CPU times")
			: pmuk_fail(PMU_ENOTSUP, "ntdll lacks NtQuerySystemInformation%s",
				    st->groups > 1 ? "Ex (processor groups)" : "");

		ntqsi_close(st);
		return err;
	}
	b->source = "ntqsi";
	b->state = st;
	b->read = ntqsi_read;
	b->close = ntqsi_close;
	return 0;
}
