/* SPDX-License-Identifier: MIT */
/* A sample as `perf script` (perf 6.x) prints it, field for field:
 *
 *   comm tid [cpu] sec.usec: period event: trace addr ip sym+off (dso)
 *
 * with comm right-aligned to 16 unless a call chain follows, pid/tid as
 * "%5d/%-5d", event names right-aligned to the longest of the recording; a
 * call chain puts one frame per line ("\t%16x sym+off (dso)") and a blank line
 * after the sample. `pmukit script` and `pmukit report --format perf-script`
 * both print through pmuk_script_print. Firefox Profiler and speedscope import
 * the report's: both read the module between the last parentheses of a frame
 * line and speedscope wants it without spaces (clean_dso). */
#include "core/script.h"
#include "core/report_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned field;
} field_names[] = {
	{ "comm", PMUK_SF_COMM }, { "pid", PMUK_SF_PID },       { "tid", PMUK_SF_TID },
	{ "cpu", PMUK_SF_CPU },   { "time", PMUK_SF_TIME },     { "period", PMUK_SF_PERIOD },
	{ "event", PMUK_SF_EVENT }, { "trace", PMUK_SF_TRACE }, { "addr", PMUK_SF_ADDR },
	{ "ip", PMUK_SF_IP },     { "sym", PMUK_SF_SYM },       { "symoff", PMUK_SF_SYMOFF },
	{ "dso", PMUK_SF_DSO },
};

unsigned pmuk_script_field_parse(const char *word, size_t len)
{
	for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if (strlen(field_names[i].name) == len && !memcmp(field_names[i].name, word, len))
			return field_names[i].field;
	return 0;
}

const char *pmuk_script_field_name(unsigned field)
{
	for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if (field_names[i].field == field)
			return field_names[i].name;
	return "?";
}

/* Control characters would break the line structure importers rely on. */
static void put_clean(FILE *f, const char *s, int dso)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7F)
			c = ' ';
		if (dso && (c == ' ' || c == '(' || c == ')'))
			c = '_';
		fputc(c, f);
	}
}

/* " sym+0xoff (dso)" as the fields ask. */
static void put_sym_dso(FILE *f, const struct pmuk_script_sample *s,
			const struct pmuk_script_frame *fr)
{
	if (s->fields & PMUK_SF_SYM) {
		fputc(' ', f);
		put_clean(f, fr->sym ? fr->sym : "[unknown]", 0);
		if (fr->sym && s->fields & PMUK_SF_SYMOFF)
			fprintf(f, "+0x%" PRIx64, fr->symoff);
	}
	if (s->fields & PMUK_SF_DSO) {
		fputs(" (", f);
		put_clean(f, fr->dso ? fr->dso : "[unknown]", s->clean_dso);
		fputc(')', f);
	}
}

static void put_start(FILE *f, const struct pmuk_script_sample *s)
{
	unsigned fl = s->fields;

	if (fl & PMUK_SF_COMM) {
		char comm[64];

		snprintf(comm, sizeof(comm), "%s", s->comm ? s->comm : ":-1");
		if (fl & PMUK_SF_IP && s->callchain)
			put_clean(f, comm, 0);
		else
			fprintf(f, "%16s", comm);
		fputc(' ', f);
	}
	if ((fl & (PMUK_SF_PID | PMUK_SF_TID)) == (PMUK_SF_PID | PMUK_SF_TID))
		fprintf(f, "%5" PRId32 "/%-5" PRId32 " ", s->pid, s->tid);
	else if (fl & PMUK_SF_PID)
		fprintf(f, "%5" PRId32 " ", s->pid);
	else if (fl & PMUK_SF_TID)
		fprintf(f, "%5" PRId32 " ", s->tid);
	if (fl & PMUK_SF_CPU)
		fprintf(f, "[%03" PRId32 "] ", s->cpu);
	if (fl & PMUK_SF_TIME) {
		char t[32];

		if (s->nanosecs)
			snprintf(t, sizeof(t), "%5" PRIu64 ".%09" PRIu64, s->time / 1000000000u,
				 s->time % 1000000000u);
		else
			snprintf(t, sizeof(t), "%" PRIu64 ".%06" PRIu64, s->time / 1000000000u,
				 s->time % 1000000000u / 1000u);
		fprintf(f, "%12s: ", t);
	}
}

