/* samples/livecaller-foreign.c: code without hooks (the plugin excludes this file in
 * livecaller.expect) that calls back into instrumented code, as libc's qsort or an event loop does:
 * fn() once at each node of a binary recursion of the given depth, 2^(depth + 1) - 1 calls, each from
 * another depth of this file's own frames. */
#include "sample.h"

void foreign_walk(int depth, void (*fn)(void));
long foreign_value(long x);

/* a value, no callback: reached by a tail call, it returns unseen */
NOINL long foreign_value(long x)
{
	BARRIER();
	return x + 1;
}

NOINL void foreign_walk(int depth, void (*fn)(void))
{
	if (depth > 0)
		foreign_walk(depth - 1, fn);
	fn();
	if (depth > 0)
		foreign_walk(depth - 1, fn);
	BARRIER();
}
