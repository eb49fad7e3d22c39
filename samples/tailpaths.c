/* tailpaths: two tail-call shapes that once put the exit hook in the wrong place (found building jq).
 *   drop(): a tail call to release() followed by a block holding only the end-of-scope clobber of a
 *           local aggregate before the return; the tail hook must go before the tail call.
 *   caller(): a tail call that needs stack arguments, which expand cannot make a jump: it must stay
 *           an ordinary call with the hook before the return, so callee's caller is caller.
 * Expected at every -O level: main 1, drop 3, kind 6, release 3, caller 1, callee 1; arcs main->drop 3,
 * drop->kind 6, caller->callee 1, main->caller 1, drop->release 3 (from -O2 on a jump, still
 * counted from drop). */
#include <stdlib.h>

#include "sample.h"

struct ref {
	int count;
};
struct val {
	int kind;
	struct ref *p;
};

NOINL int kind(struct val v)
{
	return v.kind;
}

NOINL void release(struct ref *r)
{
	free(r);
}

NOINL void drop(struct val v)
{
	if (kind(v) == 5) {
		struct val s = v;
		if (kind(s) != 5)
			abort();
		if (--s.p->count == 0)
			release(s.p);
	}
}

NOINL int callee(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, int k)
{
	return a + b + c + d + e + f + g + h + i + j + k;
}

NOINL int caller(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j)
{
	return callee(0, a, b, c, d, e, f, g, h, i, j);
}

int main(void)
{
	for (int i = 0; i < 3; i++) {
		struct ref *r = malloc(sizeof(*r));
		r->count = 1;
		drop((struct val){ 5, r });
	}
	return caller(1, 2, 3, 4, 5, 6, 7, 8, 9, 10) != 55;
}
