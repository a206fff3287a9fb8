/* SPDX-License-Identifier: MIT */
/* Capability probe, live part: perf_event_open, the ring buffer, move_pages, CPUID,
 * libpfm4. Each probe opens the least-privileged form (own thread, user space only),
 * so a failure says what this user cannot do at all. */
#include "linux/caps_linux.h"
#include "linux/pmu_sysfs.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#ifdef PMUKIT_HAVE_PFM
#include <perfmon/pfmlib.h>
#endif

static const struct {
	int err;
	const char *name;
	const char *meaning;
} errnos[] = {
	{ ENOENT, "ENOENT", "no PMU serves this event (no hardware PMU, or the event is unknown)" },
	{ EOPNOTSUPP, "EOPNOTSUPP", "the PMU cannot do this (no overflow interrupt, or the feature is missing)" },
	{ ENODEV, "ENODEV", "the event or feature does not exist on this CPU" },
	{ EINVAL, "EINVAL", "the kernel rejected the attribute (value or feature unsupported here)" },
	{ EACCES, "EACCES", "forbidden by perf_event_paranoid for a user without CAP_PERFMON" },
	{ EPERM, "EPERM", "forbidden (missing capability, seccomp or an LSM policy)" },
	{ EBUSY, "EBUSY", "the counter is held exclusively by another user" },
	{ ENOSYS, "ENOSYS", "the kernel has no perf_event_open" },
	{ EMFILE, "EMFILE", "too many open files" },
	{ ENOMEM, "ENOMEM", "out of memory (or over the perf mlock limit)" },
	{ E2BIG, "E2BIG", "the kernel does not know this perf_event_attr size" },
	{ ENOSPC, "ENOSPC", "no free counter or breakpoint slot" },
};

const char *pmuk_caps_errno_name(int err)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].err == err)
			return errnos[i].name;
	return "error";
}

const char *pmuk_caps_errno_meaning(int err)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].err == err)
			return errnos[i].meaning;
	return strerror(err);
}

static void attr_init(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static void sampling(struct perf_event_attr *a, uint64_t period)
{
	a->sample_period = period;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
}

/* Opens and closes an event: 0 when it opened, else the errno. */
static int try_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, 0UL);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* cpu-clock samples with call chains through a one-page ring buffer: the path the
 * sampler uses when there is no PMU. Spins up to 50 ms for a first record. */
static void probe_ring(struct pmuk_caps_live *l)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)page * 2;
	struct perf_event_attr a;
	struct perf_event_mmap_page *meta;
	volatile uint64_t sink = 0;
	uint64_t end;
	void *base;
	int fd;

	attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	sampling(&a, 100000);
	a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0UL);
	if (fd < 0) {
		l->sw_sample_err = errno;
		return;
	}
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		l->sw_sample_err = errno;
		close(fd);
		return;
	}
	meta = base;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		l->sw_sample_err = errno;
	end = now_ns() + 50000000u;
	while (!l->sw_sample_err && now_ns() < end &&
	       !__atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE))
		for (int i = 0; i < 10000; i++)
			sink += (uint64_t)i;
	(void)sink;
	l->sw_sample_records = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE) > 0;
	munmap(base, len);
	close(fd);
}

static void probe_pmu(struct pmuk_caps_live *l, int have_core_pmu)
{
	struct perf_event_attr a;

	attr_init(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	l->hw_count_err = try_open(&a, 0, -1);
	sampling(&a, 1000000);
	l->hw_sample_err = try_open(&a, 0, -1);
	if (!have_core_pmu)
		return;
	/* The kernel accepts the highest precise_ip the PMU can honour. */
	l->precise_max = 0;
	for (int p = 3; p > 0; p--) {
		a.precise_ip = (unsigned)p;
		if (!try_open(&a, 0, -1)) {
			l->precise_max = p;
			break;
		}
	}
	a.precise_ip = 0;
	a.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	l->branch_err = try_open(&a, 0, -1);
}

static void probe_move_pages(struct pmuk_caps_live *l)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = aligned_alloc((size_t)page, (size_t)page);
	int status = -1;

	if (!p) {
		l->move_pages_err = ENOMEM;
		return;
	}
	memset(p, 1, (size_t)page);
	/* Query mode (no target nodes): status[0] receives the node backing the page. */
	if (syscall(SYS_move_pages, 0, 1UL, &p, NULL, &status, 0) < 0)
		l->move_pages_err = errno;
	else
		l->move_pages_node = status;
	free(p);
}

static void probe_cpuid(struct pmuk_caps_live *l)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	/* CPUID.1:ECX bit 31 says a hypervisor is present; 0x40000000 names it. */
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(l->hv_vendor, &b, 4);
	memcpy(l->hv_vendor + 4, &c, 4);
	memcpy(l->hv_vendor + 8, &d, 4);
	l->hv_vendor[12] = '\0';
#else
	(void)l;
#endif
}

static void probe_pfm(struct pmuk_caps_live *l)
{
#ifdef PMUKIT_HAVE_PFM
	pfm_pmu_t p;

	l->pfm = pmuk_pfm_ready();
	if (!l->pfm) {
		snprintf(l->pfm_why, sizeof(l->pfm_why), "%s", pmuk_pfm_why());
		return;
	}
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info;
		size_t n = strlen(l->pfm_pmus);

		if (!pmuk_pfm_pmu_info(p, &info) || !info.is_present)
			continue;
		if (info.type == PFM_PMU_TYPE_CORE)
			l->pfm_core = 1;
		if (n + strlen(info.name) + 2 < sizeof(l->pfm_pmus))
			snprintf(l->pfm_pmus + n, sizeof(l->pfm_pmus) - n, "%s%s", n ? "," : "",
				 info.name);
	}
#else
	l->pfm = -1;
#endif
}

void pmuk_caps_probe_live(struct pmuk_caps_live *l, int have_core_pmu)
{
	struct perf_event_attr a;
	struct utsname u;

	memset(l, 0, sizeof(*l));
	l->precise_max = l->branch_err = PMUK_NOT_PROBED;
	if (!uname(&u))
		snprintf(l->arch, sizeof(l->arch), "%.*s", (int)sizeof(l->arch) - 1, u.machine);
	probe_cpuid(l);
	attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	l->sw_count_err = try_open(&a, 0, -1);
	attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	l->cpu_wide_err = try_open(&a, -1, 0);
	probe_pmu(l, have_core_pmu);
	probe_ring(l);
	probe_move_pages(l);
	probe_pfm(l);
}
