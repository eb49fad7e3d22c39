/* read-time: the time gmon_read_file() takes to read and decode a spy profile (built with spinprof's
 * copy of the decoder), the fastest and the median of RUNS reads, for bench/spinprof-bench.sh (the
 * decoder's share of spinprof's time).
 *   read-time FILE [RUNS]    prints "fastest_s median_s" */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gmon-format.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	double t[64];
	char err[256];

	if (argc < 2 || runs < 1 || runs > 64)
		return 2;
	for (int i = 0; i < runs; i++) {
		struct gmon_profile p;
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if (gmon_read_file(argv[1], &p, err, sizeof(err))) {
			fprintf(stderr, "read-time: %s: %s\n", argv[1], err);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		gmon_profile_release(&p);
		t[i] = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp);
	printf("%.3f %.3f\n", t[0], t[(runs - 1) / 2]);
	return 0;
}
