/* SPDX-License-Identifier: MIT */
/* Generic event names as plain data. Numbers are the Linux perf ABI
 * (PERF_COUNT_HW_*, PERF_COUNT_SW_*, PERF_COUNT_HW_CACHE_*). */
#include "core/event_table.h"
#include "core/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HW PMU_EVENT_HARDWARE
#define SW PMU_EVENT_SOFTWARE

const struct pmuk_event_def pmuk_event_defs[] = {
	{ "cycles", HW, 0, PMU_GENERIC_CYCLES, "CPU cycles (unhalted core clock)" },
	{ "instructions", HW, 1, PMU_GENERIC_INSTRUCTIONS, "instructions retired" },
	{ "cache-references", HW, 2, PMU_GENERIC_CACHE_REFERENCES,
	  "last-level cache references (Intel: LLC Reference)" },
	{ "cache-misses", HW, 3, PMU_GENERIC_CACHE_MISSES, "last-level cache misses (Intel: LLC Misses)" },
	{ "branches", HW, 4, PMU_GENERIC_BRANCHES, "branch instructions retired" },
	{ "branch-misses", HW, 5, PMU_GENERIC_BRANCH_MISSES, "mispredicted branches retired" },
	{ "bus-cycles", HW, 6, PMU_GENERIC_BUS_CYCLES, "bus cycles" },
	{ "stalled-cycles-frontend", HW, 7, PMU_GENERIC_STALLED_FRONTEND,
	  "cycles the frontend issued nothing" },
	{ "stalled-cycles-backend", HW, 8, PMU_GENERIC_STALLED_BACKEND,
	  "cycles the backend retired nothing" },
	{ "ref-cycles", HW, 9, PMU_GENERIC_REF_CYCLES, "reference cycles (constant rate, unhalted)" },
	{ "cpu-clock", SW, 0, PMU_GENERIC_CPU_CLOCK, "CPU clock timer (per-CPU high-resolution timer)" },
	{ "task-clock", SW, 1, PMU_GENERIC_TASK_CLOCK, "time the task ran on a CPU" },
	{ "page-faults", SW, 2, PMU_GENERIC_PAGE_FAULTS, "page faults" },
	{ "context-switches", SW, 3, PMU_GENERIC_CONTEXT_SWITCHES, "context switches" },
	{ "cpu-migrations", SW, 4, PMU_GENERIC_CPU_MIGRATIONS, "migrations to another CPU" },
	{ "minor-faults", SW, 5, PMU_GENERIC_MINOR_FAULTS, "page faults served without I/O" },
	{ "major-faults", SW, 6, PMU_GENERIC_MAJOR_FAULTS, "page faults that needed I/O" },
	{ "alignment-faults", SW, 7, PMU_GENERIC_ALIGNMENT_FAULTS, "alignment fixups by the kernel" },
	{ "emulation-faults", SW, 8, PMU_GENERIC_EMULATION_FAULTS, "instructions emulated by the kernel" },
	{ "dummy", SW, 9, -1, "counts nothing (placeholder for side-band records)" },
	/* perf's tool event: opened as dummy; `pmukit stat` fills in the time itself */
	{ "duration_time", SW, 9, -1, "wall-clock time of the run in ns (pmukit stat measures it)" },
	{ "bpf-output", SW, 10, -1, "BPF program output" },
	{ "cgroup-switches", SW, 11, -1, "context switches to another cgroup" },
};
const size_t pmuk_event_ndefs = sizeof(pmuk_event_defs) / sizeof(pmuk_event_defs[0]);

/* Windows curated profile sources (KPROFILE_SOURCE names) map onto the generic event that
 * counts the same thing, so one spelling works on both OSes:
 *   TotalCycles, UnhaltedCoreCycles -> cycles (both are unhalted core clocks)
 *   UnhaltedReferenceCycles -> ref-cycles
 *   InstructionRetired -> instructions; BranchInstructions -> branches;
 *   BranchMispredictions -> branch-misses
 *   LLCReference -> cache-references, LLCMisses and CacheMisses -> cache-misses: perf's
 *     generic cache events are the architectural LLC Reference/LLC Misses events
 *   TotalIssues -> instructions: no generic "issued" event exists; retired instructions is
 *     the closest, and counts lower on speculative code (noted in the listing)
 *   Timer -> cpu-clock: ProfileTime is a timer, as cpu-clock is on Linux. */
const struct pmuk_event_alias pmuk_event_aliases[] = {
	{ "cpu-cycles", "cycles", 0, NULL },
	{ "branch-instructions", "branches", 0, NULL },
	{ "idle-cycles-frontend", "stalled-cycles-frontend", 0, NULL },
	{ "idle-cycles-backend", "stalled-cycles-backend", 0, NULL },
	{ "faults", "page-faults", 0, NULL },
	{ "cs", "context-switches", 0, NULL },
	{ "migrations", "cpu-migrations", 0, NULL },
	{ "TotalCycles", "cycles", 1, NULL },
	{ "UnhaltedCoreCycles", "cycles", 1, NULL },
	{ "UnhaltedReferenceCycles", "ref-cycles", 1, NULL },
	{ "InstructionRetired", "instructions", 1, NULL },
	{ "BranchInstructions", "branches", 1, NULL },
	{ "BranchMispredictions", "branch-misses", 1, NULL },
	{ "CacheMisses", "cache-misses", 1, NULL },
	{ "LLCReference", "cache-references", 1, NULL },
	{ "LLCMisses", "cache-misses", 1, NULL },
	{ "TotalIssues", "instructions", 1, "approximation: counts retired, not issued, instructions" },
	{ "Timer", "cpu-clock", 1, NULL },
};
const size_t pmuk_event_naliases = sizeof(pmuk_event_aliases) / sizeof(pmuk_event_aliases[0]);

