#include "h.h"

struct node { int v; struct node *next; };

static inline int walk(const struct node *n)
{
	int s = 0;
	while (n) {
		s += square(n->v);
		n = n->next;
	}
	return s;
}

static inline int deeper(int x)
{
	struct node c = { x, 0 }, b = { x + 1, &c }, a = { x + 2, &b };
	return walk(&a) + cube_sum(x & 7);
}

int other(int n)
{
	int t = 0;
	for (int i = 0; i < n; i++)
		t += deeper(i) - (i % 3 ? square(i) : 0);
	return t;
}
