/* SPDX-License-Identifier: MIT */
/* perf-script text, one sample at a time, in the layout `perf script` prints
 * with pid, tid, cpu, time, period, event and a call chain:
 *
 *   comm pid/tid [cpu] sec.usec: period event:
 *   \t        address symbol (module)
 *   <blank line>
 *
 * Firefox Profiler and speedscope import it; both read the module between the
 * last parentheses of a frame line and speedscope wants it without spaces, so
 * spaces and parentheses in paths become '_'. */
#include "core/report_int.h"

#include <inttypes.h>
#include <string.h>

static void put_clean(FILE *f, const char *s, int path)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7F)
			c = ' ';
		if (path && (c == ' ' || c == '(' || c == ')'))
			c = '_';
		fputc(c, f);
	}
}

void pmuk_rp_script(struct pmu_report *r, const struct pmu_record *rec, const struct rp_thread *t,
		    size_t nframes)
{
	FILE *f = r->o.script;
	const char *comm = pmuk_rp_thread_name(r, t);
	uint64_t time = rec->time > r->o.time_zero ? rec->time - r->o.time_zero : 0;
	const char *ev = rec->event >= 0 && (uint32_t)rec->event < r->o.nr_events &&
			 r->o.event_names[rec->event] ? r->o.event_names[rec->event] : "sample";

	while (*comm == ' ')
		comm++;
	if (*comm)
		put_clean(f, comm, 0);
	else
		fprintf(f, ":%" PRId32, rec->tid);
	fprintf(f, " %" PRId32 "/%" PRId32, t->pid, rec->tid);
	if (rec->has & PMU_HAS_CPU)
		fprintf(f, " [%03" PRId32 "]", rec->cpu);
	fprintf(f, " %" PRIu64 ".%06" PRIu64 ": %" PRIu64 " ", time / 1000000000u,
		time % 1000000000u / 1000u, rec->has & PMU_HAS_PERIOD ? rec->sample.period : 1);
	put_clean(f, ev, 1);
	fputs(":\n", f);
	for (size_t i = 0; i < nframes; i++) {
		const struct rp_frame *fr = &r->frames[r->scratch[i]];
		fprintf(f, "\t%16" PRIx64 " ", fr->addr);
		put_clean(f, fr->func ? pmuk_rp_str(r, fr->func) : "[unknown]", 0);
		fputs(" (", f);
		put_clean(f, fr->module == RP_NONE ? "[unknown]" :
			  pmuk_rp_str(r, r->mods[fr->module].path), 1);
		fputs(")\n", f);
	}
	fputc('\n', f);
}
