/* SPDX-License-Identifier: MIT */
/* Sampling on Linux: every event opened with a sample period or frequency, one
 * mmap'ed ring per thread or CPU; the other events of that thread or CPU write
 * into it too (PERF_EVENT_IOC_SET_OUTPUT), so each ring is in time order. */
#include <pmukit/sampling.h>

#include "linux/perf_event.h"
#include "linux/ring.h"
#include "linux/sample_decode.h"
#include "linux/sampler.h"
#include "linux/target.h"
#include "core/error.h"
#include "core/opts.h"
#include "core/event_list.h"
#include "core/sysroot.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1u << 4)
#endif

struct sring {
	struct pmuk_ring ring;
	void *map;             /* NULL: this unit is not open (its thread vanished) */
	int fd;                /* the event the ring is mapped from */
	int hung;              /* its thread exited */
	uint64_t lost_rec;     /* sum of the LOST records the kernel wrote here */
	uint64_t lost_told;    /* records reported lost to the caller so far */
};

struct pmu_sampler {
	PMUK_SAMPLER_HEAD /* first: ev, nev, st (core/sampler_int.h) */
	struct pmuk_units units;
	int *fd;               /* [unit * nev + event], -1 when not open */
	uint64_t *id;          /* [unit * nev + event] kernel event ids */
	int *gfd;              /* [group] leader fd while opening one unit */
	struct sring *ring;    /* [unit] */
	struct pollfd *pfd;    /* [unit] */
	size_t pagesz, mapsz;
	uint64_t *bounce;
	struct pmuk_sample_fmt fmt;
	/* the read in progress */
	size_t cur;
	pmu_record_fn cb;
	void *cbctx;
	int stopped;
	int decode_err;
	int no_format_lost;    /* kernel before 6.0: losses known from LOST records only */
	struct pmuk_sampler_raw raw; /* the recorder's attr tuning (zero: none) */
	struct perf_event_attr *attr; /* [event] as opened on the first unit */
	int *tid_of;           /* raw.tids: [unit] the task it follows, else NULL */
	size_t ncpu;           /* raw.tids: CPUs per task */
};

static void sample_attr(const struct pmu_event *ev, const struct pmu_sampler_opts *o, int first,
			struct perf_event_attr *a)
{
	struct pmuk_open_flags f = { .disabled = 1 };

	pmuk_perf_attr(ev, &f, a);
	/* read() then tells how many records each event lost at a full ring, which
	 * the kernel reports as a LOST record only once it can write again. */
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (o->callchain)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->use_freq) {
		a->freq = 1;
		a->sample_freq = o->freq;
	} else {
		a->sample_period = o->period;
	}
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	if (o->exclude_kernel)
		a->exclude_kernel = 1;
	/* Side-band records once per ring, not once per event. */
	if (first && o->task)
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
	if (first && o->context_switch)
		a->context_switch = 1;
}

static int open_fail(int err, const struct pmu_event *ev, const struct perf_event_attr *a,
		     int pid, int cpu)
{
	struct pmuk_open_ctx ctx = { ev, pid, cpu, 0, ev->name };
	struct pmu_device d;
	char path[4096];
	int max;

	if ((err == EINVAL || err == EOPNOTSUPP) && ev->precise_ip &&
	    pmu_device_core_list(&d, 1) > 0)
		return pmuk_fail(PMU_ENOTSUP, "precise sampling not supported by this PMU: %s asks "
				 "for precise_ip=%u, which the %s PMU rejects; drop a 'p' modifier",
				 ev->name, ev->precise_ip, ev->pmu[0] ? ev->pmu : d.name);
	if (err == EINVAL && a->freq &&
	    pmuk_path(path, sizeof(path), "/proc/sys/kernel/perf_event_max_sample_rate") == 0 &&
	    pmuk_read_int(path, &max) == 0 && a->sample_freq > (uint64_t)max)
		return pmuk_fail(PMU_EINVAL, "sampling %s at %llu Hz exceeds "
				 "kernel.perf_event_max_sample_rate=%d; ask for a lower frequency or "
				 "raise the sysctl", ev->name, (unsigned long long)a->sample_freq, max);
	if (err == EOPNOTSUPP && !pmuk_event_is_hw(ev))
		return pmuk_fail(PMU_ENOTSUP, "%s cannot be sampled (EOPNOTSUPP): its PMU only "
				 "counts; count it with pmu_counters_open instead", ev->name);
	return pmuk_perf_fail(err, &ctx);
}

