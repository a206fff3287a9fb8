/* SPDX-License-Identifier: MIT */
/* The exporter's own process metrics: Linux /proc/self/statm and getrusage,
 * Windows GetProcessMemoryInfo and GetProcessTimes (the same figures as
 * client_golang's process collector, which node_exporter and windows_exporter
 * export). Read per scrape: a few system calls, no file kept open. */
#include "exporter_self.h"

#include <stdint.h>
#include <stdio.h>
#ifdef _WIN32
#include <windows.h>
#include <psapi.h>
#else
#include <sys/resource.h>
#include <unistd.h>
#endif

struct self {
	double rss, vsz, cpu;  /* bytes, bytes, seconds */
};

#ifdef _WIN32
static double filetime_s(FILETIME t)
{
	return (double)(((uint64_t)t.dwHighDateTime << 32) | t.dwLowDateTime) / 1e7;
}

/* Virtual: the private bytes committed, as client_golang counts it on Windows
 * (Wine leaves PrivateUsage 0: PagefileUsage, the same count, else none). */
static int self_read(struct self *m)
{
	PROCESS_MEMORY_COUNTERS_EX pmc = { .cb = sizeof(pmc) };
	FILETIME created, exited, kernel, user;
	HANDLE p = GetCurrentProcess();

	if (!GetProcessMemoryInfo(p, (PROCESS_MEMORY_COUNTERS *)&pmc, sizeof(pmc)) ||
	    !GetProcessTimes(p, &created, &exited, &kernel, &user))
		return -1;
	m->rss = (double)pmc.WorkingSetSize;
	m->vsz = (double)(pmc.PrivateUsage ? pmc.PrivateUsage : pmc.PagefileUsage);
	m->cpu = filetime_s(kernel) + filetime_s(user);
	return 0;
}
#else
/* The process itself, not PMUKIT_SYSROOT's tree: statm's first two fields are
 * the virtual and resident sizes in pages (proc(5)). */
static int self_read(struct self *m)
{
	unsigned long size, resident;
	long page = sysconf(_SC_PAGESIZE);
	struct rusage ru;
	FILE *f = fopen("/proc/self/statm", "re");
	int n = f ? fscanf(f, "%lu %lu", &size, &resident) : 0;

	if (f)
		fclose(f);
	if (n != 2 || page <= 0 || getrusage(RUSAGE_SELF, &ru))
		return -1;
	m->rss = (double)resident * (double)page;
	m->vsz = (double)size * (double)page;
	m->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	return 0;
}
#endif

static int one(struct pmu_mset *s, const char *name, enum pmu_mtype type, const char *help,
	       const char *unit, double v, double created)
{
	struct pmu_mfamily *f;
	int err = pmu_mset_family(s, name, type, help, unit, &f);

	return err ? err : pmu_mfamily_add(f, NULL, v, created);
}

int exp_self_metrics(struct pmu_mset *s, double start)
{
	struct self m;
	int err;

	if (self_read(&m))
		return 0;
	err = one(s, "process_cpu_seconds", PMU_MTYPE_COUNTER,
		  "Total user and system CPU time spent in seconds.", "seconds", m.cpu, start);
	if (!err)
		err = one(s, "process_resident_memory_bytes", PMU_MTYPE_GAUGE,
			  "Resident memory size in bytes.", "bytes", m.rss, 0);
	if (!err && m.vsz > 0)
		err = one(s, "process_virtual_memory_bytes", PMU_MTYPE_GAUGE,
			  "Virtual memory size in bytes.", "bytes", m.vsz, 0);
	if (!err)
		err = one(s, "process_start_time_seconds", PMU_MTYPE_GAUGE,
			  "Start time of the process since unix epoch in seconds.", "seconds",
			  start, 0);
	return err;
}
