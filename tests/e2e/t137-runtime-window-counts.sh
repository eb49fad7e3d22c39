#!/bin/bash
# t137: SPYRT_START/SPYRT_STOP switch the add-one counters with the arcs (issue 23, item 10): a program
# with known call counts inside and outside the window, built mode=time (run in SPYRT_MODE time and
# arcs) and mode=arcs (the inline path, ABI 6), has in its profile exactly the calls made inside the
# window (a side thread's included), and spinprof's self-check finds the counts equal to the arcs (it
# said "7 mismatches": the counters counted the whole run). Windows: START alone (the start function's
# activations), START and STOP on two functions, STOP alone.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 11

# main: outside the windows both x5, out1 x5; win() twice (in1 x7, both x4 each); both x3;
# starter(); both x6, in1 x2, a side thread (both x100); stopper(); both x9, out1 x1
cat >"$T/win.c" <<'EOC'
#include <pthread.h>
#include "sample.h"
NOINL int in1(int x) { BARRIER(); return x + 1; }
NOINL int both(int x) { BARRIER(); return x + 2; }
NOINL int out1(int x) { BARRIER(); return x + 3; }
NOINL int win(int x)
{
	int s = 0;
	for (int i = 0; i < 7; i++)
		s += in1(i);
	for (int i = 0; i < 4; i++)
		s += both(i);
	BARRIER();
	return s + x;
}
NOINL void starter(void) { BARRIER(); }
NOINL void stopper(void) { BARRIER(); }
NOINL void *side(void *a)
{
	int s = 0;
	for (int i = 0; i < 100; i++)
		s += both(i);
	BARRIER();
	return s ? a : a;
}
int main(void)
{
	pthread_t t;
	int s = 0;
	for (int i = 0; i < 5; i++)
		s += both(i) + out1(i);
	s += win(1);
	s += win(2);
	for (int i = 0; i < 3; i++)
		s += both(i);
	starter();
	for (int i = 0; i < 6; i++)
		s += both(i);
	for (int i = 0; i < 2; i++)
		s += in1(i);
	pthread_create(&t, 0, side, 0);
	pthread_join(t, 0);
	stopper();
	for (int i = 0; i < 9; i++)
		s += both(i);
	s += out1(s);
	return s == 0;
}
EOC
built() {
	rt_cc "$T/win-time" "$CC" "$T/win.c" && rt_cc "$T/win-arcs" "$CC" -fplugin-arg-spyinstr-mode=arcs "$T/win.c"
}
check "the program builds in modes time and arcs" built

# window PROG ENV EXPECT...: run PROG with ENV; its nonzero counts and its arcs are exactly EXPECT, and
# spinprof's self-check says the counts equal the arcs
window() {
	local prog=$1 env=$2
	shift 2
	RT_ENV=$env rt_run "$prog" || return 1
	rt_facts "$prog.out" | awk '!($1 == "func" && $3 == 0)' >"$prog.facts"
	printf '%s\n' "$@" | sort | diff - "$prog.facts" || return 1
	"$SPY_BUILD/spinprof" -b "$prog.out" >"$prog.report" 2>&1 || { head -n 5 "$prog.report"; return 1; }
	grep -q '^self-check: [0-9]* functions, add-one counts equal incoming arc counts$' "$prog.report" ||
		{ grep '^self-check\|^mismatch' "$prog.report"; return 1; }
}

START_ONLY=('func win 2' 'func in1 14' 'func both 8'
	'arc main win 2' 'arc win in1 14' 'arc win both 8')
START_STOP=('func starter 1' 'func both 106' 'func in1 2' 'func side 1'
	'arc main starter 1' 'arc main both 6' 'arc main in1 2' 'arc side both 100' 'arc <spontaneous> side 1')
# STOP alone: from the start to stopper's call; main was entered inside it
STOP_ONLY=('func main 1' 'func out1 5' 'func win 2' 'func in1 16' 'func both 122' 'func starter 1'
	'func side 1' 'arc <spontaneous> main 1' 'arc main out1 5' 'arc main win 2' 'arc win in1 14'
	'arc main in1 2' 'arc win both 8' 'arc main both 14' 'arc main starter 1' 'arc side both 100'
	'arc <spontaneous> side 1')

for b in time arcs; do
	modes="SPYRT_MODE=$b"
	[ $b = time ] && modes="SPYRT_MODE=time SPYRT_MODE=arcs"
	for m in $modes; do
		d="mode=$b build, $m, START=win: win's activations, counts exact, self-check equal"
		if [ "$m" != SPYRT_MODE=arcs ] || [ $b = time ]; then
			check "$d" window "$T/win-$b" "$m SPYRT_START=win" "${START_ONLY[@]}"
		elif out=$(window "$T/win-$b" "$m SPYRT_START=win" "${START_ONLY[@]}" 2>&1); then
			ok "$d"
		else
			# __spy_arc's code has no exit hook: the return of the start function, its stop, is seen by
			# no hook (arcs and counts alike go on after it)
			todo "$d" "mode=arcs code sees no return, so START alone never stops"
			printf '%s\n' "$out" | head -n 8 | diag
		fi
		check "mode=$b build, $m, START=starter STOP=stopper: counts exact, a thread's too" \
			window "$T/win-$b" "$m SPYRT_START=starter SPYRT_STOP=stopper" "${START_STOP[@]}"
		check "mode=$b build, $m, STOP=stopper: counts up to the stop exact" \
			window "$T/win-$b" "$m SPYRT_STOP=stopper" "${STOP_ONLY[@]}"
	done
done
check "SPYRT_START_THREAD=1: the side thread's calls are not counted" \
	window "$T/win-time" "SPYRT_START=starter SPYRT_STOP=stopper SPYRT_START_THREAD=1" \
	'func starter 1' 'func both 6' 'func in1 2' 'arc main starter 1' 'arc main both 6' 'arc main in1 2'
tap_done
