#!/bin/bash
# t024: the inline arc cache of mode=arcs (ABI 6) holds pointers into the thread's arc tables, so
# whatever empties the tables must empty it too. spy_flush() from the program, after calls that
# filled the cache: the arcs made after it reuse the tables' first entries, and the calls the cache
# knew (g -> f) must count into their new arcs, not the old entries; spy_off()/spy_on() leave the
# calls in between out; with a second thread doing the same on its own tables. Every count and arc
# is exact by construction, in SPYRT_MODE=arcs and time.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 3

cat >"$T/flush.c" <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include "spy.h"
#include "sample.h"
NOINL int f(int x) { BARRIER(); return x + 1; }
NOINL int g(int x) { int r = f(x); BARRIER(); return r + 1; }
NOINL int x1(int x) { BARRIER(); return x * 2; }
NOINL int x2(int x) { BARRIER(); return x * 3; }
NOINL int h(int x) { int r = x1(x); BARRIER(); r += x2(x); BARRIER(); return r; }
static pthread_barrier_t flushed, filled;
NOINL void *side(void *a)
{
	for (int i = 0; i < 300; i++) { g(i); BARRIER(); } /* flushed below */
	pthread_barrier_wait(&filled);
	pthread_barrier_wait(&flushed);
	for (int i = 0; i < 20; i++) { h(i); BARRIER(); }  /* kept: made first after the flush */
	for (int i = 0; i < 40; i++) { g(i); BARRIER(); }  /* kept: through the cache before */
	return a;
}
int main(void)
{
	pthread_t t;

	pthread_barrier_init(&flushed, 0, 2);
	pthread_barrier_init(&filled, 0, 2);
	pthread_create(&t, 0, side, 0);
	for (int i = 0; i < 100; i++) { g(i); BARRIER(); } /* flushed below */
	pthread_barrier_wait(&filled);
	spy_flush();
	pthread_barrier_wait(&flushed);
	for (int i = 0; i < 10; i++) { h(i); BARRIER(); }  /* kept: 10 */
	for (int i = 0; i < 10; i++) { g(i); BARRIER(); }  /* kept: 10 */
	pthread_join(t, 0); /* spy_off is every thread's: side is done first */
	spy_off();
	for (int i = 0; i < 50; i++) { g(i); BARRIER(); }  /* left out */
	spy_on();
	for (int i = 0; i < 5; i++) { g(i); BARRIER(); }   /* kept: 15 in all */
	return 0;
}
EOC
X=$T/flush
check "the program builds with mode=arcs (inline arcs)" rt_cc "$X" "$CC" -fplugin-arg-spyinstr-mode=arcs "$T/flush.c" -pthread

exact() {
	rt_run "$X" || return 1
	rt_facts "$X.out" >"$X.facts"
	printf '%s\n' "func h 30" "func x1 30" "func x2 30" "func g 55" "func f 55" "arc main h 10" "arc side h 20" \
		"arc h x1 30" "arc h x2 30" "arc main g 15" "arc side g 40" "arc g f 55" >"$X.expect"
	rt_compare "$X.expect" "$X.facts" || return 1
	[ "$(rt_get "$X.out" lost unmatched)" = 0 ] || { rt_dump "$X.out" | grep '^lost'; return 1; }
}
RT_ENV=SPYRT_MODE=arcs check "spy_flush, spy_off/spy_on, two threads, SPYRT_MODE=arcs: counts and arcs exact" exact
RT_ENV=SPYRT_MODE=time check "the same under SPYRT_MODE=time" exact

tap_done
