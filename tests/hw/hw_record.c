/* SPDX-License-Identifier: MIT */
/* pmukit record / report on a real PMU: cycles with call chains of the known loop,
 * reported in the same machine, and the file kept (HWTEST_RECORD) for the host to
 * read back (scripts/hwtest.sh carries it out over the serial console). */
#include "hwtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char out[1 << 17];

/* [lo, hi): known_loop as a file offset of this program (what "module!+0xOFF"
 * rows say when the report has no symbols) from /proc/self/maps. */
static int loop_offsets(uint64_t *lo, uint64_t *hi)
{
	uint64_t a = (uintptr_t)known_loop, start, end, pgoff;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perm, &pgoff) == 4 &&
		    a >= start && a < end) {
			*lo = a - start + pgoff;
			*hi = *lo + (uint64_t)((uintptr_t)known_loop_end - (uintptr_t)known_loop);
			found = 1;
		}
	if (f)
		fclose(f);
	return found;
}

/* Whether the top row names known_loop: by name, or by an offset inside it. */
static int names_known_loop(const char *sym, uint64_t lo, uint64_t hi)
{
	const char *plus = strstr(sym, "!+0x");
	uint64_t off;

	if (strstr(sym, "known_loop"))
		return 1;
	if (!plus)
		return 0;
	off = strtoull(plus + 4, NULL, 16);
	return off >= lo && off < hi;
}

/* The share of the samples in known_loop: by name, or (no symbols in this build)
 * the rows of its addresses added up. */
static double loop_share(const struct hj *top, uint64_t lo, uint64_t hi)
{
	double sum = 0;

	for (size_t i = 0; top && top->type == HJ_ARR && i < top->n; i++) {
		const char *sym = hj_str(&top->kids[i], "symbol");
		const struct hj *pct = hj_get(&top->kids[i], "percent");

		if (sym && pct && names_known_loop(sym, lo, hi))
			sum += pct->num;
	}
	return sum;
}

static void check_report(const char *name, const char *file)
{
	char *argv[] = { (char *)hw.pmukit, "report", "-i", (char *)file, "--json", "--sort",
			 "sym", "--no-children", NULL };
	const struct hj *top, *stacks;
	const char *sym;
	uint64_t lo = 0, hi = 0;
	double share;
	struct hj *doc;
	int rc = hw_run(argv, out, sizeof(out));

	if (rc != 0)
		return (void)hw_fail(name, "pmukit report exited with %d: %.400s", rc, out);
	if (!(doc = hj_parse(out)))
		return (void)hw_fail(name, "pmukit report --json printed no JSON: %.400s", out);
	top = hj_get(doc, "top");
	stacks = hj_get(doc, "with_callchain");
	sym = top && top->type == HJ_ARR && top->n ? hj_str(&top->kids[0], "symbol") : NULL;
	share = loop_offsets(&lo, &hi) ? loop_share(top, lo, hi) : 0;
	if (!sym)
		hw_fail(name, "the report has no top symbol: %.400s", out);
	else if (!names_known_loop(sym, lo, hi))
		hw_fail(name, "the top symbol is %s, not known_loop (file offsets 0x%lx-0x%lx)",
			sym, (unsigned long)lo, (unsigned long)hi);
	else if (share < 95)
		hw_fail(name, "known_loop holds %.1f%% of the samples, expected >= 95%%", share);
	else if (!stacks || stacks->num <= 0)
		hw_fail(name, "no sample carried a call chain (-g)");
	else {
		hw_note("record_report: top %s, known_loop %.1f%%, %.0f samples with stacks", sym,
			share, stacks->num);
		hw_ok(name);
	}
	hj_free(doc);
}

void hw_test_record(void)
{
	const char *name = "record_report";
	const char *file = getenv("HWTEST_RECORD") ? getenv("HWTEST_RECORD") : "/tmp/hw.data";
	/* 20M iterations of 2 instructions: ~200 samples a period of 200000 cycles */
	char *argv[] = { (char *)hw.pmukit, "record", "-e", "cycles", "-c", "200000", "-g",
			 "-o", (char *)file, "--", (char *)hw.self, "--loop", "20000000", NULL };
	int rc = hw_run(argv, out, sizeof(out));

	if (rc != 0)
		return (void)hw_fail(name, "pmukit record exited with %d: %.400s", rc, out);
	check_report(name, file);
}
