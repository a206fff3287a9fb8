/* SPDX-License-Identifier: MIT */
#ifndef PMUK_TEST_SYM_FIXTURE_H
#define PMUK_TEST_SYM_FIXTURE_H

/* Known inline code for test_symbols.c: sym_outer() (there) inlines sym_middle(), which
 * inlines sym_inner(), which calls sym_probe() to record an address inside the
 * innermost inlined body. always_inline: the chain exists at -O0 too. The markers
 * SYM-... name lines the test looks up in this file. */

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

#endif
