/* SPDX-License-Identifier: MIT */
/* Tracepoint payloads by name (libtraceevent): the format files come from the
 * recording (trace_tp_load.c), loaded once on first use; each payload is
 * checked against its format before libtraceevent reads it, so a short or
 * corrupt payload is an error rather than a read past its end. */
#include "formats/trace_tp_int.h"
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PMUKIT_HAVE_TRACEEVENT
#include <trace-seq.h>

#define PERF_TYPE_TRACEPOINT 2

void pmuk_trace_tp_free(struct pmu_trace *t)
{
	struct tp_state *s = t->tp;

	if (!s)
		return;
	if (s->tep)
		tep_free(s->tep);
	free(s->str);
	free(s);
	t->tp = NULL;
}

/* Loads the formats on first use; a failure is kept and told again each call. */
static int state(struct pmu_trace *t, struct tp_state **out)
{
	struct tp_state *s = t->tp;

	if (!s) {
		if (!(s = calloc(1, sizeof(*s))))
			return pmuk_fail(PMU_ENOMEM, "no memory for tracepoint decoding");
		t->tp = s;
		if (t->info.tracing_data && t->info.tracing_data_size)
			s->err = pmuk_tp_parse_tracing_data(t, t->info.tracing_data,
							    t->info.tracing_data_size, &s->tep);
		else
			s->err = pmuk_tp_load_local(t, &s->tep);
		if (s->err)
			snprintf(s->why, sizeof(s->why), "%s", pmu_error_detail());
	}
	*out = s;
	if (s->err)
		return pmuk_fail(s->err, "%s", s->why);
	return 0;
}

/* Where a field's bytes are: static fields at their offset, __data_loc ones
 * where their u32 (offset | len << 16) points. 0, or PMU_EFORMAT when that is
 * past the payload's end. */
static int field_bytes(struct tep_handle *tep, const struct tep_event *ev,
		       const struct tep_format_field *f, const uint8_t *raw, uint32_t size,
		       const uint8_t **p, size_t *len)
{
	uint64_t off = (uint64_t)(f->offset < 0 ? 0 : f->offset), n = (uint64_t)f->size;

	if (f->offset < 0 || f->size < 0 || off + n > size)
		goto bad;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint64_t loc = tep_read_number(tep, raw + off, f->size < 4 ? f->size : 4);

		off = (f->flags & TEP_FIELD_IS_RELATIVE ? off + n : 0) + (loc & 0xffff);
		n = loc >> 16 & 0xffff;
		if (off + n > size)
			goto bad;
	}
	*p = raw + off;
	*len = (size_t)n;
	return 0;
bad:
	return pmuk_fail(PMU_EFORMAT, "tracepoint %s:%s: the payload of %u bytes ends before "
			 "field %s (bytes %llu..%llu): the sample is truncated or not of this "
			 "format", ev->system, ev->name, (unsigned)size, f->name,
			 (unsigned long long)off, (unsigned long long)(off + n));
}

static int check_payload(struct tep_handle *tep, const struct tep_event *ev, const uint8_t *raw,
			 uint32_t size)
{
	const struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	const uint8_t *p;
	size_t n;
	int err;

	for (int i = 0; i < 2; i++)
		for (const struct tep_format_field *f = lists[i]; f; f = f->next)
			if ((err = field_bytes(tep, ev, f, raw, size, &p, &n)))
				return err;
	return 0;
}

/* The format of rec's tracepoint, its payload checked. */
static int find_event(struct pmu_trace *t, const struct pmu_record *rec, struct tp_state **s,
		      struct tep_event **ev)
{
	const struct pmu_trace_event *e;
	int err;

	if (!t || !rec)
		return pmuk_fail(PMU_EINVAL, "tracepoint decoding: %s is NULL",
				 t ? "the record" : "the trace");
	e = rec->event >= 0 ? pmu_trace_event(t, (size_t)rec->event) : NULL;
	if (rec->kind != PMU_RECORD_SAMPLE || !(rec->has & PMU_HAS_RAW) || !rec->sample.ext ||
	    !e || e->type != PERF_TYPE_TRACEPOINT)
		return pmuk_fail(PMU_ENOENT, "the record is no tracepoint sample with a payload");
	if ((err = state(t, s)))
		return err;
	if (!(*ev = tep_find_event((*s)->tep, (int)e->config)))
		return pmuk_fail(PMU_ENOENT, "tracepoint %s (id %llu): its format is not among "
				 "the recording's", e->name, (unsigned long long)e->config);
	return check_payload((*s)->tep, *ev, rec->sample.ext->raw, rec->sample.ext->raw_size);
}

static int64_t sign_extend(uint64_t v, size_t len)
{
	if (len == 1)
		return (int8_t)v;
	if (len == 2)
		return (int16_t)v;
	if (len == 4)
		return (int32_t)v;
	return (int64_t)v;
}

