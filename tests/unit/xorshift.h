/* Marsaglia's xorshift64 for the unit tests' random inputs: the state is the test's own, seeded with a
 * constant, so that a failure comes back the same on every run. */
#ifndef TESTS_UNIT_XORSHIFT_H
#define TESTS_UNIT_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
