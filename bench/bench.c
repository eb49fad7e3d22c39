/* bench: a call-heavy workload for measuring what instrumentation costs per call: recursive fib(32)
 * (7 049 155 calls) and 20 M iterations of step(), which calls two small functions (60 M calls).
 * Prints the workload's own time, so start-up and the profile's writing are not counted.
 *   bench            run the workload: "calls=N ns=T rss_kb=R"
 *   bench --small    the same at about a tenth: fib(27) and 2 M steps (for tracers, whose trace of
 *                    the full run would fill gigabytes)
 *   bench --tsc      the cost of one time stamp read: "tsc_ns=X tsc_cycles=Y" */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define NOINL __attribute__((noinline))
/* keeps GCC from turning fib's recursion into a loop, so every build makes the same calls */
#define BARRIER() __asm__ volatile("" ::: "memory")

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

NOINL long fib(int n)
{
	if (n < 2)
		return n;
	long x = fib(n - 1);
	BARRIER();
	long y = fib(n - 2);
	BARRIER();
	return x + y;
}

NOINL int small_a(int x)
{
	return x * 3 + 1;
}

NOINL int small_b(int x)
{
	return x ^ (x >> 3);
}

NOINL int step(int i)
{
	int a = small_a(i);
	BARRIER();
	int b = small_b(i);
	BARRIER();
	return a + b;
}

static int tsc_cost(void)
{
	enum {
		N = 20000000
	};
	uint64_t t0 = now_ns(), c0 = __builtin_ia32_rdtsc(), x = 0, c1, t1;

	for (int i = 0; i < N; i++) {
		x += __builtin_ia32_rdtsc();
		BARRIER();
	}
	c1 = __builtin_ia32_rdtsc();
	t1 = now_ns();
	printf("tsc_ns=%.2f tsc_cycles=%.1f%s\n", (double)(t1 - t0) / N, (double)(c1 - c0) / N, x ? "" : " ");
	return 0;
}

int main(int argc, char **argv)
{
	int small = argc > 1 && !strcmp(argv[1], "--small");
	int n = small ? 27 : 32, steps = small ? 2000000 : 20000000;
	/* fib(n) makes 2 fib(n + 1) - 1 calls: 7 049 155 for 32, 635 621 for 27 */
	const long calls = (small ? 635621L : 7049155L) + 3L * steps + 1; /* fib, step and its two, main */
	struct rusage ru;
	long f, acc = 0;
	uint64_t t0, t1;

	if (argc > 1 && !strcmp(argv[1], "--tsc"))
		return tsc_cost();
	t0 = now_ns();
	f = fib(n);
	for (int i = 0; i < steps; i++) {
		acc += step(i);
		BARRIER();
	}
	t1 = now_ns();
	getrusage(RUSAGE_SELF, &ru);
	printf("calls=%ld ns=%llu rss_kb=%ld check=%ld\n", calls, (unsigned long long)(t1 - t0), ru.ru_maxrss,
	       f + acc);
	return f != (small ? 196418 : 2178309);
}
