/* calls: the simplest call graph, known by construction.
 *   main -> a  10 times
 *   a    -> b   3 times per call (b: 30 calls)
 *   b    -> c   2 times per call (c: 60 calls, a leaf)
 * Expected at every -O level: main 1, a 10, b 30, c 60;
 * arcs <spontaneous>->main 1, main->a 10, a->b 30, b->c 60. */
#include "sample.h"

static volatile int sink;

NOINL void c(void)
{
	sink++;
}

NOINL void b(void)
{
	for (int i = 0; i < 2; i++) {
		c();
		BARRIER();
	}
}

NOINL void a(void)
{
	for (int i = 0; i < 3; i++) {
		b();
		BARRIER();
	}
}

int main(void)
{
	for (int i = 0; i < 10; i++) {
		a();
		BARRIER();
	}
	return sink != 60;
}
