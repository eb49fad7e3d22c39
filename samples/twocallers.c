/* twocallers: one function, work(n), called from two callers that ask for very different amounts of
 * work per call, so gprof's assumption (a callee's time splits among its callers in proportion to
 * their calls) is wrong by a factor of about 50.
 *   main  -> heavy once, light once
 *   heavy -> work(100 * S)    100 times
 *   light -> work(S)       10 000 times
 * Both callers do the same total work (10 000 * S iterations), so each owns half of work's time,
 * while heavy makes 1 % of its calls (gprof would give heavy 100/10100 of it).
 * argv[1] is S (default 100). The program prints the nanoseconds of CPU time spent inside work() from
 * each caller, measured with the thread's CPU clock around every call (a time profile's times are
 * CPU time, not the wall time of a loaded machine):  "heavy_ns N" and "light_ns N".
 * Expected: main 1, heavy 1, light 1, work 10100; arcs <spontaneous>->main 1, main->heavy 1,
 * main->light 1, heavy->work 100, light->work 10000. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sample.h"

static volatile unsigned long sink;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

NOINL void work(long n)
{
	unsigned long x = sink;

	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		BARRIER();
	}
	sink = x;
}

NOINL long long heavy(long s)
{
	long long ns = 0;

	for (int i = 0; i < 100; i++) {
		long long t0 = now_ns();
		work(100 * s);
		ns += now_ns() - t0;
	}
	return ns;
}

NOINL long long light(long s)
{
	long long ns = 0;

	for (int i = 0; i < 10000; i++) {
		long long t0 = now_ns();
		work(s);
		ns += now_ns() - t0;
	}
	return ns;
}

int main(int argc, char **argv)
{
	long s = argc > 1 ? atol(argv[1]) : 100;
	long long h, l;

	if (s < 0)
		return 2;
	h = heavy(s);
	BARRIER();
	l = light(s);
	BARRIER();
	printf("heavy_ns %lld\nlight_ns %lld\n", h, l);
	return 0;
}