void pmuk_script_print(FILE *f, const struct pmuk_script_sample *s)
{
	unsigned fl = s->fields;

	put_start(f, s);
	if (fl & PMUK_SF_PERIOD)
		fprintf(f, "%10" PRIu64 " ", s->period);
	if (fl & PMUK_SF_EVENT) {
		char ev[256];

		snprintf(ev, sizeof(ev), "%s", s->event ? s->event : "[unknown]");
		for (char *c = ev; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7F || (s->clean_dso && *c == ' '))
				*c = s->clean_dso && *c == ' ' ? '_' : ' ';
		fprintf(f, "%*s: ", s->event_width, ev);
	}
	if (fl & PMUK_SF_TRACE && s->trace)
		fputs(s->trace, f);
	if (fl & PMUK_SF_ADDR && s->addr) {
		fprintf(f, "%16" PRIx64, s->addr->ip);
		put_sym_dso(f, s, s->addr);
	}
	if (fl & PMUK_SF_IP && s->callchain) {
		fputc('\n', f);
		for (size_t i = 0; i < s->nframes; i++) {
			fprintf(f, "\t%16" PRIx64, s->frames[i].ip);
			put_sym_dso(f, s, &s->frames[i]);
			fputc('\n', f);
		}
	} else if (fl & PMUK_SF_IP && s->nframes) {
		fprintf(f, " %16" PRIx64, s->frames[0].ip);
		put_sym_dso(f, s, &s->frames[0]);
	}
	fputc('\n', f);
}

/* The report's perf-script text: perf's default fields for a sample with a
 * call chain (a single address is a one-frame chain), times from time_zero. */
void pmuk_rp_script(struct pmu_report *r, const struct pmu_record *rec, const struct rp_thread *t,
		    size_t nframes)
{
	struct pmuk_script_frame stack_fr[128], *fr = stack_fr;
	struct pmuk_script_sample s = {
		.fields = PMUK_SF_COMM | PMUK_SF_PID | PMUK_SF_TID | PMUK_SF_TIME |
			  PMUK_SF_PERIOD | PMUK_SF_EVENT | PMUK_SF_IP | PMUK_SF_SYM | PMUK_SF_DSO,
		.pid = t->pid, .tid = rec->tid, .cpu = rec->cpu,
		.time = rec->time > r->o.time_zero ? rec->time - r->o.time_zero : 0,
		.period = rec->has & PMU_HAS_PERIOD ? rec->sample.period : 1,
		.callchain = 1, .clean_dso = 1,
	};
	const char *comm = pmuk_rp_thread_name(r, t);
	char unnamed[16];

	while (*comm == ' ')
		comm++;
	if (!*comm) {
		snprintf(unnamed, sizeof(unnamed), ":%" PRId32, rec->tid);
		comm = unnamed;
	}
	s.comm = comm;
	if (rec->has & PMU_HAS_CPU)
		s.fields |= PMUK_SF_CPU;
	s.event = rec->event >= 0 && (uint32_t)rec->event < r->o.nr_events &&
		  r->o.event_names[rec->event] ? r->o.event_names[rec->event] : "sample";
	/* Deeper stacks than the kernel's default limit (127) are rare: heap then. */
	if (nframes > sizeof(stack_fr) / sizeof(stack_fr[0]) &&
	    !(fr = malloc(nframes * sizeof(*fr))))
		nframes = sizeof(stack_fr) / sizeof(stack_fr[0]), fr = stack_fr;
	for (size_t i = 0; i < nframes; i++) {
		const struct rp_frame *x = &r->frames[r->scratch[i]];

		fr[i] = (struct pmuk_script_frame){
			.ip = x->addr,
			.sym = x->func ? pmuk_rp_str(r, x->func) : NULL,
			.dso = x->module == RP_NONE ? NULL : pmuk_rp_str(r, r->mods[x->module].path),
		};
	}
	s.frames = fr;
	s.nframes = nframes;
	pmuk_script_print(r->o.script, &s);
	if (fr != stack_fr)
		free(fr);
}
