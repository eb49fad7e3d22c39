/* unit: runtime/tsc.c */
/* The time stamps' rate as CPUID leaf 0x15 and a perf_event page state it, and the measured rate
 * against CLOCK_MONOTONIC when nothing states one: no waiting, and the header's source bits set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "spyrt.h"

uint64_t spy_start_tsc, spy_start_mono_ns; /* control.c's, set here */

static void test_cpuid15(void **state)
{
	(void)state;
	/* not stated */
	assert_int_equal(spy_tsc_hz_cpuid15(0, 0, 0, 0), 0);
	assert_int_equal(spy_tsc_hz_cpuid15(2, 0, 24000000, 0), 0);
	/* a 24 MHz crystal times 216/2: 2.592 GHz */
	assert_int_equal(spy_tsc_hz_cpuid15(2, 216, 24000000, 0), 2592000000ull);
	/* a crystal not stated: from the base frequency, 2592 MHz = crystal * 216 / 2 */
	assert_int_equal(spy_tsc_hz_cpuid15(2, 216, 0, 2592), 2592000000ull);
	/* a 38.4 MHz crystal times 125/2: 2.4 GHz */
	assert_int_equal(spy_tsc_hz_cpuid15(2, 125, 38400000, 0), 2400000000ull);
}

static void test_perf(void **state)
{
	(void)state;
	assert_int_equal(spy_tsc_hz_perf(0, 10), 0);
	assert_int_equal(spy_tsc_hz_perf(1, 64), 0);
	/* ns = cyc * mult >> shift: mult 2^31 at shift 32 is half a ns a cycle, 2 GHz */
	assert_int_equal(spy_tsc_hz_perf(1u << 31, 32), 2000000000ull);
	/* a rate of 2.596136 GHz as the kernel would give it: mult = 2^31 * 1e9 / hz */
	assert_true(llabs((long long)spy_tsc_hz_perf(827184573u, 31) - 2596136000ll) < 5);
}

static void test_measured(void **state)
{
	uint32_t flags = 1; /* other bits are kept */
	uint64_t hz, c, n;
	struct timespec d = { 0, 20000000 };

	(void)state;
	spy_tsc_pair(&spy_start_tsc, &spy_start_mono_ns);
	nanosleep(&d, NULL);
	hz = spy_tsc_hz(&flags);
	assert_true(hz > 0);
	assert_int_equal(flags & ~GMON_HDR_TSC_SOURCE_MASK, 1);
	assert_in_range((flags & GMON_HDR_TSC_SOURCE_MASK) >> GMON_HDR_TSC_SOURCE_SHIFT, GMON_TSC_MEASURED,
			GMON_TSC_ARCH);
	/* whatever the source, it agrees with the clock over these 20 ms within 0.1 % */
	spy_tsc_pair(&c, &n);
	{
		double own = (double)(c - spy_start_tsc) * 1e9 / (double)(n - spy_start_mono_ns);

		assert_true(fabs((double)hz - own) < own / 1000);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuid15),
		cmocka_unit_test(test_perf),
		cmocka_unit_test(test_measured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
