/* SPDX-License-Identifier: MIT */
/* Report rows (sorted tables) and the text, JSON and collapsed-stack writers. */
#include "core/error.h"
#include "core/json.h"
#include "core/report_int.h"

#include <inttypes.h>
#include <pmukit/trace.h>
#include <stdlib.h>
#include <string.h>

int pmu_report_sort_parse(const char *s, enum pmu_report_sort *out)
{
	static const char *const names[] = { "sym", "module", "tid", "pid", "cpu" };

	for (int i = 0; i < 5; i++)
		if (s && !strcmp(s, names[i])) {
			*out = (enum pmu_report_sort)i;
			return 0;
		}
	return pmuk_fail(PMU_EINVAL, "unknown sort key '%s': use sym, module, tid, pid or cpu",
			 s ? s : "");
}

struct key {
	uint64_t samples, cpu_ns;
	uint32_t id;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Unknown-module samples: those whose address no module maps. */
static uint64_t unmapped(const struct pmu_report *r, uint64_t *period)
{
	uint64_t n = 0, p = 0;

	for (size_t i = 0; i < r->n_syms; i++)
		if (r->syms[i].module == RP_NONE)
			n += r->syms[i].samples, p += r->syms[i].period;
	if (period)
		*period = p;
	return n;
}

static int build_order(struct pmu_report *r, enum pmu_report_sort by)
{
	size_t cap = by == PMU_REPORT_SYM ? r->n_syms : by == PMU_REPORT_MODULE ? r->n_mods + 1 :
		     by == PMU_REPORT_TID ? r->n_threads : by == PMU_REPORT_PID ? r->n_procs : r->n_cpus;
	struct key *k = malloc((cap + 1) * sizeof(*k));
	size_t n = 0;

	if (!k)
		return pmuk_fail(PMU_ENOMEM, "no memory to sort the report");
	for (size_t i = 0; i < cap; i++) {
		struct key e = { 0, 0, (uint32_t)i };
		if (by == PMU_REPORT_SYM) {
			e.samples = r->syms[i].samples;
		} else if (by == PMU_REPORT_MODULE) {
			e.samples = i < r->n_mods ? r->mods[i].samples : unmapped(r, NULL);
			e.id = i < r->n_mods ? (uint32_t)i : RP_NONE;
		} else if (by == PMU_REPORT_TID) {
			e.samples = r->threads[i].samples;
			e.cpu_ns = r->threads[i].cpu_ns + r->threads[i].switches;
		} else if (by == PMU_REPORT_PID) {
			e.samples = r->procs[i].samples;
			e.cpu_ns = r->procs[i].cpu_ns + r->procs[i].switches;
		} else {
			e.samples = r->cpus[i].samples;
		}
		if (e.samples || e.cpu_ns)
			k[n++] = e;
	}
	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_key);
	uint32_t *o = realloc(r->order[by], (n + 1) * sizeof(*o));
	if (!o) {
		free(k);
		return pmuk_fail(PMU_ENOMEM, "no memory to sort the report");
	}
	for (size_t i = 0; i < n; i++)
		o[i] = k[i].id;
	free(k);
	r->order[by] = o;
	r->order_n[by] = n;
	r->order_gen[by] = r->gen + 1;
	return 0;
}

static int ensure(struct pmu_report *r, enum pmu_report_sort by)
{
	if ((unsigned)by > PMU_REPORT_CPU)
		return pmuk_fail(PMU_EINVAL, "no such report table %d", (int)by);
	return r->order_gen[by] == r->gen + 1 ? 0 : build_order(r, by);
}

size_t pmu_report_count(struct pmu_report *r, enum pmu_report_sort by)
{
	return ensure(r, by) ? 0 : r->order_n[by];
}

static double pct(const struct pmu_report *r, uint64_t n)
{
	return r->sum.samples ? 100.0 * (double)n / (double)r->sum.samples : 0.0;
}

int pmu_report_row(struct pmu_report *r, enum pmu_report_sort by, size_t i,
		   struct pmu_report_row *out)
{
	int err = ensure(r, by);