static int map_fail(int err, const struct pmu_sampler *s, const struct pmu_event *ev)
{
	char path[4096], kb[32] = "unreadable", lim[32] = "unknown";
	struct rlimit rl;
	int v;

	if (err == EPERM) {
		if (pmuk_path(path, sizeof(path), "/proc/sys/kernel/perf_event_mlock_kb") == 0 &&
		    pmuk_read_int(path, &v) == 0)
			snprintf(kb, sizeof(kb), "%d", v);
		if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
			snprintf(lim, sizeof(lim), rl.rlim_cur == RLIM_INFINITY ? "unlimited" : "%llu",
				 (unsigned long long)rl.rlim_cur / 1024);
		return pmuk_fail(PMU_EPERM, "cannot lock a %zu KiB ring buffer for %s: the locked-"
				 "memory allowance for perf rings is used up (kernel.perf_event_mlock_kb"
				 "=%s KiB per CPU and user, then RLIMIT_MEMLOCK=%s KiB); use fewer pages "
				 "per ring or sample fewer threads, or raise them with sysctl -w "
				 "kernel.perf_event_mlock_kb=N or ulimit -l (CAP_IPC_LOCK is exempt)",
				 s->mapsz / 1024, ev->name, kb, lim);
	}
	if (err == ENOMEM)
		return pmuk_fail(PMU_ENOMEM, "out of memory mapping a %zu KiB ring buffer for %s",
				 s->mapsz / 1024, ev->name);
	return pmuk_fail(PMU_EIO, "mmap of the ring buffer of %s failed: %s", ev->name,
			 strerror(err));
}

