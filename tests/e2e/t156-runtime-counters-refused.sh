#!/bin/bash
# t156: what SPYRT_COUNTERS refuses. A hardware counter the machine does not have (this machine
# kind: `perf stat -e instructions` says not supported) is one line on stderr, left out, and header
# bit 7 (no_hwctr, and a line of spinprof's header); the run goes on with the other counters and its
# profile is as without (calls and arcs of samples/ctrpages.c exact, toucher's page faults its pages).
# With only refused counters the threads have none (no counters flag, no arc totals). Where the
# machine has the counter, it is kept and nothing is said. Not in mode time: one line, no counters.
# A bad value (an unknown name, a name twice, more than three, an empty item): one line, no counters.
. "$(dirname "$0")/lib-runtime.sh"
. "$(dirname "$0")/lib-spinprof.sh"
rt_setup
tap_plan 7

. "$(dirname "$0")/lib-counters.sh"
A=200 B=50 D=3 K=4
ctr_build 6
# the calls and arcs of ctrpages A B D K, as rt_facts prints them
facts_want() {
	printf '%s\n' "arc <spontaneous> main 1" "arc left toucher 1" "arc main left 1" "arc main right 1" \
		"arc main rtouch 1" "arc main sleeper 1" "arc right toucher 1" "arc rtouch rtouch $((D - 1))" "func left 1" "func main 1" \
		"func right 1" "func rtouch $D" "func sleeper 1" "func toucher 2"
}
facts_ok() {
	rt_facts "$1" | grep -E ' (main|left|right|toucher|rtouch|sleeper)( |$)' | grep -v '^func [^ ]* 0$' | diff - <(facts_want)
}
hw_present() {
	perf stat -x, -e "$1" -o /dev/null true >/dev/null 2>&1 &&
		! perf stat -x, -e "$1" true 2>&1 | grep -q 'not supported'
}

refused() {
	local ev=$1
	RT_ENV="SPYRT_WATCH=none SPYRT_COUNTERS=$ev,page-faults" rt_run "$P" $A $B $D $K || return 1
	cat "$P.stderr"
	facts_ok "$P.out" || return 1
	[ "$(ctr "$P.out" '*' toucher page-faults self)" = $((A + B)) ] || { echo "toucher's faults wrong"; return 1; }
	if grep -q "no hardware counter" "$P.stderr"; then
		[ "$(wc -l <"$P.stderr")" = 1 ] &&
			grep -qx "spy: SPYRT_COUNTERS: no hardware counter for $ev on this machine (perf_event_open: .*); left out" "$P.stderr" &&
			rt_dump "$P.out" | grep -qE '^hflags set=[a-z_,]*no_hwctr,' &&
			[ "$(ctr "$P.out" '*' toucher "$ev" self)" = none ] &&
			"$SPINPROF" "$P.out" 2>/dev/null | grep -qx 'hardware counters: none on this machine for some of SPYRT_COUNTERS; left out' &&
			"$SPINPROF" "$P.out" 2>/dev/null | grep -qx 'counters: page-faults (per call in the flat profile)'
	else
		# the machine has it: kept, nothing said, and toucher ran some of it
		[ ! -s "$P.stderr" ] && ! rt_dump "$P.out" | grep -q no_hwctr &&
			[ "$(ctr "$P.out" '*' toucher "$ev" self)" -gt 0 ]
	fi
}
check "instructions: refused in one line and header bit 7 where there is no counter, else kept; the rest as without" refused instructions
if hw_present cycles; then
	ok "cycles alone # SKIP this machine has a cycles counter"
else
	cycles_alone() {
		RT_ENV="SPYRT_WATCH=none SPYRT_COUNTERS=cycles" rt_run "$P" $A $B $D $K || return 1
		cat "$P.stderr"
		[ "$(wc -l <"$P.stderr")" = 1 ] && facts_ok "$P.out" &&
			! rt_dump "$P.out" | grep -qE '^thread .*counters|^arcctr' &&
			rt_dump "$P.out" | grep -qE '^hflags set=[a-z_,]*no_hwctr,' &&
			[ "$(rt_dump "$P.out" | awk '$1 == "arc" && / callee=toucher / && !/ incl=0 /' | wc -l)" = 2 ]
	}
	check "cycles alone, refused: one line, no thread has counters, times and arcs as ever" cycles_alone
