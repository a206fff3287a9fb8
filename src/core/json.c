/* SPDX-License-Identifier: MIT */
#include "core/json.h"

#include "core/error.h"

#include <pmukit/json.h>

#include <inttypes.h>
#include <math.h>

void pmuk_json_init(struct pmuk_json *j, FILE *f, int pretty)
{
	j->f = f;
	j->depth = 0;
	j->pretty = pretty;
	j->need_comma[0] = 0;
}

int pmuk_json_open(struct pmuk_json *j, FILE *f, unsigned flags, const char *fn)
{
	if (!f)
		return pmuk_fail(PMU_EINVAL, "%s needs a stream", fn);
	if (flags & ~(unsigned)PMU_JSON_PRETTY)
		return pmuk_fail(PMU_EINVAL, "%s: flags 0x%x has bits this library does not "
				 "know (PMU_JSON_PRETTY is 0x%x)", fn, flags, (unsigned)PMU_JSON_PRETTY);
	pmuk_json_init(j, f, !!(flags & PMU_JSON_PRETTY));
	return 0;
}

void pmuk_json_write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void indent(struct pmuk_json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator, indentation and key before any value. */
static void lead(struct pmuk_json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = 1;
	if (j->depth > 0)
		indent(j);
	if (key) {
		pmuk_json_write_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void nest_open(struct pmuk_json *j, const char *key, char c)
{
	lead(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < (int)sizeof(j->need_comma))
		j->depth++;
	j->need_comma[j->depth] = 0;
}

static void nest_close(struct pmuk_json *j, char c)
{
	int had_items = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had_items)
		indent(j);
	fputc(c, j->f);
}

void pmuk_json_obj_begin(struct pmuk_json *j, const char *key) { nest_open(j, key, '{'); }
void pmuk_json_obj_end(struct pmuk_json *j) { nest_close(j, '}'); }
void pmuk_json_arr_begin(struct pmuk_json *j, const char *key) { nest_open(j, key, '['); }
void pmuk_json_arr_end(struct pmuk_json *j) { nest_close(j, ']'); }

void pmuk_json_str(struct pmuk_json *j, const char *key, const char *v)
{
	lead(j, key);
	if (v)
		pmuk_json_write_string(j->f, v);
	else
		fputs("null", j->f);
}

void pmuk_json_int(struct pmuk_json *j, const char *key, int64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void pmuk_json_uint(struct pmuk_json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void pmuk_json_double(struct pmuk_json *j, const char *key, double v)
{
	lead(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.15g", v);
	else
		fputs("null", j->f);
}

void pmuk_json_bool(struct pmuk_json *j, const char *key, int v)
{
	lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void pmuk_json_null(struct pmuk_json *j, const char *key)
{
	lead(j, key);
	fputs("null", j->f);
}

void pmuk_json_finish(struct pmuk_json *j)
{
	fputc('\n', j->f);
}
