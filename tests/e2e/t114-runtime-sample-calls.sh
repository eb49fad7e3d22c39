#!/bin/bash
# t114: SPYRT_WATCH=calls:FUNC (Spy's user break): a stack for every call of FUNC, at its call site;
# the counts sum to FUNC's exact calls and split by caller; SPYRT_DIVISOR keeps one call in N; a name
# that matches no function is said at the end; count mode has no hooks, so it says so.
. "$(dirname "$0")/lib-sample.sh"
rt_setup
tap_plan 6

cat >"$T/calls.c" <<'EOC'
#include <stdlib.h>
#include "sample.h"
static volatile int sink;
NOINL void quit(void) { exit(0); } /* no hook of the program runs after its entry */
NOINL void f(void) { sink++; }
NOINL void g(void) { f(); BARRIER(); }            /* 300 calls of f */
NOINL void h(void) { f(); BARRIER(); f(); BARRIER(); } /* 2 x 350 */
int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) { quit(); BARRIER(); }
	for (int i = 0; i < 300; i++) { g(); BARRIER(); }
	for (int i = 0; i < 350; i++) { h(); BARRIER(); }
	return 0;
}
EOC
P=$T/calls
if ! check "the program builds" rt_cc "$P" "$CC" "$T/calls.c"; then
	for _ in $(seq 5); do not_ok "not built"; done
	last() {
	RT_ENV=SPYRT_WATCH=calls:quit rt_run "$P" x || return 1
	rt_dump "$P.out" | grep '^stack '
	[ "$(rt_dump "$P.out" | grep -c '^stack .*count=1 .*frames=main@')" -eq 1 ] &&
		[ "$(samp_line "$P.out" taken)" -eq 1 ]
}
check "calls:quit, a function that exits: its one call is still recorded" last
tap_done
fi

exact() {
	local g h all sites
	RT_ENV=SPYRT_WATCH=calls:f rt_run "$P" || return 1
	g=$(inner_sum "$P.out" g)
	h=$(inner_sum "$P.out" h)
	all=$(rt_dump "$P.out" | awk '$1 == "stack" { split($3, c, "="); n += c[2] } END { print n + 0 }')
	sites=$(rt_dump "$P.out" | awk '$1 == "stack" && /frames=h@/ { n++ } END { print n + 0 }')
	echo "calls of f: from g $g, from h $h, all $all; h's call sites $sites; target $(samp_line "$P.out" target)"
	[ "$g" -eq 300 ] && [ "$h" -eq 700 ] && [ "$all" -eq 1000 ] && [ "$sites" -eq 2 ] &&
		[ "$(samp_line "$P.out" target)" = f ] && [ "$(samp_line "$P.out" taken)" -eq 1000 ] &&
		rt_dump "$P.out" | awk '$1 == "stack" && !/frames=(g|h)@0x[0-9a-f]+,main@/ { print; exit 1 }' &&
		[ ! -s "$P.stderr" ]
}
check "calls:f: exactly f's 1000 calls, 300 from g and 700 from h (at two call sites)" exact

arcs_agree() {
	rt_facts "$P.out" | grep -qx 'arc g f 300' && rt_facts "$P.out" | grep -qx 'arc h f 700'
}
check "calls:f: the arcs are still exact" arcs_agree

divisor() {
	local g h wg wh
	RT_ENV="SPYRT_WATCH=calls:f SPYRT_DIVISOR=10" rt_run "$P" || return 1
	g=$(inner_sum "$P.out" g)
	h=$(inner_sum "$P.out" h)
	wg=$(SAMP_FIELD=weight inner_sum "$P.out" g)
	wh=$(SAMP_FIELD=weight inner_sum "$P.out" h)
	echo "divisor 10: g $g ($wg), h $h ($wh)"
	[ "$g" -eq 30 ] && [ "$h" -eq 70 ] && [ "$wg" -eq 300 ] && [ "$wh" -eq 700 ]
}
check "calls:f, SPYRT_DIVISOR=10: one call in 10, weighing 10" divisor

nosuch() {
	RT_ENV=SPYRT_WATCH=calls:nosuch rt_run "$P" || return 1
	cat "$P.stderr"
	[ "$(grep -c . "$P.stderr")" -eq 1 ] && grep -q "SPYRT_WATCH=calls:nosuch: no instrumented function" "$P.stderr" &&
		! rt_dump "$P.out" | grep -q '^stack '
}
check "calls: a name that matches nothing is said once at the end" nosuch
last() {
	RT_ENV=SPYRT_WATCH=calls:quit rt_run "$P" x || return 1
	rt_dump "$P.out" | grep '^stack '
	[ "$(rt_dump "$P.out" | grep -c '^stack .*count=1 .*frames=main@')" -eq 1 ] &&
		[ "$(samp_line "$P.out" taken)" -eq 1 ]
}
check "calls:quit, a function that exits: its one call is still recorded" last
tap_done
