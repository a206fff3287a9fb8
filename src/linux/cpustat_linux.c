/* SPDX-License-Identifier: MIT */
/* OS CPU-time counters on Linux: /proc/stat "cpuN" lines and, when asked for
 * and the drivers expose them, cpuN/cpufreq/scaling_cur_freq (kHz) and
 * cpuN/cpuidle/stateK (name, latency in us, usage, time in us, disable). All
 * through the sysroot, so tests point them at fixture trees.
 *
 * A sample must stay cheap with hundreds of CPUs (the exporter takes one per
 * scrape): every file is kept open and re-read with pread (linux/kfile.h), and
 * files found missing are looked for again only when the CPU comes back into
 * /proc/stat or every PROBE_EVERY samples. A CPU that leaves /proc/stat
 * (offline) has its files closed, so when it comes back everything is opened
 * afresh and no value is stale. */
#include "core/cpustat.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/sysroot.h"
#include "linux/kfile.h"

#include <pmukit/error.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROBE_EVERY 64
#define CPU_DIR "/sys/devices/system/cpu/cpu%d/"
#define STATE_FILE CPU_DIR "cpuidle/state%u/%s"

struct idle_files {
	int name, usage, time, disable;  /* kept fds, -1 none */
	uint32_t latency_us;             /* read when the state's name changes */
	char name_was[32];
};

struct cpu_files {
	uint64_t seen;                   /* the sample that last listed it in /proc/stat */
	int freq;
	int probed;                      /* missing files looked for since it (re)appeared */
	int no_freq;
	uint32_t nidle;                  /* states found */
	struct idle_files *st;
	size_t st_cap;
};

struct linux_state {
	long hz;                         /* USER_HZ: ticks per second of /proc/stat */
	unsigned want;
	uint64_t gen;
	int stat_fd;
	char *buf;                       /* /proc/stat's text, kept between samples */
	size_t cap;
	struct cpu_files *cpu;           /* indexed by CPU id */
	size_t ncpu;
};

static void idle_close(struct idle_files *f)
{
	pmuk_kfile_close(&f->name);
	pmuk_kfile_close(&f->usage);
	pmuk_kfile_close(&f->time);
	pmuk_kfile_close(&f->disable);
	f->name_was[0] = '\0';
}

static void cpu_close(struct cpu_files *c)
{
	pmuk_kfile_close(&c->freq);
	for (size_t k = 0; k < c->st_cap; k++)
		idle_close(&c->st[k]);
	c->nidle = 0;
	c->probed = 0;
	c->no_freq = 0;
}

/* The files of CPU id, the table grown with every fd at -1; NULL out of memory. */
static struct cpu_files *cpu_files(struct linux_state *ls, int id)
{
	size_t was = ls->ncpu;

	if (pmuk_grow((void **)&ls->cpu, &ls->ncpu, (size_t)id + 1, sizeof(*ls->cpu)))
		return NULL;
	for (size_t i = was; i < ls->ncpu; i++)
		ls->cpu[i].freq = -1;
	return &ls->cpu[id];
}

static struct idle_files *state_files(struct cpu_files *c, uint32_t k)
{
	size_t was = c->st_cap;

	if (pmuk_grow((void **)&c->st, &c->st_cap, k + 1, sizeof(*c->st)))
		return NULL;
	for (size_t i = was; i < c->st_cap; i++)
		c->st[i].name = c->st[i].usage = c->st[i].time = c->st[i].disable = -1;
	return &c->st[k];
}

/* Idle state k of cpu; nonzero when it cannot be read (the list ends there). */
static int idle_state(unsigned want, struct cpu_files *c, int cpu, uint32_t k,
		      struct pmuk_idle_raw *st)
{
	struct idle_files *f = state_files(c, k);
	uint64_t us, v;

	if (!f || pmuk_kfile_text(&f->name, st->name, sizeof(st->name), STATE_FILE, cpu, k,
				  "name") <= 0 ||
	    pmuk_kfile_u64(&f->usage, &st->entries, STATE_FILE, cpu, k, "usage") ||
	    pmuk_kfile_u64(&f->time, &us, STATE_FILE, cpu, k, "time"))
		return -1;
	st->ns = us * 1000;
	if (strcmp(f->name_was, st->name)) {
		int fd = -1;  /* the driver's constant: read once per name */

		f->latency_us = 0;
		if (pmuk_kfile_u64(&fd, &v, STATE_FILE, cpu, k, "latency") == 0)
			f->latency_us = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		pmuk_kfile_close(&fd);
		memcpy(f->name_was, st->name, sizeof(f->name_was));
	}
	st->exit_latency_us = f->latency_us;
	if ((want & PMUK_CPUSTAT_IDLE_KNOBS) &&
	    pmuk_kfile_u64(&f->disable, &v, STATE_FILE, cpu, k, "disable") == 0)
		st->disabled = v != 0;
	return 0;
}

