/* longjmp: main -> l1 -> l2 -> l3, and l3 longjmps back to main, 100 times.
 * l1, l2, l3 are entered 100 times each and never exit: no exit hook runs for a longjmp, so
 * the trace's shadow stack repairs the 3 abandoned frames each time: repaired = 300.
 * Expected: main 1, l1 100, l2 100, l3 100 (exits: main 1, l1 l2 l3 0);
 * arcs <spontaneous>->main 1, main->l1 100, l1->l2 100, l2->l3 100. */
#include <setjmp.h>

#include "sample.h"

static jmp_buf env;

NOINL void l3(int i)
{
	BARRIER();
	longjmp(env, i + 1);
}

NOINL void l2(int i)
{
	l3(i);
	BARRIER();
}

NOINL void l1(int i)
{
	l2(i);
	BARRIER();
}

int main(void)
{
	volatile int jumps = 0;
	for (volatile int i = 0; i < 100; i++) {
		if (setjmp(env) == 0)
			l1(i);
		else
			jumps++;
	}
	return jumps != 100;
}
