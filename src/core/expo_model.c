/* SPDX-License-Identifier: MIT */
/* The metrics model: families with type, help and unit, samples with labels. */
#include "core/error.h"
#include "core/expo.h"
#include "core/grow.h"

#include <math.h>
#include <pmukit/error.h>
#include <stdlib.h>
#include <string.h>

int pmuk_expo_name_ok(const char *name, int metric)
{
	if (!name || !*name || (*name >= '0' && *name <= '9'))
		return 0;
	for (const char *p = name; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || (metric && c == ':')))
			return 0;
	}
	return 1;
}

int pmu_mset_new(struct pmu_mset **out)
{
	if (!out)
		return pmuk_fail(PMU_EINVAL, "pmu_mset_new needs somewhere to put the set");
	if (!(*out = calloc(1, sizeof(**out))))
		return pmuk_fail(PMU_ENOMEM, "out of memory making a metrics set");
	return 0;
}

static void family_reset(struct pmu_mfamily *f)
{
	free(f->name);
	free(f->help);
	free(f->unit);
	f->name = f->help = f->unit = NULL;
	f->n = 0;
	f->lab_len = 0;
}

void pmu_mset_clear(struct pmu_mset *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		family_reset(s->fam[i]);
	s->n = 0;
}

void pmu_mset_free(struct pmu_mset *s)
{
	if (!s)
		return;
	pmu_mset_clear(s);
	for (size_t i = 0; i < s->made; i++) {
		free(s->fam[i]->s);
		free(s->fam[i]->lab);
		free(s->fam[i]);
	}
	free(s->fam);
	free(s->out);
	free(s);
}

static int family_check(const char *name, enum pmu_mtype type, const char *unit)
{
	size_t nl = name ? strlen(name) : 0, ul = unit ? strlen(unit) : 0;

	if (!pmuk_expo_name_ok(name, 1))
		return pmuk_fail(PMU_EINVAL, "metric name \"%s\" is not [a-zA-Z_:][a-zA-Z0-9_:]*",
				 name ? name : "(null)");
	if ((unsigned)type > PMU_MTYPE_UNKNOWN)
		return pmuk_fail(PMU_EINVAL, "metric %s: type %d is not a pmu_mtype", name, (int)type);
	if (type == PMU_MTYPE_COUNTER && nl > 6 && !strcmp(name + nl - 6, "_total"))
		return pmuk_fail(PMU_EINVAL, "counter %s: give the name without \"_total\", "
				 "the writers add it", name);
	if (ul && (!pmuk_expo_name_ok(unit, 0) || nl <= ul || name[nl - ul - 1] != '_' ||
		   strcmp(name + nl - ul, unit)))
		return pmuk_fail(PMU_EINVAL, "metric %s: its name must end in \"_%s\", its unit "
				 "(OpenMetrics)", name, unit);
	return 0;
}

static struct pmu_mfamily *family_slot(struct pmu_mset *s)
{
	if (s->n == s->made) {
		struct pmu_mfamily *f;

		if (pmuk_grow((void **)&s->fam, &s->cap, s->made + 1, sizeof(*s->fam)))
			return NULL;
		if (!(f = calloc(1, sizeof(*f))))
			return NULL;
		s->fam[s->made++] = f;
	}
	return s->fam[s->n];
}

static char *dup_or_null(const char *p, int *bad)
{
	char *d;

	if (!p || !*p)
		return NULL;
	if (!(d = strdup(p)))
		*bad = 1;
	return d;
}