/* A string field up to its NUL (or its end), copied so it is NUL-terminated. */
static int put_string(struct tp_state *s, struct pmu_tp_field *out, const uint8_t *p, size_t n)
{
	const uint8_t *nul = memchr(p, 0, n);
	size_t len = nul ? (size_t)(nul - p) : n;

	if (len + 1 > s->str_cap) {
		char *str = realloc(s->str, len + 1);

		if (!str)
			return pmuk_fail(PMU_ENOMEM, "no memory for tracepoint field %s", out->name);
		s->str = str;
		s->str_cap = len + 1;
	}
	memcpy(s->str, p, len);
	s->str[len] = 0;
	out->kind = PMU_TP_STRING;
	out->str = s->str;
	out->size = len;
	return 0;
}

static int deliver(struct tp_state *s, const struct tep_event *ev, const struct tep_format_field *f,
		   const struct pmu_sample_ext *x, pmu_tp_field_fn fn, void *ctx)
{
	struct pmu_tp_field out = { .name = f->name };
	const uint8_t *p;
	size_t n;
	int err;

	if ((err = field_bytes(s->tep, ev, f, x->raw, x->raw_size, &p, &n)))
		return err;
	if (f->flags & TEP_FIELD_IS_STRING) {
		if ((err = put_string(s, &out, p, n)))
			return err;
	} else if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC) ||
		   (n != 1 && n != 2 && n != 4 && n != 8)) {
		out.kind = PMU_TP_BYTES;
		out.bytes = p;
		out.size = n;
	} else {
		uint64_t v = tep_read_number(s->tep, p, (int)n);

		out.kind = f->flags & TEP_FIELD_IS_SIGNED ? PMU_TP_INT : PMU_TP_UINT;
		out.i = sign_extend(v, n);
		out.u = v;
		out.size = n;
	}
	return fn(&out, ctx);
}

int pmu_trace_tp_fields(struct pmu_trace *t, const struct pmu_record *rec, pmu_tp_field_fn fn,
			void *ctx)
{
	struct tp_state *s;
	struct tep_event *ev;
	int err;

	if (!fn)
		return pmuk_fail(PMU_EINVAL, "pmu_trace_tp_fields: fn is NULL");
	if ((err = find_event(t, rec, &s, &ev)))
		return err;
	/* The event's own fields; the common_* ones are the record's pid and flags. */
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if ((err = deliver(s, ev, f, rec->sample.ext, fn, ctx)))
			return err;
	return 0;
}

int pmu_trace_tp_format(struct pmu_trace *t, const struct pmu_record *rec, char *buf, size_t size)
{
	struct tep_record r = { 0 };
	struct trace_seq seq;
	struct tp_state *s;
	struct tep_event *ev;
	int err;

	if (!buf || !size)
		return pmuk_fail(PMU_EINVAL, "pmu_trace_tp_format: no buffer");
	*buf = 0;
	if ((err = find_event(t, rec, &s, &ev)))
		return err;
	r.data = (void *)rec->sample.ext->raw;
	r.size = (int)rec->sample.ext->raw_size;
	r.cpu = rec->cpu;
	r.ts = rec->time;
	trace_seq_init(&seq);
	/* The event's print fmt, as perf script prints a tracepoint (no plugins). */
	tep_print_event(s->tep, &seq, &r, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	if (seq.state != TRACE_SEQ__GOOD)
		err = pmuk_fail(PMU_ENOMEM, "no memory to print tracepoint %s", ev->name);
	else if (seq.len >= size)
		err = pmuk_fail(PMU_ERANGE, "tracepoint %s prints %u bytes, the buffer holds %zu",
				ev->name, seq.len + 1, size);
	snprintf(buf, size, "%s", seq.state == TRACE_SEQ__GOOD ? seq.buffer : "");
	trace_seq_destroy(&seq);
	return err;
}

#else /* no libtraceevent: Windows, or built without libtraceevent-dev */

static int no_decoder(void)
{
	return pmuk_fail(PMU_ENOTSUP, "tracepoint payloads are decoded with libtraceevent, "
#ifdef _WIN32
			 "which does not exist on Windows"
#else
			 "which this build of pmukit lacks (install libtraceevent-dev and rebuild)"
#endif
	);
}

void pmuk_trace_tp_free(struct pmu_trace *t)
{
	(void)t;
}

int pmu_trace_tp_fields(struct pmu_trace *t, const struct pmu_record *rec, pmu_tp_field_fn fn,
			void *ctx)
{
	(void)t;
	(void)rec;
	(void)fn;
	(void)ctx;
	return no_decoder();
}

int pmu_trace_tp_format(struct pmu_trace *t, const struct pmu_record *rec, char *buf, size_t size)
{
	(void)t;
	(void)rec;
	if (buf && size)
		*buf = 0;
	return no_decoder();
}
#endif
