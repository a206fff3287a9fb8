/* SPDX-License-Identifier: MIT */
/* OS CPU-time counters on Linux: /proc/stat "cpuN" lines and, when the drivers
 * expose them, cpuN/cpufreq/scaling_cur_freq (kHz) and cpuN/cpuidle/stateK (name,
 * latency in us, usage, time in us, disable). All through the sysroot, so tests
 * point them at fixture trees. */
#include "core/cpustat.h"
#include "core/error.h"
#include "core/sysroot.h"

#include <pmukit/error.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct linux_state {
	long hz;               /* USER_HZ: ticks per second of /proc/stat */
};

static void frequency(struct pmuk_cpustat_raw *r)
{
	char path[512];
	uint64_t khz;

	if (pmuk_path(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/"
		      "scaling_cur_freq", r->cpu) == 0 && pmuk_read_u64(path, &khz) == 0)
		r->freq_mhz = (double)khz / 1000.0;
}

/* cpuidle states state0, state1, ... until the first missing one. A state whose
 * counters cannot be read ends the list there rather than showing zeros. */
static void idle_states(struct pmuk_cpustat_raw *r)
{
	char dir[448], path[512];

	for (r->nidle = 0; r->nidle < PMU_IDLE_STATE_MAX; r->nidle++) {
		struct pmuk_idle_raw *st = &r->idle[r->nidle];
		uint64_t lat = 0, off = 0, us;

		if (pmuk_path(dir, sizeof(dir), "/sys/devices/system/cpu/cpu%d/cpuidle/state%u",
			      r->cpu, r->nidle))
			return;
		snprintf(path, sizeof(path), "%s/name", dir);
		if (pmuk_read_text(path, st->name, sizeof(st->name)) <= 0)
			return;
		snprintf(path, sizeof(path), "%s/usage", dir);
		if (pmuk_read_u64(path, &st->entries))
			return;
		snprintf(path, sizeof(path), "%s/time", dir);
		if (pmuk_read_u64(path, &us))
			return;
		st->ns = us * 1000;
		snprintf(path, sizeof(path), "%s/latency", dir);
		if (pmuk_read_u64(path, &lat) == 0)
			st->exit_latency_us = lat > UINT32_MAX ? UINT32_MAX : (uint32_t)lat;
		snprintf(path, sizeof(path), "%s/disable", dir);
		if (pmuk_read_u64(path, &off) == 0)
			st->disabled = off != 0;
	}
}

static int linux_read(void *state, struct pmuk_cpustat_snap *snap)
{
	struct linux_state *st = state;
	struct timespec ts;
	char path[512], *line = NULL;
	size_t cap = 0;
	int err = 0, ncpu = 0;
	FILE *f;

	if ((err = pmuk_path(path, sizeof(path), "/proc/stat")))
		return err;
	if (!(f = pmuk_fopen(path, "r"))) {
		char why[600];

		/* under PMUKIT_SYSROOT no mount would help: say what is wrong with it */
		return pmuk_fail(PMU_ENOENT, "cannot read %s: %s", path,
				 pmuk_sysroot_why(why, sizeof(why), "proc"));
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snap->wall_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	while (!err && getline(&line, &cap, f) > 0) {
		int r = pmuk_cpustat_parse_line(line, st->hz, snap);

		if (r < 0)
			err = r;
		ncpu += r > 0;
	}
	free(line);
	fclose(f);
	if (!err && !ncpu)
		err = pmuk_fail(PMU_EFORMAT, "%s has no cpuN lines", path);
	for (size_t i = 0; !err && i < snap->n; i++) {
		frequency(&snap->cpu[i]);
		idle_states(&snap->cpu[i]);
	}
	return err;
}

static void linux_close(void *state)
{
	free(state);
}

int pmuk_cpustat_backend_open(const struct pmu_cpustat_opts *opts,
			      struct pmuk_cpustat_backend *b)
{
	struct linux_state *st;

	(void)opts;
	if (!(st = calloc(1, sizeof(*st))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening /proc/stat");
	st->hz = sysconf(_SC_CLK_TCK);
	if (st->hz <= 0)
		st->hz = 100;
	b->source = "/proc/stat";
	b->state = st;
	b->read = linux_read;
	b->close = linux_close;
	return 0;
}
