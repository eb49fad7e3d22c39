#!/bin/bash
# t306: mode=arcs's inline cache keeps, for a function called from more sites than its entry has
# ways (two), the sites with the most calls: the sites that miss do not push them out in turn. One
# function called from three sites in strict rotation: one site in three misses (before, every call
# missed: each miss pushed out the site called next); one called from two sites every time and from
# a third every tenth round: only the third's calls miss (before, each cost three misses). An
# interposed __spy_arc_miss (spymiss.c) counts the misses; counts and arcs stay exact.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 3

ARCS=-fplugin-arg-spyinstr-mode=arcs
N=30000

cat >"$T/ways.c" <<'EOC'
#include <stdlib.h>
#include <string.h>
#include "sample.h"
static volatile unsigned sink;
NOINL unsigned leaf(unsigned x) { BARRIER(); return x + 1; }
NOINL unsigned leaf2(unsigned x) { BARRIER(); return x + 2; }
NOINL unsigned rotation(unsigned n) /* leaf from three sites in turn */
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++) {
		s += leaf(i);
		BARRIER();
		s += leaf(s);
		BARRIER();
		s += leaf(i ^ s);
		BARRIER();
	}
	return s;
}
NOINL unsigned skew(unsigned n) /* leaf2 from two sites every round, from a third every tenth */
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++) {
		s += leaf2(i);
		BARRIER();
		s += leaf2(s);
		BARRIER();
		if (i % 10 == 9)
			s += leaf2(i ^ s);
		BARRIER();
	}
	return s;
}
int main(int argc, char **argv)
{
	unsigned n = (unsigned)atoi(argv[2]);
	sink = strcmp(argv[1], "rotation") ? skew(n) : rotation(n);
	return 0;
}
EOC

# misses WHAT EXPECT MAX: run, the facts exact, at most MAX misses
misses() {
	local p=$T/ways m pre=$T/libmiss.so
	case $SPY_SAN_FLAGS in *address*) pre="$($CC -print-file-name=libasan.so):$pre" ;; esac
	RT_ENV="SPYRT_MODE=arcs LD_PRELOAD=$pre" rt_run "$p" "$1" $N || return 1
	rt_facts "$p.out" >"$p.$1.facts"
	printf '%s\n' "$2" | tr ';' '\n' >"$p.$1.expect"
	rt_compare "$p.$1.expect" "$p.$1.facts" || return 1
	m=$(sed -n 's/^misses //p' "$p.stderr")
	[ -n "$m" ] || { echo "the interposer said nothing"; cat "$p.stderr"; return 1; }
	[ "$m" -le "$3" ] || { echo "$1: misses $m, want at most $3"; return 1; }
	echo "# $1: $m misses"
}

built() {
	$CC -O2 -fPIC -shared "$SPY_SRC/tests/e2e/spymiss.c" -o "$T/libmiss.so" -ldl &&
		rt_cc "$T/ways" "$CC" $ARCS "$T/ways.c"
}
if ! check "ways.c builds in mode=arcs" built; then
	not_ok "not built"
	tap_done
fi
# the first calls of each site miss, a handful; then the third site's, N in all
three=$((3 * N)) c3=$((N / 10))
check "three sites in turn: $three calls, at most $N + 10 misses" misses rotation \
	"func leaf $three;arc rotation leaf $three;func rotation 1" $((N + 10))
check "two sites and a third every tenth round: $((2 * N + c3)) calls, at most $c3 + 10 misses" misses skew \
	"func leaf2 $((2 * N + c3));arc skew leaf2 $((2 * N + c3));func skew 1" $((c3 + 10))
tap_done