fi

notime() {
	local m
	for m in arcs count; do
		RT_ENV="SPYRT_MODE=$m SPYRT_WATCH=none SPYRT_COUNTERS=page-faults" rt_run "$P" $A $B $D $K || return 1
		cat "$P.stderr"
		[ "$(wc -l <"$P.stderr")" = 1 ] &&
			grep -qx "spy: SPYRT_COUNTERS needs SPYRT_MODE=time (counters are read where calls are timed); no counters" "$P.stderr" &&
			! rt_dump "$P.out" | grep -qE '^thread .*counters|^arcctr' || return 1
		# mode arcs: the arcs as ever
		[ $m = count ] || facts_ok "$P.out" || return 1
	done
}
check "not in mode time (arcs, count): one line, ignored" notime

bad() {
	local v
	for v in page-fault page-faults,page-faults page-faults,minor-faults,major-faults,task-clock \
		'page-faults,' ,page-faults page-faults,,cycles 'page-faults cycles'; do
		RT_ENV="SPYRT_WATCH=none" SPYRT_COUNTERS="$v" rt_run "$P" $A $B $D $K || return 1
		echo "'$v': $(cat "$P.stderr")"
		[ "$(wc -l <"$P.stderr")" = 1 ] &&
			grep -q "^spy: SPYRT_COUNTERS='$v' is not a list of at most 3 different events of instructions, .*major-faults; no counters\$" "$P.stderr" &&
			! rt_dump "$P.out" | grep -qE '^thread .*counters|^arcctr' || return 1
	done
}
check "a bad value (unknown, twice, four, an empty item, a blank): one line, no counters" bad

# three software events at most, each kept, in the order given; sleeper's S sleeps are S context
# switches (counted in kernel mode, where they happen; a preemption may add one), and its task clock
# holds little of its S ms
kinds() {
	local S=20 cs tc
	RT_ENV="SPYRT_WATCH=none SPYRT_COUNTERS=task-clock,context-switches,major-faults" rt_run "$P" $A $B $D $K $S || return 1
	cat "$P.stderr"
	cs=$(ctr "$P.out" main sleeper context-switches self)
	tc=$(ctr "$P.out" main sleeper task-clock self)
	echo "sleeper: $cs context switches, task clock $tc ns"
	[ ! -s "$P.stderr" ] &&
		[ "$(rt_dump "$P.out" | awk '$1 == "arcctr" && / callee=main / { sub(/.*event=/, ""); sub(/ .*/, ""); printf "%s,", $0 }')" = task-clock,context-switches,major-faults, ] &&
		[ "$cs" -ge $S ] && [ "$cs" -le $((S + 2)) ] && [ "$tc" -gt 0 ] && [ "$tc" -lt $((S * 1000000 / 2)) ] &&
		[ "$(ctr "$P.out" '*' toucher major-faults self)" = 0 ]
}
check "task-clock, context-switches, major-faults: kept in order; sleeper's sleeps are its switches" kinds

# the run's header and threads say it all in --dump, and spinprof reads it back
dumped() {
	RT_ENV="SPYRT_WATCH=none SPYRT_COUNTERS=page-faults" rt_run "$P" $A $B $D $K || return 1
	"$SPINPROF" --dump "$P.out" >"$T/d.txt" 2>&1 || { head "$T/d.txt"; return 1; }
	diff <(grep '^arcctr' "$T/d.txt") <(rt_dump "$P.out" | grep '^arcctr') &&
		[ "$(grep -c '^arcctr' "$T/d.txt")" = "$(grep -c '^arc ' "$T/d.txt")" ] &&
		grep -q '^thread .*flags=main,[a-z,]*counters,' "$T/d.txt"
}
check "spinprof --dump: a counter line for every arc, as the runtime's dumper" dumped
tap_done
