/* SPDX-License-Identifier: MIT */
/* A Windows test program for the Wine smoke tests: spins for MS milliseconds of CPU
 * time (default 200), then exits with STATUS, so `pmukit stat -- exit_with.exe 3 200`
 * must count CPU time and pass 3 through (STATUS may be hex, e.g. 0xC0000005). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	/* strtoul, base 0: NTSTATUS codes such as 0xC0000005 too. */
	unsigned long status = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
	long ms = argc > 2 ? atol(argv[2]) : 200;
	clock_t end = clock() + (clock_t)(ms * CLOCKS_PER_SEC / 1000);
	volatile unsigned long x = 1;

	while (clock() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 1103515245u + 12345u;
	return (int)status;
}