static int map_ring(struct pmu_sampler *s, size_t u, int fd, const struct pmu_event *ev)
{
	struct sring *r = &s->ring[u];
	void *m = mmap(NULL, s->mapsz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return map_fail(errno, s, ev);
	r->map = m;
	r->fd = fd;
	return pmuk_ring_init(&r->ring, m, (unsigned char *)m + s->pagesz, s->mapsz - s->pagesz,
			      s->bounce);
}

static void close_unit(struct pmu_sampler *s, size_t u)
{
	if (s->ring[u].map)
		munmap(s->ring[u].map, s->mapsz);
	s->ring[u].map = NULL;
	s->ring[u].fd = -1;
	for (size_t e = 0; e < s->nev; e++) {
		if (s->fd[u * s->nev + e] >= 0)
			close(s->fd[u * s->nev + e]);
		s->fd[u * s->nev + e] = -1;
	}
}

/* perf_event_open (without attr.build_id where the kernel predates it), and with
 * raw.lower_precise a :p level the PMU refuses lowered
 * one step at a time down to 0, as perf record does; the event keeps the level
 * that opened (s->ev[e].precise_ip) for its other units. */
static int open_lowering(struct pmu_sampler *s, size_t e, struct perf_event_attr *a, int pid,
			 int cpu, int group_fd)
{
	int fd = pmuk_perf_open(a, pid, cpu, group_fd);

	if (fd == -EINVAL && a->build_id) {
		/* build-ids in MMAP2 are new in Linux 5.12: plain MMAP2 then */
		a->build_id = 0;
		fd = pmuk_perf_open(a, pid, cpu, group_fd);
	}
	while ((fd == -EINVAL || fd == -EOPNOTSUPP) && s->raw.lower_precise && a->precise_ip) {
		a->precise_ip--;
		fd = pmuk_perf_open(a, pid, cpu, group_fd);
		if (fd >= 0)
			s->ev[e].precise_ip = (uint8_t)a->precise_ip;
	}
	return fd;
}

/* The unit whose ring unit u writes to: itself, or with raw.tids the first unit
 * of the same CPU that has a ring (units are tid-major: u = tid * ncpu + cpu). */
static size_t ring_unit(const struct pmu_sampler *s, size_t u)
{
	if (!s->tid_of)
		return u;
	for (size_t k = u % s->ncpu; k < u; k += s->ncpu)
		if (s->ring[k].map)
			return k;
	return u;
}

/* Opens every event on unit u. 0, 1 when its thread vanished meanwhile, or an error. */
static int open_unit(struct pmu_sampler *s, size_t u, const struct pmu_sampler_opts *o)
{
	int pid = s->tid_of ? s->tid_of[u] : s->units.cpu ? -1 : s->units.id[u];
	int cpu = s->units.cpu ? s->units.id[u] : -1;
	size_t ru = ring_unit(s, u);
	int alone = s->tid_of ? s->raw.ntids > 1 : !s->units.cpu && s->units.n > 1;

	for (size_t e = 0; e < s->nev; e++)
		s->gfd[e] = -1;
	for (size_t e = 0; e < s->nev; e++) {
		const struct pmu_event *ev = &s->ev[e];
		size_t g = ev->group >= 0 && (size_t)ev->group < s->nev ? (size_t)ev->group : e;
		int first = e == 0, leader = ev->group_leader || s->gfd[g] < 0;
		struct perf_event_attr a;
		int fd, err;

		sample_attr(ev, o, first, &a);
		if (s->raw.tune)
			s->raw.tune(&a, e, first, s->raw.ctx);
		if (s->no_format_lost)
			a.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		if (e == 0)
			pmuk_sample_fmt_of(&a, &s->fmt);
		fd = open_lowering(s, e, &a, pid, cpu, leader ? -1 : s->gfd[g]);
		if (fd == -EINVAL && !s->no_format_lost) {
			/* PERF_FORMAT_LOST is new in Linux 6.0 */
			a.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
			fd = pmuk_perf_open(&a, pid, cpu, leader ? -1 : s->gfd[g]);
			if (fd >= 0)
				s->no_format_lost = 1;
			else
				fd = -EINVAL;
		}
		if (fd == -ESRCH && alone)
			return 1; /* the thread exited since /proc listed it */
		if (fd < 0)
			return open_fail(-fd, ev, &a, pid, cpu);
		if (!s->attr[e].size)
			s->attr[e] = a;
		s->fd[u * s->nev + e] = fd;
		if (leader)
			s->gfd[g] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &s->id[u * s->nev + e]) < 0)
			return pmuk_fail(PMU_EIO, "PERF_EVENT_IOC_ID on %s failed: %s", ev->name,
					 strerror(errno));
		if (!s->ring[ru].map)
			err = map_ring(s, ru, fd, ev);
		else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->ring[ru].fd) < 0)
			err = pmuk_fail(PMU_EIO, "cannot send the samples of %s to the ring of %s "
					"(PERF_EVENT_IOC_SET_OUTPUT): %s", ev->name, s->ev[0].name,
					strerror(errno));
		else
			err = 0;
		if (err < 0)
			return err;
	}
	return 0;
}

static int alloc_arrays(struct pmu_sampler *s)
{
	size_t n = s->units.n;

	s->fd = malloc(n * s->nev * sizeof(*s->fd));
	s->id = calloc(n * s->nev, sizeof(*s->id));
	s->gfd = calloc(s->nev, sizeof(*s->gfd));
	s->ring = calloc(n, sizeof(*s->ring));
	s->pfd = calloc(n, sizeof(*s->pfd));
	s->bounce = malloc(PMUK_RING_BOUNCE);
	s->attr = calloc(s->nev, sizeof(*s->attr));
	if (!s->fd || !s->id || !s->gfd || !s->ring || !s->pfd || !s->bounce || !s->attr)
		return pmuk_fail(PMU_ENOMEM, "out of memory for %zu events on %zu threads/CPUs",
				 s->nev, n);
	for (size_t i = 0; i < n * s->nev; i++)
		s->fd[i] = -1;
	for (size_t u = 0; u < n; u++)
		s->ring[u].fd = -1;
	return 0;
}

