/* SPDX-License-Identifier: MIT */
/* PDH counter-type math (formulas: shared/docs/pdh-math.md 1.2) and the
 * "Processor Information" instance names. */
#include "core/pdh_math.h"
#include "core/error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A timer stepping back by less than this is jitter (windows_exporter#1383 saw 1/64 s);
 * more is a reset, as node_exporter's jumpBackSeconds treats /proc/stat. */
#define JUMP_BACK_SECONDS 3

static const struct {
	uint32_t type;
	const char *name;
} types[] = {
	{ PMUK_PERF_100NSEC_TIMER, "PERF_100NSEC_TIMER" },
	{ PMUK_PERF_100NSEC_TIMER_INV, "PERF_100NSEC_TIMER_INV" },
	{ PMUK_PERF_PRECISION_100NS_TIMER, "PERF_PRECISION_100NS_TIMER" },
	{ PMUK_PERF_COUNTER_COUNTER, "PERF_COUNTER_COUNTER" },
	{ PMUK_PERF_COUNTER_BULK_COUNT, "PERF_COUNTER_BULK_COUNT" },
	{ PMUK_PERF_COUNTER_RAWCOUNT, "PERF_COUNTER_RAWCOUNT" },
	{ PMUK_PERF_COUNTER_LARGE_RAWCOUNT, "PERF_COUNTER_LARGE_RAWCOUNT" },
	{ PMUK_PERF_AVERAGE_BULK, "PERF_AVERAGE_BULK" },
};

int pmuk_pdh_type_known(uint32_t type)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == type)
			return 1;
	return 0;
}

const char *pmuk_pdh_type_name(uint32_t type)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == type)
			return types[i].name;
	return "unknown";
}

static int unknown_type(uint32_t type)
{
	return pmuk_fail(PMU_ENOTSUP,
			 "PDH counter type 0x%08x is not one pmukit cooks (it knows the 100 ns "
			 "timers, COUNTER, BULK_COUNT, RAWCOUNT and AVERAGE_BULK)", type);
}

static int is_gauge(uint32_t type)
{
	return type == PMUK_PERF_COUNTER_RAWCOUNT || type == PMUK_PERF_COUNTER_LARGE_RAWCOUNT;
}

static int is_timer(uint32_t type)
{
	return type == PMUK_PERF_100NSEC_TIMER || type == PMUK_PERF_100NSEC_TIMER_INV ||
	       type == PMUK_PERF_PRECISION_100NS_TIMER;
}

/* Size bits 8-9 of a counter type: 0 = DWORD, the value wraps at 2^32. */
static int is_32bit(uint32_t type)
{
	return (type & 0x300u) == 0;
}

/* dN, with 32-bit wrap for DWORD counters; *back set when a 64-bit value went down. */
static uint64_t delta_n(uint32_t type, uint64_t a, uint64_t b, int *back)
{
	*back = 0;
	if (is_32bit(type))
		return (uint32_t)((uint32_t)b - (uint32_t)a);
	if (b < a) {
		*back = 1;
		return 0;
	}
	return b - a;
}

