/* ljprologue: after a longjmp out of a callee, the next call from the same frame is the caller's
 * own, whatever the new callee's prologue pushes before its entry hook (ABI 5 keys frames by the
 * slot of their return address, which both calls share).
 *   f(w) for w = 0..5, 10 times each: "if (!setjmp(jb)) g(); spinN();" where g (or g_big, for
 *   w >= 3) calls h, which longjmps back to f. g pushes 8 bytes before its entry hook, g_big 100+;
 *   spin8 pushes 8, spin24 24, spin120 100+ (t014 checks them in the disassembly).
 * Expected: main 1, f 60, g 30, g_big 30, h 60, spin8 20, spin24 20, spin120 20; arcs main->f 60,
 * f->g 30, f->g_big 30, g->h 30, g_big->h 30, f->spin8 20, f->spin24 20, f->spin120 20.
 * g, g_big and h never exit: their 120 frames are repaired. */
#include <setjmp.h>

#include "sample.h"

static jmp_buf jb;
static long spin_n = 1000;
static volatile long sink;

NOINL void h(void)
{
	BARRIER();
	longjmp(jb, 1);
}

NOINL void g(void)
{
	h();
	BARRIER();
}

NOINL void g_big(void)
{
	volatile char pad[120];

	pad[0] = 1;
	h();
	pad[119] = pad[0];
}

/* only the function's address lives across the hooks: one register saved */
NOINL void spin8(void)
{
	for (long i = 0; i < spin_n; i++)
		sink++;
}

/* two arguments and the address: three registers */
NOINL long spin24(long a, long b)
{
	for (long i = 0; i < spin_n; i++)
		sink += a;
	return a + b;
}

/* a local array below the saved register */
NOINL void spin120(void)
{
	volatile char pad[100];

	pad[0] = 0;
	for (long i = 0; i < spin_n; i++)
		pad[i % 100] = (char)i;
	sink += pad[7];
}

NOINL void f(int w)
{
	if (!setjmp(jb)) {
		if (w >= 3)
			g_big();
		else
			g();
	}
	switch (w % 3) {
	case 0:
		spin8();
		break;
	case 1:
		sink += spin24(w, 1);
		break;
	default:
		spin120();
		break;
	}
}

int main(void)
{
	for (int i = 0; i < 60; i++)
		f(i % 6);
	return 0;
}
