/* SPDX-License-Identifier: MIT */
/* The two writers of the metrics model: Prometheus text 0.0.4 and OpenMetrics
 * 1.0.0. They differ in the counter's name (text: the metric is NAME_total;
 * OpenMetrics: the family is NAME, its samples NAME_total and NAME_created),
 * # UNIT, the quote escape in help, "unknown" vs "untyped", and # EOF. */
#include "core/error.h"
#include "core/expo.h"
#include "core/grow.h"

#include <math.h>
#include <pmukit/error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pmu_exporter_content_type(enum pmu_expo_format fmt)
{
	if (fmt == PMU_EXPO_TEXT)
		return "text/plain; version=0.0.4; charset=utf-8";
	if (fmt == PMU_EXPO_OPENMETRICS)
		return "application/openmetrics-text; version=1.0.0; charset=utf-8";
	return NULL;
}

int pmuk_expo_put(struct pmu_mset *s, const char *p, size_t n)
{
	if (pmuk_grow((void **)&s->out, &s->out_cap, s->out_len + n + 1, 1))
		return PMU_ENOMEM;
	if (n)   /* p may be NULL for nothing */
		memcpy(s->out + s->out_len, p, n);
	s->out_len += n;
	s->out[s->out_len] = '\0';
	return 0;
}

static int put_str(struct pmu_mset *s, const char *p)
{
	return pmuk_expo_put(s, p, strlen(p));
}

/* v when it has at most 3 decimals and 15 digits (ticks, hertz, counts: most
 * samples): the digits come from the integer v * 10^k, exactly as "%.15g"
 * spells them (15 significant digits suffice, no exponent in that range), and
 * without printf's multiprecision path and the strtod check, most of a scrape's
 * CPU time. 0 when v is not such a number. */
static int number_fast(char *buf, size_t size, double v)
{
	static const double scale[] = { 1, 10, 100, 1000 };
	char digits[24];

	if (!(v > -1e14 && v < 1e14) || (v == 0 && signbit(v)) || size < 24)
		return 0;
	for (int k = 0; k < 4; k++) {
		double x = v * scale[k];
		long long m;
		unsigned long long u;
		int n = 0, i = 0;

		if (!(x > -1e15 && x < 1e15))
			return 0;  /* more than 15 digits: printf decides */
		m = llround(x);
		u = m < 0 ? 0ull - (unsigned long long)m : (unsigned long long)m;
		if ((double)m / scale[k] != v)
			continue;
		do {  /* the digits of |m|, least significant first, then the point */
			digits[n++] = (char)('0' + u % 10);
			u /= 10;
			if (n == k)
				digits[n++] = '.';
		} while (u || n <= k);
		if (m < 0)
			buf[i++] = '-';
		if (digits[n - 1] == '.')
			buf[i++] = '0';
		while (n)
			buf[i++] = digits[--n];
		buf[i] = '\0';
		return 1;
	}
	return 0;
}

