static inline int square(int x)
{
	return x * x;
}
int cube_sum(int n);
int sort_sum(int a, int b);
int other(int n);
