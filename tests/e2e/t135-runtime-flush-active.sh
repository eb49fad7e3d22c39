#!/bin/bash
# t135: spy_flush() and the functions active across it (issue 10, item 8): they start again at the
# thread's next hook, after its tables are emptied, so they gain none of the emptying's time. outer
# calls spy_flush, then g once, and returns: its self time after the flush is the few hundred cycles of
# a call, where it used to gain the clearing of 256 KiB of tables (some 250 000 cycles here).
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 3

cat >"$T/fl.c" <<'EOC'
#include "spy.h"
#include "sample.h"
#include <stdio.h>
#include <stdint.h>
static uint64_t flush_cycles;
static inline uint64_t cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#endif
}
NOINL int g(int x) { BARRIER(); return x + 1; }
NOINL int outer(void)
{
	int s = 0;
	uint64_t t0 = cycles();
	spy_flush();
	flush_cycles = cycles() - t0;
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
/* after main's exit: its time holds no printf */
__attribute__((destructor)) static void report(void)
{
	printf("flush %llu\n", (unsigned long long)flush_cycles);
}
EOC
check "the program builds" rt_cc "$T/fl" "$CC" "$T/fl.c"

# over three runs, the smallest self cycles of FUNC and the smallest flush (an interruption only ever adds)
min_self() {
	local best= fl= v w
	for _ in 1 2 3; do
		rt_run "$T/fl" || return 1
		v=$(rt_dump "$T/fl.out" | awk -v f="func=$1" '$1 == "time" && $3 == f { sub("self=", "", $6); print $6 }')
		[ -n "$v" ] || { rt_dump "$T/fl.out" | grep '^time'; return 1; }
		w=$(awk '$1 == "flush" { print $2 }' "$T/fl.stdout")
		[ -n "$w" ] || { cat "$T/fl.stdout"; return 1; }
		[ -z "$best" ] || [ "$v" -lt "$best" ] && best=$v
		[ -z "$fl" ] || [ "$w" -lt "$fl" ] && fl=$w
	done
	echo "$best $fl"
}
quiet() {
	local v
	[ -z "$SPY_TSAN" ] || return 0
	v=$(min_self "$1") || { echo "$v"; return 1; }
	set -- "$1" $v
	echo "$1: self $2 cycles after the flush, which took $3"
	[ "$2" -lt $(($3 / 10)) ]
}
check "outer, active across the flush, gains no time it did not spend (< a tenth of the flush's)$(tsan_skip the instrumented runtime alone spends cycles of that size)" quiet outer
check "main, active across the flush too, gains none either$(tsan_skip the instrumented runtime alone spends cycles of that size)" quiet main
tap_done