	if (err)
		return err;
	if (i >= r->order_n[by])
		return pmuk_fail(PMU_ERANGE, "row %zu of %zu", i, r->order_n[by]);
	uint32_t id = r->order[by][i];
	memset(out, 0, sizeof(*out));
	out->pid = out->tid = out->cpu = -1;
	out->name = out->module = out->build_id = out->process = "";
	if (by == PMU_REPORT_SYM || by == PMU_REPORT_MODULE) {
		uint32_t m = by == PMU_REPORT_SYM ? r->syms[id].module : id;
		if (m != RP_NONE) {
			out->module = pmuk_rp_str(r, r->mods[m].path);
			out->build_id = r->mods[m].bid_text;
		}
		if (by == PMU_REPORT_SYM) {
			if ((err = pmuk_rp_sym_keep(r, id)))   /* the row's name outlives the call */
				return err;
			out->name = pmuk_rp_str(r, r->syms[id].name);
			out->samples = r->syms[id].samples;
			out->period = r->syms[id].period;
		} else if (m != RP_NONE) {
			out->name = pmuk_rp_str(r, r->mods[m].base);
			out->samples = r->mods[m].samples;
			out->period = r->mods[m].period;
		} else {
			out->name = "[unknown]";
			out->samples = unmapped(r, &out->period);
		}
	} else if (by == PMU_REPORT_TID) {
		const struct rp_thread *t = &r->threads[id];
		out->pid = t->pid, out->tid = t->tid;
		out->name = pmuk_rp_thread_name(r, t);
		out->process = pmuk_rp_process_name(r, t->pid);
		out->samples = t->samples, out->period = t->period;
		out->cpu_time_ns = t->cpu_ns, out->switches = t->switches;
		out->pmc = t->pmc, out->nr_pmc = t->pmc ? r->o.nr_pmc : 0;
		out->exited = t->exited;
	} else if (by == PMU_REPORT_PID) {
		const struct rp_process *p = &r->procs[id];
		out->pid = p->pid;
		out->name = out->process = pmuk_rp_str(r, p->name);
		out->samples = p->samples, out->period = p->period;
		out->cpu_time_ns = p->cpu_ns, out->switches = p->switches;
		out->pmc = p->pmc, out->nr_pmc = p->pmc ? r->o.nr_pmc : 0;
		out->exited = p->exited;
	} else {
		out->cpu = (int32_t)id;
		char name[24];
		snprintf(name, sizeof(name), "cpu%u", id);
		out->name = pmuk_rp_str(r, pmuk_rp_intern(&r->str, name));
		out->samples = r->cpus[id].samples, out->period = r->cpus[id].period;
	}
	out->percent = pct(r, out->samples);
	return 0;
}

static size_t rows_shown(struct pmu_report *r, enum pmu_report_sort by, size_t limit)
{
	size_t n = pmu_report_count(r, by);

	return limit && limit < n ? limit : n;
}

/* CPU ms and Switches: '-' when the recording has no context switches, as
 * CPU time is known only from them (0.000 would claim idle threads). */
static void thread_times(FILE *f, const struct pmu_report *r, const struct pmu_report_row *w)
{
	if (r->sum.switches)
		fprintf(f, " %12.3f %9" PRIu64, (double)w->cpu_time_ns / 1e6, w->switches);
	else
		fprintf(f, " %12s %9s", "-", "-");
}

/* What was lost or damaged: the report's LOST records, and the recording's
 * own counts when it is known. */
struct pmuk_rp_losses pmuk_rp_losses(const struct pmu_report *r)
{
	struct pmu_trace_stats st = { 0 };
	struct pmuk_rp_losses l = { r->sum.lost_samples, r->sum.lost - r->sum.lost_samples,
			    r->sum.lost_bytes, 0 };

	if (r->o.trace && !pmu_trace_stats(r->o.trace, &st, sizeof(st))) {
		l.lost_samples = st.lost_samples > l.lost_samples ? st.lost_samples : l.lost_samples;
		l.lost_records = st.lost > l.lost_records ? st.lost : l.lost_records;
		l.skipped_bytes += st.bytes_skipped;
		l.out_of_order = st.out_of_order;
	}
	return l;
}

void pmuk_rp_text_losses(const struct pmu_report *r, FILE *f)
{
	struct pmuk_rp_losses l = pmuk_rp_losses(r);

	fprintf(f, "# Total Lost Samples: %" PRIu64 "\n", l.lost_samples);
	fprintf(f, "# Lost records: %" PRIu64, l.lost_records);
	if (r->sum.lost_buffers)
		fprintf(f, " (+%" PRIu64 " buffers)", r->sum.lost_buffers);
	if (r->sum.lost_uncounted)
		fprintf(f, " (+%" PRIu64 " losses of unknown size)", r->sum.lost_uncounted);
	fprintf(f, "\n# Skipped bytes: %" PRIu64 "\n# Out of order: %" PRIu64 "\n",
		l.skipped_bytes, l.out_of_order);
}

