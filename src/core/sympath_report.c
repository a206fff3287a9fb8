/* SPDX-License-Identifier: MIT */
/* The report's account of PE modules whose PDB was not found: the samples whose
 * address lies in such a module unnamed ("[missing]"), by module, with the GUID+Age
 * to fetch its PDB by ("N samples in M modules without PDBs: ntoskrnl.exe
 * {GUID}-Age, ..."). */
#include "core/report_int.h"
#include "core/guid.h"
#include "core/json.h"
#include "core/le.h"
#include "formats/pdb_symbolizer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* Samples of each module without its PDB into counts[n_mods]; the module count. */
static size_t count(const struct pmu_report *r, uint64_t *counts, uint64_t *total)
{
	size_t m = 0;

	*total = 0;
	for (size_t i = 0; i < r->n_syms; i++) {
		const struct rp_sym *y = &r->syms[i];

		const char *name = pmuk_rp_str(r, y->name);

		/* a recorded GUID+Age whose PDB is missing, or only a stale one found */
		if (y->module == RP_NONE || !y->samples ||
		    r->mods[y->module].bid_kind != PMU_BUILD_ID_PDB ||
		    (!ends_with(name, " [missing]") && !ends_with(name, " [stale]")))
			continue;
		m += !counts[y->module];
		counts[y->module] += y->samples;
		*total += y->samples;
	}
	return m;
}

struct by_count {
	uint64_t n;
	size_t mod;
};

static int most_first(const void *a, const void *b)
{
	const struct by_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->mod < y->mod ? -1 : x->mod > y->mod;
}

/* The m modules with samples in counts, most samples first; NULL without memory. */
static struct by_count *ranked(const struct pmu_report *r, const uint64_t *c, size_t m)
{
	struct by_count *v = calloc(m + 1, sizeof(*v));
	size_t k = 0;

	for (size_t i = 0; v && i < r->n_mods; i++)
		if (c[i])
			v[k++] = (struct by_count){ c[i], i };
	if (v)
		qsort(v, k, sizeof(*v), most_first);
	return v;
}

/* {GUID}-Age as the symbolizer's stale and missing PDB messages spell it. */
static void spell(const struct rp_module *mo, char *buf, size_t size)
{
	struct pmu_module_id id = { 0 };

	pmuk_guid_load(&id.guid, mo->build_id);
	id.age = pmuk_le32(mo->build_id + 16);
	pmuk_sym_pe_spell(&id, buf, size);
}

void pmuk_rp_missing_pdbs_text(const struct pmu_report *r, FILE *f)
{
	uint64_t *c = calloc(r->n_mods + 1, sizeof(*c)), total;
	struct by_count *v;
	size_t m;
	char id[64];

	if (!c || !(m = count(r, c, &total)) || !(v = ranked(r, c, m))) {
		free(c);
		return;
	}
	fprintf(f, "#\n# %" PRIu64 " samples in %zu module%s without PDBs:", total, m,
		m == 1 ? "" : "s");
	for (size_t k = 0; k < m; k++) {
		spell(&r->mods[v[k].mod], id, sizeof(id));
		fprintf(f, "%s %s %s", k ? "," : "", pmuk_rp_str(r, r->mods[v[k].mod].base), id);
	}
	fprintf(f, "\n# (fetch them, e.g. symchk, into a directory of --symbol-path)\n");
	free(v);
	free(c);
}

void pmuk_rp_missing_pdbs_json(const struct pmu_report *r, struct pmuk_json *j)
{
	uint64_t *c = calloc(r->n_mods + 1, sizeof(*c)), total = 0;
	size_t m = c ? count(r, c, &total) : 0;
	struct by_count *v = c ? ranked(r, c, m) : NULL;
	char id[64];

	pmuk_json_obj_begin(j, "missing_pdbs");
	pmuk_json_uint(j, "samples", total);
	pmuk_json_arr_begin(j, "modules");
	for (size_t k = 0; v && k < m; k++) {
		spell(&r->mods[v[k].mod], id, sizeof(id));
		pmuk_json_obj_begin(j, NULL);
		pmuk_json_str(j, "module", pmuk_rp_str(r, r->mods[v[k].mod].base));
		pmuk_json_str(j, "pdb_id", id);
		pmuk_json_uint(j, "samples", v[k].n);
		pmuk_json_obj_end(j);
	}
	pmuk_json_arr_end(j);
	pmuk_json_obj_end(j);
	free(v);
	free(c);
}
