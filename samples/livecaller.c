/* samples/livecaller.c: calls whose caller a shadow stack without exit hooks (mode arcs) could take
 * for a callee that returned just before (issue 23). Each runs ROUNDS (100) times from main:
 *   caller(): sib(), then seven(), whose 7th argument is passed on the stack, so that its return
 *             address sits below where sib's was: sib 1, seven 1 a round
 *   deeper(): deep() (which calls sib twice), then nine(), three arguments on the stack: deep 1,
 *             nine 1 a round
 *   loopy():  sib(), then foreign_walk(), code without hooks (livecaller-foreign.c) that calls cb()
 *             back 15 times at four depths of its own recursion: every cb() is loopy's
 *   sorter(): sib(), then qsort() of 64 ints with cmp(): every cmp() is sorter's (how many, glibc
 *             decides; the test compares the arc with cmp's add-one count)
 *   tailout(): tailer(), which tail-calls foreign_value(), code without hooks that returns unseen,
 *             then foreign_walk() calling cb2() back 3 times: every cb2() is tailout's, whose frame
 *             is really on the stack, not tailer's (mode time kept tailer's open; so did ninja's
 *             main after a static constructor that tail-called __cxa_atexit)
 *   tailwalk(): tail-calls foreign_walk() calling cb3() back 3 times: every cb3() is tailwalk's,
 *             whose call foreign_walk is (item 4 of issue 23: code without hooks reached by a tail
 *             call counts for the function that jumped to it)
 *   tailchain(): tailer2(), which tail-calls tailer (so tailer2 -> tailer), then sib(); and
 *             tailchain_exit(): tailer2(), then its own exit: the chain tailer2, tailer, whose last
 *             tail call went to code without hooks, returned as calls do, not abandoned (memcached's
 *             crawler thread counted 255 such "abandoned" frames)
 * so main -> caller, deeper, loopy, sorter, tailout, tailwalk 100 each; caller -> sib 100, caller ->
 * seven 100; deeper -> deep 100, deep -> sib 200, deeper -> nine 100; loopy -> sib 100, loopy -> cb
 * 1500; sorter -> sib 100, sorter -> cmp (qsort's count); tailout -> tailer 100, tailout -> cb2 300;
 * tailwalk -> cb3 300; main -> tailchain, tailchain_exit 100 each, tailchain -> tailer2 100,
 * tailchain -> sib 100, tailchain_exit -> tailer2 100, tailer2 -> tailer 200 (tail calls from -O2 on);
 * nothing abandoned. With an argument N, cb() spins N iterations (for
 * samples: its time is loopy's, never sib's). */
#include <stdlib.h>
#include "sample.h"

#define ROUNDS 100

void foreign_walk(int depth, void (*fn)(void));
long foreign_value(long x);

volatile long sink;

NOINL long sib(long x)
{
	sink += x;
	return x;
}

NOINL long seven(long a, long b, long c, long d, long e, long f, long g)
{
	sink += g;
	return a + b + c + d + e + f + g;
}

NOINL long nine(long a, long b, long c, long d, long e, long f, long g, long h, long i)
{
	sink += g + h + i;
	return a + b + c + d + e + f;
}

NOINL long deep(long x)
{
	return sib(x) + sib(x + 1);
}

NOINL long caller(long i)
{
	long s = sib(i);

	return s + seven(i, 1, 2, 3, 4, 5, s);
}

NOINL long deeper(long i)
{
	long s = deep(i);

	return s + nine(i, 1, 2, 3, 4, 5, s, i, s);
}

static long spin;

NOINL void cb(void)
{
	for (long k = 0; k < spin; k++)
		sink++;
}

NOINL void loopy(long i)
{
	sib(i);
	foreign_walk(3, cb);
}

NOINL int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

NOINL void sorter(long i)
{
	int v[64];

	for (int k = 0; k < 64; k++)
		v[k] = (int)((k * 37 + i) % 64);
	sib(i);
	qsort(v, 64, sizeof(v[0]), cmp);
	sink += v[0];
}

NOINL void cb2(void)
{
	sink++;
}

NOINL void cb3(void)
{
	sink++;
}

NOINL long tailer(long i)
{
	return foreign_value(i);
}

NOINL void tailout(long i)
{
	sink += tailer(i);
	foreign_walk(1, cb2);
	BARRIER();
}

NOINL void tailwalk(long i)
{
	sink += i;
	foreign_walk(1, cb3);
}

NOINL long tailer2(long i)
{
	if (i < 0)
		return 0;
	return tailer(i);
}

NOINL void tailchain(long i)
{
	sink += tailer2(i);
	sink += sib(i);
}

NOINL void tailchain_exit(long i)
{
	sink += tailer2(i);
}

int main(int argc, char **argv)
{
	spin = argc > 1 ? atol(argv[1]) : 1;
	for (long i = 0; i < ROUNDS; i++) {
		caller(i);
		deeper(i);
		loopy(i);
		sorter(i);
		tailout(i);
		tailwalk(i);
		tailchain(i);
		tailchain_exit(i);
	}
	return 0;
}