void pmuk_rp_json_losses(const struct pmu_report *r, struct pmuk_json *j)
{
	struct pmuk_rp_losses l = pmuk_rp_losses(r);

	pmuk_json_uint(j, "lost_samples", l.lost_samples);
	pmuk_json_uint(j, "lost_records", l.lost_records);
	pmuk_json_uint(j, "skipped_bytes", l.skipped_bytes);
	pmuk_json_uint(j, "out_of_order", l.out_of_order);
	pmuk_json_uint(j, "filtered", r->sum.filtered);
	pmuk_json_uint(j, "hidden", r->sum.hidden);
}

/* The totals, what is missing, and the events of the recording, as # lines. */
static void text_summary(const struct pmu_report *r, FILE *f, enum pmu_report_sort by)
{
	fprintf(f, "# samples: %" PRIu64 ", period: %" PRIu64 ", lost: %" PRIu64, r->sum.samples,
		r->sum.period, r->sum.lost);
	if (r->sum.lost_buffers || r->sum.lost_bytes)
		fprintf(f, " (+%" PRIu64 " buffers, %" PRIu64 " bytes skipped)", r->sum.lost_buffers,
			r->sum.lost_bytes);
	if (r->sum.lost_uncounted)
		fprintf(f, " (+%" PRIu64 " losses of unknown size)", r->sum.lost_uncounted);
	fprintf(f, ", with stacks: %" PRIu64, r->sum.with_callchain);
	if (r->sum.with_branches)
		fprintf(f, ", with branch stacks: %" PRIu64, r->sum.with_branches);
	fprintf(f, "\n");
	if (!r->sum.samples)
		fprintf(f, "# no samples: nothing was sampled (a command shorter than one "
			"sampling period: raise -F; or a trace of other events only)\n");
	if (!r->sum.switches && (by == PMU_REPORT_TID || by == PMU_REPORT_PID))
		fprintf(f, "# no context switches recorded: CPU time unknown ('-')\n");
	for (uint32_t i = 0; i < r->o.nr_events; i++)
		fprintf(f, "# event %u: %s\n", i, r->o.event_names[i] ? r->o.event_names[i] : "");
	pmuk_rp_text_losses(r, f);
	pmuk_rp_missing_pdbs_text(r, f);
	fprintf(f, "#\n");
}

/* The table's heading: its columns depend on the sort key. */
static void text_heading(const struct pmu_report *r, FILE *f, enum pmu_report_sort by)
{
	switch (by) {
	case PMU_REPORT_SYM:
		fprintf(f, "# %8s %9s  %-24s %s\n", "Overhead", "Samples", "Module", "Symbol");
		break;
	case PMU_REPORT_MODULE:
		fprintf(f, "# %8s %9s  %-24s %s\n", "Overhead", "Samples", "Module", "Build id");
		break;
	case PMU_REPORT_TID:
	case PMU_REPORT_PID:
		fprintf(f, "# %8s %9s %12s %9s %7s", "Overhead", "Samples", "CPU ms", "Switches", "PID");
		if (by == PMU_REPORT_TID)
			fprintf(f, " %7s  %-24s", "TID", "Thread");
		fprintf(f, "  %-24s", "Process");
		for (uint32_t i = 0; i < r->o.nr_pmc; i++)
			fprintf(f, " %16s", r->o.pmc_names[i] ? r->o.pmc_names[i] : "");
		fputc('\n', f);
		break;
	default:
		fprintf(f, "# %8s %9s  %s\n", "Overhead", "Samples", "CPU");
	}
}

static void text_row(const struct pmu_report *r, FILE *f, enum pmu_report_sort by,
		     const struct pmu_report_row *w)
{
	fprintf(f, "  %7.2f%% %9" PRIu64, w->percent, w->samples);
	if (by == PMU_REPORT_SYM || by == PMU_REPORT_MODULE) {
		const char *m = w->module;
		for (const char *p = m; *p; p++)
			if (*p == '/' || *p == '\\')
				m = p + 1;
		fprintf(f, "  %-24s %s\n", *m ? m : "[unknown]",
			by == PMU_REPORT_SYM ? w->name : w->build_id);
	} else if (by == PMU_REPORT_CPU) {
		fprintf(f, "  %" PRId32 "\n", w->cpu);
	} else {
		thread_times(f, r, w);
		fprintf(f, " %7" PRId32, w->pid);
		if (by == PMU_REPORT_TID)
			fprintf(f, " %7" PRId32 "  %-24s", w->tid, w->name);
		fprintf(f, "  %-24s", w->process);
		for (uint32_t k = 0; k < w->nr_pmc; k++)
			fprintf(f, " %16" PRIu64, w->pmc[k]);
		fputc('\n', f);
	}
}

