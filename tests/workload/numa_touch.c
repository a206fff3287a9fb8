/* SPDX-License-Identifier: MIT */
/* A workload for record -d's node attribution: touches a known number of pages
 * (one page fault each) in two named buffers, a global (numa_global_a) and a
 * static (numa_static_b), and in one buffer of the brk heap, optionally binding
 * each to a node first (raw mbind, MPOL_BIND) and pinning who touches it; then
 * stays alive a while so a recorder can ask where the pages are.
 * usage: numa_touch [-a PAGES] [-b PAGES] [-H PAGES] [-m NODE_A,NODE_B,NODE_HEAP]
 *                   [-c CPU] [-T CPU] [-s MS]
 *   -a/-b/-H  pages of each buffer (default 64, 32, 16)
 *   -m        bind the buffers to these nodes before touching them
 *   -c        pin the process to CPU   -T  touch numa_static_b from a thread pinned to CPU
 *   -s        stay alive MS ms after touching (default 300) */
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_BYTES (4u << 20)
#define MPOL_BIND 2

char numa_global_a[MAX_BYTES] __attribute__((aligned(65536)));
static char numa_static_b[MAX_BYTES] __attribute__((aligned(65536)));

static long page;

struct job {
	volatile char *p;
	long pages;
	int cpu;                 /* -1: wherever */
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("numa_touch: sched_setaffinity");
		exit(125);
	}
}

static void *touch(void *arg)
{
	struct job *j = arg;

	if (j->cpu >= 0)
		pin(j->cpu);
	for (long i = 0; i < j->pages; i++)
		j->p[i * page] = 1;
	return NULL;
}

static void bind(void *p, long pages, int node)
{
	unsigned long mask;

	if (node < 0)
		return;
	mask = 1ul << node;
	if (syscall(SYS_mbind, p, (unsigned long)(pages * page), MPOL_BIND, &mask,
		    sizeof(mask) * 8, 0) != 0) {
		perror("numa_touch: mbind");
		exit(125);
	}
}

static long pages_of(const char *s)
{
	long n = strtol(s, NULL, 10);

	if (n < 1 || n * page > (long)MAX_BYTES) {
		fprintf(stderr, "numa_touch: %s pages: 1 to %ld\n", s, (long)MAX_BYTES / page);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	long na = 64, nb = 32, nh = 16, hold = 300;
	int node[3] = { -1, -1, -1 }, cpu = -1, tcpu = -1, opt;
	struct timespec ts;
	pthread_t th;
	char *heap, line[256];

	page = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "a:b:H:m:c:T:s:")) != -1) {
		switch (opt) {
		case 'a': na = pages_of(optarg); break;
		case 'b': nb = pages_of(optarg); break;
		case 'H': nh = pages_of(optarg); break;
		case 'm':
			if (sscanf(optarg, "%d,%d,%d", &node[0], &node[1], &node[2]) != 3) {
				fprintf(stderr, "numa_touch: -m takes NODE_A,NODE_B,NODE_HEAP\n");
				return 2;
			}
			break;
		case 'c': cpu = atoi(optarg); break;
		case 'T': tcpu = atoi(optarg); break;
		case 's': hold = atol(optarg); break;
		default:
			fprintf(stderr, "usage: numa_touch [-a N] [-b N] [-H N] [-m A,B,H] [-c CPU] "
				"[-T CPU] [-s MS]\n");
			return 2;
		}
	}
	if (cpu >= 0)
		pin(cpu);
	/* from brk, not a private mmap: the buffer is in [heap]. The kernel names
	 * the heap's mapping [heap] in its records from the second brk on (the
	 * first says //anon), so the heap grows once more (a page of its own) before
	 * the buffer is touched. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	if (posix_memalign((void **)&heap, (size_t)page, (size_t)(nh * page))) {
		perror("numa_touch: posix_memalign");
		return 125;
	}
	if (sbrk(page) == (void *)-1) {
		perror("numa_touch: sbrk");
		return 125;
	}
	bind(numa_global_a, na, node[0]);
	bind(numa_static_b, nb, node[1]);
	bind(heap, nh, node[2]);
	struct job a = { numa_global_a, na, -1 }, b = { numa_static_b, nb, tcpu },
		   h = { heap, nh, -1 };
	touch(&a);
	if (tcpu >= 0) {
		if (pthread_create(&th, NULL, touch, &b)) {
			fprintf(stderr, "numa_touch: cannot start a thread\n");
			return 125;
		}
		pthread_join(th, NULL);
	} else {
		touch(&b);
	}
	touch(&h);
	/* not stdio: its buffer would be one more page of the heap */
	int len = snprintf(line, sizeof(line), "numa_touch: numa_global_a %ld pages at %p, "
			   "numa_static_b %ld pages at %p, [heap] %ld pages at %p\n", na,
			   (void *)numa_global_a, nb, (void *)numa_static_b, nh, (void *)heap);
	if (write(1, line, (size_t)len) != len)
		return 125;
	ts.tv_sec = hold / 1000;
	ts.tv_nsec = (hold % 1000) * 1000000;
	nanosleep(&ts, NULL);
	free(heap);
	return 0;
}
