/* openframes: threads still inside their root function when the profile is written (t137; no .expect).
 *   sleeper_loop sleeps 5 ms at a time in a loop that never returns; spinner_loop spins until main
 *   tells it to stop, then waits in pause() for good; sleeper_ret naps (nap(), 5 ms) until 1 s after
 *   the start and returns; held() (in holder's thread) sleeps 600 ms in one call. main sleeps 300 ms,
 *   calls spy_dump(argv[1]) (held is then open), sleeps until 1 s after the start, joins sleeper_ret's
 *   and holder's threads, stops the spinner and exits from inside main: the two loops are open then.
 * It prints spin_cpu_ns (the spinner's CPU clock once it stopped), loop_wall_ns (the wall time
 * from sleeper_loop's start to the exit), main_wall_ns and main_cpu_ns (main's wall time from its
 * start to the exit and its thread's CPU clock then: the dump's cost is main's, and it varies), and
 * every call count is 1 but nap's. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sample.h"
#include "spy.h"

static volatile unsigned long sink;
static int stop, stopped;
static uint64_t t0, loop_start;

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec d = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (nanosleep(&d, &d))
		;
}

NOINL void *sleeper_loop(void *p)
{
	__atomic_store_n(&loop_start, now_ns(CLOCK_MONOTONIC), __ATOMIC_RELEASE);
	for (;;)
		sleep_ns(5000000);
	return p;
}

NOINL void *spinner_loop(void *p)
{
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		sink++;
	__atomic_store_n(&stopped, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
	return p;
}

NOINL void nap(void)
{
	sleep_ns(5000000);
	BARRIER();
}

NOINL void *sleeper_ret(void *p)
{
	while (now_ns(CLOCK_MONOTONIC) - t0 < 1000000000u)
		nap();
	BARRIER();
	return p;
}

NOINL void held(void)
{
	sleep_ns(600000000);
	BARRIER();
}

NOINL void *holder(void *p)
{
	held();
	BARRIER();
	return p;
}

int main(int argc, char **argv)
{
	pthread_t loop, spin, ret, hold;
	clockid_t spin_clock;
	uint64_t cpu, wall, main_cpu, main_wall;

	t0 = now_ns(CLOCK_MONOTONIC);
	if (pthread_create(&loop, NULL, sleeper_loop, NULL) ||
	    pthread_create(&spin, NULL, spinner_loop, NULL) ||
	    pthread_create(&ret, NULL, sleeper_ret, NULL) || pthread_create(&hold, NULL, holder, NULL))
		return 1;
	sleep_ns(300000000);
	if (argc > 1 && spy_dump(argv[1]))
		return 2;
	while (now_ns(CLOCK_MONOTONIC) - t0 < 1000000000u)
		sleep_ns(10000000);
	pthread_join(ret, NULL);
	pthread_join(hold, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stopped, __ATOMIC_ACQUIRE))
		sleep_ns(1000000);
	if (pthread_getcpuclockid(spin, &spin_clock))
		return 3;
	cpu = now_ns(spin_clock);
	wall = now_ns(CLOCK_MONOTONIC) - __atomic_load_n(&loop_start, __ATOMIC_ACQUIRE);
	main_wall = now_ns(CLOCK_MONOTONIC) - t0;
	main_cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
	printf("spin_cpu_ns %llu\nloop_wall_ns %llu\nmain_wall_ns %llu\nmain_cpu_ns %llu\n",
	       (unsigned long long)cpu, (unsigned long long)wall, (unsigned long long)main_wall,
	       (unsigned long long)main_cpu);
	fflush(stdout);
	exit(0);
}
