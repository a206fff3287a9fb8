/* SPDX-License-Identifier: MIT */
/* perf_event_open(2): attr encoding, and errno turned into a reason a user can act on. */
#include "linux/perf_event.h"
#include "core/error.h"
#include "core/sysroot.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

void pmuk_perf_attr(const struct pmu_event *ev, const struct pmuk_open_flags *f,
		    struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->config1 = ev->config1;
	attr->config2 = ev->config2;
	attr->exclude_user = ev->exclude_user ? 1 : 0;
	attr->exclude_kernel = ev->exclude_kernel ? 1 : 0;
	attr->exclude_hv = ev->exclude_hv ? 1 : 0;
	attr->precise_ip = ev->precise_ip & 3;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			    PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	attr->disabled = f->disabled ? 1 : 0;
	attr->inherit = f->inherit ? 1 : 0;
	attr->enable_on_exec = f->enable_on_exec ? 1 : 0;
	attr->pinned = f->pinned ? 1 : 0;
}

int pmuk_perf_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

int pmuk_event_is_hw(const struct pmu_event *ev)
{
	switch (ev->type) {
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		return 0;
	default:
		return ev->kind != PMU_EVENT_SOFTWARE && ev->kind != PMU_EVENT_TRACEPOINT;
	}
}

/* The sysroot's value when it holds one (fixtures test the messages with it), else
 * the live kernel's: a sysroot of sysfs trees alone must not turn the user-mode
 * fallback off and blame ptrace for a refusal paranoid made. */
int pmuk_perf_paranoid(void)
{
	static const char file[] = "/proc/sys/kernel/perf_event_paranoid";
	char path[4096];
	int v;

	if (pmuk_path(path, sizeof(path), "%s", file) == 0 && pmuk_read_int(path, &v) == 0)
		return v;
	if (pmuk_read_int(file, &v) == 0)
		return v;
	return INT32_MIN;
}

static int host_is_vm(void)
{
	char path[4096], buf[8192];

	if (pmuk_path(path, sizeof(path), "/sys/hypervisor/type") == 0 && pmuk_exists(path))
		return 1;
	if (pmuk_path(path, sizeof(path), "/proc/cpuinfo") < 0 ||
	    pmuk_read_text(path, buf, sizeof(buf)) < 0)
		return 0;
	return strstr(buf, " hypervisor") != NULL;
}

static const char *target_text(const struct pmuk_open_ctx *c, char *buf, size_t n)
{
	if (c->pid == -1)
		snprintf(buf, n, "CPU-wide counting on cpu %d", c->cpu);
	else if (c->pid == 0)
		snprintf(buf, n, "counting the calling thread");
	else
		snprintf(buf, n, "counting process/thread %d", c->pid);
	return buf;
}

void pmuk_user_only_name(const char *name, char *out, size_t size)
{
	const char *colon = strrchr(name, ':'), *slash = strrchr(name, '/');
	const char *seg = colon > slash ? colon + 1 : slash ? slash + 1 : NULL;
	size_t o = 0;

	/* a trailing modifier segment keeps its p's and loses its u/k/h */
	if (seg && strspn(seg, "ukhp") == strlen(seg) && (colon < slash || *seg)) {
		for (const char *s = name; *s && o + 2 < size; s++)
			if (s < seg || *s == 'p')
				out[o++] = *s;
		snprintf(out + o, size - o, "u");
		return;
	}
	snprintf(out, size, "%s:u", name);
}

int pmuk_perf_user_fallback(struct pmu_event *ev, int err)
{
	char name[sizeof(ev->name)];

	if ((err != EACCES && err != EPERM) || ev->exclude_kernel || ev->exclude_user ||
	    ev->type == PERF_TYPE_TRACEPOINT || pmuk_perf_paranoid() < 2)
		return 0;
	pmuk_user_only_name(ev->name, name, sizeof(name));
	memcpy(ev->name, name, sizeof(name));
	ev->exclude_kernel = ev->exclude_hv = 1;
	return 1;
}

static int fail_perm(int err, const struct pmuk_open_ctx *c)
{
	const struct pmu_event *ev = c->ev;
	int par = pmuk_perf_paranoid();
	char what[96], lvl[32], user[sizeof(ev->name)];

	if (par == INT32_MIN)
		snprintf(lvl, sizeof(lvl), "unreadable");
	else
		snprintf(lvl, sizeof(lvl), "%d", par);
	target_text(c, what, sizeof(what));
	if (c->pid == -1)
		return pmuk_fail(PMU_EPERM, "%s (%s) is not allowed: perf_event_paranoid=%s forbids "
				 "CPU-wide counting without CAP_PERFMON (or CAP_SYS_ADMIN); run with "
				 "that capability or set kernel.perf_event_paranoid=0",
				 ev->name, what, lvl);
	pmuk_user_only_name(ev->name, user, sizeof(user));
	if (!ev->exclude_kernel && ev->exclude_user && par >= 2)
		return pmuk_fail(PMU_EPERM, "%s (%s) is not allowed: it counts kernel mode only, "
				 "which perf_event_paranoid=%s forbids without CAP_PERFMON; count user "
				 "mode instead (%s), grant CAP_PERFMON or set "
				 "kernel.perf_event_paranoid=1", ev->name, what, lvl, user);
	if (!ev->exclude_kernel && par >= 2)
		return pmuk_fail(PMU_EPERM, "%s (%s) is not allowed: perf_event_paranoid=%s forbids "
				 "counting kernel mode without CAP_PERFMON; count user mode only "
				 "(%s), grant CAP_PERFMON or set kernel.perf_event_paranoid=1",
				 ev->name, what, lvl, user);
	if (c->pid > 0)
		return pmuk_fail(PMU_EPERM, "%s (%s) is not allowed: the target belongs to another "
				 "user or forbids ptrace attach (perf_event_paranoid=%s); run as its "
				 "owner or with CAP_PERFMON", ev->name, what, lvl);
	return pmuk_fail(PMU_EPERM, "%s (%s) is not allowed (%s): perf_event_paranoid=%s; "
			 "grant CAP_PERFMON or lower kernel.perf_event_paranoid",
			 ev->name, what, strerror(err), lvl);
}