int pmu_mset_family(struct pmu_mset *s, const char *name, enum pmu_mtype type,
		    const char *help, const char *unit, struct pmu_mfamily **out)
{
	struct pmu_mfamily *f;
	int err, bad = 0;

	if (!s || !out)
		return pmuk_fail(PMU_EINVAL, "pmu_mset_family needs a set and an out pointer");
	if ((err = family_check(name, type, unit)))
		return err;
	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->fam[i]->name, name))
			continue;
		if (s->fam[i]->type != type)
			return pmuk_fail(PMU_EINVAL, "metric %s is already in the set with "
					 "another type", name);
		*out = s->fam[i];
		return 0;
	}
	if (!(f = family_slot(s)))
		return pmuk_fail(PMU_ENOMEM, "out of memory adding metric %s", name);
	f->name = dup_or_null(name, &bad);
	f->help = dup_or_null(help, &bad);
	f->unit = dup_or_null(unit, &bad);
	f->type = type;
	f->n = f->lab_len = 0;
	if (bad) {
		family_reset(f);
		return pmuk_fail(PMU_ENOMEM, "out of memory adding metric %s", name);
	}
	s->n++;
	*out = f;
	return 0;
}

size_t pmu_mset_family_count(const struct pmu_mset *s)
{
	return s ? s->n : 0;
}

const struct pmu_mfamily *pmu_mset_family_get(const struct pmu_mset *s, size_t i)
{
	return s && i < s->n ? s->fam[i] : NULL;
}

const char *pmu_mfamily_name(const struct pmu_mfamily *f)
{
	return f ? f->name : NULL;
}

size_t pmu_mfamily_sample_count(const struct pmu_mfamily *f)
{
	return f ? f->n : 0;
}

static int lab_put(struct pmu_mfamily *f, const char *p, size_t n)
{
	if (pmuk_grow((void **)&f->lab, &f->lab_cap, f->lab_len + n + 1, 1))
		return PMU_ENOMEM;
	memcpy(f->lab + f->lab_len, p, n);
	f->lab_len += n;
	return 0;
}

/* A label value, escaped as both formats want: backslash, quote, newline. */
static int lab_value(struct pmu_mfamily *f, const char *v)
{
	int err = 0;

	for (; *v && !err; v++) {
		if (*v == '\\')
			err = lab_put(f, "\\\\", 2);
		else if (*v == '"')
			err = lab_put(f, "\\\"", 2);
		else if (*v == '\n')
			err = lab_put(f, "\\n", 2);
		else
			err = lab_put(f, v, 1);
	}
	return err;
}

static int lab_render(struct pmu_mfamily *f, const char *const *labels)
{
	int err = 0;

	for (size_t i = 0; labels && labels[i] && !err; i += 2) {
		if (!pmuk_expo_name_ok(labels[i], 0) || !strncmp(labels[i], "__", 2))
			return pmuk_fail(PMU_EINVAL, "metric %s: label name \"%s\" is not "
					 "[a-zA-Z_][a-zA-Z0-9_]* or starts with __", f->name, labels[i]);
		if (!labels[i + 1])
			return pmuk_fail(PMU_EINVAL, "metric %s: label %s has no value",
					 f->name, labels[i]);
		err = lab_put(f, i ? "," : "{", 1);
		err = err ? err : lab_put(f, labels[i], strlen(labels[i]));
		err = err ? err : lab_put(f, "=\"", 2);
		err = err ? err : lab_value(f, labels[i + 1]);
		err = err ? err : lab_put(f, "\"", 1);
	}
	if (!err && labels && labels[0])
		err = lab_put(f, "}", 1);
	return err ? pmuk_fail(err, "out of memory adding a sample to %s", f->name) : 0;
}

int pmu_mfamily_add(struct pmu_mfamily *f, const char *const *labels, double value,
		    double created)
{
	size_t off;
	int err;

	if (!f)
		return pmuk_fail(PMU_EINVAL, "pmu_mfamily_add needs a family");
	if (f->type == PMU_MTYPE_COUNTER && value < 0)
		return pmuk_fail(PMU_EINVAL, "counter %s cannot take the negative value %g",
				 f->name, value);
	if (pmuk_grow((void **)&f->s, &f->cap, f->n + 1, sizeof(*f->s)))
		return pmuk_fail(PMU_ENOMEM, "out of memory adding a sample to %s", f->name);
	off = f->lab_len;
	if ((err = lab_render(f, labels))) {
		f->lab_len = off;
		return err;
	}
	f->s[f->n++] = (struct pmuk_msample){ off, f->lab_len - off, value,
					      isfinite(created) && created > 0 ? created : 0 };
	return 0;
}