/* cpuidle states state0, state1, ... until the first missing or unreadable
 * one (no zeros shown for it); past the known ones only when probing. */
static void idle_states(struct linux_state *ls, struct cpu_files *c, struct pmuk_cpustat_raw *r,
			int probe)
{
	uint32_t k, limit = probe ? PMU_IDLE_STATE_MAX : c->nidle;

	for (k = 0; k < limit; k++)
		if (idle_state(ls->want, c, r->cpu, k, &r->idle[k]))
			break;
	for (size_t j = k; j < c->st_cap; j++)  /* those gone, and a half-read one */
		idle_close(&c->st[j]);
	c->nidle = r->nidle = k;
}

static void frequency(struct cpu_files *c, struct pmuk_cpustat_raw *r, int probe)
{
	uint64_t khz;

	if (c->no_freq && !probe)
		return;
	c->no_freq = pmuk_kfile_u64(&c->freq, &khz, CPU_DIR "cpufreq/scaling_cur_freq",
				    r->cpu) != 0;
	if (!c->no_freq)
		r->freq_mhz = (double)khz / 1000.0;
}

static int parse(struct linux_state *ls, struct pmuk_cpustat_snap *snap, const char *path)
{
	int ncpu = 0;

	for (char *line = ls->buf, *nl; *line; line = nl + 1) {
		int r;

		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if ((r = pmuk_cpustat_parse_line(line, ls->hz, snap)) < 0)
			return r;
		ncpu += r > 0;
		if (!nl)
			break;
	}
	return ncpu ? 0 : pmuk_fail(PMU_EFORMAT, "%s has no cpuN lines", path);
}

/* Reads the per-CPU files of the CPUs in snap; closes those of CPUs gone. */
static int per_cpu(struct linux_state *ls, struct pmuk_cpustat_snap *snap)
{
	int again = ls->gen % PROBE_EVERY == 0;

	for (size_t i = 0; i < snap->n; i++) {
		struct pmuk_cpustat_raw *r = &snap->cpu[i];
		struct cpu_files *c = cpu_files(ls, r->cpu);
		int probe;

		if (!c)
			return pmuk_fail(PMU_ENOMEM, "out of memory reading CPU %d's files", r->cpu);
		probe = !c->probed || again;
		c->probed = 1;
		c->seen = ls->gen;
		if (ls->want & PMUK_CPUSTAT_FREQ)
			frequency(c, r, probe);
		if (ls->want & PMUK_CPUSTAT_IDLE)
			idle_states(ls, c, r, probe);
	}
	for (size_t id = 0; id < ls->ncpu; id++)
		if (ls->cpu[id].seen != ls->gen && ls->cpu[id].probed)
			cpu_close(&ls->cpu[id]);  /* offline: open afresh when back */
	return 0;
}

static int linux_read(void *state, struct pmuk_cpustat_snap *snap)
{
	struct linux_state *ls = state;
	struct timespec ts;
	char path[512];
	int err;

	if ((err = pmuk_path(path, sizeof(path), "/proc/stat")))
		return err;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snap->wall_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if ((err = pmuk_kfile_proc(&ls->stat_fd, &ls->buf, &ls->cap, path)))
		return err;
	ls->gen++;
	if ((err = parse(ls, snap, path)))
		return err;
	return per_cpu(ls, snap);
}

static void linux_close(void *state)
{
	struct linux_state *ls = state;

	pmuk_kfile_close(&ls->stat_fd);
	for (size_t id = 0; id < ls->ncpu; id++) {
		cpu_close(&ls->cpu[id]);
		free(ls->cpu[id].st);
	}
	free(ls->cpu);
	free(ls->buf);
	free(ls);
}

int pmuk_cpustat_backend_open(const struct pmu_cpustat_opts *opts,
			      struct pmuk_cpustat_backend *b)
{
	struct linux_state *ls;

	(void)opts;
	if (!(ls = calloc(1, sizeof(*ls))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening /proc/stat");
	ls->hz = sysconf(_SC_CLK_TCK);
	if (ls->hz <= 0)
		ls->hz = 100;
	ls->want = b->want;
	ls->stat_fd = -1;
	ls->gen = (uint64_t)-1;  /* the first sample is gen 0: everything probed */
	b->source = "/proc/stat";
	b->state = ls;
	b->read = linux_read;
	b->close = linux_close;
	return 0;
}
