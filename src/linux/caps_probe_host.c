/* SPDX-License-Identifier: MIT */
/* Capability probe, file part 2: tracefs, topology, kernel symbols, perf_event fd
 * holders, OS counters. */
#include "linux/caps_linux.h"
#include "core/sysroot.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int exists(const char *rel)
{
	char path[4096];

	return !pmuk_path(path, sizeof(path), "%s", rel) && pmuk_exists(path);
}

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* A mount point (as the kernel lists it, without sysroot) with a readable events/. */
static int tracing_dir_ok(const char *dir)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "%s/events", dir);
	return exists(rel);
}

static void read_tracefs(struct pmuk_caps_sys *s)
{
	static const char *const usual[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[4096], line[1024];
	FILE *f;

	if (!pmuk_path(path, sizeof(path), "/proc/filesystems") && (f = pmuk_fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (strstr(line, "\ttracefs"))
				s->tracefs_known = 1;
		fclose(f);
	}
	if (!pmuk_path(path, sizeof(path), "/proc/mounts") && (f = pmuk_fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			char dev[256], dir[256], type[64];

			if (sscanf(line, "%255s %255s %63s", dev, dir, type) != 3)
				continue;
			if (!strcmp(type, "tracefs") && !s->tracefs_mount[0])
				snprintf(s->tracefs_mount, sizeof(s->tracefs_mount), "%s", dir);
		}
		fclose(f);
	}
	if (s->tracefs_mount[0]) {
		s->tracefs_readable = tracing_dir_ok(s->tracefs_mount);
		if (s->tracefs_readable)
			return;
	}
	/* debugfs automounts tracefs at debug/tracing; /proc/mounts may lack it. */
	for (size_t i = 0; i < sizeof(usual) / sizeof(usual[0]); i++) {
		if (tracing_dir_ok(usual[i])) {
			snprintf(s->tracefs_mount, sizeof(s->tracefs_mount), "%s", usual[i]);
			s->tracefs_readable = 1;
			return;
		}
	}
}

/* Counts the CPUs of a list like "0-3,8,10-11". */
static int count_cpu_list(const char *list)
{
	int n = 0;

	while (*list) {
		char *end;
		long a = strtol(list, &end, 10), b = a;

		if (end == list)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (b >= a)
			n += (int)(b - a + 1);
		list = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return n;
}

static void read_topology(struct pmuk_caps_sys *s)
{
	char path[4096], buf[1024];
	struct dirent *e;
	DIR *d;

	s->numa_nodes = -1;
	if (!pmuk_path(path, sizeof(path), "/sys/devices/system/node") && (d = opendir(path))) {
		s->numa_nodes = 0;
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, "node", 4) && is_number(e->d_name + 4))
				s->numa_nodes++;
		closedir(d);
	}
	if (!pmuk_path(path, sizeof(path), "/sys/devices/system/cpu/online") &&
	    pmuk_read_text(path, buf, sizeof(buf)) > 0)
		s->cpus_online = count_cpu_list(buf);
	s->have_topology = exists("/sys/devices/system/cpu/cpu0/topology/core_id");
}

/* The NT_GNU_BUILD_ID note of the running kernel, from /sys/kernel/notes. */
static void read_kernel_build_id(struct pmuk_caps_sys *s)
{
	unsigned char buf[4096];
	char path[4096];
	size_t n, off = 0;
	FILE *f;

	if (pmuk_path(path, sizeof(path), "/sys/kernel/notes") || !(f = pmuk_fopen(path, "rb")))
		return;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		desc_off = name_off + ((namesz + 3u) & ~3u);
		if (namesz > n || descsz > n || desc_off + descsz > n)
			break;
		if (type == 3 && namesz == 4 && !memcmp(buf + name_off, "GNU", 4) && descsz > 0 &&
		    descsz <= 20) {
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(s->kernel_build_id + 2 * i, 3, "%02x", buf[desc_off + i]);
			return;
		}
		off = desc_off + ((descsz + 3u) & ~3u);
	}
}

