/* SPDX-License-Identifier: MIT */
/* A workload with a known profile: each thread calls spin_outer -> spin_hot for
 * about 3/4 of its time and spin_outer -> spin_cold for the rest, for MS ms, then
 * prints the work done (loop iterations per second over every thread), so
 * benchmarks can tell how much a profiler slowed it down.
 * usage: hotspot [-t THREADS] [-s MS] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long spin_ms = 1000;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* noinline and a volatile sink: the three functions stay apart in the binary. */
__attribute__((noinline)) static uint64_t spin_hot(uint64_t x)
{
	for (int i = 0; i < 3000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) static uint64_t spin_cold(uint64_t x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 2862933555777941757ull + 3037000493ull;
	return x;
}

__attribute__((noinline)) static uint64_t spin_outer(uint64_t x)
{
	return spin_cold(spin_hot(x));
}

static void *run(void *arg)
{
	volatile uint64_t sink = (uintptr_t)arg;
	uint64_t *loops = arg;
	double end = now_s() + spin_ms / 1e3;

	*loops = 0;
	while (now_s() < end) {
		for (int i = 0; i < 16; i++)
			sink = spin_outer(sink);
		*loops += 16;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = 1;
	uint64_t total = 0, loops[64];
	pthread_t tid[64];
	double t0;
	int opt;

	while ((opt = getopt(argc, argv, "t:s:")) != -1) {
		if (opt == 't')
			threads = strtol(optarg, NULL, 10);
		else if (opt == 's')
			spin_ms = strtol(optarg, NULL, 10);
		else
			return fprintf(stderr, "usage: hotspot [-t THREADS] [-s MS]\n"), 2;
	}
	if (threads < 1 || threads > 64 || spin_ms < 1)
		return fprintf(stderr, "hotspot: 1..64 threads, MS >= 1\n"), 2;
	t0 = now_s();
	for (long i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, run, &loops[i]))
			return perror("hotspot: pthread_create"), 1;
	for (long i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		total += loops[i];
	}
	printf("hotspot: %.0f loops/s\n", total / (now_s() - t0));
	return 0;
}