int pmuk_pdh_cook(uint32_t type, const struct pmuk_pdh_raw *prev,
		  const struct pmuk_pdh_raw *cur, uint64_t freq, struct pmuk_pdh_value *out)
{
	uint64_t dn, dt, db;
	int back;

	memset(out, 0, sizeof(*out));
	if (!pmuk_pdh_type_known(type))
		return unknown_type(type);
	if (is_gauge(type)) {
		out->unit = PMUK_PDH_GAUGE;
		out->value = (double)(is_32bit(type) ? (uint32_t)cur->value : cur->value);
		return 0;
	}
	if (!prev)
		return pmuk_fail(PMU_EINVAL, "%s needs two samples; only one was given",
				 pmuk_pdh_type_name(type));
	if (!freq)
		return pmuk_fail(PMU_EINVAL, "the time-stamp frequency is 0 ticks per second");
	dn = delta_n(type, prev->value, cur->value, &back);
	out->clamped = back;
	dt = cur->time > prev->time ? cur->time - prev->time : 0;

	switch (type) {
	case PMUK_PERF_PRECISION_100NS_TIMER:
		/* 100 * dN / dB: B is the provider's own 100 ns time base. */
		if (cur->base <= prev->base)
			return pmuk_fail(PMU_EINVAL, "the two samples have the same (or a "
				"decreasing) time base; take the next one");
		out->unit = PMUK_PDH_PERCENT;
		out->value = 100.0 * (double)dn / (double)(cur->base - prev->base);
		return 0;
	case PMUK_PERF_AVERAGE_BULK:
		/* dN / dB with B a wrapping DWORD (PERF_AVERAGE_BASE). */
		db = (uint32_t)((uint32_t)cur->base - (uint32_t)prev->base);
		if (!db)
			return pmuk_fail(PMU_EINVAL, "the base did not move between the two "
				"samples; take the next one");
		out->unit = PMUK_PDH_RATIO;
		out->value = (double)dn / (double)db;
		return 0;
	default:
		break;
	}
	if (!dt)
		return pmuk_fail(PMU_EINVAL, "the two samples have the same time stamp; "
			"take the next one");
	if (is_timer(type)) {
		/* fraction = (dN in seconds) / (dT in seconds); dN counts 100 ns. */
		double frac = ((double)dn / (double)PMUK_PDH_100NS_FREQ) /
			      ((double)dt / (double)freq);

		out->unit = PMUK_PDH_PERCENT;
		out->value = type == PMUK_PERF_100NSEC_TIMER_INV ? 100.0 * (1.0 - frac)
								  : 100.0 * frac;
		if (out->value < 0)
			out->value = 0;
		return 0;
	}
	/* COUNTER, BULK_COUNT: dN / (dD / F). */
	out->unit = PMUK_PDH_PER_SEC;
	out->value = (double)dn / ((double)dt / (double)freq);
	return 0;
}

int pmuk_pdh_track_init(struct pmuk_pdh_track *t, uint32_t type, uint64_t freq)
{
	memset(t, 0, sizeof(*t));
	if (!pmuk_pdh_type_known(type))
		return unknown_type(type);
	t->type = type;
	t->freq = freq ? freq : PMUK_PDH_100NS_FREQ;
	return 0;
}

int pmuk_pdh_track_add(struct pmuk_pdh_track *t, const struct pmuk_pdh_raw *raw)
{
	struct pmuk_pdh_raw prev = t->last;
	uint64_t dn;
	int back, err = 0;

	if (!t->nsamples++ || is_gauge(t->type)) {
		t->last = *raw;
		if (is_gauge(t->type))
			return pmuk_pdh_cook(t->type, NULL, raw, t->freq, &t->value);
		return 0;
	}
	dn = delta_n(t->type, prev.value, raw->value, &back);
	if (back) {
		uint64_t step = prev.value - raw->value;

		t->clamps++;
		/* Jitter keeps the high-water mark; a reset restarts from the new value. */
		if (is_timer(t->type) && step < JUMP_BACK_SECONDS * PMUK_PDH_100NS_FREQ) {
			t->last.time = raw->time;
			t->last.base = raw->base;
		} else {
			t->last = *raw;
		}
		t->value = (struct pmuk_pdh_value){ .value = 0, .clamped = 1,
			.unit = is_timer(t->type) ? PMUK_PDH_PERCENT : PMUK_PDH_PER_SEC };
		return 0;
	}
	t->total += dn;
	if (t->type == PMUK_PERF_AVERAGE_BULK)
		t->base_total += (uint32_t)((uint32_t)raw->base - (uint32_t)prev.base);
	else if (t->type == PMUK_PERF_PRECISION_100NS_TIMER && raw->base > prev.base)
		t->base_total += raw->base - prev.base;
	err = pmuk_pdh_cook(t->type, &prev, raw, t->freq, &t->value);
	t->last = *raw;
	return err;
}

double pmuk_pdh_track_total(const struct pmuk_pdh_track *t)
{
	if (is_gauge(t->type))
		return t->value.value;
	if (is_timer(t->type))
		return (double)t->total / (double)PMUK_PDH_100NS_FREQ;
	return (double)t->total;
}

