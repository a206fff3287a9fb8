/* SPDX-License-Identifier: MIT */
/* Raw profile-source registration (Windows 10 1903+) from a pmukit event: the WPRP
 * <MicroArchitecturalConfig> fragment and its registry form. Bit packing: wprp.h. */
#include "core/wprp.h"
#include "core/event_parse.h"
#include "core/event_table.h"
#include "core/error.h"

#include <pmukit/events.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Intel IA32_PERFEVTSELx fields a ProfileSource carries. */
#define F_EVENT 0x000000ffull
#define F_UMASK 0x0000ff00ull
#define F_EDGE (1ull << 18)
#define F_ANY (1ull << 21)
#define F_INV (1ull << 23)
#define F_CMASK 0xff000000ull
/* USR, OS, INT, EN: the HAL programs these itself, so a raw value may carry them. */
#define F_CONTROL ((1ull << 16) | (1ull << 17) | (1ull << 20) | (1ull << 22))
#define F_CARRIED (F_EVENT | F_UMASK | F_EDGE | F_ANY | F_INV | F_CMASK)

static void make_name(struct pmuk_wprp_source *s, const char *from)
{
	size_t o = 0;

	/* pmu/terms/ spellings make poor names: use the fields instead. */
	if (from && *from && !strchr(from, '/')) {
		for (const char *p = from; *p && o + 1 < sizeof(s->name); p++)
			if (isalnum((unsigned char)*p))
				s->name[o++] = *p;
			else if (o && s->name[o - 1] != '_')
				s->name[o++] = '_';
		while (o && s->name[o - 1] == '_')
			o--;
		s->name[o] = '\0';
		if (o && !isdigit((unsigned char)s->name[0]))
			return;
	}
	snprintf(s->name, sizeof(s->name), "PmukitEvent%02X_Unit%02X%s", s->event, s->unit,
		 s->cmask || s->inv || s->any || s->edge ? "_Ext" : "");
}

int pmuk_wprp_from_config(uint64_t config, const char *name, uint32_t interval,
			  struct pmuk_wprp_source *out)
{
	memset(out, 0, sizeof(*out));
	if (config & ~(F_CARRIED | F_CONTROL))
		return pmuk_fail(PMU_ENOTSUP, "raw encoding 0x%llx sets bits a ProfileSource cannot "
				 "carry (0x%llx); it holds event, umask, cmask, inv, edge and any "
				 "only", (unsigned long long)config,
				 (unsigned long long)(config & ~(F_CARRIED | F_CONTROL)));
	if (!(config & F_EVENT))
		return pmuk_fail(PMU_EINVAL, "raw encoding 0x%llx has event select 0, which "
				 "counts nothing", (unsigned long long)config);
	snprintf(out->arch, sizeof(out->arch), "INTEL");
	out->event = (uint8_t)(config & F_EVENT);
	out->unit = (uint8_t)((config & F_UMASK) >> 8);
	out->cmask = (uint8_t)((config & F_CMASK) >> 24);
	out->edge = !!(config & F_EDGE);
	out->any = !!(config & F_ANY);
	out->inv = !!(config & F_INV);
	out->interval = interval ? interval : PMUK_WPRP_DEFAULT_INTERVAL;
	if (out->cmask >= 10)
		snprintf(out->warning, sizeof(out->warning), "CMask %u is written as two hex "
			 "digits (%02X); the WPT example does not show whether WPR reads it as "
			 "hex or decimal: check with wpr -pmcsources", out->cmask, out->cmask);
	make_name(out, name);
	return 0;
}

static int term_number(const char *key, const char *val, unsigned long long max,
		       unsigned long long *v)
{
	if (pmuk_ev_number(val, v) || *v > max)
		return pmuk_fail(PMU_EPARSE, "%s=%s: expected a number up to 0x%llx", key, val,
				 max);
	return 0;
}

/* intel:event=0x3c,umask=0x00,cmask=1,inv,edge,any,name=X,interval=N */
static int parse_intel(const char *terms, struct pmuk_wprp_source *out)
{
	char buf[256], name[64] = "", *save = NULL;
	unsigned long long v, interval = 0;
	uint64_t config = 0;
	int have_event = 0, err;

	if (strlen(terms) >= sizeof(buf))
		return pmuk_fail(PMU_EPARSE, "the intel: event is longer than %zu characters",
				 sizeof(buf) - 1);
	strcpy(buf, terms);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		const char *val = eq ? eq + 1 : NULL;

		if (eq)
			*eq = '\0';
		if (!strcmp(t, "inv") || !strcmp(t, "edge") || !strcmp(t, "any")) {
			if (val && (pmuk_ev_number(val, &v) || v > 1))
				return pmuk_fail(PMU_EPARSE, "%s=%s: expected 0 or 1", t, val);
			if (!val || v)
				config |= !strcmp(t, "inv") ? F_INV : !strcmp(t, "edge") ? F_EDGE : F_ANY;
			continue;
		}
		if (!val)
			goto unknown;
		if (!strcmp(t, "event")) {
			if ((err = term_number(t, val, 0xff, &v)))
				return err;
			config |= v;
			have_event = 1;
		} else if (!strcmp(t, "umask")) {
			if ((err = term_number(t, val, 0xff, &v)))
				return err;
			config |= v << 8;
		} else if (!strcmp(t, "cmask")) {
			if ((err = term_number(t, val, 0xff, &v)))
				return err;
			config |= v << 24;
		} else if (!strcmp(t, "interval")) {
			if ((err = term_number(t, val, 0xffffffffull, &interval)))
				return err;
		} else if (!strcmp(t, "name")) {
			snprintf(name, sizeof(name), "%s", val);
		} else {
			goto unknown;
		}
		continue;
unknown:
		return pmuk_fail(PMU_EPARSE, "unknown term '%s' in an intel: event (known: event=, "
				 "umask=, cmask=, inv, edge, any, name=, interval=)", t);
	}
	if (!have_event)
		return pmuk_fail(PMU_EPARSE, "an intel: event needs event=N");
	return pmuk_wprp_from_config(config, name, (uint32_t)interval, out);
}

