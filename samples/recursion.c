/* recursion: mutual recursion and a doubly recursive function.
 *   main -> is_even(100): is_even runs for n = 100, 98, ..., 0 (51 calls),
 *           is_odd for n = 99, 97, ..., 1 (50 calls)
 *   main -> fib(20): calls(n) = 2 * F(n + 1) - 1, so fib runs 2 * 10946 - 1 = 21891 times
 * Expected: main 1, is_even 51, is_odd 50, fib 21891;
 * arcs <spontaneous>->main 1, main->is_even 1, is_even->is_odd 50, is_odd->is_even 50,
 *      main->fib 1, fib->fib 21890.
 * BARRIER() after each recursive call keeps GCC from turning the recursion into loops. */
#include "sample.h"

NOINL int is_odd(int n);

NOINL int is_even(int n)
{
	if (n == 0)
		return 1;
	int r = is_odd(n - 1);
	BARRIER();
	return r;
}

NOINL int is_odd(int n)
{
	if (n == 0)
		return 0;
	int r = is_even(n - 1);
	BARRIER();
	return r;
}

NOINL long fib(int n)
{
	if (n < 2)
		return n;
	long x = fib(n - 1);
	BARRIER();
	long y = fib(n - 2);
	BARRIER();
	return x + y;
}

int main(void)
{
	int even = is_even(100);
	BARRIER();
	long f = fib(20);
	BARRIER();
	return !(even == 1 && f == 6765);
}