/* ---- the sizing protocol ---- */

#define SIZED_TRIES 8

int pmuk_pdh_sized_call(pmuk_pdh_call_fn fn, void *ctx, void **buf, uint32_t *cap,
			const char *what)
{
	uint32_t st = PMUK_PDH_MORE_DATA, size;

	for (int tries = 0; tries < SIZED_TRIES; tries++) {
		void *q;

		if (*cap) {
			size = *cap;
			if ((st = fn(ctx, &size, *buf)) == 0)
				return 0;
			if (st != PMUK_PDH_MORE_DATA && st != PMUK_PDH_INVALID_ARGUMENT)
				break;
		}
		/* Too small (or no buffer yet): only a size-0 call tells the need. */
		size = 0;
		if ((st = fn(ctx, &size, NULL)) == 0)
			return 0;  /* nothing to return */
		if (st != PMUK_PDH_MORE_DATA || !size)
			break;
		if (!(q = realloc(*buf, size)))
			return pmuk_fail(PMU_ENOMEM, "out of memory for %u bytes of %s", size, what);
		*buf = q;
		*cap = size;
	}
	if (st == PMUK_PDH_MORE_DATA)
		return pmuk_fail(PMU_EIO, "%s kept asking for a larger buffer (%d tries)", what,
				 SIZED_TRIES);
	return pmuk_fail(PMU_EIO, "%s failed: PDH status 0x%08x", what, st);
}

/* ---- instance names ---- */

/* A decimal number without sign or leading junk; -1 when s is not one. */
static int parse_uint(const char *s, size_t n)
{
	long v = 0;

	if (!n || n > 7)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return (int)v;
}

int pmuk_pdh_instance_parse(const char *name, struct pmuk_pdh_instance *out)
{
	const char *comma = strchr(name, ',');

	memset(out, 0, sizeof(*out));
	out->index = -1;
	if (!strcmp(name, "_Total")) {
		out->kind = PMUK_PDH_INST_TOTAL;
		out->first = -1;
		return 0;
	}
	if (!comma || (out->first = parse_uint(name, (size_t)(comma - name))) < 0)
		goto bad;
	if (!strcmp(comma + 1, "_Total")) {
		out->kind = PMUK_PDH_INST_SUBTOTAL;
		return 0;
	}
	out->kind = PMUK_PDH_INST_CPU;
	out->index = parse_uint(comma + 1, strlen(comma + 1));
	if (out->index < 0)
		goto bad;
	return 0;
bad:
	return pmuk_fail(PMU_EPARSE, "'%s' is not a Processor Information instance name "
			 "(\"A,B\", \"A,_Total\" or \"_Total\")", name);
}

int pmuk_pdh_instance_cpu(const struct pmu_topology *t, enum pmuk_pdh_scheme scheme,
			  const struct pmuk_pdh_instance *inst, int *cpu)
{
	const struct pmu_topo_node *node = NULL;
	const int *ids;
	size_t n, i;

	*cpu = -1;
	if (inst->kind != PMUK_PDH_INST_CPU)
		return pmuk_fail(PMU_EINVAL, "a _Total instance names no single CPU");
	if (scheme == PMUK_PDH_BY_GROUP) {
		if (inst->index > 63 || inst->first > INT_MAX / 64 - 1)
			return pmuk_fail(PMU_ENOENT, "instance %d,%d: a processor group has "
					 "bits 0-63 only", inst->first, inst->index);
		*cpu = inst->first * 64 + inst->index;
		if (!pmu_topology_cpu_by_id(t, *cpu))
			return pmuk_fail(PMU_ENOENT, "instance %d,%d: the topology has no CPU %d",
					 inst->first, inst->index, *cpu);
		return 0;
	}
	for (i = 0; i < pmu_topology_node_count(t); i++)
		if (pmu_topology_node(t, i)->id == inst->first)
			node = pmu_topology_node(t, i);
	if (node) {
		ids = node->cpus;
		n = node->ncpus;
	} else if (!pmu_topology_node_count(t) && inst->first == 0) {
		ids = NULL;
		n = pmu_topology_cpu_count(t);
	} else {
		return pmuk_fail(PMU_ENOENT, "instance %d,%d: the topology has no NUMA node %d",
				 inst->first, inst->index, inst->first);
	}
	if ((size_t)inst->index >= n)
		return pmuk_fail(PMU_ENOENT, "instance %d,%d: NUMA node %d has %zu CPUs",
				 inst->first, inst->index, inst->first, n);
	*cpu = ids ? ids[inst->index] : pmu_topology_cpu(t, (size_t)inst->index)->id;
	return 0;
}

