#!/bin/bash
# t244: the Spy report's header says what was not watched instead of a false zero. A program that
# makes exactly 500 allocations of 64 bytes (and some CPU work), sampled by CPU time: the totals line
# says "allocations not watched" (it said "0 allocations of 0 bytes"); sampled with SPYRT_WATCH=alloc
# it counts them: at least the 500 of 32000 bytes (the C library allocates a few of its own). Under AddressSanitizer its allocator is the program's:
# the alloc half is skipped.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup
tap_plan 3

cat >"$T/five.c" <<'EOS'
#include <stdlib.h>
#include "sample.h"
static void *keep[500];
static volatile unsigned long sink;
NOINL void take(int i) { keep[i] = malloc(64); BARRIER(); }
NOINL void spin(void) { unsigned long x = sink; for (long i = 0; i < 100000000; i++) { x = x * 6364136223846793005ul + 1; BARRIER(); } sink = x; }
int main(void)
{
	for (int i = 0; i < 500; i++) take(i);
	spin();
	for (int i = 0; i < 500; i++) free(keep[i]);
	return 0;
}
EOS
P=$T/five
check "the program builds" rt_cc "$P" "$CC" "$T/five.c"

# totals WATCH: the totals line of the Spy report
totals() {
	RT_ENV="SPYRT_WATCH=$1" rt_run "$P" || return 1
	"$SPINPROF" --spy -b "$P.out" >"$P.$1.txt" 2>"$P.err" || { echo "spinprof: status $?"; cat "$P.err"; return 1; }
	grep '^totals:' "$P.$1.txt"
}
check "SPYRT_WATCH=cpu: allocations not watched" eval 'totals cpu | grep -E "page faults, allocations not watched$"' 
if [ -n "$SPY_SAN_FLAGS" ]; then
	ok "# SKIP the sanitizer's malloc takes the interposition"
else
	counted() {
		totals alloc | awk '{ print } / allocations of [0-9]+ bytes$/ { n = $(NF - 4); b = $(NF - 1) }
			END { exit !(n >= 500 && b >= 32000) }'
	}
	check "SPYRT_WATCH=alloc: the 500 allocations of 64 bytes counted" counted
fi
tap_done
