#include <stdio.h>
#include <stdlib.h>
#include "h.h"

static int table[256];

static inline int mix(int a, int b)
{
	int r = a * 31;
	r ^= b << 3;
	return r + table[(a + b) & 255];
}

static int __attribute__((noinline)) fill(int seed)
{
	for (int i = 0; i < 256; i++)
		table[i] = mix(seed, i) ^ i;
	return table[seed & 255];
}

static inline int step(int x, int y)
{
	if (x & 1)
		return mix(x, y) + square(y);
	return mix(y, x) - cube_sum(x & 15);
}

int __attribute__((noinline)) run(int n)
{
	int acc = fill(n);
	for (int i = 0; i < n; i++) {
		acc += step(i, acc);
		if (acc > 100000)
			acc = sort_sum(acc, i);
	}
	return acc;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	printf("%d\n", run(n));
	printf("%d\n", other(n));
	return 0;
}