/* 1 when every CPU instance of names[0, n) maps to a distinct CPU under scheme s,
 * and every subtotal "A,_Total" names a node (group) that holds some CPU. *bad: the
 * first name that does not fit. */
static int scheme_fits(const struct pmu_topology *t, enum pmuk_pdh_scheme s,
		       const char *const *names, size_t n, const char **bad)
{
	size_t ncpu = pmu_topology_cpu_count(t), i;
	int maxid = -1, ok = 1, cpu;
	unsigned char *seen;

	for (i = 0; i < ncpu; i++)
		if (pmu_topology_cpu(t, i)->id > maxid)
			maxid = pmu_topology_cpu(t, i)->id;
	if (!(seen = calloc((size_t)maxid + 2, 1)))
		return pmuk_fail(PMU_ENOMEM, "out of memory deciding PDH instance names");
	for (i = 0; i < n && ok; i++) {
		struct pmuk_pdh_instance in;
		int sub;

		if (pmuk_pdh_instance_parse(names[i], &in) || in.kind == PMUK_PDH_INST_TOTAL)
			continue;  /* not a Processor Information name: readers skip it too */
		if ((sub = in.kind == PMUK_PDH_INST_SUBTOTAL)) {
			in.kind = PMUK_PDH_INST_CPU;  /* its node (group) must have a first CPU */
			in.index = 0;
		}
		if (!pmuk_pdh_instance_cpu(t, s, &in, &cpu) && (sub || !seen[cpu]++))
			continue;
		ok = 0;
		*bad = names[i];
	}
	free(seen);
	pmuk_clear_detail();
	return ok;
}

int pmuk_pdh_instance_scheme(const struct pmu_topology *t, const char *const *names,
			     size_t n, enum pmuk_pdh_scheme *out)
{
	enum pmuk_pdh_scheme first = pmu_topology_node_count(t) <= 1 ? PMUK_PDH_BY_GROUP
								   : PMUK_PDH_BY_NODE;
	enum pmuk_pdh_scheme other = first == PMUK_PDH_BY_GROUP ? PMUK_PDH_BY_NODE
								: PMUK_PDH_BY_GROUP;
	const char *bad = NULL, *bad2 = NULL;
	int fits;

	*out = first;
	if ((fits = scheme_fits(t, first, names, n, &bad)) < 0)
		return fits;
	if (fits)
		return 0;
	if ((fits = scheme_fits(t, other, names, n, &bad2)) < 0)
		return fits;
	if (fits) {
		*out = other;
		return 0;
	}
	return pmuk_fail(PMU_ENOENT, "the Processor Information instance '%s' names no CPU "
			 "of this topology read as node,index, nor '%s' as group,processor "
			 "(%zu CPUs, %zu NUMA nodes): the topology and PDH disagree",
			 first == PMUK_PDH_BY_NODE ? bad : bad2,
			 first == PMUK_PDH_BY_NODE ? bad2 : bad,
			 pmu_topology_cpu_count(t), pmu_topology_node_count(t));
}

double pmuk_pdh_current_mhz(double nominal_mhz, double perf_percent, double actual_mhz)
{
	if (actual_mhz > 0)
		return actual_mhz;
	if (nominal_mhz > 0 && perf_percent > 0)
		return nominal_mhz * perf_percent / 100.0;
	return nominal_mhz > 0 ? nominal_mhz : 0;
}
