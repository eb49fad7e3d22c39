#!/bin/bash
# t305: the counter's slow path (common/spy-stub.h, __spy_counts_slow_all) keeps every register the
# instrumented function's entry has live. Each of N threads enters, as its first counted call, a
# function of eight double arguments (xmm0-7) and two integer ones, from a caller built without the
# plugin: the first thread's stub asks CPUID for the XSAVE area's size, the others take the size it
# kept. Every thread's result equals the one computed without instrumentation, and the function's
# count is N, in mode=count linked with libspyrt.so and with libspyrt.a.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 2

N=16

cat >"$T/poly.c" <<'EOC'
#include "sample.h"
NOINL double poly(long i, double a, double b, double c, double d, double e, double f, double g,
		  double h, long j)
{
	BARRIER();
	return (double)i + a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + (double)j;
}
EOC
# not instrumented: the threads' first counted call is poly's entry, its arguments all live
cat >"$T/main.c" <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
double poly(long i, double a, double b, double c, double d, double e, double f, double g, double h,
	    long j);
static double want(long i)
{
	double s = (double)i + 1000.0 * (double)i;
	for (int k = 1; k <= 8; k++)
		s += k * ((double)i + k / 8.0);
	return s;
}
static void *run(void *arg)
{
	long i = (long)arg;
	double r = poly(i, i + 1 / 8.0, i + 2 / 8.0, i + 3 / 8.0, i + 4 / 8.0, i + 5 / 8.0, i + 6 / 8.0,
			i + 7 / 8.0, i + 8 / 8.0, 1000 * i);
	if (r != want(i)) {
		fprintf(stderr, "thread %ld: %.17g, want %.17g\n", i, r, want(i));
		return (void *)1;
	}
	return NULL;
}
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), bad = 0;
	pthread_t t[64];
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], 0, run, (void *)(i + 1));
	for (int i = 0; i < n; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad += r != NULL;
	}
	return bad;
}
EOC

# built LINK: poly instrumented in mode=count, main plain; N threads right, poly counted N times
built() {
	# shellcheck disable=SC2086
	$CC -O2 -c $SPY_SAN_FLAGS "$T/main.c" -o "$T/main.o" || return 1
	"rt_cc$1" "$T/prog$1" "$CC" -fplugin-arg-spyinstr-mode=count "$T/poly.c" "$T/main.o" || return 1
	rt_run "$T/prog$1" $N || return 1
	[ "$(rt_facts "$T/prog$1.out" | awk '$1 == "func" && $2 == "poly" { print $3 }')" = $N ] ||
		{ rt_facts "$T/prog$1.out"; return 1; }
}
check "libspyrt.so: $N threads enter poly through the slow stub with their arguments intact" built ""
check "libspyrt.a: the same" built _static
tap_done
