/* copytail: a tail call whose struct result is copied into the returned variable ("D.1 = fail (D.2);
 * [tail call]  D.3 = D.1;"), the shape function splitting, identical-code folding and inlining leave
 * in jq's f_equal. The tail hook must come before the call, which stays a jump.
 * f_eq and f_ne stay inlinable (the shape needs it) and are called through pointers.
 * Expected at every -O level: main 1, f_eq 4, f_ne 4, cmp 8, mk 4, fail 4, num 4.
 * Arcs: main->f_eq 4, main->f_ne 4, f_eq->cmp 4, f_ne->cmp 4, f_eq->mk 2, f_ne->mk 2, f_eq->fail 2,
 * f_ne->fail 2, f_eq->num 2, f_ne->num 2 (tail calls from -O2 on, counted from their callers). */
#include "sample.h"

typedef struct {
	int kind;
	int size;
	union {
		void *ptr;
		double num;
	} u;
} val;

NOINL val mk(const char *s)
{
	val v = { 1, (int)s[0], { 0 } };
	return v;
}

NOINL val fail(val v)
{
	v.kind = 0;
	return v;
}

NOINL int cmp(long a, long b)
{
	return a < b ? -1 : a > b;
}

NOINL val num(int n)
{
	val v = { 2, n, { 0 } };
	return v;
}

val f_eq(long a, long b)
{
	int r = cmp(a, b);
	if (r < 0)
		return fail(mk("too deep"));
	return num(r);
}

val f_ne(long a, long b)
{
	int r = cmp(a, b);
	if (r < 0)
		return fail(mk("too deep"));
	return num(!r);
}

val (*volatile eq)(long, long) = f_eq, (*volatile ne)(long, long) = f_ne;

int main(void)
{
	long s = 0;
	for (long i = -1; i < 3; i++)
		s += eq(i, 1).size + ne(i, 1).size;
	return s != 466;
}
