/* threads: N threads each call work() M times (argv: N M, default 4 250000).
 * The add-one counter must stay exact under threads: work N*M, worker N, main 1;
 * arcs <spontaneous>->main 1, <spontaneous>->worker N (a thread's first frame has no caller),
 *      worker->work N*M. threads.expect holds the numbers for the defaults. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "sample.h"

static long total;

NOINL void work(void)
{
	__atomic_fetch_add(&total, 1, __ATOMIC_RELAXED);
}

NOINL void *worker(void *arg)
{
	long m = (long)arg;
	for (long i = 0; i < m; i++) {
		work();
		BARRIER();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4;
	long m = argc > 2 ? atol(argv[2]) : 250000;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	if (!t || n < 1 || m < 0)
		return 2;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)m))
			return 2;
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	if (total != n * m) {
		fprintf(stderr, "threads: total %ld, want %ld\n", total, n * m);
		return 1;
	}
	return 0;
}