static void read_symbols(struct pmuk_caps_sys *s)
{
	char path[4096], line[256];
	FILE *f;

	s->kptr_restrict = -1;
	if (!pmuk_path(path, sizeof(path), "/proc/sys/kernel/kptr_restrict"))
		pmuk_read_int(path, &s->kptr_restrict);
	s->kallsyms = -1;
	if (!pmuk_path(path, sizeof(path), "/proc/kallsyms") && (f = pmuk_fopen(path, "r"))) {
		/* The kernel prints zeros instead of addresses it hides from this reader. */
		if (fgets(line, sizeof(line), f)) {
			s->kallsyms = 0;
			for (char *p = line; isxdigit((unsigned char)*p); p++)
				if (*p != '0')
					s->kallsyms = 1;
		}
		fclose(f);
	}
	read_kernel_build_id(s);
}

static int has_perf_fd(const char *pid, int *denied)
{
	char path[4096], full[4400], target[64];
	struct dirent *e;
	int found = 0;
	DIR *d;

	if (pmuk_path(path, sizeof(path), "/proc/%s/fd", pid))
		return 0;
	d = opendir(path);
	if (!d) {
		*denied = errno == EACCES || errno == EPERM;
		return 0;
	}
	while (!found && (e = readdir(d))) {
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(full, sizeof(full), "%s/%s", path, e->d_name);
		n = readlink(full, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = !strcmp(target, "anon_inode:[perf_event]");
		}
	}
	closedir(d);
	return found;
}

/* Other processes with perf_event fds: they share (and may multiplex) the counters. */
static void read_holders(struct pmuk_caps_sys *s)
{
	char path[4096], self[16];
	struct dirent *e;
	DIR *d;

	snprintf(self, sizeof(self), "%d", (int)getpid());
	if (pmuk_path(path, sizeof(path), "/proc") || !(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		char comm[64];
		int denied = 0;
		size_t n;

		if (!is_number(e->d_name) || !strcmp(e->d_name, self))
			continue;
		if (!has_perf_fd(e->d_name, &denied)) {
			s->hidden_procs += denied;
			continue;
		}
		s->holders++;
		if (pmuk_path(path, sizeof(path), "/proc/%s/comm", e->d_name) ||
		    pmuk_read_text(path, comm, sizeof(comm)) < 0)
			snprintf(comm, sizeof(comm), "?");
		n = strlen(s->holder_list);
		if (n + strlen(e->d_name) + strlen(comm) + 4 < sizeof(s->holder_list))
			snprintf(s->holder_list + n, sizeof(s->holder_list) - n, "%s%s(%s)",
				 n ? " " : "", e->d_name, comm);
	}
	closedir(d);
}

static void read_oscounters(struct pmuk_caps_sys *s)
{
	char path[4096], line[256];
	FILE *f;

	if (!pmuk_path(path, sizeof(path), "/proc/stat") && (f = pmuk_fopen(path, "r"))) {
		s->proc_stat = fgets(line, sizeof(line), f) && !strncmp(line, "cpu ", 4);
		fclose(f);
	}
	s->cpufreq = exists("/sys/devices/system/cpu/cpu0/cpufreq");
	if (s->cpufreq && !pmuk_path(path, sizeof(path),
				     "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver"))
		if (pmuk_read_text(path, s->cpufreq_driver, sizeof(s->cpufreq_driver)) < 0)
			s->cpufreq_driver[0] = '\0';
	s->cpuidle = exists("/sys/devices/system/cpu/cpu0/cpuidle");
	if (!pmuk_path(path, sizeof(path), "/sys/devices/system/cpu/cpuidle/current_driver"))
		if (pmuk_read_text(path, s->cpuidle_driver, sizeof(s->cpuidle_driver)) < 0)
			s->cpuidle_driver[0] = '\0';
}

void pmuk_caps_read_host(struct pmuk_caps_sys *s)
{
	read_tracefs(s);
	read_topology(s);
	read_symbols(s);
	read_holders(s);
	read_oscounters(s);
}
