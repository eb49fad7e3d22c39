/* tailchain: tail calls of every shape (jumps from -O2 on), each counted from its logical caller,
 * which stays on the shadow stack until its callee returns (ABI 5).
 *   direct:    main -> t_direct 10, t_direct -> spin 10 (a tail call)
 *   indirect:  main -> t_indirect 10, t_indirect -> leaf2 10 (through a volatile pointer)
 *   chain:     main -> t_a 10, t_a -> t_b 10, t_b -> t_c 10 (tail calls), t_c -> spin 10 (a call)
 *   foreign:   main -> via 10, via -> t_foreign 10, which tail-calls bare (no hooks: spy_noinstr);
 *              then main -> deep1 10, deep1 (a 100-byte frame, deeper than via's) -> later 10: a
 *              frame left behind by t_foreign would pass for later's caller
 *   recursion: main -> down 1, down -> down D (argv[1], default 1000), down(n) tail-calling itself
 *              through a volatile pointer (so the tail-recursion pass cannot make it a loop)
 * spin does the work (SPIN iterations a call, argv[2], default 20000): the inclusive times of
 * t_direct, t_a, t_b and t_c each contain spin's. Built with the plugin only (spy_noinstr). */
#include <stdio.h>
#include <stdlib.h>

#include "sample.h"

static long spin_n = 20000;
static volatile long sink;

NOINL long spin(long x)
{
	long s = x;

	for (long i = 0; i < spin_n; i++) {
		s += i ^ x;
		__asm__ volatile("" : "+r"(s));
	}
	return s;
}

NOINL long leaf2(long x)
{
	BARRIER();
	return x * 2;
}

__attribute__((noinline, spy_noinstr)) long bare(long x)
{
	BARRIER();
	return x + 3;
}

static long (*volatile leaf_fp)(long) = leaf2;

NOINL long t_direct(long x)
{
	sink++;
	return spin(x + 1);
}

NOINL long t_indirect(long x)
{
	sink++;
	return leaf_fp(x + 1);
}

NOINL long t_c(long x)
{
	long r = spin(x);

	BARRIER();
	return r + 1;
}

NOINL long t_b(long x)
{
	sink++;
	return t_c(x + 1);
}

NOINL long t_a(long x)
{
	sink++;
	return t_b(x + 1);
}

NOINL long t_foreign(long x)
{
	sink++;
	return bare(x + 1);
}

NOINL long via(long x)
{
	long r = t_foreign(x);

	BARRIER();
	return r;
}

NOINL long later(long x)
{
	BARRIER();
	return x - 1;
}

NOINL long deep1(long x)
{
	volatile char pad[100];

	pad[0] = (char)x;
	pad[99] = 1;
	long r = later(x + pad[0] + pad[99]);

	BARRIER();
	return r;
}

NOINL long down(long n);
static long (*volatile down_fp)(long) = down;

NOINL long down(long n)
{
	if (n == 0)
		return 7;
	return down_fp(n - 1);
}

int main(int argc, char **argv)
{
	long depth = argc > 1 ? atol(argv[1]) : 1000;
	long sum = 0;

	if (argc > 2)
		spin_n = atol(argv[2]);
	for (long i = 0; i < 10; i++) {
		sum += t_direct(i);
		BARRIER();
		sum += t_indirect(i);
		BARRIER();
		sum += t_a(i);
		BARRIER();
		sum += via(i);
		BARRIER();
		sum += deep1(i);
		BARRIER();
	}
	long r = down(depth);

	BARRIER();
	printf("tailchain: sum %ld, down(%ld) = %ld\n", sum, depth, r);
	return r != 7;
}
