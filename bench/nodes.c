/* bench/nodes.c: what a node pass costs. A loop of N rounds passes two nodes (start, end) around
 * a little work; prints "passes=P ns=T". Built with SPY_NO_NODES (no node), without libspyrt (the
 * weak test of a null pointer), and with libspyrt under SPYRT_LEG_TRACK=none, and with the leg
 * start>end tracked (all). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spy.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000000;
	volatile uint64_t sink = 0;
	uint64_t t0 = now_ns();

	for (long i = 0; i < n; i++) {
		SPY_NODE("start");
		sink += (uint64_t)i * 3;
		SPY_NODE("end");
	}
	printf("passes=%ld ns=%llu\n", 2 * n, (unsigned long long)(now_ns() - t0));
	return 0;
}