static int fail_nopmu(int err, const struct pmuk_open_ctx *c)
{
	const struct pmu_event *ev = c->ev;
	struct pmu_device d;

	if (pmu_device_core_list(&d, 1) <= 0)
		return pmuk_fail(PMU_ENOTSUP, "no hardware PMU: %s exposes none (%s needs a core PMU)",
				 host_is_vm() ? "this virtual machine" : "this host", ev->name);
	if (err == EOPNOTSUPP)
		return pmuk_fail(PMU_ENOTSUP, "the %s PMU cannot count %s as asked (%s): drop "
				 "modifiers such as :p or exclude_* it does not support",
				 ev->pmu[0] ? ev->pmu : d.name, ev->name, strerror(err));
	return pmuk_fail(PMU_ENOTSUP, "the %s PMU does not support %s on this CPU (type %u "
			 "config 0x%llx)", ev->pmu[0] ? ev->pmu : d.name, ev->name, ev->type,
			 (unsigned long long)ev->config);
}

/* Opens ev alone, disabled, with or without its privilege-level bits; 1 when the
 * kernel accepts it. */
static int opens_alone(const struct pmuk_open_ctx *c, int with_levels)
{
	struct pmuk_open_flags f = { .disabled = 1 };
	struct perf_event_attr a;
	int fd;

	pmuk_perf_attr(c->ev, &f, &a);
	if (!with_levels)
		a.exclude_user = a.exclude_kernel = a.exclude_hv = 0;
	if ((fd = pmuk_perf_open(&a, c->pid, c->cpu, -1)) < 0)
		return 0;
	close(fd);
	return 1;
}

int pmuk_perf_modifier_refused(const struct pmuk_open_ctx *c)
{
	const struct pmu_event *ev = c->ev;

	if (!(ev->exclude_user || ev->exclude_kernel || ev->exclude_hv) ||
	    opens_alone(c, 1) || !opens_alone(c, 0))
		return 0;
	return pmuk_fail(PMU_ENOTSUP, "the %s PMU cannot count %s: it does not separate user "
			 "and kernel mode, so a privilege modifier (:u, :k, :h) is refused; drop "
			 "the modifier (the event then counts every mode)",
			 ev->pmu[0] ? ev->pmu : "event's", ev->name);
}

int pmuk_perf_fail(int err, const struct pmuk_open_ctx *c)
{
	const struct pmu_event *ev = c->ev;
	struct rlimit rl;
	char what[96];

	target_text(c, what, sizeof(what));
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
		if (pmuk_event_is_hw(ev))
			return fail_nopmu(err, c);
		if (ev->type == PERF_TYPE_TRACEPOINT)
			return pmuk_fail(PMU_ENOENT, "tracepoint %s (id %llu) does not exist on this "
					 "kernel", ev->name, (unsigned long long)ev->config);
		return pmuk_fail(PMU_ENOTSUP, "the kernel does not support %s (%s)", ev->name,
				 strerror(err));
	case EACCES:
	case EPERM:
		return fail_perm(err, c);
	case ESRCH:
		return pmuk_fail(PMU_ESRCH, "no such process %d", c->pid);
	case EMFILE:
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
			return pmuk_fail(PMU_EIO, "too many open files opening %s: counting takes one "
					 "descriptor per event per thread or CPU; raise ulimit -n (now %llu)",
					 ev->name, (unsigned long long)rl.rlim_cur);
		return pmuk_fail(PMU_EIO, "too many open files opening %s: raise ulimit -n", ev->name);
	case ENFILE:
		return pmuk_fail(PMU_EIO, "the system file table is full opening %s: raise fs.file-max "
				 "or count fewer events/threads", ev->name);
	case EBUSY:
		return pmuk_fail(PMU_EBUSY, "another user holds exclusive counters: %s cannot be "
				 "opened for %s (check the NMI watchdog, other perf/profiler sessions)",
				 ev->name, what);
	case ENODEV:
		return pmuk_fail(PMU_ENOTSUP, "cpu %d is offline or not served by the PMU of %s: "
				 "list only online CPUs (/sys/devices/system/cpu/online) that PMU "
				 "serves", c->cpu, ev->name);
	case ENOMEM:
		return pmuk_fail(PMU_ENOMEM, "the kernel is out of memory opening %s", ev->name);
	case E2BIG:
		return pmuk_fail(PMU_ENOTSUP, "the kernel rejected the perf_event_attr size for %s "
				 "(kernel older than these headers)", ev->name);
	case EINVAL:
		if ((err = pmuk_perf_modifier_refused(c)))
			return err;
		if (c->cpu >= 0 && c->pid == -1)
			return pmuk_fail(PMU_EINVAL, "the kernel rejected %s on cpu %d (EINVAL): the "
					 "CPU does not exist or the event does not exist there",
					 ev->name, c->cpu);
		return pmuk_fail(PMU_EINVAL, "the kernel rejected %s (EINVAL) for %s: an encoding "
				 "field or modifier is invalid for the %s PMU", ev->name, what,
				 ev->pmu[0] ? ev->pmu : "its");
	default:
		return pmuk_fail(PMU_EIO, "perf_event_open of %s failed for %s: %s", ev->name, what,
				 strerror(err));
	}
}