int pmu_report_write_text(struct pmu_report *r, FILE *f, enum pmu_report_sort by, size_t limit)
{
	struct pmu_report_row w;
	size_t n = rows_shown(r, by, limit);
	int err = ensure(r, by);

	if (err)
		return err;
	text_summary(r, f, by);
	text_heading(r, f, by);
	for (size_t i = 0; i < n && !(err = pmu_report_row(r, by, i, &w)); i++)
		text_row(r, f, by, &w);
	return err;
}

static void json_pmc(struct pmu_report *r, struct pmuk_json *j, const struct pmu_report_row *w)
{
	if (!w->nr_pmc)
		return;
	pmuk_json_obj_begin(j, "pmc");
	for (uint32_t k = 0; k < w->nr_pmc; k++)
		pmuk_json_uint(j, r->o.pmc_names[k] ? r->o.pmc_names[k] : "", w->pmc[k]);
	pmuk_json_obj_end(j);
}

static int json_table(struct pmu_report *r, struct pmuk_json *j, enum pmu_report_sort by,
		      const char *key, size_t limit)
{
	struct pmu_report_row w;
	size_t n = rows_shown(r, by, limit);
	int err = 0;

	pmuk_json_arr_begin(j, key);
	for (size_t i = 0; i < n && !(err = pmu_report_row(r, by, i, &w)); i++) {
		pmuk_json_obj_begin(j, NULL);
		if (by == PMU_REPORT_SYM)
			pmuk_json_str(j, "symbol", w.name);
		if (by == PMU_REPORT_SYM || by == PMU_REPORT_MODULE) {
			const char *m = w.module;
			for (const char *p = m; *p; p++)
				if (*p == '/' || *p == '\\')
					m = p + 1;
			pmuk_json_str(j, "module", *m ? m : "[unknown]");
			pmuk_json_str(j, "path", w.module);
			pmuk_json_str(j, "build_id", w.build_id);
		}
		if (by == PMU_REPORT_TID || by == PMU_REPORT_PID) {
			pmuk_json_int(j, "pid", w.pid);
			if (by == PMU_REPORT_TID) {
				pmuk_json_int(j, "tid", w.tid);
				pmuk_json_str(j, "name", w.name);
			}
			pmuk_json_str(j, "process", w.process);
			if (r->sum.switches)
				pmuk_json_uint(j, "cpu_time_ns", w.cpu_time_ns);
			else	/* unknown without context switches */
				pmuk_json_null(j, "cpu_time_ns");
			pmuk_json_uint(j, "switches", w.switches);
			pmuk_json_bool(j, "exited", w.exited);
			json_pmc(r, j, &w);
		}
		if (by == PMU_REPORT_CPU)
			pmuk_json_int(j, "cpu", w.cpu);
		pmuk_json_uint(j, "samples", w.samples);
		pmuk_json_uint(j, "period", w.period);
		pmuk_json_double(j, "percent", w.percent);
		pmuk_json_obj_end(j);
	}
	pmuk_json_arr_end(j);
	return err;
}

/* The keys of pmu_report_write_json, into an open object. */
void pmuk_rp_json_tables(struct pmu_report *r, struct pmuk_json *j, size_t limit, int *err)
{
	pmuk_json_uint(j, "samples", r->sum.samples);
	pmuk_json_uint(j, "period", r->sum.period);
	pmuk_json_uint(j, "lost", r->sum.lost);
	pmuk_json_uint(j, "lost_buffers", r->sum.lost_buffers);
	pmuk_json_uint(j, "lost_bytes", r->sum.lost_bytes);
	pmuk_json_uint(j, "lost_uncounted", r->sum.lost_uncounted);
	pmuk_rp_json_losses(r, j);
	pmuk_json_uint(j, "with_callchain", r->sum.with_callchain);
	pmuk_json_uint(j, "with_branches", r->sum.with_branches);
	pmuk_json_uint(j, "unwound", r->sum.unwound);
	pmuk_json_uint(j, "switches", r->sum.switches);
	pmuk_json_uint(j, "stacks", r->n_stacks);
	pmuk_rp_missing_pdbs_json(r, j);
	pmuk_json_arr_begin(j, "events");
	for (uint32_t i = 0; i < r->o.nr_events; i++)
		pmuk_json_str(j, NULL, r->o.event_names[i]);
	pmuk_json_arr_end(j);
	pmuk_json_arr_begin(j, "pmc_names");
	for (uint32_t i = 0; i < r->o.nr_pmc; i++)
		pmuk_json_str(j, NULL, r->o.pmc_names[i]);
	pmuk_json_arr_end(j);
	if ((*err = json_table(r, j, PMU_REPORT_SYM, "top", limit)) ||
	    (*err = json_table(r, j, PMU_REPORT_MODULE, "modules", limit)) ||
	    (*err = json_table(r, j, PMU_REPORT_PID, "processes", 0)) ||
	    (*err = json_table(r, j, PMU_REPORT_TID, "threads", 0)) ||
	    (*err = json_table(r, j, PMU_REPORT_CPU, "cpus", 0)))
		return;
}

