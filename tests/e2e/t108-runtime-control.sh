#!/bin/bash
# t108: spy.h from the profiled program: spy_off/spy_on leave out what happens in between (counts,
# arcs, times), spy_flush forgets everything so far, spy_enabled says which; with threads running.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 4

cat >"$T/ctl.c" <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include "spy.h"
#include "sample.h"
NOINL int f(int x) { BARRIER(); return x + 1; }
NOINL int g(int x) { BARRIER(); return f(x) + 1; }
NOINL void *side(void *a) { for (int i = 0; i < 1000; i++) { g(i); BARRIER(); } return a; }
int main(void)
{
	pthread_t t;
	int ok = spy_enabled() == 1;

	for (int i = 0; i < 100; i++) g(i);   /* flushed below */
	spy_flush();
	for (int i = 0; i < 10; i++) g(i);    /* kept: 10 */
	spy_off();
	ok &= spy_enabled() == 0;
	for (int i = 0; i < 50; i++) g(i);    /* left out */
	spy_on();
	ok &= spy_enabled() == 1;
	for (int i = 0; i < 5; i++) g(i);     /* kept: 15 in all */
	pthread_create(&t, 0, side, 0);       /* kept: 1000 more on the thread */
	pthread_join(t, 0);
	printf("%s\n", ok ? "enabled ok" : "enabled wrong");
	return 0;
}
EOC
X=$T/ctl
check "the program builds" rt_cc "$X" "$CC" "$T/ctl.c"
counts() {
	rt_run "$X" || return 1
	rt_facts "$X.out" >"$X.facts"
	cat >"$X.expect" <<EOT
func g 1015
func f 1015
func side 1
arc main g 15
arc g f 1015
arc side g 1000
arc <spontaneous> side 1
EOT
	rt_compare "$X.expect" "$X.facts"
}
check "flush, off, on: counts and arcs of the recorded periods only" counts
check "spy_enabled follows spy_off and spy_on" grep -qx 'enabled ok' "$X.stdout"
times() {
	rt_dump "$X.out" | awk '$1 == "time" && $3 == "func=f" { split($4, c, "="); n += c[2] } END { if (n != 1015) { print "timed calls of f: " n; exit 1 } }'
}
check "times cover the recorded calls only" times
tap_done
