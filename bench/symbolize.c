/* SPDX-License-Identifier: MIT */
/* Symbolization speed: addresses/s resolving N addresses (function, file:line, inline
 * chain) of one ELF file with DWARF, pmukit (libdwfl) against binutils `addr2line -f
 * -i` and `llvm-symbolizer` on the same address list in the same run; each peer is one
 * process reading the list from stdin, compared with pmukit's first pass (open +
 * DWARF loading included). pmukit's second pass (caches warm) is shown too.
 * The functions of each address (the inline chain, innermost first) are compared with
 * llvm-symbolizer's after dropping the .isra/.part/.cold/.constprop suffixes gcc adds
 * to clones: the agreement is printed next to the speed ratio.
 * Functions gcc folded into one (identical code, several names at one address) count
 * as disagreement; BENCH_SYM_DIFF=1 lists every address that differs.
 * The figure: the SQLite amalgamation built -O2 -g (bench/sqlite.sh builds it
 * from the npm package better-sqlite3, which ships sqlite3.c), 100000 addresses:
 *   build/bench/bench_symbolize "$(bench/sqlite.sh)" 100000
 * usage: bench_symbolize [FILE [N]]   (default: this benchmark's own executable, 20000) */
#include "core/num.h"

#include <pmukit/error.h>
#include <pmukit/symbols.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* N addresses inside the functions `nm -S` lists, reproducibly spread. */
static size_t pick(const char *file, uint64_t *addrs, size_t n)
{
	static uint64_t start[200000], size[200000];
	char cmd[8400], line[1024], type;
	unsigned long long a, sz;
	size_t nf = 0;
	uint64_t x = 88172645463325252ull;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "(nm -S --defined-only '%s'; nm -D -S --defined-only '%s') "
		 "2>/dev/null", file, file);
	if (!(p = popen(cmd, "r")))
		return 0;
	while (fgets(line, sizeof(line), p) && nf < 200000)
		if (sscanf(line, "%llx %llx %c", &a, &sz, &type) == 3 && (type == 'T' ||
		    type == 't') && sz > 0) {
			start[nf] = a;
			size[nf++] = sz;
		}
	pclose(p);
	for (size_t i = 0; nf && i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;   /* xorshift64 */
		addrs[i] = start[x % nf] + (x >> 32) % size[x % nf];
	}
	return nf ? n : 0;
}

/* CPU seconds (user + system) of this process, or of its waited-for children:
 * on a loaded machine the fairer comparison, printed next to elapsed time. */
static double cpu(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Seconds one peer takes for the list (-1 when it is missing or fails), *cpu_s
 * its CPU seconds; its output goes to out (NULL: nowhere). */
static double peer(const char *cmd, const char *list, const char *out, double *cpu_s)
{
	char full[8400];
	double t = now(), c = cpu(RUSAGE_CHILDREN);

	snprintf(full, sizeof(full), "%s <'%s' >'%s' 2>/dev/null", cmd, list,
		 out ? out : "/dev/null");
	if (system(full) != 0)
		return -1;
	*cpu_s = cpu(RUSAGE_CHILDREN) - c;
	return now() - t;
}

#define CHAIN 8

/* The function names of each address, innermost first ("" past the chain);
 * pmukit's point into the symbolizer's strings. */
struct chains {
	const char *(*name)[CHAIN];
	size_t *n;
};

static double pass(struct pmu_symbolizer *s, const uint64_t *addrs, size_t n,
		   size_t *frames, struct chains *keep)
{
	struct pmu_frame f[32];
	double t = now();
	size_t k;

	*frames = 0;
	for (size_t i = 0; i < n; i++) {
		if (pmu_symbolizer_resolve(s, addrs[i], f, 32, &k))
			k = 0;
		*frames += k;
		if (keep)
			keep->n[i] = k;
		for (size_t j = 0; keep && j < CHAIN; j++)
			keep->name[i][j] = j < k && f[j].function ? f[j].function : "";
	}
	return now() - t;
}

/* name without a gcc clone suffix, into buf. */
static const char *plain(const char *name, char *buf, size_t size)
{
	static const char *const sfx[] = { ".isra", ".part", ".cold", ".constprop" };
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(sfx) / sizeof(*sfx); i++) {
		const char *p = strstr(name, sfx[i]);

		if (p && (size_t)(p - name) < n)
			n = (size_t)(p - name);
	}
	snprintf(buf, size, "%.*s", (int)n, name);
	return buf;
}

/* Addresses whose chains agree (every function) and whose outermost functions
 * agree, between pmukit's and llvm-symbolizer's output (blocks of "function" and
 * "file:line:col" line pairs, one block per address, blank-line separated; "??"
 * is unknown). */
