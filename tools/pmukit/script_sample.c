/* SPDX-License-Identifier: MIT */
/* One sample of pmukit script: its addresses looked up in the recorded address
 * spaces (script_maps.c), named by the symbolizer, its tracepoint payload
 * decoded, then printed by the one perf-script printer (core/script.h). */
#include "script_run.h"
#include "formats/perf_file.h"
#include "core/grow.h"

#include <inttypes.h>
#include <pmukit/error.h>
#include <stdlib.h>
#include <string.h>

static int name_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct script_name *k = key, *n = &((const struct script_run *)ctx)->names[id];

	return n->pid == k->pid && n->addr == k->addr;
}

/* The outermost function holding addr (perf names the ELF symbol, not the
 * inlined calls within it) and addr's offset in it; once per address. */
static void name_of(struct script_run *sr, int32_t pid, uint64_t addr,
		    struct pmuk_script_frame *fr)
{
	struct script_name key = { .pid = pid, .addr = addr };
	uint64_t h = pmuk_hash_u64(addr ^ (uint64_t)(uint32_t)pid << 40);
	uint32_t id = pmuk_index_find(&sr->name_ix, h, name_eq, &key, sr);
	struct pmu_frame f[16];
	size_t n = 0;

	if (id == PMUK_INDEX_NONE) {
		if (!pmu_symbolizer_resolve_pid(sr->sym, pid, addr, f, 16, &n) && n &&
		    f[n - 1].function) {
			key.sym = f[n - 1].function;
			key.symoff = f[n - 1].symbol_offset;
			key.module = f[n - 1].module;
		}
		if (pmuk_grow((void **)&sr->names, &sr->cap_names, sr->n_names + 1,
			      sizeof(*sr->names)) ||
		    (id = pmuk_index_add(&sr->name_ix, h)) == PMUK_INDEX_NONE) {
			fr->sym = key.sym;   /* no memory to remember it: still right */
			fr->symoff = key.symoff;
			fr->dso = fr->dso ? fr->dso : key.module;
			return;
		}
		sr->names[sr->n_names++] = key;
	}
	fr->sym = sr->names[id].sym;
	fr->symoff = sr->names[id].symoff;
	if (!fr->dso)	/* JIT code the recording or a perf-PID.map names */
		fr->dso = sr->names[id].module;
}

/* Kernel addresses by where they lie: above the kernel's lowest mapping. */
static int kernel_addr(const struct script_run *sr, uint64_t addr)
{
	return sr->st.kernel.n ? addr >= sr->st.kernel.v[0].start : addr >> 63;
}

/* ip as perf prints it in a call chain: user modules by their file offset. */
static struct pmuk_script_frame frame(struct script_run *sr, int32_t pid, int kernel,
				      uint64_t ip, int relative)
{
	const struct sc_map *m = sc_find(&sr->st, pid, kernel, ip);
	struct pmuk_script_frame fr = { .ip = ip };

	if (m) {
		fr.dso = m->dso;
		if (relative && !m->kernel && !m->identity)
			fr.ip = ip - m->start + m->pgoff;
	}
	if (sr->sym && sr->want_names)
		name_of(sr, pid, ip, &fr);
	return fr;
}

/* The data address: looked up as the sample's mode says, else as its value says. */
static struct pmuk_script_frame data_frame(struct script_run *sr, const struct pmu_record *rec)
{
	uint64_t a = rec->sample.addr;
	int k = rec->cpumode == PMU_CPUMODE_KERNEL;
	struct pmuk_script_frame fr = frame(sr, rec->pid, k, a, 0);

	if (!fr.dso && kernel_addr(sr, a) != k)
		fr = frame(sr, rec->pid, !k, a, 0);
	return fr;
}

/* The user stack of a --call-graph dwarf sample (registers and a stack copy),
 * unwound as perf script unwinds it: the number of uips, 0 when it cannot be. */
static size_t unwound(struct script_run *sr, const struct pmu_record *rec)
{
	const uint32_t both = PMU_HAS_REGS_USER | PMU_HAS_STACK_USER;
	size_t n = 0;

	if (!sr->sym || sr->no_unwind || (rec->has & both) != both || !rec->sample.ext)
		return 0;
	int err = pmu_symbolizer_unwind(sr->sym, rec, sr->uips,
					sizeof(sr->uips) / sizeof(sr->uips[0]), &n);
	if (err == PMU_ENOTSUP)
		sr->no_unwind = 1;	/* this OS or arch: not per sample */
	return err ? 0 : n;
}

