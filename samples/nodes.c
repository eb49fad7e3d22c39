/* Nodes and legs by construction (t160-t163): every count below is exact; every time is a busy wait on
 * CLOCK_MONOTONIC, so a leg lasts at least its waits (and little more).
 *  - work: 100 rounds of  start, 200 us, mid (value i % 8), 100 us, end.  Nodes start, mid, end 100
 *    each; leg start>end 100 times of >= 300 us, start>mid 100 of >= 200 us, mid>end 100 of >= 100 us;
 *    mid's values: 0..7 each 13 times for 0-3 and 12 times for 4-7 (sum 342).
 *  - recursion: 10 times rec(5), which passes rin on the way down and rout on the way up (5 each):
 *    with leg rin>rout and tracking all, each descent opens the leg 5 times (4 openings lost: ignored)
 *    and the first rout closes it: count 10, ignored 40.
 *  - two threads, 20 rounds, in lock step: the pinger passes ping; the ponger then passes pong (not
 *    the owner of ping>pong: ignored in the ponger); then the pinger passes pong (closes it). Leg
 *    ping>pong: count 20, in the pinger's thread, ignored 20 in the ponger's. The threads are named
 *    "pinger" and "ponger".
 * Prints "start_to_end_ns N": the work's legs' wall time, measured by the program itself. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "sample.h"
#include "spy.h"

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

NOINL void spin_us(uint64_t us)
{
	uint64_t end = now_ns() + us * 1000;

	while (now_ns() < end)
		BARRIER();
}

NOINL void rec(int depth)
{
	SPY_NODE("rin");
	if (depth > 1)
		rec(depth - 1);
	BARRIER();
	SPY_NODE("rout");
}

static sem_t ping_done, pong_done;

static void *pinger(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "pinger");
	for (int i = 0; i < 20; i++) {
		SPY_NODE("ping");
		sem_post(&ping_done);
		sem_wait(&pong_done);
		SPY_NODE("pong");
	}
	return NULL;
}

static void *ponger(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "ponger");
	for (int i = 0; i < 20; i++) {
		sem_wait(&ping_done);
		SPY_NODE("pong");
		sem_post(&pong_done);
	}
	return NULL;
}

int main(void)
{
	uint64_t t0 = now_ns(), legs = 0;
	pthread_t a, b;

	for (int i = 0; i < 100; i++) {
		uint64_t s = now_ns();

		SPY_NODE("start");
		spin_us(200);
		SPY_NODE_VALUE("mid", (unsigned)i % 8);
		spin_us(100);
		SPY_NODE("end");
		legs += now_ns() - s;
	}
	printf("start_to_end_ns %llu\n", (unsigned long long)legs);
	for (int i = 0; i < 10; i++)
		rec(5);
	sem_init(&ping_done, 0, 0);
	sem_init(&pong_done, 0, 0);
	pthread_create(&a, NULL, pinger, NULL);
	pthread_create(&b, NULL, ponger, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("run_ns %llu\n", (unsigned long long)(now_ns() - t0));
	return 0;
}
