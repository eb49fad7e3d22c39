/* stopwatch: calls of known, distinct durations on the time stamp counter (t150, the demo).
 *   args B:N ... (default 11:7 14:5 17:3 19:2): N calls of spin(1.5 * 2^B cycles), class by class,
 *   so each class lands in the middle of log2 bucket B of the stopwatch's histogram; then
 *   rec(3) three times: rec recurses to depth 3 and only the innermost spins 1.0625 * 2^18 cycles (a
 *   wide margin below 2^19: the first outermost rec also holds the making of its inner arcs, whose
 *   first touches of the tables' pages took 46,000-122,000 cycles on a 2-core VM), so rec has 12
 *   calls, every one in bucket 18, of which 3 are outermost; spin's 3 calls from rec are in bucket
 *   18 too. First warm() once, which binds the hooks (below).
 * Expected: main 1, warm 1, spin N summed + 3, rec 12.
 * spin measures each call itself (cycles from its first time stamp to its last) and the program
 * prints per class (rec's spins the last, bucket 18) the count, min, max, sum and sum of squares
 * of what it saw: an independent measure the hooks' times can only exceed by their own cost. A call that took more than
 * 1.75 * 2^B cycles (an interrupt, a preemption) could leave its bucket: the program then prints
 * "disturbed" and exits 3, and the run is no evidence either way. The caller also times each call
 * around it, so around both hooks' time stamps: an interruption between a hook's time stamp and
 * spin's own, where spin cannot see it, makes that outer time 2^(B+1) cycles or more, or more than
 * SPY_HOOKS_MAX cycles above spin's own, and the run is disturbed too; except for the first call
 * from each call site, whose entry hook makes the arc (thousands of cycles, before its time stamp),
 * and for the first rec, which also makes its inner arcs within its time: that one is disturbed only
 * when even its outer time (an upper bound of the hooks') leaves bucket 18. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

static inline uint64_t tsc(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
#error "x86-64 or aarch64"
#endif
}

/* busy for at least c cycles; returns the cycles it saw */
NOINL uint64_t spin(uint64_t c)
{
	uint64_t t0 = tsc(), t;
	do
		t = tsc();
	while (t - t0 < c);
	return t - t0;
}

static int disturbed;

/* more than this between a call's outer time and spin's own is an interruption, not the hooks. Both
 * hooks of a call that spun for long run on cold caches (their frame, arc, thread and stopwatch lines
 * evicted by the host's other work): 1,000-2,200 cycles were seen after spins of 2^19 on a busy
 * 2-core VM, and sanitized hooks cost as much; an interruption costs more (a tick, a preemption) */
#define SPY_HOOKS_MAX 4000

/* t: the call as its caller timed it, d: as spin timed itself, in bucket b */
static void outer(uint64_t t, uint64_t d, unsigned b)
{
	disturbed |= t >= 2ull << b || t - d > SPY_HOOKS_MAX;
}

/* what spin's calls of one class took, as spin saw them */
struct cls {
	unsigned bucket;
	int calls;
	uint64_t min, max, sum;
	long double sq;
};

static void seen(struct cls *c, uint64_t d)
{
	disturbed |= d >= 7ull << (c->bucket - 2);
	c->calls++;
	c->min = d < c->min ? d : c->min;
	c->max = d > c->max ? d : c->max;
	c->sum += d;
	c->sq += (long double)d * d;
}

static void say(const struct cls *c)
{
	printf("class bucket=%u calls=%d min=%llu max=%llu sum=%llu sumsq=%.0Lf\n", c->bucket, c->calls,
	       (unsigned long long)c->min, (unsigned long long)c->max, (unsigned long long)c->sum, c->sq);
}

/* called first: the first hooks a program calls through its PLT are bound then (lazy binding),
 * which would add thousands of cycles to the first call to end */
NOINL void warm(void)
{
	BARRIER();
}

NOINL uint64_t rec(int n)
{
	uint64_t d = n ? rec(n - 1) : spin(17ull << 14);
	BARRIER();
	return d;
}

int main(int argc, char **argv)
{
	static char *dflt[] = { "11:7", "14:5", "17:3", "19:2" };
	char **arg = argc > 1 ? argv + 1 : dflt;
	int ncls = argc > 1 ? argc - 1 : 4;
	warm();
	for (int k = 0; k < ncls; k++) {
		struct cls c = { (unsigned)atoi(arg[k]), 0, UINT64_MAX, 0, 0, 0 };
		const char *colon = strchr(arg[k], ':');
		int n = colon ? atoi(colon + 1) : 0;
		if (c.bucket < 2 || c.bucket > 36) {
			fprintf(stderr, "stopwatch: %s: bucket from 2 to 36\n", arg[k]);
			return 2;
		}
		for (int i = 0; i < n; i++) {
			uint64_t t0 = tsc(), d = spin(3ull << (c.bucket - 1)), t1;
			BARRIER();
			t1 = tsc();
			seen(&c, d);
			if (k || i)
				outer(t1 - t0, d, c.bucket);
		}
		say(&c);
	}
	struct cls r = { 18, 0, UINT64_MAX, 0, 0, 0 };
	for (int i = 0; i < 3; i++) {
		uint64_t t0 = tsc(), d = rec(3), t1;
		BARRIER();
		t1 = tsc();
		seen(&r, d);
		/* four calls' hooks around one spin; the first rec's also make its inner arcs */
		disturbed |= t1 - t0 >= 2ull << 18 || (i && t1 - t0 - d > 4 * SPY_HOOKS_MAX);
	}
	say(&r);
	if (disturbed) {
		puts("disturbed");
		return 3;
	}
	return 0;
}