/* The frames to print, innermost first, into sr->frames; their number in *n.
 * chain: the sample's call chain (else its ip alone); a dwarf sample's chain
 * is its kernel part, then the unwound user stack. */
static int put_frames(struct script_run *sr, const struct pmu_record *rec, int chain, size_t *n)
{
	const struct pmu_sample *s = &rec->sample;
	size_t nu = unwound(sr, rec);
	size_t nc = chain ? s->nr_callchain : !nu;
	size_t nk = s->nr_kernel_frames < nc ? s->nr_kernel_frames : nc;

	if (nu)
		nc = chain ? nk : 0;
	if (pmuk_grow((void **)&sr->frames, &sr->frames_cap, nc + nu, sizeof(*sr->frames)))
		return PMU_ENOMEM;
	if (!chain && !nu)
		sr->frames[0] = frame(sr, rec->pid, rec->cpumode == PMU_CPUMODE_KERNEL ||
				      rec->cpumode == PMU_CPUMODE_GUEST_KERNEL, s->ip, 0);
	for (size_t i = 0; chain && i < nc; i++)
		sr->frames[i] = frame(sr, rec->pid, i < s->nr_kernel_frames, s->callchain[i], 1);
	/* return addresses as perf prints them: the call's last byte */
	for (size_t i = 0; i < nu; i++)
		sr->frames[nc + i] = frame(sr, rec->pid, 0, sr->uips[i] - (i > 0), 1);
	*n = nc + nu;
	return 0;
}

/* The tracepoint's text; "" (said once per event) when it cannot be decoded. */
static const char *trace_text(struct script_run *sr, struct script_event *e,
			      const struct pmu_record *rec)
{
	int err;

	while ((err = pmu_trace_tp_format(sr->t, rec, sr->text, sr->text_cap)) == PMU_ERANGE &&
	       sr->text_cap < (1u << 20)) {
		char *t = realloc(sr->text, sr->text_cap * 4);

		if (!t)
			break;
		sr->text = t;
		sr->text_cap *= 4;
	}
	if (err && err != PMU_ERANGE && !e->warned) {
		e->warned = 1;
		fprintf(stderr, "pmukit script: %s: payloads print undecoded: %s\n", e->name,
			pmu_error_detail());
	}
	return err && err != PMU_ERANGE ? "" : sr->text;
}

/* Fields this record can fill (a recording without perf's attrs, e.g. .etl). */
static unsigned by_record(unsigned f, const struct pmu_record *rec)
{
	static const struct {
		unsigned field, has;
	} need[] = {
		{ PMUK_SF_TID | PMUK_SF_PID, PMU_HAS_TID }, { PMUK_SF_TIME, PMU_HAS_TIME },
		{ PMUK_SF_CPU, PMU_HAS_CPU },                { PMUK_SF_ADDR, PMU_HAS_ADDR },
		{ PMUK_SF_IP, PMU_HAS_IP },
		{ PMUK_SF_TRACE, PMU_HAS_RAW },
	};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!(rec->has & need[i].has))
			f &= ~need[i].field;
	return f;
}

int script_sample(struct script_run *sr, const struct pmu_record *rec)
{
	struct script_event *e = rec->event >= 0 && (size_t)rec->event < sr->nr_ev ?
				       &sr->ev[rec->event] : &sr->unknown;
	struct pmuk_script_sample s = {
		.fields = by_record(e->fields, rec), .pid = rec->pid, .tid = rec->tid,
		.cpu = rec->cpu, .time = rec->time,
		.period = rec->has & PMU_HAS_PERIOD ? rec->sample.period : e->period,
		.event = e->name, .event_width = sr->event_width, .nanosecs = sr->nanosecs,
	};
	struct pmuk_script_frame addr;
	char comm[24];
	int err;

	s.comm = sc_comm(&sr->st, rec->pid, rec->tid, comm, sizeof(comm));
	sr->want_names = !!(s.fields & PMUK_SF_SYM);
	s.callchain = s.fields & PMUK_SF_IP && (rec->has & PMU_HAS_CALLCHAIN ||
		      (sr->sym && !sr->no_unwind && rec->has & PMU_HAS_STACK_USER));
	if (s.fields & PMUK_SF_TRACE)
		s.trace = trace_text(sr, e, rec);
	if (s.fields & PMUK_SF_ADDR) {
		addr = data_frame(sr, rec);
		s.addr = &addr;
	}
	if (s.fields & PMUK_SF_IP) {
		if ((err = put_frames(sr, rec, !!(rec->has & PMU_HAS_CALLCHAIN), &s.nframes)))
			return err;
		s.frames = sr->frames;
	}
	pmuk_script_print(stdout, &s);
	return 0;
}
