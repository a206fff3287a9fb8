/* SPDX-License-Identifier: MIT */
#ifndef PMUK_TEST_SYM_FIXTURE_H
#define PMUK_TEST_SYM_FIXTURE_H

/* Known inline code for test_symbols.c: sym_outer() (there) inlines sym_middle(), which
 * inlines sym_inner(), which calls sym_probe() to record an address inside the
 * innermost inlined body. always_inline: the chain exists at -O0 too. The markers
 * SYM-... name lines the tests look up (marker_line, below) in this file. Shared by
 * test_symbols.c and test_report_sym.c; include it after <stdio.h>, <string.h> and
 * <cmocka.h>. */

void sym_probe(void);

static inline __attribute__((always_inline)) int sym_inner(int x)
{
	sym_probe(); /* SYM-INNER-CALL */
	return x * 3;
}

static inline __attribute__((always_inline)) int sym_middle(int x)
{
	return sym_inner(x + 1) + 1; /* SYM-MIDDLE-CALL */
}

/* The line of marker in tests/unit/file (for the includer's cmocka tests). */
static inline unsigned marker_line(const char *file, const char *marker)
{
	char path[1024], line[512];
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/unit/%s", PMUKIT_SOURCE_DIR, file);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker) && !strstr(line, "SYM-... ")) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("marker %s not in %s", marker, path);
	return 0;
}

#endif
