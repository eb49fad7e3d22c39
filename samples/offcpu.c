/* Time off the CPU, by construction (t120, t250): wthread blocks 400 ms in waiter on a condition
 * variable nobody signals, then sleeps 200 ms in late and calls leaf; bthread spins in burner until
 * its thread's CPU clock has moved 300 ms; main waits in pthread_join. Each call once: main, wthread,
 * bthread, waiter, late, leaf, burner. Prints the wall and CPU times it measured itself (NAME_ns). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "sample.h"
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static __thread volatile unsigned long sink; /* per thread: no race between the threads */
static double clk(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
/* blocks on a condition variable that nobody signals, until its deadline wait_s later */
NOINL void waiter(double wait_s)
{
	struct timespec dl;
	double t0 = clk(CLOCK_MONOTONIC);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += (time_t)wait_s;
	dl.tv_nsec += (long)((wait_s - (time_t)wait_s) * 1e9);
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&mu);
	while (pthread_cond_timedwait(&cv, &mu, &dl) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&mu);
	printf("waiter_wall_ns %.0f\n", (clk(CLOCK_MONOTONIC) - t0) * 1e9);
	BARRIER();
}
NOINL void leaf(void) { sink++; BARRIER(); }
/* sleeps 200 ms, then calls leaf: the exit hook that reads the switches is leaf's, entered after them */
NOINL void late(void)
{
	struct timespec d = { 0, 200000000 };
	nanosleep(&d, NULL);
	leaf();
	BARRIER();
}
/* spins until its thread has used cpu_s of CPU time, all in its own body */
NOINL void burner(double cpu_s)
{
	double c0 = clk(CLOCK_THREAD_CPUTIME_ID), t0 = clk(CLOCK_MONOTONIC), c1;
	unsigned long x = sink;
	do {
		for (int i = 0; i < 1000000; i++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			BARRIER();
		}
		c1 = clk(CLOCK_THREAD_CPUTIME_ID);
	} while (c1 - c0 < cpu_s);
	sink = x;
	printf("burner_cpu_ns %.0f\nburner_wall_ns %.0f\n", (c1 - c0) * 1e9, (clk(CLOCK_MONOTONIC) - t0) * 1e9);
	BARRIER();
}
NOINL void *wthread(void *a) { waiter(0.4); late(); BARRIER(); return a; }
NOINL void *bthread(void *a) { burner(0.3); BARRIER(); return a; }
int main(void)
{
	pthread_t w, b;
	double t0 = clk(CLOCK_MONOTONIC);
	pthread_create(&w, NULL, wthread, NULL);
	pthread_create(&b, NULL, bthread, NULL);
	pthread_join(w, NULL);
	pthread_join(b, NULL);
	printf("main_wall_ns %.0f\n", (clk(CLOCK_MONOTONIC) - t0) * 1e9);
	return 0;
}
