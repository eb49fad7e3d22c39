/* samples/tailwork.c: time through tail calls (issue 23). loop() calls disp() N times (argv[1],
 * default 200000); disp() tail-calls work1() or work2() through a pointer, in turn, and each spins S
 * (argv[2], default 300) rounds of a volatile add: nearly all the time is the workers', almost none
 * the loop's or disp's. wrap() tail-calls memset() on 1 MiB, M times (argv[3], default 2000), from
 * wrapper_caller(): memset's time is wrap's, which jumped to it, not its caller's. */
#include <stdlib.h>
#include <string.h>
#include "sample.h"

static volatile long sink;
static long spin = 300;
static char buf[1 << 20];

NOINL long work1(long x)
{
	for (long i = 0; i < spin; i++)
		sink += x;
	return x + 1;
}

NOINL long work2(long x)
{
	for (long i = 0; i < spin; i++)
		sink -= x;
	return x + 2;
}

static long (*volatile workers[2])(long) = { work1, work2 };

NOINL long disp(long x)
{
	return workers[x & 1](x);
}

NOINL long loop(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += disp(i);
	return s;
}

NOINL void *wrap(int c)
{
	return memset(buf, c, sizeof(buf));
}

NOINL void wrapper_caller(long m)
{
	for (long i = 0; i < m; i++)
		sink += *(volatile char *)wrap((int)i);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000, m = argc > 3 ? atol(argv[3]) : 2000;

	spin = argc > 2 ? atol(argv[2]) : 300;
	sink += loop(n);
	wrapper_caller(m);
	return 0;
}
