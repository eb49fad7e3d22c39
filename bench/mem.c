/* mem: the runtime's memory, measured rather than computed. Calls the hooks directly (this file is
 * not instrumented) and reads VmRSS: the growth when one thread makes a million distinct arcs among a
 * thousand functions — in all, and per arc between the first and the second half million, which is
 * what each further arc costs once the thread's fixed tables (the 16-bit site hash) are touched — and
 * per thread when 64 threads, each with a slab and a few arcs, are alive at once, against 64 threads
 * that do not touch the runtime. The goal, 1 MiB per thread plus 64 bytes per arc, is checked on the
 * million-arc thread's total. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spy-abi.h"

enum {
	ARCS = 1000000,
	FUNCS = 1000,
	THREADS = 64,
	THREAD_ARCS = 10
};

static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	if (f)
		fclose(f);
	return kb;
}

/* n arcs: distinct call sites, callees among FUNCS functions; enter and exit from one frame */
static __attribute__((noinline)) void make_arcs(unsigned long base, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		void *self = (void *)(0x10000000ul + (i % FUNCS) * 64);

		__spy_enter(self, (void *)(base + i * 8ul));
		__spy_exit(self);
	}
}

static pthread_barrier_t ready, done;
static int use_spy;

static void *thread_main(void *arg)
{
	if (use_spy) {
		__spy_counts_slow()[1]++;
		make_arcs(0x20000000ul + (unsigned long)arg * 4096, THREAD_ARCS);
	}
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	return NULL;
}

static long threads_kb(int spy)
{
	pthread_t t[THREADS];
	long kb;

	use_spy = spy;
	pthread_barrier_init(&ready, NULL, THREADS + 1);
	pthread_barrier_init(&done, NULL, THREADS + 1);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)i);
	pthread_barrier_wait(&ready);
	kb = rss_kb();
	pthread_barrier_wait(&done);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&ready);
	pthread_barrier_destroy(&done);
	return kb;
}

int main(void)
{
	long k0, kh, k1, plain, spy;
	double budget = 1024 + 64.0 * ARCS / 1024;

	make_arcs(0x30000000ul, 16); /* the main thread's tables exist before measuring */
	k0 = rss_kb();
	make_arcs(0x40000000ul, ARCS / 2);
	kh = rss_kb();
	make_arcs(0x40000000ul + ARCS / 2 * 8ul, ARCS / 2);
	k1 = rss_kb();
	printf("arcs:    %d arcs among %d functions in one thread: +%ld KiB (%.1f bytes per arc), "
	       "%.1f bytes per further arc\n",
	       ARCS, FUNCS, k1 - k0, (double)(k1 - k0) * 1024 / ARCS, (double)(k1 - kh) * 1024 / (ARCS / 2));
	printf("budget:  1 MiB + 64 bytes x %d arcs = %.0f KiB; used %ld KiB: %s\n", ARCS, budget, k1 - k0,
	       k1 - k0 <= budget ? "within" : "over");
	plain = threads_kb(0);
	spy = threads_kb(1);
	printf("threads: %d live threads with %d arcs each: +%ld KiB over plain threads, %.1f KiB per thread\n",
	       THREADS, THREAD_ARCS, spy - plain, (double)(spy - plain) / THREADS);
	return 0;
}
