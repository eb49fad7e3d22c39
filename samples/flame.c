/* flame: a flame graph of known shape. leaf() is called from three call paths, a known number of
 * times each, so that SPYRT_WATCH=calls:leaf (a stack per call of leaf) gives exactly:
 *   main;a;leaf       100    (a's own 100 calls from main, one leaf each)
 *   main;b;leaf       100    (b's 50 calls, two leaves each)
 *   main;b;a;leaf      50    (b's 50 calls of a)
 *   main;c;b;leaf      40    (c's 20 calls of b, two leaves each)
 *   main;c;b;a;leaf    20
 * 310 calls of leaf in all: b's frames hold 210 of them, c's 60.
 * With CPU sampling (SPYRT_WATCH=cpu) each leaf spins N iterations (argv[1], default 20000), so
 * the time splits in the same proportions. */
#include <stdlib.h>

#include "sample.h"

static volatile unsigned long sink;
static long n = 20000;

NOINL void leaf(void)
{
	unsigned long x = sink;

	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		BARRIER();
	}
	sink = x;
}

NOINL void a(void)
{
	leaf();
	BARRIER();
}

NOINL void b(void)
{
	leaf();
	BARRIER();
	leaf();
	BARRIER();
	a();
	BARRIER();
}

NOINL void c(void)
{
	for (int i = 0; i < 20; i++) {
		b();
		BARRIER();
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atol(argv[1]);
	for (int i = 0; i < 100; i++) {
		a();
		BARRIER();
	}
	for (int i = 0; i < 50; i++) {
		b();
		BARRIER();
	}
	c();
	BARRIER();
	return 0;
}
