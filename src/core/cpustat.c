/* SPDX-License-Identifier: MIT */
/* OS CPU-time counters, the portable part: two snapshots (previous, current) from
 * the OS backend, values clamped to their high-water marks, percentages of the
 * interval between them. */
#include "core/cpustat.h"
#include "core/grow.h"
#include "core/error.h"
#include "core/opts.h"

#include <pmukit/error.h>
#include <stdlib.h>
#include <string.h>

struct pmu_cpustat {
	struct pmuk_cpustat_backend be;
	struct pmuk_cpustat_snap prev, cur;
	int nsamples;
	uint64_t clamps;       /* backward steps kept at the high-water mark */
};

static const char *const names[PMU_CPUTIME_COUNT] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
};

const char *pmu_cputime_name(enum pmu_cputime k)
{
	return (unsigned)k < PMU_CPUTIME_COUNT ? names[k] : NULL;
}

struct pmuk_cpustat_raw *pmuk_cpustat_add(struct pmuk_cpustat_snap *s, int cpu)
{
	struct pmuk_cpustat_raw *r;

	if (pmuk_grow((void **)&s->cpu, &s->cap, s->n + 1, sizeof(*s->cpu)))
		return NULL;
	r = &s->cpu[s->n++];
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->parked = -1;
	return r;
}

/* Reads "N" (digits) at *p; 0 when there are none. */
static int number(const char **p, uint64_t *v)
{
	const char *s = *p;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return 0;
	for (*v = 0; *s >= '0' && *s <= '9'; s++)
		*v = *v * 10 + (uint64_t)(*s - '0');
	*p = s;
	return 1;
}

int pmuk_cpustat_parse_line(const char *line, long hz, struct pmuk_cpustat_snap *snap)
{
	/* /proc/stat field order (proc(5)). */
	static const int order[] = {
		PMU_CPUTIME_USER, PMU_CPUTIME_NICE, PMU_CPUTIME_SYSTEM, PMU_CPUTIME_IDLE,
		PMU_CPUTIME_IOWAIT, PMU_CPUTIME_IRQ, PMU_CPUTIME_SOFTIRQ, PMU_CPUTIME_STEAL,
	};
	struct pmuk_cpustat_raw *r;
	const char *p = line + 3;
	uint64_t id, v;
	int k;

	if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
		return 0;
	if (!number(&p, &id) || id > 1u << 20 || (*p != ' ' && *p != '\t'))
		return pmuk_fail(PMU_EFORMAT, "/proc/stat: a bad cpu line '%.40s'", line);
	if (hz <= 0)
		return pmuk_fail(PMU_EINVAL, "/proc/stat: USER_HZ is %ld", hz);
	if (!(r = pmuk_cpustat_add(snap, (int)id)))
		return pmuk_fail(PMU_ENOMEM, "out of memory reading /proc/stat");
	for (k = 0; k < PMU_CPUTIME_COUNT && number(&p, &v); k++) {
		/* ticks -> ns without overflow for ~58 years of ticks at 100 Hz */
		r->ns[order[k]] = v / (uint64_t)hz * 1000000000u +
				  v % (uint64_t)hz * 1000000000u / (uint64_t)hz;
		r->has |= 1u << order[k];
	}
	if (k < 4) {
		snap->n--;
		return pmuk_fail(PMU_EFORMAT, "/proc/stat: cpu%llu has %d numbers, at least 4 "
				 "(user nice system idle) expected", (unsigned long long)id, k);
	}
	return 1;
}