/* A generic event: Windows already has a curated profile source for it. */
static int generic_answer(const struct pmu_event *e)
{
	for (size_t i = 0; i < pmuk_event_naliases; i++) {
		const struct pmuk_event_alias *a = &pmuk_event_aliases[i];
		const struct pmuk_event_def *d = pmuk_event_find(a->name);

		/* by identity: the name is as typed ("cpu-cycles", "cs") */
		if (a->windows && d && e->generic >= 0 && d->generic == e->generic)
			return pmuk_fail(PMU_EINVAL, "%s is a generic event: Windows counts it with "
					 "the curated profile source %s, no registration needed",
					 e->name, a->alias);
	}
	return pmuk_fail(PMU_EINVAL, "%s is not a CPU-specific raw event; a ProfileSource "
			 "registers raw core events only", e->name);
}

int pmuk_wprp_from_spec(const char *spec, struct pmuk_wprp_source *out)
{
	struct pmu_event_list *l = NULL;
	const struct pmu_event *e;
	unsigned long long v;
	char *end;
	int err;

	memset(out, 0, sizeof(*out));
	if (!spec || !*spec)
		return pmuk_fail(PMU_EPARSE, "no event given");
	if (!strncasecmp(spec, "intel:", 6))
		return parse_intel(spec + 6, out);
	if (spec[0] == 'r' && isxdigit((unsigned char)spec[1])) {
		v = strtoull(spec + 1, &end, 16);
		if (!*end)
			return pmuk_wprp_from_config(v, NULL, 0, out);
	}
	err = pmu_event_parse(spec, &l);
	if (err)
		return err;
	if (pmu_event_list_count(l) != 1) {
		size_t n = pmu_event_list_count(l);

		pmu_event_list_free(l);
		return pmuk_fail(PMU_EINVAL, "'%s' names %zu events; a ProfileSource registers "
				 "one", spec, n);
	}
	e = pmu_event_list_get(l, 0);
	if (e->kind != PMU_EVENT_RAW)
		err = generic_answer(e);
	else if (strncmp(e->pmu, "cpu", 3))
		err = pmuk_fail(PMU_ENOTSUP, "%s is served by PMU %s; ProfileSource encodings "
				"here follow the Intel core layout (cpu, cpu_core, cpu_atom)",
				e->name, e->pmu);
	else
		err = pmuk_wprp_from_config(e->config & 0xffffffffull, e->name, 0, out);
	pmu_event_list_free(l);
	return err;
}

void pmuk_wprp_extended_bits(const struct pmuk_wprp_source *s, char out[9])
{
	snprintf(out, 9, "%02X%02X%02X%02X", s->cmask, s->inv, s->any, s->edge);
}

static int has_ext(const struct pmuk_wprp_source *s)
{
	return s->cmask || s->inv || s->any || s->edge;
}

int pmuk_wprp_write_xml(FILE *f, const struct pmuk_wprp_source *s)
{
	char ext[9];

	pmuk_wprp_extended_bits(s, ext);
	fprintf(f, "<MicroArchitecturalConfig>\n");
	if (s->warning[0])
		fprintf(f, "  <!-- %s -->\n", s->warning);
	fprintf(f, "  <ProfileSource Architecture=\"%s\" Event=\"0x%02X\" Unit=\"0x%02X\"",
		s->arch, s->event, s->unit);
	if (has_ext(s))
		fprintf(f, " ExtendedBits=\"%s\"", ext);
	fprintf(f, " Name=\"%s\" Interval=\"%u\"/>\n</MicroArchitecturalConfig>\n", s->name,
		s->interval);
	return ferror(f) ? pmuk_fail(PMU_EIO, "writing the WPRP fragment failed") : 0;
}

int pmuk_wprp_write_registry(FILE *f, const struct pmuk_wprp_source *s, const char *model)
{
	char ext[9];

	pmuk_wprp_extended_bits(s, ext);
	fprintf(f, "Windows Registry Editor Version 5.00\n\n");
	if (!model || !*model)
		fprintf(f, "; Replace <Model> with the exact CPU family/model key of the target.\n");
	if (has_ext(s))
		fprintf(f, "; ExtendedBits %s has no documented registry value: use the WPRP "
			   "fragment for this event.\n", ext);
	fprintf(f, "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WMI\\ProfileSource"
		   "\\%s\\%s]\n", model && *model ? model : "<Model>", s->name);
	fprintf(f, "\"Event\"=dword:%08x\n\"Unit\"=dword:%08x\n\"Interval\"=dword:%08x\n",
		s->event, s->unit, s->interval);
	return ferror(f) ? pmuk_fail(PMU_EIO, "writing the registry form failed") : 0;
}
