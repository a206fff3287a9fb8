/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_SUGGEST_H
#define PMUK_CORE_SUGGEST_H

#include <stddef.h>

#define PMUK_SUGGEST_MAX 3

/* Collects the known names closest to a misspelt word, for "did you mean: ..." */
struct pmuk_suggest {
	const char *word;
	char names[PMUK_SUGGEST_MAX][128];
	int dist[PMUK_SUGGEST_MAX];
	int n;
};

void pmuk_suggest_init(struct pmuk_suggest *s, const char *word);
/* Offers a candidate; kept when close enough and among the best so far. */
void pmuk_suggest_add(struct pmuk_suggest *s, const char *cand);
/* Writes "; did you mean: a, b?" (or "" when nothing is close) into buf. */
void pmuk_suggest_format(const struct pmuk_suggest *s, char *buf, size_t n);
/* Case-insensitive edit distance counting adjacent transpositions as one edit. */
int pmuk_edit_distance(const char *a, const char *b);

#endif
