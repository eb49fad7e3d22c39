/* 2^D calls of leaf() (D = argv[1], default 19), each under a stack of its own: D + 1 frames of rec(),
 * whose call site at each level follows one bit of the call's number, so main → rec 2^D times,
 * rec → rec D·2^D times, rec → leaf 2^D times. With calls:leaf at D = 19 the distinct stacks fill a
 * thread's sampling tables (t130); at D = 16 they make a profile of megabytes (t131). */
#include <stdlib.h>

#include "sample.h"

NOINL int leaf(int x)
{
	BARRIER();
	return x + 1;
}

/* the path of bits picks one of two call sites at every level: 2^d distinct stacks below */
NOINL int rec(int d, unsigned bits, int how)
{
	int r;
	if (!d)
		return leaf(how);
	if (bits & 1)
		r = rec(d - 1, bits >> 1, 1);
	else
		r = rec(d - 1, bits >> 1, 2);
	BARRIER();
	return r + how;
}

int main(int argc, char **argv)
{
	int s = 0, d = argc > 1 ? atoi(argv[1]) : 19;
	for (unsigned i = 0; i < (1u << d); i++)
		s += rec(d, i, 0);
	return s == 0;
}
