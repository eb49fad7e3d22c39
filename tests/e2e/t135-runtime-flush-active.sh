#!/bin/bash
# t135: spy_flush() and the functions active across it (issue 10, item 8): they start again at the
# thread's next hook, after its tables are emptied, so they gain none of the emptying's time. outer
# calls spy_flush, then g once, and returns: its self time after the flush is the few hundred cycles of
# a call, where it used to gain the clearing of 256 KiB of tables (some 250 000 cycles here).
. "$(dirname "$0")/t100-runtime-basics.sh"
rt_setup
tap_plan 3

cat >"$T/fl.c" <<'EOC'
#include "spy.h"
#include "sample.h"
NOINL int g(int x) { BARRIER(); return x + 1; }
NOINL int outer(void)
{
	int s = 0;
	spy_flush();
	s += g(1);
	BARRIER();
	return s;
}
int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += g(i); /* forgotten: the tables have something to empty */
	s += outer();
	return s == 0;
}
EOC
check "the program builds" rt_cc "$T/fl" "$CC" "$T/fl.c"

# the smallest self cycles of FUNC over three runs (an interruption only ever adds)
min_self() {
	local best= v
	for _ in 1 2 3; do
		rt_run "$T/fl" || return 1
		v=$(rt_dump "$T/fl.out" | awk -v f="func=$1" '$1 == "time" && $3 == f { sub("self=", "", $6); print $6 }')
		[ -n "$v" ] || { rt_dump "$T/fl.out" | grep '^time'; return 1; }
		[ -z "$best" ] || [ "$v" -lt "$best" ] && best=$v
	done
	echo "$best"
}
quiet() {
	local v
	[ -z "$SPY_TSAN" ] || return 0
	v=$(min_self "$1") || { echo "$v"; return 1; }
	echo "$1: self $v cycles after the flush"
	[ "$v" -lt 5000 ]
}
check "outer, active across the flush, gains no time it did not spend (< 5000 cycles)$(tsan_skip the instrumented runtime alone spends cycles of that size)" quiet outer
check "main, active across the flush too, gains none either$(tsan_skip the instrumented runtime alone spends cycles of that size)" quiet main
tap_done
