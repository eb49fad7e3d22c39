/* openmp: a parallel for loop of 100 000 iterations, each calling om_work once; built with
 * -fopenmp and run with OMP_NUM_THREADS=3. GCC outlines the loop body into main._omp_fn.0, which
 * every thread of the team runs once: the master from main through GOMP_parallel, the two others
 * from libgomp's threads (no instrumented caller).
 * Expected: main 1, main._omp_fn.0 3, om_work 100000;
 * arcs <spontaneous>->main 1, main->main._omp_fn.0 1, <spontaneous>->main._omp_fn.0 2,
 *      main._omp_fn.0->om_work 100000. */
#include "sample.h"

static long sum;

NOINL void om_work(int i)
{
	__atomic_fetch_add(&sum, i, __ATOMIC_RELAXED);
}

int main(void)
{
#pragma omp parallel for schedule(static)
	for (int i = 0; i < 100000; i++) {
		om_work(i);
		BARRIER();
	}
	return sum != 100000L * 99999 / 2;
}
