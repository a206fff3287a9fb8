/* SPDX-License-Identifier: MIT */
/* Capability probe, file part 1: perf_event policy, credentials, PMUs, hypervisor. */
#include "linux/caps_linux.h"
#include "core/sysroot.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* An int sysctl or sysfs value, -1 when absent or unreadable. */
static int read_int_or(const char *fmt, const char *arg)
{
	char path[4096];
	int v;

	if (pmuk_path(path, sizeof(path), fmt, arg) || pmuk_read_int(path, &v))
		return -1;
	return v;
}

static void read_str(char *buf, size_t size, const char *rel)
{
	char path[4096];

	buf[0] = '\0';
	if (pmuk_path(path, sizeof(path), "%s", rel) || pmuk_read_text(path, buf, size) < 0)
		buf[0] = '\0';
}

void pmuk_caps_read_status(struct pmuk_caps_sys *s)
{
	char path[4096], line[256];
	FILE *f;

	s->have_capeff = 0;
	s->cap_eff = 0;
	s->euid = -1;
	if (pmuk_path(path, sizeof(path), "/proc/self/status"))
		return;
	f = pmuk_fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned int real, eff;

		if (!strncmp(line, "CapEff:", 7)) {
			char *end;

			s->cap_eff = strtoull(line + 7, &end, 16);
			s->have_capeff = end != line + 7;
		} else if (sscanf(line, "Uid: %u %u", &real, &eff) == 2) {
			s->euid = (int)eff;
		}
	}
	fclose(f);
}

/* vendor_id and the "hypervisor" flag from the first CPU of /proc/cpuinfo. */
static void read_cpuinfo(struct pmuk_caps_sys *s)
{
	char path[4096], line[4096];
	FILE *f;

	if (pmuk_path(path, sizeof(path), "/proc/cpuinfo"))
		return;
	f = pmuk_fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if (!strncmp(line, "vendor_id", 9) && !s->vendor[0]) {
			sscanf(colon + 1, " %31s", s->vendor);
		} else if (!strncmp(line, "flags", 5)) {
			for (char *t = strtok(colon + 1, " \t\n"); t; t = strtok(NULL, " \t\n"))
				if (!strcmp(t, "hypervisor"))
					s->hv_flag = 1;
			break;
		}
	}
	fclose(f);
}

static void add_name(char *list, size_t size, const char *name)
{
	size_t n = strlen(list);

	if (n + strlen(name) + 2 >= size)
		return;
	snprintf(list + n, size - n, "%s%s", n ? "," : "", name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every PMU under /sys/bus/event_source/devices, sorted, and the surfaces we look for. */
static void read_pmus(struct pmuk_caps_sys *s)
{
	char path[4096], *names[256];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	if (pmuk_path(path, sizeof(path), "/sys/bus/event_source/devices"))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)) && n < sizeof(names) / sizeof(names[0])) {
		if (e->d_name[0] == '.')
			continue;
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		add_name(s->pmus, sizeof(s->pmus), names[i]);
		if (!strncmp(names[i], "arm_spe", 7))
			s->have_spe = 1;
		else if (!strcmp(names[i], "ibs_op"))
			s->have_ibs_op = 1;
		else if (!strcmp(names[i], "intel_pt"))
			s->have_intel_pt = 1;
		else if (!strcmp(names[i], "tracepoint"))
			s->have_tracepoint_pmu = 1;
		free(names[i]);
	}
}

static void read_core_pmus(struct pmuk_caps_sys *s)
{
	const char *core;
	int n = pmu_device_core_list(s->core, PMUK_CAPS_MAX_CORE);

	s->ncore = n < 0 ? 0 : n > PMUK_CAPS_MAX_CORE ? PMUK_CAPS_MAX_CORE : n;
	if (!s->ncore)
		return;
	/* x86 keeps rdpmc and caps/ on each core PMU; the first one speaks for all. */
	core = s->core[0].name;
	s->rdpmc = read_int_or("/sys/bus/event_source/devices/%s/rdpmc", core);
	s->max_precise = read_int_or("/sys/bus/event_source/devices/%s/caps/max_precise", core);
	s->lbr_depth = read_int_or("/sys/bus/event_source/devices/%s/caps/branches", core);
}

static void read_perf_policy(struct pmuk_caps_sys *s)
{
	char path[4096];

	/* -1 is a valid paranoid level, so presence is judged by the file itself. */
	s->have_perf = !pmuk_path(path, sizeof(path), "/proc/sys/kernel/perf_event_paranoid") &&
		       pmuk_exists(path);
	s->paranoid = read_int_or("/proc/sys/kernel/%s", "perf_event_paranoid");
	s->mlock_kb = read_int_or("/proc/sys/kernel/%s", "perf_event_mlock_kb");
	s->max_sample_rate = read_int_or("/proc/sys/kernel/%s", "perf_event_max_sample_rate");
	s->cpu_time_max_percent = read_int_or("/proc/sys/kernel/%s", "perf_cpu_time_max_percent");
	s->nmi_watchdog = read_int_or("/proc/sys/kernel/%s", "nmi_watchdog");
	s->perf_user_access = read_int_or("/proc/sys/kernel/%s", "perf_user_access");
}

int pmuk_caps_read_sys(struct pmuk_caps_sys *s)
{
	memset(s, 0, sizeof(*s));
	s->rdpmc = s->max_precise = s->lbr_depth = -1;
	read_str(s->kernel, sizeof(s->kernel), "/proc/sys/kernel/osrelease");
	read_cpuinfo(s);
	read_str(s->hv_type, sizeof(s->hv_type), "/sys/hypervisor/type");
	read_str(s->dmi_vendor, sizeof(s->dmi_vendor), "/sys/class/dmi/id/sys_vendor");
	read_str(s->dmi_product, sizeof(s->dmi_product), "/sys/class/dmi/id/product_name");
	read_pmus(s);
	read_core_pmus(s);
	read_perf_policy(s);
	pmuk_caps_read_status(s);
	pmuk_caps_read_host(s);
	return 0;
}
