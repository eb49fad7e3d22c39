#!/bin/bash
# t134: Cedar's start and stop breaks on one procedure (issue 10, item 7): SPYRT_START=STOP=measured
# records measured's activations from entry to exit, the outermost of a recursion, and nothing outside
# them; SPYRT_START_THREAD=1 (Cedar's breakProcess) records only the thread that hit the start first,
# whichever thread that is, and ignores the others' triggers; its bad values cost one line.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 8

# main calls measured 3 times (recursing DEPTH deeper), with outside's calls before and after each
cat >"$T/trig.c" <<'EOC'
#include <stdlib.h>
#include "sample.h"
NOINL int inside(int x) { BARRIER(); return x + 1; }
NOINL int outside(int x) { BARRIER(); return x + 2; }
NOINL int measured(int n)
{
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += inside(i);
	if (n > 0)
		s += measured(n - 1);
	BARRIER();
	return s;
}
int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 0, s = 0;
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 5; i++)
			s += outside(i);
		s += measured(depth);
		for (int i = 0; i < 7; i++)
			s += outside(i);
	}
	return s == 0;
}
EOC
# two threads: "main-first": main's first measured runs the side thread to its end (worker 100 times,
# then measured once); "side-first": the side thread runs first (measured once, then worker 100 times),
# then main calls measured 3 times
cat >"$T/trig2.c" <<'EOC'
#include <pthread.h>
#include <string.h>
#include "sample.h"
static int side_first;
NOINL int inside(int x) { BARRIER(); return x + 1; }
NOINL int worker(int x) { BARRIER(); return x * 2; }
NOINL int measured(int spawn);
NOINL void *side(void *a)
{
	int s = 0;
	if (side_first)
		s += measured(0);
	for (int i = 0; i < 100; i++)
		s += worker(i);
	if (!side_first)
		s += measured(0);
	BARRIER();
	return s ? a : a;
}
NOINL int measured(int spawn)
{
	int s = 0;
	pthread_t t;
	for (int i = 0; i < 10; i++)
		s += inside(i);
	if (spawn) {
		pthread_create(&t, 0, side, 0);
		pthread_join(t, 0);
	}
	BARRIER();
	return s;
}
int main(int argc, char **argv)
{
	pthread_t t;
	side_first = argc > 1 && !strcmp(argv[1], "side-first");
	if (side_first) {
		pthread_create(&t, 0, side, 0);
		pthread_join(t, 0);
	}
	for (int k = 0; k < 3; k++)
		measured(!side_first && k == 0);
	return 0;
}
EOC
built() { rt_cc "$T/trig" "$CC" "$T/trig.c" && rt_cc "$T/trig2" "$CC" "$T/trig2.c"; }
check "the programs build" built

# facts PROG EXPECTED...: the run's arcs are exactly the lines given, sorted
arcs_are() {
	local prog=$1
	shift
	rt_facts "$prog.out" | grep '^arc' >"$prog.arcs"
	printf '%s\n' "$@" | sort | diff - "$prog.arcs"
}
# timed calls of FUNC in the profile
timed() {
	rt_dump "$1" | awk -v f="func=$2" '$1 == "time" && $3 == f { split($4, c, "="); n += c[2] } END { print n + 0 }'
}

same() {
	RT_ENV="SPYRT_START=measured SPYRT_STOP=measured" rt_run "$T/trig" || return 1
	arcs_are "$T/trig" 'arc main measured 3' 'arc measured inside 30' || return 1
	[ "$(timed "$T/trig.out" measured)" = 3 ] && [ "$(timed "$T/trig.out" inside)" = 30 ] &&
		[ "$(timed "$T/trig.out" outside)" = 0 ] || { rt_dump "$T/trig.out" | grep '^time'; return 1; }
	# the add-one counters are switched with the arcs (t137 has every mode)
	rt_facts "$T/trig.out" | awk '$1 == "func" && $3' >"$T/trig.funcs"
	printf '%s\n' 'func inside 30' 'func measured 3' | diff - "$T/trig.funcs"
}
check "START=STOP=measured: its 3 calls and their callees, timed and counted, and nothing outside them" same

nested() {
	RT_ENV="SPYRT_START=measured SPYRT_STOP=measured" rt_run "$T/trig" 2 || return 1
	arcs_are "$T/trig" 'arc main measured 3' 'arc measured measured 6' 'arc measured inside 90' &&
		[ "$(timed "$T/trig.out" measured)" = 9 ] && [ "$(timed "$T/trig.out" inside)" = 90 ]
}
check "START=STOP=measured, recursive: the inner activations nest, recording ends at the outermost exit" nested

# measured's inclusive time is its own: from entry to exit, as long as its calls of inside take
incl_own() {
	local d
	d=$(rt_dump "$T/trig.out")
	awk '$1 == "time" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[$3, kv[1]] = kv[2] } }
	     END { m = v["func=measured", "incl"]; n = v["func=inside", "incl"]; print "measured incl " m ", inside incl " n
		   exit !(m > n && n > 0) }' <<<"$d"
}
check "the recorded activations are timed (measured's inclusive time holds inside's)" incl_own

main_first_all() {
	RT_ENV="SPYRT_START=measured SPYRT_STOP=measured" rt_run "$T/trig2" main-first || return 1
	arcs_are "$T/trig2" 'arc main measured 3' 'arc measured inside 40' 'arc <spontaneous> side 1' \
		'arc side worker 100' 'arc side measured 1'
}
check "without START_THREAD: the side thread records while main is inside measured" main_first_all

main_first() {
	RT_ENV="SPYRT_START=measured SPYRT_STOP=measured SPYRT_START_THREAD=1" rt_run "$T/trig2" main-first ||
		return 1
	[ ! -s "$T/trig2.stderr" ] || { cat "$T/trig2.stderr"; return 1; }
	arcs_are "$T/trig2" 'arc main measured 3' 'arc measured inside 30'
}
check "START_THREAD=1: only main, which hit the start first; the side thread's own start is ignored" main_first

side_first() {
	RT_ENV="SPYRT_START=measured SPYRT_STOP=measured SPYRT_START_THREAD=1" rt_run "$T/trig2" side-first ||
		return 1
	arcs_are "$T/trig2" 'arc side measured 1' 'arc measured inside 10'
}
check "START_THREAD=1: the side thread hit the start first, so main's 3 later calls are not recorded" side_first

bad() {
	local e1 e2
	e1=$(cd "$T" && SPYRT_START=measured SPYRT_START_THREAD=2 ./trig 2>&1 >/dev/null)
	e2=$(cd "$T" && SPYRT_START_THREAD=1 ./trig 2>&1 >/dev/null)
	echo "$e1"
	echo "$e2"
	[ "$(grep -c . <<<"$e1")" = 1 ] && grep -q "SPYRT_START_THREAD='2'" <<<"$e1" &&
		[ "$(grep -c . <<<"$e2")" = 1 ] && grep -q "SPYRT_START_THREAD='1' without SPYRT_START" <<<"$e2"
}
check "SPYRT_START_THREAD=2, or without SPYRT_START: one line each" bad
tap_done
