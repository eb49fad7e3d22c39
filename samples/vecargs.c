/* vecargs: the first instrumented call of each thread takes its arguments in vector registers. That
 * call is where the thread's counter slab is made (the counter's slow path, which calls into C and
 * libc and so may use vector registers), so every argument must come through unchanged.
 *   4 threads, each started in a function the plugin skips, so that its first instrumented call is
 *   mix() (eight doubles in xmm0-7, two ints, a float on the stack) or vsum() (two SSE vectors).
 * Expected at every -O level: main 1, mix 4, vsum 4; arcs main->mix and main->vsum none (the
 * callers are not instrumented), exit status 0 when every result is right. */
#include <emmintrin.h>
#include <pthread.h>
#include <stdio.h>

#include "sample.h"

NOINL double mix(double a, double b, double c, double d, double e, double f, double g, double h, int i,
		 int j, float k)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j + 11 * k;
}

NOINL __m128d vsum(__m128d x, __m128d y, double z)
{
	return _mm_add_pd(_mm_add_pd(x, y), _mm_set1_pd(z));
}

static int bad;

__attribute__((no_instrument_function)) static void *start(void *arg)
{
	int n = (int)(long)arg;
	double want = 1.5 + 2 * 2.5 + 3 * 3.5 + 4 * 4.5 + 5 * 5.5 + 6 * 6.5 + 7 * 7.5 + 8 * 8.5 + 9 * n +
		      10 * 3 + 11 * 0.25;
	double got;
	__m128d v;
	double lanes[2];

	if (n % 2) {
		v = vsum(_mm_set_pd(20.0, 10.0), _mm_set_pd(2.0, 1.0), 0.5);
		got = mix(1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, n, 3, 0.25f);
	} else {
		got = mix(1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, n, 3, 0.25f);
		v = vsum(_mm_set_pd(20.0, 10.0), _mm_set_pd(2.0, 1.0), 0.5);
	}
	_mm_storeu_pd(lanes, v);
	if (got != want || lanes[0] != 11.5 || lanes[1] != 22.5) {
		fprintf(stderr, "thread %d: mix %g (want %g), vsum %g %g (want 11.5 22.5)\n", n, got, want,
			lanes[0], lanes[1]);
		__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(void)
{
	for (long n = 0; n < 4; n++) {
		pthread_t t;

		if (pthread_create(&t, NULL, start, (void *)n) || pthread_join(t, NULL))
			return 2;
	}
	return bad != 0;
}