void pmuk_expo_number(char *buf, size_t size, double v)
{
	if (number_fast(buf, size, v))
		return;
	if (isnan(v))
		snprintf(buf, size, "NaN");
	else if (isinf(v))
		snprintf(buf, size, v > 0 ? "+Inf" : "-Inf");
	else {
		/* the shortest of 15 or 17 digits that reads back as v */
		snprintf(buf, size, "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, size, "%.17g", v);
	}
}

static int put_help(struct pmu_mset *s, const char *help, int om)
{
	int err = 0;

	for (const char *p = help; *p && !err; p++) {
		if (*p == '\\')
			err = put_str(s, "\\\\");
		else if (*p == '\n')
			err = put_str(s, "\\n");
		else if (*p == '"' && om)
			err = put_str(s, "\\\"");
		else
			err = pmuk_expo_put(s, p, 1);
	}
	return err;
}

static const char *type_word(enum pmu_mtype t, int om)
{
	return t == PMU_MTYPE_COUNTER ? "counter" : t == PMU_MTYPE_GAUGE ? "gauge"
		: om ? "unknown" : "untyped";
}

/* # HELP, # TYPE (and # UNIT) of family f under the name it has in this format. */
static int put_meta(struct pmu_mset *s, const struct pmu_mfamily *f, int om)
{
	const char *suffix = f->type == PMU_MTYPE_COUNTER && !om ? "_total" : "";
	int err = 0;

	if (f->help) {
		err = put_str(s, "# HELP ");
		err = err ? err : put_str(s, f->name);
		err = err ? err : put_str(s, suffix);
		err = err ? err : put_str(s, " ");
		err = err ? err : put_help(s, f->help, om);
		err = err ? err : put_str(s, "\n");
	}
	err = err ? err : put_str(s, "# TYPE ");
	err = err ? err : put_str(s, f->name);
	err = err ? err : put_str(s, suffix);
	err = err ? err : put_str(s, " ");
	err = err ? err : put_str(s, type_word(f->type, om));
	err = err ? err : put_str(s, "\n");
	if (om && f->unit) {
		err = err ? err : put_str(s, "# UNIT ");
		err = err ? err : put_str(s, f->name);
		err = err ? err : put_str(s, " ");
		err = err ? err : put_str(s, f->unit);
		err = err ? err : put_str(s, "\n");
	}
	return err;
}

static int put_sample(struct pmu_mset *s, const struct pmu_mfamily *f,
		      const struct pmuk_msample *m, const char *suffix, double v)
{
	char num[40];
	int err;

	pmuk_expo_number(num, sizeof(num), v);
	err = put_str(s, f->name);
	err = err ? err : put_str(s, suffix);
	err = err ? err : pmuk_expo_put(s, f->lab + m->lab_off, m->lab_len);
	err = err ? err : put_str(s, " ");
	err = err ? err : put_str(s, num);
	return err ? err : put_str(s, "\n");
}

/* Streaming: the buffer goes to the sink once it holds a piece. A sink's
 * error is kept apart from PMU_ENOMEM, which the buffer's own growth returns. */
static int flush(struct pmu_mset *s, size_t at_least)
{
	if (!s->sink || s->out_len < at_least)
		return 0;
	if ((s->sink_err = s->sink(s->sink_ctx, s->out, s->out_len)))
		return s->sink_err;
	s->out_len = 0;
	return 0;
}

static int put_family(struct pmu_mset *s, const struct pmu_mfamily *f, int om)
{
	int counter = f->type == PMU_MTYPE_COUNTER, err;

	if (!f->n)  /* no data, no family: HELP and TYPE alone say nothing */
		return 0;
	err = put_meta(s, f, om);
	for (size_t i = 0; i < f->n && !err; i++) {
		err = put_sample(s, f, &f->s[i], counter ? "_total" : "", f->s[i].value);
		if (!err && om && counter && f->s[i].created > 0)
			err = put_sample(s, f, &f->s[i], "_created", f->s[i].created);
		err = err ? err : flush(s, PMUK_EXPO_PIECE);
	}
	return err;
}

/* The buffer doubles while it grows, leaving up to as much again resident
 * (memset by pmuk_grow): once rendered, it keeps an eighth of headroom over
 * the longest rendering, so that the next scrapes fit without a realloc. */
static void trim(struct pmu_mset *s)
{
	size_t want;
	char *p;

	if (s->out_len > s->out_peak)
		s->out_peak = s->out_len;
	want = s->out_peak + s->out_peak / 8 + 4096;
	if (s->out_cap > want + want / 4 && (p = realloc(s->out, want))) {
		s->out = p;
		s->out_cap = want;
	}
}

static int render(struct pmu_mset *s, enum pmu_expo_format fmt)
{
	int om = fmt == PMU_EXPO_OPENMETRICS, err = 0;

	s->out_len = 0;
	s->sink_err = 0;
	err = pmuk_expo_put(s, "", 0);
	for (size_t i = 0; i < s->n && !err; i++)
		err = put_family(s, s->fam[i], om);
	if (!err && om)
		err = put_str(s, "# EOF\n");
	err = err ? err : flush(s, 1);
	if (s->sink_err)
		return s->sink_err;
	return err ? pmuk_fail(PMU_ENOMEM, "out of memory rendering %zu metric families",
			       s->n) : 0;
}

int pmu_mset_render(struct pmu_mset *s, enum pmu_expo_format fmt, const char **buf,
		    size_t *len)
{
	int err;

	if (!s || !buf || !len || !pmu_exporter_content_type(fmt))
		return pmuk_fail(PMU_EINVAL, "pmu_mset_render needs a set, a known format "
				 "and somewhere to put the text");
	if ((err = render(s, fmt)))
		return err;
	trim(s);
	*buf = s->out;
	*len = s->out_len;
	return 0;
}

/* After a streamed rendering the buffer holds a piece and a line: a whole
 * rendering before (--once, a scraper without gzip) is given back. */
int pmuk_mset_render_sink(struct pmu_mset *s, enum pmu_expo_format fmt, pmuk_expo_sink sink,
			  void *ctx)
{
	size_t keep = 2 * PMUK_EXPO_PIECE;
	char *p;
	int err;

	if (!s || !sink || !pmu_exporter_content_type(fmt))
		return pmuk_fail(PMU_EINVAL, "pmuk_mset_render_sink needs a set, a known "
				 "format and a sink");
	s->sink = sink;
	s->sink_ctx = ctx;
	err = render(s, fmt);
	s->sink = NULL;
	if (s->out_cap > 2 * keep && (p = realloc(s->out, keep))) {
		s->out = p;
		s->out_cap = keep;
		s->out_peak = 0;
	}
	return err;
}

int pmu_mset_write(struct pmu_mset *s, FILE *f, enum pmu_expo_format fmt)
{
	const char *buf;
	size_t len;
	int err;

	if (!f)
		return pmuk_fail(PMU_EINVAL, "pmu_mset_write needs a stream");
	if ((err = pmu_mset_render(s, fmt, &buf, &len)))
		return err;
	if (fwrite(buf, 1, len, f) != len || fflush(f))
		return pmuk_fail(PMU_EIO, "cannot write %zu bytes of metrics: the stream "
				 "failed (disk full, closed pipe?)", len);
	return 0;
}