const struct pmuk_event_def *pmuk_event_find(const char *name)
{
	for (size_t i = 0; i < pmuk_event_naliases; i++)
		if (!strcasecmp(name, pmuk_event_aliases[i].alias)) {
			name = pmuk_event_aliases[i].name;
			break;
		}
	for (size_t i = 0; i < pmuk_event_ndefs; i++)
		if (!strcasecmp(name, pmuk_event_defs[i].name))
			return &pmuk_event_defs[i];
	return NULL;
}

/* Each alternative list starts with perf's canonical spelling. */
static const char *const cache_names[PMUK_CACHE_COUNT][5] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};
static const char *const cache_descs[PMUK_CACHE_COUNT] = {
	"level 1 data cache", "level 1 instruction cache", "last-level cache",
	"data TLB", "instruction TLB", "branch prediction unit", "local memory (NUMA node)",
};
static const char *const op_names[PMUK_CACHE_OPS][4] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const op_plural[PMUK_CACHE_OPS] = { "loads", "stores", "prefetches" };
static const char *const res_names[2][4] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

/* Which operations each cache supports (perf lists only these). */
static const unsigned char cache_ops[PMUK_CACHE_COUNT] = { 7, 5, 7, 7, 1, 1, 7 };

int pmuk_cache_valid(int cache, int op)
{
	return cache >= 0 && cache < PMUK_CACHE_COUNT && op >= 0 && op < PMUK_CACHE_OPS &&
	       (cache_ops[cache] >> op & 1);
}

const char *pmuk_cache_desc(int cache)
{
	return cache >= 0 && cache < PMUK_CACHE_COUNT ? cache_descs[cache] : "";
}

void pmuk_cache_name(int cache, int op, int miss, char *buf, size_t n)
{
	if (miss)
		snprintf(buf, n, "%s-%s-misses", cache_names[cache][0], op_names[op][0]);
	else
		snprintf(buf, n, "%s-%s", cache_names[cache][0], op_plural[op]);
}

/* Matches one of alts at the start of *s, followed by '-' or the end; longest wins.
 * The '-' is consumed only when a word follows it ("L1-dcache-" is no event). */
static int match_word(const char **s, const char *const *alts, int nalts)
{
	int best = -1;
	size_t blen = 0;

	for (int i = 0; i < nalts && alts[i]; i++) {
		size_t l = strlen(alts[i]);

		if (l > blen && !strncasecmp(*s, alts[i], l) &&
		    (((*s)[l] == '-' && (*s)[l + 1]) || !(*s)[l])) {
			best = i;
			blen = l;
		}
	}
	if (best < 0)
		return -1;
	*s += blen;
	if (**s == '-')
		(*s)++;
	return best;
}

static int match_table(const char **s, const char *const (*tab)[4], int rows)
{
	for (int r = 0; r < rows; r++) {
		const char *p = *s;

		if (match_word(&p, tab[r], 4) >= 0) {
			*s = p;
			return r;
		}
	}
	return -1;
}

/* cache[-op][-result], op and result in either order as perf takes them
 * ("LLC-misses", "L1-dcache-miss-load"): op defaults to load, result to access. */
int pmuk_cache_parse(const char *name, uint64_t *config)
{
	const char *s = name;
	int cache = -1, op = -1, res = -1, r;

	for (int c = 0; c < PMUK_CACHE_COUNT && cache < 0; c++)
		if (match_word(&s, cache_names[c], 5) >= 0)
			cache = c;
	if (cache < 0)
		return -1;
	while (*s) {
		if (op < 0 && (r = match_table(&s, op_names, PMUK_CACHE_OPS)) >= 0)
			op = r;
		else if (res < 0 && (r = match_table(&s, res_names, 2)) >= 0)
			res = r;
		else
			return -1;
	}
	op = op < 0 ? 0 : op;
	res = res < 0 ? 0 : res;
	if (!pmuk_cache_valid(cache, op))
		return -1;
	*config = (uint64_t)cache | (uint64_t)op << 8 | (uint64_t)res << 16;
	return 0;
}

void pmuk_event_suggest_generic(struct pmuk_suggest *s)
{
	char name[64];

	for (size_t i = 0; i < pmuk_event_naliases; i++)
		pmuk_suggest_add(s, pmuk_event_aliases[i].alias);
	for (size_t i = 0; i < pmuk_event_ndefs; i++)
		pmuk_suggest_add(s, pmuk_event_defs[i].name);
	for (int k = 0; k < PMUK_CACHE_COUNT; k++)
		for (int o = 0; o < PMUK_CACHE_OPS; o++)
			for (int r = 0; r < 2 && pmuk_cache_valid(k, o); r++) {
				pmuk_cache_name(k, o, r, name, sizeof(name));
				pmuk_suggest_add(s, name);
			}
}

int pmuk_event_raw(const char *s, uint64_t *config)
{
	if (s[0] != 'r' || !s[1] || strlen(s + 1) > 16)
		return 0;
	for (const char *p = s + 1; *p; p++)
		if (!isxdigit((unsigned char)*p))
			return 0;
	*config = strtoull(s + 1, NULL, 16);
	return 1;
}
