/* Time: the cycle counter the hooks read (TSC, or aarch64's virtual counter) and its frequency,
 * calibrated against CLOCK_MONOTONIC over the whole run when the run is long enough, since a longer
 * baseline gives a better ratio and costs nothing at start-up. */
#include "spyrt.h"

#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

uint64_t spy_now_ns(int clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int spy_tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;

	/* CPUID 0x80000007 EDX bit 8: invariant TSC */
	if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000007u &&
	    __get_cpuid(0x80000007u, &a, &b, &c, &d))
		return (d >> 8) & 1;
	return 0;
#else
	return 1; /* the generic timer runs at a fixed frequency */
#endif
}

/* A time stamp and CLOCK_MONOTONIC read together: each try brackets the clock between two time
 * stamps and the tightest bracket wins, so a preemption between the two reads cannot skew them. */
void spy_tsc_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t a = spy_cycles(), n = spy_now_ns(CLOCK_MONOTONIC), b = spy_cycles();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

static uint64_t ratio_hz(uint64_t cyc, uint64_t ns)
{
	return ns ? (uint64_t)((double)cyc * 1e9 / (double)ns + 0.5) : 0;
}

uint64_t spy_tsc_hz(void)
{
	uint64_t c0, n0, c1, n1;

#if defined(__aarch64__)
	uint64_t f;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	if (f)
		return f;
#endif
	spy_tsc_pair(&c1, &n1);
	if (n1 - spy_start_mono_ns >= 50000000u && c1 > spy_start_tsc)
		return ratio_hz(c1 - spy_start_tsc, n1 - spy_start_mono_ns);
	/* a short run: measure 20 ms now */
	c0 = c1;
	n0 = n1;
	do
		spy_tsc_pair(&c1, &n1);
	while (n1 - n0 < 20000000u);
	return ratio_hz(c1 - c0, n1 - n0);
}
