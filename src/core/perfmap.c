/* SPDX-License-Identifier: MIT */
/* JIT code of recordings: /tmp/perf-PID.map, the file JIT compilers (V8, the JVM's
 * perf-map-agent, LuaJIT, .NET with DOTNET_PerfMapEnabled) write for perf, one
 * "START SIZE name" line per function, START and SIZE in hex. Read once per
 * process, when an address of it lies in anonymous code or in no mapping. */
#include "core/bsearch.h"
#include "core/symbols_int.h"
#include "core/error.h"
#include "core/file.h"
#include "core/grow.h"
#include "core/num.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_start(const void *a, const void *b)
{
	const struct pmuk_sym_jit *x = a, *y = b;

	if (x->start != y->start)
		return x->start > y->start ? 1 : -1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* One line into j: 1, 0 when it is no entry, -1 without memory. */
static int parse_line(struct pmu_symbolizer *s, char *line, struct pmuk_sym_jit *j)
{
	char *size = strchr(line, ' '), *name;
	uint64_t len;

	if (!size)
		return 0;
	*size++ = 0;
	if (!(name = strchr(size, ' ')))
		return 0;
	*name++ = 0;
	name[strcspn(name, "\r\n")] = 0;
	if (pmuk_parse_u64(line, 16, &j->start) || pmuk_parse_u64(size, 16, &len) || !len ||
	    j->start + len < j->start || !name[0])
		return 0;
	j->end = j->start + len;
	return (j->name = pmuk_sym_intern(s, name, strlen(name))) ? 1 : -1;
}

/* The next line of f, whatever its length (C++ and JS names can be long: a
 * fixed buffer would cut one and read its tail as an entry); NULL at the end. */
static char *next_line(FILE *f, char **buf, size_t *cap)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF) {
		if (n + 2 > *cap && pmuk_grow((void **)buf, cap, n + 2, 1))
			return NULL;
		(*buf)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (!n)
		return NULL;
	(*buf)[n] = 0;
	return *buf;
}

static void load(struct pmu_symbolizer *s, struct pmuk_sym_proc *p)
{
	char path[64], *line = NULL;
	size_t linecap = 0;
	FILE *f;
	int got;

	p->jit_loaded = 1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)p->pid);
	if (!(f = pmuk_fopen(path, "r")))
		return;
	p->jit_path = pmuk_sym_intern(s, path, strlen(path));
	while (p->jit_path && next_line(f, &line, &linecap)) {
		if (pmuk_grow((void **)&p->jit, &p->capjit, p->njit + 1, sizeof(*p->jit)))
			break;
		p->jit[p->njit] = (struct pmuk_sym_jit){ 0 };
		if ((got = parse_line(s, line, &p->jit[p->njit])) < 0)
			break;
		p->njit += (size_t)got;
	}
	free(line);
	fclose(f);
	if (p->njit > 1)
		qsort(p->jit, p->njit, sizeof(*p->jit), by_start);
}

/* Sorts the ranges SYMBOL records added; of two that overlap, the newer stays
 * (the code at those addresses was replaced). */
static void sort_ranges(struct pmuk_sym_proc *p)
{
	size_t k = 0;

	qsort(p->jit, p->njit, sizeof(*p->jit), by_start);
	for (size_t i = 0; i < p->njit; i++) {
		struct pmuk_sym_jit *j = &p->jit[i];
		if (k && j->seq && p->jit[k - 1].seq && j->start < p->jit[k - 1].end) {
			if (j->seq > p->jit[k - 1].seq)
				p->jit[k - 1] = *j;
			continue;
		}
		p->jit[k++] = *j;
	}
	p->njit = k;
	p->jit_dirty = 0;
}

int pmuk_sym_jit_add(struct pmu_symbolizer *s, struct pmuk_sym_proc *p,
		     const struct pmu_symbol *sym)
{
	uint64_t end = sym->start + (sym->len ? sym->len : 1);
	size_t k = 0;

	p->jit_loaded = p->jit_rec = 1;	/* never this machine's perf-PID.map */
	if (!sym->name) {	/* unloaded: drop the ranges it held */
		for (size_t i = 0; i < p->njit; i++)
			if (p->jit[i].end <= sym->start || p->jit[i].start >= end)
				p->jit[k++] = p->jit[i];
		p->njit = k;
		return 0;
	}
	if (pmuk_grow((void **)&p->jit, &p->capjit, p->njit + 1, sizeof(*p->jit)))
		return PMU_ENOMEM;
	struct pmuk_sym_jit *j = &p->jit[p->njit];
	*j = (struct pmuk_sym_jit){ sym->start, end, pmuk_sym_intern(s, sym->name, strlen(sym->name)),
				    sym->module ? pmuk_sym_intern(s, sym->module, strlen(sym->module)) :
				    NULL, ++p->jit_seq };
	if (!j->name || (sym->module && !j->module))
		return PMU_ENOMEM;
	p->njit++;
	p->jit_dirty = 1;
	return 0;
}

const struct pmuk_sym_jit *pmuk_sym_jit_find(struct pmu_symbolizer *s,
					     struct pmuk_sym_proc *p, uint64_t addr)
{
	size_t lo;

	if (p->pid <= 0)
		return NULL;
	if (!p->jit_loaded)
		load(s, p);
	if (p->jit_dirty)
		sort_ranges(p);
	lo = PMUK_BSEARCH_UPPER(p->jit, p->njit, start, addr);
	/* Entries may nest or overlap: look back a few for one that holds addr. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++)
		if (addr < p->jit[i].end)
			return &p->jit[i];
	return NULL;
}
