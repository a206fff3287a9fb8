/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_JSON_H
#define PMUK_CORE_JSON_H

#include <stdint.h>
#include <stdio.h>

/* A small streaming JSON writer shared by every verb's --json output.
 * key is NULL for values inside arrays (and for the top-level value). */
struct pmuk_json {
	FILE *f;
	int depth;
	int pretty;
	unsigned char need_comma[64];
};

void pmuk_json_init(struct pmuk_json *j, FILE *f, int pretty);
/* pmuk_json_init for a public pmu_<object>_write_json (pmukit/json.h): checks the
 * stream and the flags for fn; 0 or PMU_EINVAL. */
int pmuk_json_open(struct pmuk_json *j, FILE *f, unsigned flags, const char *fn);
void pmuk_json_obj_begin(struct pmuk_json *j, const char *key);
void pmuk_json_obj_end(struct pmuk_json *j);
void pmuk_json_arr_begin(struct pmuk_json *j, const char *key);
void pmuk_json_arr_end(struct pmuk_json *j);
void pmuk_json_str(struct pmuk_json *j, const char *key, const char *v); /* NULL -> null */
void pmuk_json_int(struct pmuk_json *j, const char *key, int64_t v);
void pmuk_json_uint(struct pmuk_json *j, const char *key, uint64_t v);
void pmuk_json_double(struct pmuk_json *j, const char *key, double v); /* NaN/inf -> null */
void pmuk_json_bool(struct pmuk_json *j, const char *key, int v);
void pmuk_json_null(struct pmuk_json *j, const char *key);
/* Ends the document with a newline. */
void pmuk_json_finish(struct pmuk_json *j);

/* Writes s as a JSON string literal (with quotes). */
void pmuk_json_write_string(FILE *f, const char *s);

#endif