/* raw.tids: a unit per task and CPU (tid-major), one ring per CPU. */
static int task_units(struct pmu_sampler *s)
{
	size_t ncpu = s->units.n, n = s->raw.ntids * ncpu;
	int *id = malloc(n * sizeof(*id));

	s->tid_of = malloc(n * sizeof(*s->tid_of));
	if (!id || !s->tid_of) {
		free(id);
		return pmuk_fail(PMU_ENOMEM, "out of memory for %zu threads on %zu CPUs",
				 s->raw.ntids, ncpu);
	}
	for (size_t u = 0; u < n; u++) {
		id[u] = s->units.id[u % ncpu];
		s->tid_of[u] = s->raw.tids[u / ncpu];
	}
	pmuk_units_free(&s->units);
	s->units = (struct pmuk_units){ id, n, 1 };
	s->ncpu = ncpu;
	return 0;
}

PMUK_SAMPLER_HEAD_CHECK(struct pmu_sampler);

int pmuk_sampler_os_open(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			 const struct pmu_sampler_opts *o, struct pmu_sampler **out)
{
	return pmuk_sampler_open_raw(ev, n, t, o, NULL, out);
}

int pmuk_sampler_open_raw(const struct pmu_event *ev, size_t n, const struct pmu_target *t,
			  const struct pmu_sampler_opts *o, const struct pmuk_sampler_raw *raw,
			  struct pmu_sampler **out)
{
	static const struct pmu_target all_cpus = { .kind = PMU_TARGET_CPUS };
	struct pmu_sampler *s;
	size_t opened = 0;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s || !(s->ev = malloc(n * sizeof(*ev)))) {
		free(s);
		return pmuk_fail(PMU_ENOMEM, "out of memory opening %zu events", n);
	}
	if (raw)
		s->raw = *raw;
	memcpy(s->ev, ev, n * sizeof(*ev));
	s->nev = n;
	s->pagesz = (size_t)sysconf(_SC_PAGESIZE);
	s->mapsz = (1 + (size_t)o->pages) * s->pagesz;
	if ((err = pmuk_target_units(s->raw.ntids ? &all_cpus : t, &s->units)) < 0 ||
	    (s->raw.ntids && (err = task_units(s)) < 0) || (err = alloc_arrays(s)) < 0)
		goto fail;
	for (size_t u = 0; u < s->units.n; u++) {
		err = open_unit(s, u, o);
		if (err < 0)
			goto fail;
		if (err == 1)
			close_unit(s, u);
		else
			opened++;
	}
	if (opened == 0) {
		err = pmuk_fail(PMU_ESRCH, "no such process %d (its threads exited while opening)",
				t->pid);
		goto fail;
	}
	if (!o->start_disabled && (err = pmuk_sampler_os_enable(s)) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	pmuk_sampler_os_close(s);
	return err;
}

static int ioctl_one(struct pmu_sampler *s, size_t i, unsigned long req, const char *what)
{
	if (s->fd[i] >= 0 && ioctl(s->fd[i], req, 0) < 0)
		return pmuk_fail(PMU_EIO, "cannot %s sampling %s: %s", what,
				 s->ev[i % s->nev].name, strerror(errno));
	return 0;
}

/* Members before their leader: each group then starts as one when its leader is
 * enabled. A member enabled into a running group may never start its timer
 * (task-clock under a cpu-clock leader got no samples at all on Linux 6.18). */
