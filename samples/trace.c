/* trace: two threads that take turns, for SPYRT_TRACE (t151, t291).
 *   args N M (default 5 0): main and bthread alternate N rounds: main calls ping(i), then bthread
 *   pong(i), then main ping(i + 1)..., each waiting for its turn outside them, so the true order of
 *   the calls across the threads is ping 0, pong 0, ping 1, pong 1, ...; every call of ping and pong
 *   calls other() once (never traced). Then main calls many() M times.
 * Expected: main 1, bthread 1, ping N, pong N, other 2N, many M. With SPYRT_TRACE=ping,pong,many
 * main's trace has 2N + 2M events (the ring keeps the last 4096), bthread's 2N. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "sample.h"

static int turn; /* 2i: ping(i)'s turn; 2i + 1: pong(i)'s */
static int rounds;
static volatile unsigned long sink;

static void wait_turn(int want)
{
	while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != want)
		sched_yield();
}

NOINL void other(void)
{
	sink++;
	BARRIER();
}

NOINL void ping(int i)
{
	sink += (unsigned long)i;
	other();
	BARRIER();
}

NOINL void pong(int i)
{
	sink += (unsigned long)i;
	other();
	BARRIER();
}

NOINL void many(void)
{
	sink++;
	BARRIER();
}

NOINL void *bthread(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		wait_turn(2 * i + 1);
		pong(i);
		BARRIER();
		__atomic_store_n(&turn, 2 * i + 2, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t b;
	int m = argc > 2 ? atoi(argv[2]) : 0;

	rounds = argc > 1 ? atoi(argv[1]) : 5;
	if (pthread_create(&b, NULL, bthread, NULL))
		return 1;
	for (int i = 0; i < rounds; i++) {
		wait_turn(2 * i);
		ping(i);
		BARRIER();
		__atomic_store_n(&turn, 2 * i + 1, __ATOMIC_RELEASE);
	}
	pthread_join(b, NULL);
	for (int i = 0; i < m; i++) {
		many();
		BARRIER();
	}
	return 0;
}
