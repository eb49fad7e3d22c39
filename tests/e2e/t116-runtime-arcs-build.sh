#!/bin/bash
# t116: code built with the plugin's mode=arcs (ABI 4: __spy_arc alone, no exit hook). Counts and arcs
# stay exact in every shape the samples have (recursion, tail calls, longjmp, exceptions, threads,
# calls through code without hooks); frames of returned calls are dropped by later calls without
# counting as abandoned; SPYRT_MODE=time (the default) on such code alone writes an arcs file; CPU
# samples never charge time to a call that has returned, whether its caller runs on in its own code
# or in a function without hooks (the return-address slot, rewritten by that function's call).
. "$(dirname "$0")/lib-sample.sh"
rt_setup
tap_plan 11

ARCS=-fplugin-arg-spyinstr-mode=arcs

clean() {
	local a u
	a=$(rt_get "$1" lost abandoned)
	u=$(rt_get "$1" lost unmatched)
	[ "$a" = 0 ] && [ "$u" = 0 ] || { echo "abandoned $a, unmatched $u"; return 1; }
}
exact() {
	local name=$1 prog=$T/$1-arcs
	rt_sample "$name" "$prog" $ARCS || return 1
	RT_ENV=SPYRT_MODE=arcs rt_check_expect "$name" "$prog" || return 1
	clean "$prog.out"
}
for s in calls recursion tailcall twocallers longjmp exceptions throwonly threads; do
	check "$s built with mode=arcs: counts and arcs exact, nothing abandoned" exact "$s"
done

only_arc_hook() {
	local d
	d=$(objdump -d "$T/calls-arcs") || return 1
	grep -q 'call.*<__spy_arc' <<<"$d" || { echo "no call of __spy_arc"; return 1; }
	! grep -Eq '(call|jmp).*<__spy_(enter|exit|catch)' <<<"$d" || { echo "enter, exit or catch hooks in mode=arcs code"; return 1; }
}
check "mode=arcs code calls __spy_arc and no other hook" only_arc_hook

time_mode() {
	local p=$T/calls-arcs
	RT_ENV=SPYRT_MODE=time rt_check_expect calls "$p" || return 1
	clean "$p.out" || return 1
	[ "$(rt_get "$p.out" header mode)" = arcs ] || { echo "header mode $(rt_get "$p.out" header mode), want arcs"; return 1; }
	[ "$(rt_dump "$p.out" | grep -c '^time ')" = 0 ] || { echo "times recorded for code without exit hooks"; return 1; }
}
check "SPYRT_MODE=time on mode=arcs code: counts and arcs exact; the file says arcs, no times" time_mode

cat >"$T/spinlib.c" <<'EOC'
/* compiled without the plugin: its call overwrites the return-address slot of g's returned call */
#include "sample.h"
NOINL long busy(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++) {
		s += i;
		BARRIER();
	}
	return s;
}
EOC
cat >"$T/dead.c" <<'EOC'
#include <stdlib.h>
#include "sample.h"
long busy(long n);
NOINL int g(int x) { BARRIER(); return x + 1; }
/* after g returns, f runs on in its own loop */
NOINL long f(long n)
{
	long s = g(1);
	for (long i = 0; i < n; i++) {
		s += i;
		BARRIER();
	}
	return s;
}
/* after g returns, h runs on in busy, a function without hooks */
NOINL long h(long n)
{
	long s = g(2);
	return s + busy(n);
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 600000000;
	return (f(n) + h(n)) == 42;
}
EOC
dead_frames() {
	local p=$T/dead ig iff ih
	[ -z "$SPY_TSAN" ] || return 0
	$CC -O2 -g -I"$SAMPLES" -c "$T/spinlib.c" -o "$T/spinlib.o" $SPY_SAN_FLAGS || return 1
	rt_cc "$p" "$CC" $ARCS "$T/dead.c" "$T/spinlib.o" || return 1
	RT_ENV=SPYRT_MODE=arcs rt_run "$p" || return 1
	ig=$(inner_sum "$p.out" g)
	iff=$(inner_sum "$p.out" f)
	ih=$(inner_sum "$p.out" h)
	echo "innermost frame in samples: g $ig, f $iff, h $ih"
	[ "$ig" = 0 ] && [ "$iff" -gt 10 ] && [ "$ih" -gt 10 ]
}
check "CPU samples: a returned call is never the innermost frame$(tsan_skip its signals come late, merged: no sampling)" dead_frames
tap_done
