/* nested: a GNU C nested function (assembler name inner.0) called 50 times by its parent.
 * Expected: main 1, outer 1, inner 50; arcs <spontaneous>->main 1, main->outer 1, outer->inner 50. */
#include "sample.h"

NOINL int outer(int n)
{
	int acc = 0;
	__attribute__((noinline, noipa)) void inner(int k)
	{
		acc += k;
	}
	for (int i = 0; i < n; i++) {
		inner(i);
		BARRIER();
	}
	return acc;
}

int main(void)
{
	int r = outer(50);
	BARRIER();
	return r != 1225;
}
