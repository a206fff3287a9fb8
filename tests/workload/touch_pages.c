/* SPDX-License-Identifier: MIT */
/* The built-in workload: touches N fresh anonymous pages (one page fault each),
 * optionally in T threads, spins for M ms, then exits with status S.
 * usage: touch_pages N [-t T] [-s MS] [-x S] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long npages;
static long page;

static void *touch(void *arg)
{
	volatile char *p = mmap(NULL, (size_t)(npages * page), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	(void)arg;
	if (p == MAP_FAILED) {
		perror("touch_pages: mmap");
		exit(125);
	}
	for (long i = 0; i < npages; i++)
		p[i * page] = (char)i;
	return NULL;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	long threads = 1, spin_ms = 0;
	int status = 0, opt;
	pthread_t tids[64];

	while ((opt = getopt(argc, argv, "t:s:x:")) != -1) {
		switch (opt) {
		case 't': threads = atol(optarg); break;
		case 's': spin_ms = atol(optarg); break;
		case 'x': status = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: touch_pages N [-t THREADS] [-s SPIN_MS] [-x STATUS]\n");
			return 2;
		}
	}
	if (optind >= argc || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: touch_pages N [-t THREADS] [-s SPIN_MS] [-x STATUS]\n");
		return 2;
	}
	npages = atol(argv[optind]);
	page = sysconf(_SC_PAGESIZE);
	for (long i = 0; i < threads; i++)
		pthread_create(&tids[i], NULL, touch, NULL);
	for (long i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	if (spin_ms > 0) {
		double end = now_ms() + (double)spin_ms;
		volatile unsigned long x = 0;
		while (now_ms() < end)
			for (int i = 0; i < 10000; i++)
				x += (unsigned long)i;
		(void)x;
	}
	return status;
}
