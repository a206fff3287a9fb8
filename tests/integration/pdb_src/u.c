#include "h.h"

static inline int cube(int x)
{
	int s = square(x);
	return s * x;
}

int cube_sum(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += cube(i);
	return s;
}

static int __attribute__((noinline)) partition(int *v, int lo, int hi)
{
	int p = v[hi], i = lo;
	for (int j = lo; j < hi; j++)
		if (v[j] < p) {
			int t = v[i];
			v[i] = v[j];
			v[j] = t;
			i++;
		}
	v[hi] = v[i];
	v[i] = p;
	return i;
}

static void qs(int *v, int lo, int hi)
{
	if (lo < hi) {
		int p = partition(v, lo, hi);
		qs(v, lo, p - 1);
		qs(v, p + 1, hi);
	}
}

int sort_sum(int a, int b)
{
	int v[32];
	for (int i = 0; i < 32; i++)
		v[i] = (a * (i + 7)) ^ (b + square(i));
	qs(v, 0, 31);
	return v[0] + v[31] + cube(b & 7);
}
