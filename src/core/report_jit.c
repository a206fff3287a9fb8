/* SPDX-License-Identifier: MIT */
/* JIT code in the report's frame cache. Code in no module or in anonymous
 * memory is named per process (two processes' JIT code may share addresses),
 * and SYMBOL records change those names over time (a method loaded where a
 * frame was [unknown], another method at an address after an unload): each
 * process has a generation of its JIT frames, part of their keys, that a
 * SYMBOL record over an already-named address ends. The named addresses are
 * kept as 64-byte lines, so a range is checked with a few hash probes. */
#include "core/grow.h"
#include "core/report_int.h"

#include <pmukit/error.h>

#include <stdlib.h>
#include <string.h>

#define LINE_SHIFT 6
#define MAX_PROBES 4096 /* lines checked per range; a larger range ends the generation */

int pmuk_rp_anon_path(const char *p)
{
	return !p[0] || !strncmp(p, "//anon", 6) || !strncmp(p, "[anon:", 6) ||
	       !strncmp(p, "/memfd:", 7) || !strncmp(p, "/tmp/perf-", 10);
}

static int line_eq(const void *key, uint32_t id, const void *ctx)
{
	return ((const struct rp_mapset *)ctx)->jit_line[id] == *(const uint64_t *)key;
}

static uint32_t find_line(const struct rp_mapset *s, uint64_t line)
{
	return pmuk_index_find(&s->line_ix, pmuk_hash_u64(line), line_eq, &line, s);
}

static int index_line(struct rp_mapset *s, uint64_t line)
{
	if (find_line(s, line) != RP_NONE)
		return 0;
	if (pmuk_grow((void **)&s->jit_line, &s->cap_line, s->line_ix.n + 1, sizeof(*s->jit_line)))
		return PMU_ENOMEM;
	uint32_t id = pmuk_index_add(&s->line_ix, pmuk_hash_u64(line));
	if (id == RP_NONE)
		return PMU_ENOMEM;
	s->jit_line[id] = line;
	s->n_line = s->line_ix.n;
	return 0;
}

/* Most processes never get a SYMBOL record, and most of their frames in no
 * module are a stack's data words, each seen once: their lines are only
 * listed, and indexed when a SYMBOL record needs to look them up. */
int pmuk_rp_jit_seen(struct rp_mapset *s, uint64_t addr)
{
	uint64_t line = addr >> LINE_SHIFT;

	if (s->indexed)
		return index_line(s, line);
	if (pmuk_grow((void **)&s->jit_line, &s->cap_line, s->n_line + 1, sizeof(*s->jit_line)))
		return PMU_ENOMEM;
	s->jit_line[s->n_line++] = line;
	return 0;
}

/* The listed lines, made distinct, into the index: 0 or PMU_ENOMEM (then the
 * generation ends, as no line can be told). */
static int index_lines(struct rp_mapset *s)
{
	size_t n = s->n_line;

	s->indexed = 1;
	s->n_line = 0;
	for (size_t i = 0; i < n; i++)   /* the index's ids are the kept lines' places */
		if (index_line(s, s->jit_line[i]))
			return PMU_ENOMEM;
	return 0;
}

static void new_generation(struct rp_mapset *s)
{
	s->jit_gen++;
	s->n_line = 0;
	pmuk_index_free(&s->line_ix);	/* the lines array is reused */
}

void pmuk_rp_jit_symbol(struct pmu_report *r, const struct pmu_record *rec)
{
	struct rp_mapset *s = rec->pid >= 0 ? pmuk_rp_mapset(r, rec->pid, 0) : NULL;
	uint64_t first = rec->symbol.start >> LINE_SHIFT, len = rec->symbol.len ? rec->symbol.len : 1;
	uint64_t last = (rec->symbol.start + len - 1) >> LINE_SHIFT;

	if (!s || !s->n_line)
		return;
	if ((!s->indexed && index_lines(s)) || last < first || last - first >= MAX_PROBES) {
		new_generation(s);	/* wraps, or huge */
		return;
	}
	for (uint64_t l = first; l <= last; l++)
		if (find_line(s, l) != RP_NONE) {
			new_generation(s);
			return;
		}
}

void pmuk_rp_jit_free(struct rp_mapset *s)
{
	pmuk_index_free(&s->line_ix);
	free(s->jit_line);
}
