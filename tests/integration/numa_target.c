/* SPDX-License-Identifier: MIT */
/* A process whose pages test_numa.sh queries: one anonymous mapping of 32 pages of
 * which the first 16 are touched, a PROT_NONE guard after it. Prints
 * "PID MAPPING_START PAGE_SIZE" and waits (at most a minute) to be killed. */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

enum { PAGES = 32, TOUCHED = 16 };

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	/* one reservation, then the guard page made inaccessible: the mapping cannot
	 * merge with a neighbour and its bounds are known */
	char *p = mmap(NULL, (PAGES + 1) * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || mprotect(p + PAGES * page, page, PROT_NONE)) {
		perror("numa_target: mmap");
		return 1;
	}
	for (int i = 0; i < TOUCHED; i++)
		p[i * page] = 1;
	printf("%d %p %ld\n", (int)getpid(), (void *)p, page);
	fflush(stdout);
	for (int i = 0; i < 600; i++)
		usleep(100000);
	return 0;
}
