/* exceptions (C++, with comdat2.cc): exceptions thrown through instrumented frames, members,
 * templates and a COMDAT inline function.
 *   main -> thrower1 -> thrower2 -> thrower3, which throws; main catches; 1000 times. The catch
 *   hook in main's handler ends the three unwound calls, so enters equal exits and nothing
 *   needs repairing.
 *   Counter::bump 4 calls, Counter::get 1, twice<int> 2, twice<double> 3,
 *   shared_inline 3 from main and 2 from comdat2_user (one body, one record: 5),
 *   comdat2_user 1.
 * Expected (assembler names): main 1, _Z8thrower1i _Z8thrower2i _Z8thrower3i 1000 each,
 *   _ZN7Counter4bumpEi 4, _ZNK7Counter3getEv 1, _Z5twiceIiET_S0_ 2, _Z5twiceIdET_S0_ 3,
 *   _Z13shared_inlinei 5, _Z12comdat2_useri 1; arcs as in exceptions.expect. */
#include <cstdio>

#include "comdat.h"

struct Boom {
	int code;
};

NOINL void thrower3(int i)
{
	BARRIER();
	if (i >= 0)
		throw Boom{ i };
}

NOINL void thrower2(int i)
{
	thrower3(i);
	BARRIER();
}

NOINL void thrower1(int i)
{
	thrower2(i);
	BARRIER();
}

struct Counter {
	int n = 0;
	NOINL void bump(int k);
	NOINL int get() const;
};

void Counter::bump(int k)
{
	n += k;
}

int Counter::get() const
{
	return n;
}

template <class T> NOINL T twice(T x)
{
	BARRIER();
	return x + x;
}

int main()
{
	int caught = 0;
	for (int i = 0; i < 1000; i++) {
		try {
			thrower1(i);
		} catch (const Boom &b) {
			caught += b.code == i;
		}
	}
	Counter c;
	for (int i = 0; i < 4; i++) {
		c.bump(i);
		BARRIER();
	}
	int total = c.get();
	BARRIER();
	for (int i = 0; i < 2; i++) {
		total += twice<int>(i);
		BARRIER();
	}
	double d = 0;
	for (int i = 0; i < 3; i++) {
		d += twice<double>(i + 0.5);
		BARRIER();
	}
	for (int i = 0; i < 3; i++) {
		total += shared_inline(i);
		BARRIER();
	}
	total += comdat2_user(2);
	BARRIER();
	std::printf("exceptions: caught %d, total %d, d %g\n", caught, total, d);
	/* total = 6 + 2 + 6 + 2 = 16, d = 2 * 4.5 */
	return !(caught == 1000 && total == 16 && d == 9.0);
}
