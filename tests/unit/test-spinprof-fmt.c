/* unit: -lm */
/* spinprof's number formatting (spinprof/fmt.h) prints byte for byte what printf prints for the report's
 * formats: "%*.*f" with 0 to 3 decimals over values of every magnitude, exact ties (0.125 to two decimals,
 * which glibc rounds to even), values a hair either side of a tie, and what goes to snprintf (negative,
 * -0, NaN, infinities, huge); "%*lu" and "%-*lu" over the whole 64-bit range. */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "spinprof/fmt.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static long mismatches;

static void check_f(double v, int width, int prec)
{
	char want[FMT_NUM_MAX + 8], got[FMT_NUM_MAX + 8];

	snprintf(want, sizeof(want), "%*.*f", width, prec, v);
	*fmt_f(got, v, width, prec) = '\0';
	if (strcmp(want, got) != 0 && mismatches++ < 10)
		print_error("%%%d.%df of %.17g: printf \"%s\", fmt_f \"%s\"\n", width, prec, v, want, got);
}

/* A value of class k (0..7): random magnitudes, exact ties, near ties, random bit patterns. */
static double value(int k)
{
	uint64_t r = next();
	double v;

	switch (k) {
	case 0: /* any magnitude the report shows, 1e-4 to 1e12 */
		return (double)(r >> 11) / 9007199254740992.0 * pow(10, (int)(next() % 17) - 4);
	case 1: /* multiples of 1/8: exact ties at one and two decimals */
		return (double)(r % 100000000) / 8.0;
	case 2: /* three decimals: ties in decimal, not in binary */
		return (double)(r % 1000000000) / 1000.0;
	case 3:
		return (double)(r % 100000000) / 200.0;
	case 4: /* random bit patterns: denormals, huge, NaN, infinities (negative ones too) */
		memcpy(&v, &r, sizeof(v));
		return v;
	case 5:
		return (double)(r % 1000000) / 20.0;
	case 6: /* one ulp either side of x.xxx5 */
		return nextafter((double)(r % 1000000) / 1000.0 + 0.0005, (r & 1) ? 0 : 1e9);
	default: /* multiples of 1/64 */
		return (double)(r % 10000000) / 64.0;
	}
}

static void test_fixed(void **state)
{
	(void)state;
	mismatches = 0;
	for (long i = 0; i < 400000; i++) {
		double v = value((int)(i % 8));
		for (int prec = 0; prec <= 3; prec++)
			check_f(v, (int)(next() % 12), prec);
	}
	assert_int_equal(mismatches, 0);
}

static void test_fixed_edges(void **state)
{
	static const double edges[] = {
		0,
		-0.0,
		NAN,
		-NAN,
		INFINITY,
		-INFINITY,
		-1,
		-0.125,
		0.005,
		0.015,
		0.025,
		0.125,
		0.375,
		0.5,
		1.5,
		2.5,
		2.675,
		99.95,
		99.995,
		999999.995,
		FMT_F_MAX,
		1e13 - 0.5,
		1e-320,
		4.9e-324,
		1e300,
		0.045,
		0.0625,
		123456789.125,
		9007199254740993.0,
		18446744073709551616.0,
	};

	(void)state;
	mismatches = 0;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		for (int prec = 0; prec <= 3; prec++)
			for (int width = 0; width < 24; width++)
				check_f(edges[i], width, prec);
	assert_int_equal(mismatches, 0);
}

static void test_unsigned(void **state)
{
	(void)state;
	mismatches = 0;
	for (long i = 0; i < 200000; i++) {
		uint64_t v = i < 64 ? (i < 32 ? UINT64_MAX >> i : (uint64_t)i - 32) : next() >> (next() % 64);
		int width = (int)(next() % 25);
		char want[64], got[64];

		snprintf(want, sizeof(want), "%*" PRIu64, width, v);
		*fmt_u(got, v, width) = '\0';
		if (strcmp(want, got) != 0 && mismatches++ < 10)
			print_error("%%%du of %" PRIu64 ": \"%s\" vs \"%s\"\n", width, v, want, got);
		snprintf(want, sizeof(want), "%-*" PRIu64, width, v);
		*fmt_u_left(got, v, width) = '\0';
		if (strcmp(want, got) != 0 && mismatches++ < 10)
			print_error("%%-%du of %" PRIu64 ": \"%s\" vs \"%s\"\n", width, v, want, got);
	}
	assert_int_equal(mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_fixed_edges),
		cmocka_unit_test(test_unsigned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
