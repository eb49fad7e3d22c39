/* tailcall: calls in tail position, which GCC turns into jumps from -O2 on
 * (-foptimize-sibling-calls: -O2, -O3, -Os; not -O0, -O1).
 *   main -> to_leaf 10 times; to_leaf ends with "return leaf(...)": leaf 10 calls
 *   main -> ping(D) (argv[1], default 1000, even); ping and pong call each other in tail
 *           position down to 0: ping runs D/2 + 1 times, pong D/2 times
 * Expected (D = 1000): main 1, to_leaf 10, leaf 10, ping 501, pong 500.
 * Arcs are the same whether the tail calls are jumps or not (ABI 5: the tail hook before the
 * jump keeps the caller on the shadow stack until its callee returns):
 *   main->to_leaf 10, to_leaf->leaf 10, main->ping 1, ping->pong 500, pong->ping 500
 * With D = 10 000 000 (t009) the recursion only fits an 8 MiB stack as jumps. */
#include <stdio.h>
#include <stdlib.h>

#include "sample.h"

NOINL long leaf(long x)
{
	BARRIER();
	return x * 2 + 1;
}

NOINL long to_leaf(long x)
{
	return leaf(x + 1);
}

NOINL long ping(long n);

NOINL long pong(long n)
{
	if (n == 0)
		return 1;
	return ping(n - 1);
}

NOINL long ping(long n)
{
	if (n == 0)
		return 0;
	return pong(n - 1);
}

int main(int argc, char **argv)
{
	long depth = argc > 1 ? atol(argv[1]) : 1000;
	long sum = 0;
	for (long i = 0; i < 10; i++) {
		sum += to_leaf(i);
		BARRIER();
	}
	long r = ping(depth);
	BARRIER();
	printf("tailcall: sum %ld, ping(%ld) = %ld\n", sum, depth, r);
	return !(sum == 120 && r == (depth & 1));
}