int pmu_report_write_json(struct pmu_report *r, FILE *f, unsigned flags)
{
	struct pmuk_json j;
	int err;

	if (!r)
		return pmuk_fail(PMU_EINVAL, "pmu_report_write_json needs a report");
	if ((err = pmuk_json_open(&j, f, flags, "pmu_report_write_json")))
		return err;
	pmuk_json_obj_begin(&j, NULL);
	pmuk_rp_json_tables(r, &j, r->o.limit, &err);
	if (err)
		return err;
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
	return 0;
}

/* Frame names for folded stacks: ';' separates frames, a line ends the stack. */
static size_t put_folded(char *o, size_t at, size_t cap, const char *s)
{
	for (; *s && at + 1 < cap; s++)
		o[at++] = *s == ';' ? ':' : (unsigned char)*s < 0x20 ? ' ' : *s;
	return at;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The order of stacks by process and symbols (their inline bits aside):
 * 0 for one folded line. */
static int syms_order(const struct rp_stack *s, const struct rp_stack *t)
{
	if (s->proc != t->proc)
		return s->proc < t->proc ? -1 : 1;
	if (s->n != t->n)
		return s->n < t->n ? -1 : 1;
	return memcmp(s->frames, t->frames, s->n * sizeof(*s->frames));
}

static int cmp_syms(const void *a, const void *b)
{
	const struct rp_stack *s = *(const struct rp_stack *const *)a,
			      *t = *(const struct rp_stack *const *)b;
	int c = syms_order(s, t);

	return c ? c : s < t ? -1 : s > t;
}

int pmu_report_write_collapsed(struct pmu_report *r, FILE *f)
{
	char addr[RP_ADDR_BUF];
	char **lines = calloc(r->n_stacks + 1, sizeof(*lines));
	const struct rp_stack **st = calloc(r->n_stacks + 1, sizeof(*st));
	uint64_t *counts = calloc(r->n_stacks + 1, sizeof(*counts));
	size_t n = 0;

	if (!lines || !st || !counts) {
		free(lines), free(st), free(counts);
		return pmuk_fail(PMU_ENOMEM, "no memory for %zu folded stacks", r->n_stacks);
	}
	/* stacks of the same symbols (a call inlined in one, called out of line
	 * in the other: report.c count_stack) are one folded line */
	for (size_t i = 0; i < r->n_stacks; i++)
		st[i] = &r->stacks[i];
	if (r->n_stacks > 1)
		qsort(st, r->n_stacks, sizeof(*st), cmp_syms);
	for (size_t i = 0; i < r->n_stacks; i++) {
		if (n && !syms_order(st[n - 1], st[i])) {
			counts[n - 1] += st[i]->count;
			continue;
		}
		counts[n] = st[i]->count;
		st[n++] = st[i];
	}
	for (size_t i = 0; i < n; i++) {
		const struct rp_stack *s = st[i];
		size_t cap = 64 + strlen(pmuk_rp_str(r, s->proc)), at;
		for (uint32_t k = 0; k < s->n; k++)
			cap += 1 + strlen(pmuk_rp_sym_name(r, s->frames[k], addr));
		if (!(lines[i] = malloc(cap))) {
			for (size_t k = 0; k < i; k++)
				free(lines[k]);
			free(lines), free(st), free(counts);
			return pmuk_fail(PMU_ENOMEM, "no memory for folded stacks");
		}
		const char *proc = pmuk_rp_str(r, s->proc);
		at = put_folded(lines[i], 0, cap, *proc ? proc : "[unknown]");
		for (uint32_t k = s->n; k-- > 0;) {	/* root first */
			lines[i][at++] = ';';
			at = put_folded(lines[i], at, cap, pmuk_rp_sym_name(r, s->frames[k], addr));
		}
		snprintf(lines[i] + at, cap - at, " %" PRIu64, counts[i]);
	}
	if (n > 1)
		qsort(lines, n, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines), free(st), free(counts);
	return 0;
}