static void agree(const char *out, const struct chains *mine, size_t n, size_t *all,
		  size_t *outer)
{
	char line[4096], a[1024], b[1024], theirs[CHAIN][1024];
	size_t i = 0, j = 0;
	FILE *f = fopen(out, "r");

	*all = *outer = 0;
	while (f && i < n && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0]) {
			if (j < CHAIN)
				plain(strcmp(line, "??") ? line : "", theirs[j], sizeof(theirs[j]));
			j++;
			if (!fgets(line, sizeof(line), f))   /* file:line:col */
				break;
			continue;
		}
		/* end of address i's block */
		size_t k = mine->n[i], same = j == k;

		for (size_t x = 0; same && x < k && x < CHAIN; x++)
			same = !strcmp(theirs[x], plain(mine->name[i][x], a, sizeof(a)));
		*all += same;
		if (!same && getenv("BENCH_SYM_DIFF"))
			fprintf(stderr, "differ #%zu: llvm %zu [%s .. %s] pmukit %zu [%s .. %s]\n", i,
				j, theirs[0], theirs[(j < CHAIN ? j : CHAIN) - 1], k,
				mine->name[i][0], mine->name[i][(k < CHAIN ? k : CHAIN) - 1]);
		if (j && k && !strcmp(theirs[(j < CHAIN ? j : CHAIN) - 1],
				      plain(mine->name[i][(k < CHAIN ? k : CHAIN) - 1], b, sizeof(b))))
			++*outer;
		i++, j = 0;
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	static char self[4096];
	const char *file = argc > 1 ? argv[1] : self;
	size_t n = 20000, frames, frames2;
	char list[] = "/tmp/pmukit-bench-sym-XXXXXX", cmd[4200], out[64];
	struct chains mine;
	size_t all, outer;
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1);
	PMU_OPTS(pmu_symbolizer_module, m);
	struct pmu_symbolizer *s;
	uint64_t *addrs;
	double cold, warm, t, c, cold_cpu;
	int fd, err;
	FILE *f;
	long v;

	if (argc > 2) {
		if (pmuk_parse_long(argv[2], 10, 1, 10000000, &v)) {
			fprintf(stderr, "bench_symbolize: N is 1 to 10000000, not '%s'\n", argv[2]);
			return 2;
		}
		n = (size_t)v;
	}

	addrs = calloc(n, sizeof(*addrs));  /* after N is known: sized for the list it holds */
	mine.name = calloc(n, sizeof(*mine.name));
	mine.n = calloc(n, sizeof(*mine.n));
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0 || !addrs || !mine.name ||
	    !mine.n)
		return 1;
	if (pick(file, addrs, n) != n) {
		fprintf(stderr, "bench_symbolize: nm lists no functions in %s\n", file);
		return 1;
	}
	if ((fd = mkstemp(list)) < 0 || !(f = fdopen(fd, "w")))
		return 1;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)addrs[i]);
	fclose(f);

	t = now();
	cold_cpu = cpu(RUSAGE_SELF);
	if ((err = pmu_symbolizer_open(&o, &s))) {
		fprintf(stderr, "bench_symbolize: %s: %s\n", pmu_strerror(err), pmu_error_detail());
		unlink(list);
		return err == PMU_ENOTSUP ? 77 : 1;
	}
	m.path = file;
	if ((err = pmu_symbolizer_add_module(s, &m)))
		fprintf(stderr, "bench_symbolize: %s\n", pmu_error_detail());
	pass(s, addrs, n, &frames, NULL);
	cold = now() - t;
	cold_cpu = cpu(RUSAGE_SELF) - cold_cpu;
	warm = pass(s, addrs, n, &frames2, &mine);

	printf("symbolize %zu addresses of %s (%zu frames, %zu inlined)\n", n, file, frames,
	       frames - n);
	printf("  %-28s %9.3f s %12.0f addr/s   (%.3f s CPU)\n", "pmukit (libdwfl), first pass",
	       cold, n / cold, cold_cpu);
	printf("  %-28s %9.3f s %12.0f addr/s\n", "pmukit, second pass", warm, n / warm);
	snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s'", file);
	if ((t = peer(cmd, list, NULL, &c)) > 0)
		printf("  %-28s %9.3f s %12.0f addr/s   pmukit is %.2fx as fast (CPU: %.2fx)\n",
		       "addr2line -f -i (binutils)", t, n / t, t / cold, c / cold_cpu);
	else
		printf("  addr2line: not installed or failed\n");
	snprintf(cmd, sizeof(cmd), "llvm-symbolizer --obj='%s' --inlining", file);
	snprintf(out, sizeof(out), "%s.llvm", list);
	if ((t = peer(cmd, list, out, &c)) > 0) {
		agree(out, &mine, n, &all, &outer);
		printf("  %-28s %9.3f s %12.0f addr/s   pmukit is %.2fx as fast (CPU: %.2fx)\n",
		       "llvm-symbolizer", t, n / t, t / cold, c / cold_cpu);
		printf("  same functions as llvm-symbolizer: %.2f%% of addresses (whole inline "
		       "chain), %.2f%% (outermost function)\n", 100.0 * all / n,
		       100.0 * outer / n);
	} else {
		printf("  llvm-symbolizer: not installed or failed (Debian: llvm)\n");
	}
	pmu_symbolizer_close(s);
	unlink(out);
	unlink(list);
	free(mine.name);
	free(mine.n);
	free(addrs);
	return 0;
}
