/* SPDX-License-Identifier: MIT */
#include "core/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define WORD_MAX 64

int pmuk_edit_distance(const char *a, const char *b)
{
	int la = (int)strnlen(a, WORD_MAX), lb = (int)strnlen(b, WORD_MAX);
	int d[WORD_MAX + 1][WORD_MAX + 1];

	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++) {
		for (int j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			int v = d[i - 1][j - 1] + (ca != cb);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

void pmuk_suggest_init(struct pmuk_suggest *s, const char *word)
{
	memset(s, 0, sizeof(*s));
	s->word = word;
}

/* An edit distance is at least the difference of the lengths: a cheap way to skip
 * the DP for names that cannot come within the limit. */
static int too_far(size_t la, size_t lb, int limit)
{
	size_t d = la > lb ? la - lb : lb - la;

	return d > (size_t)limit;
}

/* Distance to the whole name, or to a '-', ':' or '.' separated tail plus one,
 * so "cyclse" also finds "cpu-cycles"; limit + 1 when farther than limit. */
static int distance(const char *word, const char *cand, int limit)
{
	size_t lw = strnlen(word, WORD_MAX);
	int best = limit + 1;

	if (!too_far(lw, strnlen(cand, WORD_MAX), limit))
		best = pmuk_edit_distance(word, cand);
	for (const char *p = cand; *p && limit > 0; p++) {
		if ((*p == '-' || *p == ':' || *p == '.') && p[1] &&
		    !too_far(lw, strnlen(p + 1, WORD_MAX), limit - 1)) {
			int d = pmuk_edit_distance(word, p + 1) + 1;

			if (d < best)
				best = d;
		}
	}
	return best;
}

void pmuk_suggest_add(struct pmuk_suggest *s, const char *cand)
{
	int len = (int)strlen(s->word), d, at;
	int limit = len < 4 ? 1 : len < 9 ? 2 : 3;

	if (!*cand || strlen(cand) >= sizeof(s->names[0]))
		return;
	for (int i = 0; i < s->n; i++)
		if (!strcasecmp(s->names[i], cand))
			return;
	d = distance(s->word, cand, limit);
	if (d > limit)
		return;
	at = s->n;
	while (at > 0 && s->dist[at - 1] > d)
		at--;
	if (at >= PMUK_SUGGEST_MAX)
		return;
	if (s->n < PMUK_SUGGEST_MAX)
		s->n++;
	for (int i = s->n - 1; i > at; i--) {
		memcpy(s->names[i], s->names[i - 1], sizeof(s->names[i]));
		s->dist[i] = s->dist[i - 1];
	}
	strcpy(s->names[at], cand);
	s->dist[at] = d;
}

void pmuk_suggest_format(const struct pmuk_suggest *s, char *buf, size_t n)
{
	size_t off;

	if (!n)
		return;
	buf[0] = '\0';
	if (!s->n)
		return;
	off = (size_t)snprintf(buf, n, "; did you mean: ");
	for (int i = 0; i < s->n && off < n; i++)
		off += (size_t)snprintf(buf + off, n - off, "%s%s", i ? ", " : "", s->names[i]);
	if (off < n)
		snprintf(buf + off, n - off, "?");
}
