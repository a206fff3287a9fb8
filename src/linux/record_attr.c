/* SPDX-License-Identifier: MIT */
/* The recorder's events and their attrs: perf record's choices for each option
 * (evsel__config in tools/perf): -d adds ADDR, DATA_SRC, WEIGHT (and PHYS_ADDR
 * where the kernel allows it) and data mmaps; --call-graph dwarf adds the user
 * registers and stack, keeping the kernel part of the callchain; -b any taken
 * branch; tracepoints carry their payload (RAW) and sample every hit. */
#include "linux/record_int.h"
#include "linux/perf_event.h"
#include "core/error.h"
#include "core/event_list.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PERF_SAMPLE_WEIGHT_TYPE
#define PERF_SAMPLE_WEIGHT_TYPE PERF_SAMPLE_WEIGHT
#endif

/* perf's user register masks for --call-graph dwarf (PERF_REGS_MASK). */
#if defined(__x86_64__)
#define REGS_USER_MASK 0xff0fffull      /* AX..R15 without DS, ES, FS, GS */
#elif defined(__aarch64__)
#define REGS_USER_MASK 0x1ffffffffull   /* x0..x30, sp, pc */
#else
#define REGS_USER_MASK 0ull
#endif

void pmuk_rec_note(struct pmu_recording *r, const char *fmt, ...)
{
	size_t len = strlen(r->notes);
	va_list ap;

	if (len + 2 >= sizeof(r->notes))
		return;
	va_start(ap, fmt);
	vsnprintf(r->notes + len, sizeof(r->notes) - len - 1, fmt, ap);
	va_end(ap);
	strcat(r->notes, "\n");
}

/* No list: cycles where a core PMU exists, else cpu-clock, said once (as stat). */
static int default_events(struct pmu_recording *r, struct pmu_event_list **own)
{
	struct pmu_device d;
	int core = pmu_device_core_list(&d, 1) > 0;
	int err = pmu_event_parse(core ? "cycles" : "cpu-clock", own);

	if (err)
		return err;
	if (!core)
		pmuk_rec_note(r, "no hardware PMU here (/sys/bus/event_source/devices lists no "
			      "core PMU; see 'pmukit caps'): sampling cpu-clock instead of cycles");
	return 0;
}

int pmuk_rec_events(struct pmu_recording *r, const struct pmu_event_list *events)
{
	struct pmu_event_list *own = NULL;
	int err = 0;

	if ((!events || events->n == 0) && (err = default_events(r, &own)) < 0)
		return err;
	if (own)
		events = own;
	r->ev = malloc(events->n * sizeof(*r->ev));
	r->fmt = calloc(events->n, sizeof(*r->fmt));
	if (!r->ev || !r->fmt)
		err = pmuk_fail(PMU_ENOMEM, "out of memory for %zu events", events->n);
	else
		memcpy(r->ev, events->ev, events->n * sizeof(*r->ev));
	r->nev = events->n;
	for (size_t e = 0; e < r->nev && !err; e++)
		if (r->ev[e].type == PERF_TYPE_TRACEPOINT)
			r->has_tracepoints = 1;
	pmu_event_list_free(own);
	return err;
}

/* Physical addresses are the kernel's to give: CAP_PERFMON, or paranoid <= 1. */
static int phys_allowed(void)
{
	int p = pmuk_perf_paranoid();

	return geteuid() == 0 || (p != INT32_MIN && p <= 1);
}

void pmuk_rec_tune(struct perf_event_attr *a, size_t e, int first, void *ctx)
{
	struct pmu_recording *r = ctx;
	const struct pmu_recording_opts *o = &r->o;

	if (r->ev[e].type == PERF_TYPE_TRACEPOINT) {
		a->sample_type |= PERF_SAMPLE_RAW;
		a->freq = 0;
		a->sample_period = o->period ? o->period : 1;
	}
	/* The kernel samples every hit of a software event whose samples carry
	 * PERIOD with a fixed period (perf_swevent_event): -c N would be -c 1.
	 * perf record -c leaves PERIOD out; the period is the attr's. */
	if (r->ev[e].type == PERF_TYPE_SOFTWARE && !a->freq && a->sample_period > 1)
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	if (o->data_addr) {
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
		if (phys_allowed())
			a->sample_type |= PERF_SAMPLE_PHYS_ADDR;
		if (first)
			a->mmap_data = 1;
	}
	if (o->stack_user && REGS_USER_MASK != 0) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = REGS_USER_MASK;
		a->sample_stack_user = o->stack_user;
		a->exclude_callchain_user = 1;
		/* the unwinder reads .eh_frame_hdr through the read-only mappings */
		if (first)
			a->mmap_data = 1;
	}
	if (o->branches) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	}
	if (first) {
		a->build_id = 1;  /* MMAP2 with the build-id (Linux 5.12+) */
		a->mmap2 = 1;
	}
	a->inherit = o->inherit ? 1 : 0;
	a->enable_on_exec = o->enable_on_exec ? 1 : 0;
}

void pmuk_rec_opened(struct pmu_recording *r)
{
	for (size_t e = 0; e < r->nev; e++) {
		const struct perf_event_attr *a = pmuk_sampler_attr(r->s, e);

		pmuk_sample_fmt_of(a, &r->fmt[e]);
		if (a->precise_ip < r->ev[e].precise_ip)
			pmuk_rec_note(r, "%s: the PMU refused precise level %u; recorded with "
				      "precise level %u (%s)", r->ev[e].name, r->ev[e].precise_ip,
				      (unsigned)a->precise_ip,
				      a->precise_ip ? (a->precise_ip == 1 ? ":p" : ":pp") : "no :p");
	}
}
