/* SPDX-License-Identifier: MIT */
/* A Windows test program for the Wine smoke tests: spins for MS milliseconds of CPU
 * time (default 200), then exits with STATUS, so `pmukit stat -- exit_with.exe 3 200`
 * must count CPU time and pass 3 through. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int status = argc > 1 ? atoi(argv[1]) : 0;
	long ms = argc > 2 ? atol(argv[2]) : 200;
	clock_t end = clock() + (clock_t)(ms * CLOCKS_PER_SEC / 1000);
	volatile unsigned long x = 1;

	while (clock() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 1103515245u + 12345u;
	return status;
}
