/* attrs: functions the plugin must leave alone. Built only with the plugin (spy_noinstr is the
 * plugin's attribute; plain gcc warns about it).
 *   skip_nif (no_instrument_function) 3 calls, skip_spy (spy_noinstr) 4 calls,
 *   skip_naked (naked, an asm body) 5 calls, resolve_pick (an ifunc resolver: it runs while the
 *   program is relocated, before any constructor) once at load.
 *   None of them may appear in the trace. They call nothing instrumented.
 *   pick() is the ifunc; its implementation pick_impl is an ordinary function, called 6 times,
 *   and plain() is called twice.
 * Expected: main 1, plain 2, pick_impl 6; arcs <spontaneous>->main 1, main->plain 2,
 *           main->pick_impl 6 (the call goes through the PLT; its call site is in main). */
#include "sample.h"

static volatile int sink;

__attribute__((noinline, no_instrument_function)) int skip_nif(int x)
{
	BARRIER();
	return x + 1;
}

__attribute__((noinline, spy_noinstr)) int skip_spy(int x)
{
	BARRIER();
	return x + 2;
}

__attribute__((naked, noinline)) int skip_naked(void)
{
	__asm__("movl $42, %eax\n\tret");
}

NOINL int pick_impl(int x)
{
	return x * 5;
}

static int (*resolve_pick(void))(int)
{
	return pick_impl;
}

int pick(int x) __attribute__((ifunc("resolve_pick")));

NOINL void plain(void)
{
	sink++;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++) {
		s += skip_nif(i);
		BARRIER();
	}
	for (int i = 0; i < 4; i++) {
		s += skip_spy(i);
		BARRIER();
	}
	for (int i = 0; i < 5; i++) {
		s += skip_naked();
		BARRIER();
	}
	for (int i = 0; i < 6; i++) {
		s += pick(i);
		BARRIER();
	}
	for (int i = 0; i < 2; i++) {
		plain();
		BARRIER();
	}
	/* 6 + 14 + 210 + 75 */
	return s != 305;
}