int pmuk_sampler_os_enable(struct pmu_sampler *s)
{
	int err = 0;

	for (size_t i = s->units.n * s->nev; i-- > 0 && err == 0;)
		err = ioctl_one(s, i, PERF_EVENT_IOC_ENABLE, "start");
	return err;
}

/* Leaders first: disabling a leader stops its whole group at once. */
int pmuk_sampler_os_disable(struct pmu_sampler *s)
{
	int err = 0;

	for (size_t i = 0; i < s->units.n * s->nev && err == 0; i++)
		err = ioctl_one(s, i, PERF_EVENT_IOC_DISABLE, "stop");
	return err;
}

int pmuk_sampler_os_poll(struct pmu_sampler *s, int timeout_ms)
{
	size_t live = 0;
	int n, ready = 0;

	for (size_t u = 0; u < s->units.n; u++) {
		int on = s->ring[u].map && !s->ring[u].hung;

		s->pfd[u].fd = on ? s->ring[u].fd : -1;
		s->pfd[u].events = POLLIN;
		s->pfd[u].revents = 0;
		live += on;
	}
	if (live == 0)
		return pmuk_fail(PMU_ESRCH, "every sampled thread has exited");
	n = poll(s->pfd, s->units.n, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : pmuk_fail(PMU_EIO, "poll on the sample rings failed: %s",
						      strerror(errno));
	for (size_t u = 0; u < s->units.n; u++) {
		if (s->pfd[u].revents & (POLLHUP | POLLERR | POLLNVAL))
			s->ring[u].hung = 1;
		ready += s->pfd[u].revents != 0;
	}
	return ready;
}

static int32_t event_of(const struct pmu_sampler *s, size_t u, uint64_t id)
{
	for (size_t e = 0; e < s->nev; e++)
		if (s->id[u * s->nev + e] == id)
			return (int32_t)e;
	return -1;
}

static void count_record(struct pmu_sampler *s, const struct pmu_record *r)
{
	s->st.records++;
	if (r->kind == PMU_RECORD_SAMPLE)
		s->st.samples++;
	else if (r->kind == PMU_RECORD_LOST && r->lost.samples)
		s->st.lost_samples += r->lost.count;
	else if (r->kind == PMU_RECORD_LOST)
		s->st.lost += r->lost.count;
	else if (r->kind == PMU_RECORD_THROTTLE)
		s->st.throttles++;
	else if (r->kind == PMU_RECORD_UNTHROTTLE)
		s->st.unthrottles++;
}

/* A LOST record covers the records lost since the previous one; some of them may
 * have been reported already from the counters (report_lost): only the rest is
 * new. 0: nothing left to report. */
static uint64_t lost_news(struct sring *ring, uint64_t count)
{
	uint64_t news;

	ring->lost_rec += count;
	news = ring->lost_rec > ring->lost_told ? ring->lost_rec - ring->lost_told : 0;
	ring->lost_told += news;
	return news;
}

static int on_record(void *rec, size_t size, void *ctx)
{
	struct pmu_sampler *s = ctx;
	struct pmu_record r;
	int ret = pmuk_decode_record(&s->fmt, rec, size, &r);

	if (ret != 0) {
		/* a bad record is skipped: the ring framing around it is intact */
		if (ret < 0) {
			s->decode_err = ret;
			s->st.corrupt++;
		} else {
			s->st.skipped++;
		}
		return 0;
	}
	if (r.kind == PMU_RECORD_LOST && !r.lost.samples &&
	    !(r.lost.count = lost_news(&s->ring[s->cur], r.lost.count)))
		return 0;
	if (r.has & PMU_HAS_ID)
		r.event = event_of(s, s->cur, r.id);
	count_record(s, &r);
	ret = s->cb(&r, s->cbctx);
	s->stopped = ret != 0;
	return ret;
}

/* After a drain: the records this ring lost that no LOST record reported yet (the
 * kernel writes one only when it next fits a record, which may be never: the
 * thread exited, sampling was disabled). Each event's read() counts its losses. */
static int report_lost(struct pmu_sampler *s, size_t u)
{
	struct sring *ring = &s->ring[u];
	struct pmu_record r;
	uint64_t total = 0, v[3];
	int ret;

	if (s->no_format_lost)
		return 0;
	for (size_t e = 0; e < s->nev; e++) {
		int fd = s->fd[u * s->nev + e];

		if (fd < 0)
			continue;
		if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
			return 0; /* unknown: the LOST records will tell */
		total += v[2];
	}
	if (total <= ring->lost_told)
		return 0;
	memset(&r, 0, sizeof(r));
	r.kind = PMU_RECORD_LOST;
	r.pid = r.tid = r.cpu = r.event = -1;
	if (s->units.cpu) {
		r.cpu = s->units.id[u];
		r.has = PMU_HAS_CPU;
	} else if (s->units.id[u] > 0) {
		r.tid = s->units.id[u];
		r.has = PMU_HAS_TID;
	}
	r.lost.count = total - ring->lost_told;
	ring->lost_told = total;
	count_record(s, &r);
	ret = s->cb(&r, s->cbctx);
	s->stopped = ret != 0;
	return ret;
}

int pmuk_sampler_os_read(struct pmu_sampler *s, pmu_record_fn cb, void *ctx)
{
	int err = 0, ret;

	s->cb = cb;
	s->cbctx = ctx;
	s->decode_err = 0;
	for (size_t u = 0; u < s->units.n; u++) {
		if (!s->ring[u].map)
			continue;
		s->cur = u;
		s->stopped = 0;
		ret = pmuk_ring_drain(&s->ring[u].ring, on_record, s);
		if (s->stopped)
			return ret;
		if (ret < 0) {
			s->st.corrupt++;
			err = ret;
		}
		ret = report_lost(s, u);
		if (s->stopped)
			return ret;
	}
	if (s->decode_err && !err)
		err = s->decode_err;
	return err;
}

void pmuk_sampler_os_close(struct pmu_sampler *s)
{
	for (size_t u = 0; s->fd && s->ring && u < s->units.n; u++)
		close_unit(s, u);
	pmuk_units_free(&s->units);
	free(s->ev);
	free(s->fd);
	free(s->id);
	free(s->gfd);
	free(s->ring);
	free(s->pfd);
	free(s->bounce);
	free(s->attr);
	free(s->tid_of);
	free(s);
}

int pmuk_sampler_drain(struct pmu_sampler *s, pmuk_ring_peek_fn peek, pmuk_ring_span_fn span,
		       void *ctx)
{
	int err = 0, ret;

	for (size_t u = 0; u < s->units.n; u++) {
		if (!s->ring[u].map)
			continue;
		ret = pmuk_ring_drain_spans(&s->ring[u].ring, peek, span, ctx);
		if (ret == PMU_EFORMAT) {
			s->st.corrupt++;
			err = ret;
		} else if (ret) {
			return ret;
		}
	}
	return err;
}

const struct perf_event_attr *pmuk_sampler_attr(const struct pmu_sampler *s, size_t e)
{
	return e < s->nev ? &s->attr[e] : NULL;
}

size_t pmuk_sampler_ids(const struct pmu_sampler *s, size_t e, uint64_t *ids, size_t max)
{
	size_t n = 0;

	for (size_t u = 0; u < s->units.n && e < s->nev; u++)
		if (s->fd[u * s->nev + e] >= 0 && n < max)
			ids[n++] = s->id[u * s->nev + e];
	return n;
}

size_t pmuk_sampler_units(const struct pmu_sampler *s)
{
	return s->units.n;
}

uint64_t pmuk_sampler_lost_samples(const struct pmu_sampler *s, size_t e)
{
	uint64_t total = 0, v[3];

	for (size_t u = 0; u < s->units.n && !s->no_format_lost; u++) {
		int fd = s->fd[u * s->nev + e];

		if (fd >= 0 && read(fd, v, sizeof(v)) == (ssize_t)sizeof(v))
			total += v[2];
	}
	return total;
}