static int by_cpu(const void *a, const void *b)
{
	const struct pmuk_cpustat_raw *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static const struct pmuk_cpustat_raw *find(const struct pmuk_cpustat_snap *s, int cpu)
{
	struct pmuk_cpustat_raw key = { .cpu = cpu };

	return s->n ? bsearch(&key, s->cpu, s->n, sizeof(key), by_cpu) : NULL;
}

static void clamp_idle(struct pmu_cpustat *s, struct pmuk_idle_raw *c,
		       const struct pmuk_idle_raw *p)
{
	if (c->entries < p->entries) {
		c->entries = p->entries;
		s->clamps++;
	}
	if (c->ns < p->ns) {
		c->ns = p->ns;
		s->clamps++;
	}
}

static int take(struct pmu_cpustat *s)
{
	struct pmuk_cpustat_snap t = s->prev;
	int err;

	/* The current snapshot becomes the previous one; the old previous is reused. */
	s->prev = s->cur;
	s->cur = t;
	s->cur.n = 0;
	s->cur.wall_ns = 0;
	err = s->be.read(s->be.state, &s->cur);
	if (!err && !s->cur.n)
		err = pmuk_fail(PMU_EIO, "%s reported no CPUs", s->be.source);
	if (err) {
		/* Keep the last good sample; percentages restart from boot. */
		t = s->cur;
		s->cur = s->prev;
		s->prev = t;
		s->prev.n = 0;
		if (s->nsamples > 1)
			s->nsamples = 1;
		return err;
	}
	/* /proc/stat comes sorted; glibc's qsort would malloc a copy of the array */
	for (size_t i = 1; i < s->cur.n; i++)
		if (s->cur.cpu[i - 1].cpu >= s->cur.cpu[i].cpu) {
			qsort(s->cur.cpu, s->cur.n, sizeof(*s->cur.cpu), by_cpu);
			break;
		}
	for (size_t i = 0; s->nsamples && i < s->cur.n; i++) {
		struct pmuk_cpustat_raw *c = &s->cur.cpu[i];
		const struct pmuk_cpustat_raw *p = find(&s->prev, c->cpu);

		for (int k = 0; p && k < PMU_CPUTIME_COUNT; k++)
			if (c->ns[k] < p->ns[k]) {
				c->ns[k] = p->ns[k];
				s->clamps++;
			}
		for (uint32_t k = 0; p && k < c->nidle && k < p->nidle; k++)
			if (!strcmp(c->idle[k].name, p->idle[k].name))
				clamp_idle(s, &c->idle[k], &p->idle[k]);
	}
	s->nsamples++;
	return 0;
}

int pmu_cpustat_open(const struct pmu_cpustat_opts *opts, struct pmu_cpustat **out)
{
	return pmuk_cpustat_open_want(opts, PMUK_CPUSTAT_ALL, out);
}

int pmuk_cpustat_open_want(const struct pmu_cpustat_opts *opts, unsigned want,
			   struct pmu_cpustat **out)
{
	struct pmu_cpustat_opts o;
	struct pmu_cpustat *s;
	int err;

	if (!out)
		return pmuk_fail(PMU_EINVAL, "pmu_cpustat_open needs somewhere to store the handle");
	*out = NULL;
	if ((err = PMUK_OPTS_LOAD(o, opts, pmu_cpustat_opts)) < 0)
		return err;
	if (!(s = calloc(1, sizeof(*s))))
		return pmuk_fail(PMU_ENOMEM, "out of memory opening the CPU-time counters");
	s->be.want = want;
	if ((err = pmuk_cpustat_backend_open(&o, &s->be))) {
		free(s);
		return err;
	}
	if ((err = take(s))) {
		pmu_cpustat_close(s);
		return err;
	}
	*out = s;
	return 0;
}

int pmu_cpustat_sample(struct pmu_cpustat *s)
{
	if (!s)
		return pmuk_fail(PMU_EINVAL, "no CPU-time counters");
	return take(s);
}

size_t pmu_cpustat_cpu_count(const struct pmu_cpustat *s)
{
	return s ? s->cur.n : 0;
}

/* Fills percentages of out from its ns and the previous ns (NULL: since boot). */
static void percentages(struct pmu_cpustat_cpu *out, const uint64_t *prev)
{
	uint64_t d[PMU_CPUTIME_COUNT], sum = 0;

	for (int k = 0; k < PMU_CPUTIME_COUNT; k++) {
		d[k] = out->ns[k] - (prev ? prev[k] : 0);
		sum += d[k];
	}
	out->interval_ns = sum;
	for (int k = 0; k < PMU_CPUTIME_COUNT; k++)
		out->percent[k] = sum ? 100.0 * (double)d[k] / (double)sum : 0;
	out->busy_percent = sum ? 100.0 - out->percent[PMU_CPUTIME_IDLE] -
				  out->percent[PMU_CPUTIME_IOWAIT] : 0;
	if (out->busy_percent < 0)
		out->busy_percent = 0;
}

static void fill(struct pmu_cpustat_cpu *out, const struct pmuk_cpustat_raw *c)
{
	memset(out, 0, sizeof(*out));
	out->cpu = c->cpu;
	out->has = c->has;
	memcpy(out->ns, c->ns, sizeof(out->ns));
	out->freq_mhz = c->freq_mhz;
	out->perf_percent = c->perf_percent;
	out->parked = c->parked;
}

int pmu_cpustat_read(const struct pmu_cpustat *s, size_t i, struct pmu_cpustat_cpu *out)
{
	const struct pmuk_cpustat_raw *c, *p;

	if (!s || !out || i >= s->cur.n)
		return pmuk_fail(PMU_ERANGE, "CPU index %zu: the sample has %zu CPUs", i,
				 s ? s->cur.n : 0);
	c = &s->cur.cpu[i];
	p = s->nsamples > 1 ? find(&s->prev, c->cpu) : NULL;
	fill(out, c);
	percentages(out, p ? p->ns : NULL);
	return 0;
}

size_t pmu_cpustat_idle_count(const struct pmu_cpustat *s, size_t i)
{
	return s && i < s->cur.n ? s->cur.cpu[i].nidle : 0;
}

int pmu_cpustat_idle_read(const struct pmu_cpustat *s, size_t i, size_t k,
			  struct pmu_idle_state *out)
{
	const struct pmuk_cpustat_raw *c, *p;
	const struct pmuk_idle_raw *st, *was = NULL;
	uint64_t wall = pmu_cpustat_elapsed_ns(s);

	if (!out || pmu_cpustat_idle_count(s, i) <= k)
		return pmuk_fail(PMU_ERANGE, "idle state %zu of CPU index %zu: it has %zu", k, i,
				 pmu_cpustat_idle_count(s, i));
	c = &s->cur.cpu[i];
	st = &c->idle[k];
	p = s->nsamples > 1 ? find(&s->prev, c->cpu) : NULL;
	/* A state renamed between samples (driver change) starts from boot again. */
	if (p && k < p->nidle && !strcmp(p->idle[k].name, st->name))
		was = &p->idle[k];
	memset(out, 0, sizeof(*out));
	memcpy(out->name, st->name, sizeof(out->name));
	out->name[sizeof(out->name) - 1] = '\0';
	out->exit_latency_us = st->exit_latency_us;
	out->disabled = st->disabled;
	out->entries = st->entries;
	out->ns = st->ns;
	out->no_interval = s->nsamples > 1 && !was;
	out->entries_delta = out->no_interval ? 0 : st->entries - (was ? was->entries : 0);
	if (was && wall) {
		out->percent = 100.0 * (double)(st->ns - was->ns) / (double)wall;
		/* residency and wall clock are read a moment apart */
		if (out->percent > 100)
			out->percent = 100;
	}
	return 0;
}

int pmu_cpustat_total(const struct pmu_cpustat *s, struct pmu_cpustat_cpu *out)
{
	uint64_t prev[PMU_CPUTIME_COUNT] = { 0 };
	size_t nfreq = 0, nperf = 0, nparked = 0;
	int any_prev = 0;

	if (!s || !out)
		return pmuk_fail(PMU_EINVAL, "pmu_cpustat_total needs counters and a result");
	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	out->parked = -1;
	for (size_t i = 0; i < s->cur.n; i++) {
		const struct pmuk_cpustat_raw *c = &s->cur.cpu[i];
		/* A CPU new in this sample contributes no interval to the total. */
		const struct pmuk_cpustat_raw *p = s->nsamples > 1 ? find(&s->prev, c->cpu) : c;

		if (!p)
			continue;
		out->has |= c->has;
		for (int k = 0; k < PMU_CPUTIME_COUNT; k++) {
			out->ns[k] += c->ns[k];
			prev[k] += p == c ? 0 : p->ns[k];
		}
		any_prev |= p != c;
		if (c->freq_mhz > 0) {
			out->freq_mhz += c->freq_mhz;
			nfreq++;
		}
		if (c->perf_percent > 0) {
			out->perf_percent += c->perf_percent;
			nperf++;
		}
		if (c->parked >= 0)
			out->parked = (int)(nparked += (size_t)c->parked);
	}
	if (nfreq)
		out->freq_mhz /= (double)nfreq;
	if (nperf)
		out->perf_percent /= (double)nperf;
	percentages(out, any_prev ? prev : NULL);
	return 0;
}

const char *pmu_cpustat_source(const struct pmu_cpustat *s)
{
	return s ? s->be.source : NULL;
}

uint64_t pmu_cpustat_elapsed_ns(const struct pmu_cpustat *s)
{
	if (!s || s->nsamples < 2 || s->cur.wall_ns < s->prev.wall_ns)
		return 0;
	return s->cur.wall_ns - s->prev.wall_ns;
}

void pmu_cpustat_close(struct pmu_cpustat *s)
{
	if (!s)
		return;
	if (s->be.close)
		s->be.close(s->be.state);
	free(s->prev.cpu);
	free(s->cur.cpu);
	free(s);
}
