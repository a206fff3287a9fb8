/* SPDX-License-Identifier: MIT */
/* The report's account of PE modules whose PDB was not found: the samples whose
 * address lies in such a module unnamed ("[missing]"), by module, with the GUID+Age
 * to fetch its PDB by ("N samples in M modules without PDBs: ntoskrnl.exe
 * {GUID}-Age, ..."). */
#include "core/report_int.h"
#include "core/guid.h"
#include "core/json.h"
#include "core/le.h"

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

		if (y->module == RP_NONE || !y->samples ||
		    r->mods[y->module].bid_kind != PMU_BUILD_ID_PDB ||
		    !ends_with(pmuk_rp_str(r, y->name), " [missing]"))
			continue;
		m += !counts[y->module];
		counts[y->module] += y->samples;
		*total += y->samples;
	}
	return m;
}

static void spell(const struct rp_module *mo, char *buf, size_t size)
{
	struct pmu_guid g;
	char t[40];

	pmuk_guid_load(&g, mo->build_id);
	pmu_guid_format(&g, t, sizeof(t));
	snprintf(buf, size, "{%s}-%" PRIu32, t, pmuk_le32(mo->build_id + 16));
}

void pmuk_rp_missing_pdbs_text(const struct pmu_report *r, FILE *f)
{
	uint64_t *c = calloc(r->n_mods + 1, sizeof(*c)), total;
	size_t m, said = 0;
	char id[64];

	if (!c || !(m = count(r, c, &total))) {
		free(c);
		return;
	}
	fprintf(f, "#\n# %" PRIu64 " samples in %zu module%s without PDBs:", total, m,
		m == 1 ? "" : "s");
	for (size_t i = 0; i < r->n_mods; i++)
		if (c[i]) {
			spell(&r->mods[i], id, sizeof(id));
			fprintf(f, "%s %s %s", said++ ? "," : "",
				pmuk_rp_str(r, r->mods[i].base), id);
		}
	fprintf(f, "\n# (fetch them, e.g. symchk, into a directory of --symbol-path)\n");
	free(c);
}

void pmuk_rp_missing_pdbs_json(const struct pmu_report *r, struct pmuk_json *j)
{
	uint64_t *c = calloc(r->n_mods + 1, sizeof(*c)), total = 0;
	char id[64];

	if (c)
		count(r, c, &total);
	pmuk_json_obj_begin(j, "missing_pdbs");
	pmuk_json_uint(j, "samples", total);
	pmuk_json_arr_begin(j, "modules");
	for (size_t i = 0; c && i < r->n_mods; i++)
		if (c[i]) {
			spell(&r->mods[i], id, sizeof(id));
			pmuk_json_obj_begin(j, NULL);
			pmuk_json_str(j, "module", pmuk_rp_str(r, r->mods[i].base));
			pmuk_json_str(j, "pdb_id", id);
			pmuk_json_uint(j, "samples", c[i]);
			pmuk_json_obj_end(j);
		}
	pmuk_json_arr_end(j);
	pmuk_json_obj_end(j);
	free(c);
}
