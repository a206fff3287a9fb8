/* SPDX-License-Identifier: MIT */
/* Symbolization speed: addresses/s resolving N addresses (function, file:line, inline
 * chain) of one ELF file with DWARF, pmukit (libdwfl) against binutils `addr2line -f
 * -i` and `llvm-symbolizer` on the same address list in the same run; each peer is one
 * process reading the list from stdin, compared with pmukit's first pass (open +
 * DWARF loading included). pmukit's second pass (caches warm) is shown too.
 * usage: bench_symbolize [FILE [N]]   (default: this benchmark's own executable, 20000) */
#include "core/num.h"

#include <pmukit/error.h>
#include <pmukit/symbols.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Seconds one peer takes for the list (-1 when it is missing or fails). */
static double peer(const char *cmd, const char *list)
{
	char full[8400];
	double t = now();

	snprintf(full, sizeof(full), "%s <'%s' >/dev/null 2>&1", cmd, list);
	return system(full) == 0 ? now() - t : -1;
}

static double pass(struct pmu_symbolizer *s, const uint64_t *addrs, size_t n,
		   size_t *frames)
{
	struct pmu_frame f[32];
	double t = now();
	size_t k;

	*frames = 0;
	for (size_t i = 0; i < n; i++)
		if (!pmu_symbolizer_resolve(s, addrs[i], f, 32, &k))
			*frames += k;
	return now() - t;
}

int main(int argc, char **argv)
{
	static char self[4096];
	const char *file = argc > 1 ? argv[1] : self;
	size_t n = 20000, frames, frames2;
	char list[] = "/tmp/pmukit-bench-sym-XXXXXX", cmd[4200];
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1);
	PMU_OPTS(pmu_symbolizer_module, m);
	struct pmu_symbolizer *s;
	uint64_t *addrs;
	double cold, warm, t;
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
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0 || !addrs)
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
	if ((err = pmu_symbolizer_open(&o, &s))) {
		fprintf(stderr, "bench_symbolize: %s: %s\n", pmu_strerror(err), pmu_error_detail());
		unlink(list);
		return err == PMU_ENOTSUP ? 77 : 1;
	}
	m.path = file;
	if ((err = pmu_symbolizer_add_module(s, &m)))
		fprintf(stderr, "bench_symbolize: %s\n", pmu_error_detail());
	pass(s, addrs, n, &frames);
	cold = now() - t;
	warm = pass(s, addrs, n, &frames2);
	pmu_symbolizer_close(s);

	printf("symbolize %zu addresses of %s (%zu frames, %zu inlined)\n", n, file, frames,
	       frames - n);
	printf("  %-28s %9.3f s %12.0f addr/s\n", "pmukit (libdwfl), first pass", cold, n / cold);
	printf("  %-28s %9.3f s %12.0f addr/s\n", "pmukit, second pass", warm, n / warm);
	snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s'", file);
	if ((t = peer(cmd, list)) > 0)
		printf("  %-28s %9.3f s %12.0f addr/s   pmukit is %.2fx as fast\n",
		       "addr2line -f -i (binutils)", t, n / t, t / cold);
	else
		printf("  addr2line: not installed or failed\n");
	snprintf(cmd, sizeof(cmd), "llvm-symbolizer --obj='%s' --inlining", file);
	if ((t = peer(cmd, list)) > 0)
		printf("  %-28s %9.3f s %12.0f addr/s   pmukit is %.2fx as fast\n",
		       "llvm-symbolizer", t, n / t, t / cold);
	else
		printf("  llvm-symbolizer: not installed or failed (Debian: llvm)\n");
	unlink(list);
	free(addrs);
	return 0;
}
