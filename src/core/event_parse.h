/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_EVENT_PARSE_H
#define PMUK_CORE_EVENT_PARSE_H

/* The OS-independent half of event naming: an event list such as
 * "cycles:u,{instructions,cpu/event=0x3c,umask=0/}:k" parsed into groups of
 * terms, each with its modifiers and 0-based positions for error messages.
 * Which name means what is the resolver's business (src/linux/event_resolve.c). */

#define PMUK_EV_TEXT_MAX 128   /* longest event name, modifiers included */
#define PMUK_EV_KV_MAX 16      /* most terms inside pmu/.../ */

struct pmuk_ev_mods {
	int u, k, h;  /* privilege levels asked for (none: all levels) */
	int p;        /* precise level 0-3 */
};

/* One "key=value" or bare "key" inside pmu/.../. */
struct pmuk_ev_kv {
	char key[64];
	char val[64];   /* "" for a bare key */
	int has_val;
	int pos;
};

struct pmuk_ev_term {
	char text[PMUK_EV_TEXT_MAX];  /* event as written, modifiers stripped ("" for pmu/.../) */
	char pmu[64];                 /* "cpu" for cpu/.../, "" otherwise */
	struct pmuk_ev_kv kv[PMUK_EV_KV_MAX];
	int nkv;
	char mods[16];                /* modifier letters written on the event */
	char gmods[16];               /* modifier letters written on its group */
	int pos;                      /* where the event starts */
	int mod_pos;                  /* where its modifiers start, -1 when none */
	int group;                    /* 0-based group index (an ungrouped event is its own group) */
	int leader;                   /* first event of its group */
	int in_braces;                /* written inside {...} */
};

struct pmuk_ev_ast {
	struct pmuk_ev_term *terms;
	int nterms;
	int ngroups;
};

/* Parses spec into ast; PMU_EPARSE with a detail naming the position on bad syntax.
 * Free with pmuk_ev_ast_free (also after a failure). */
int pmuk_ev_parse(const char *spec, struct pmuk_ev_ast *ast);
void pmuk_ev_ast_free(struct pmuk_ev_ast *ast);

/* Parses modifier letters ("u", "uk", "ppp"); -1 on a bad letter or more than ppp. */
int pmuk_ev_mods_parse(const char *s, struct pmuk_ev_mods *m);
/* Combines event and group modifiers as perf does: privilege levels unite, precise
 * levels add ({cycles:p}:p is pp; pmuk_ev_parse refuses sums above 3). */
void pmuk_ev_mods_merge(struct pmuk_ev_mods *m, const struct pmuk_ev_mods *g);
/* The modifier letters to print after t's name (out holds 16): as written when its
 * group adds none, else the merged set m in u, k, h, p order ({cycles:k}:up -> "ukp"). */
void pmuk_ev_mods_text(const struct pmuk_ev_term *t, const struct pmuk_ev_mods *m, char *out);
/* Parses a number as written in event terms, as perf reads them: decimal, or hex
 * after 0x ("010" is ten); -1 if not one. */
int pmuk_ev_number(const char *s, unsigned long long *v);

#endif
