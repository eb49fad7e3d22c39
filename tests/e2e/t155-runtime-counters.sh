#!/bin/bash
# t155: SPYRT_COUNTERS in mode time: each thread's perf_event counters are read at every hook and kept
# per arc like the cycles, inclusive (outermost calls) and self. With software events (page faults:
# the path hardware counters share up to the read) and samples/ctrpages.c, whose toucher writes
# exactly A fresh pages when left calls it and B when right does, and whose rtouch writes K pages at
# each of its D levels of recursion:
#  - toucher's self and inclusive page faults are A through left and B through right, exactly: it is
#    a leaf, and nothing of the profiler runs between its two reads; even with the sampler's handler
#    run at every page fault (SPYRT_WATCH=faults), inside toucher: its own events are left out;
#  - left's and right's own are the hooks' first touches of their tables' pages (a new arc, a new
#    function, a deeper frame: at most 8 pages here, 16 under AddressSanitizer and 40 under ThreadSanitizer, whose shadow pages of
#    them fault too), and their inclusive counts are exactly their own plus
#    toucher's;
#  - recursion counts once: rtouch's inclusive is its self over all its frames (not the sum of the
#    frames' inclusive), D*K plus the hooks' first touches for the arc rtouch -> rtouch (as above);
#  - page-faults, minor-faults and major-faults counted together agree (minor = all, major 0);
#  - perf stat's count of the same event for the whole process holds main's, and grows by exactly
#    what toucher's does when A grows (within 1 %, the fewest of three runs of each: perf counts the
#    start-up and exit too);
#  - two threads touching pages at the same time each count their own.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 8

. "$(dirname "$0")/lib-counters.sh"
A=300 B=120 D=5 K=7
ctr_build 7

run() {
	RT_ENV="SPYRT_WATCH=none SPYRT_COUNTERS=$1" rt_run "$P" "${@:2}" || return 1
	[ ! -s "$P.stderr" ] || { cat "$P.stderr"; return 1; }
	rt_dump "$P.out" | grep -q '^thread .*flags=[a-z,]*counters,' || { echo "no thread has counters"; return 1; }
	rt_dump "$P.out" | grep '^arcctr' | cut -d' ' -f3-4,6-
}

leaf() {
	run page-faults $A $B $D $K || return 1
	is "left -> toucher self" "$(ctr "$P.out" left toucher page-faults self)" $A &&
		is "left -> toucher incl" "$(ctr "$P.out" left toucher page-faults incl)" $A &&
		is "right -> toucher self" "$(ctr "$P.out" right toucher page-faults self)" $B &&
		is "right -> toucher incl" "$(ctr "$P.out" right toucher page-faults incl)" $B
}
check "toucher's page faults are exactly its pages, split by caller ($A from left, $B from right)" leaf

callers() {
	local f s i
	for f in left right; do
		s=$(ctr "$P.out" main $f page-faults self)
		i=$(ctr "$P.out" main $f page-faults incl)
		echo "$f: self $s incl $i"
		[ "$s" -le $HOOKS ] || return 1
	done
	is "left incl" "$(ctr "$P.out" main left page-faults incl)" $((A + $(ctr "$P.out" main left page-faults self))) &&
		is "right incl" "$(ctr "$P.out" main right page-faults incl)" $((B + $(ctr "$P.out" main right page-faults self))) &&
		[ "$(ctr "$P.out" '*' main page-faults incl)" -ge $((A + B + D * K)) ]
}
check "callers: own faults only the hooks' first touches (<= $HOOKS), inclusive = own + toucher's" callers

recursion() {
	local self
	self=$(ctr "$P.out" '*' rtouch page-faults self)
	echo "rtouch self $self, of which from main $(ctr "$P.out" main rtouch page-faults self)"
	# rtouch calls itself: the hooks' first touches for the new arc rtouch -> rtouch are its own
	[ "$self" -ge $((D * K)) ] && [ "$self" -le $((D * K + HOOKS)) ] &&
		is "rtouch incl (outermost only): its self, all frames" "$(ctr "$P.out" '*' rtouch page-faults incl)" "$self" &&
		is "main -> rtouch incl" "$(ctr "$P.out" main rtouch page-faults incl)" "$self" &&
		is "rtouch -> rtouch incl" "$(ctr "$P.out" rtouch rtouch page-faults incl)" 0 &&
		[ "$(ctr "$P.out" main rtouch page-faults self)" -ge $K ] &&
		[ "$(ctr "$P.out" rtouch rtouch page-faults self)" -ge $(((D - 1) * K)) ]
}
check "recursion counted once: rtouch's $D levels of $K pages" recursion

three() {
	local f c a
	run page-faults,minor-faults,major-faults $A $B $D $K >/dev/null || return 1
	for f in "left toucher" "right toucher" "main rtouch" "rtouch rtouch"; do
		for c in self incl; do
			# shellcheck disable=SC2086
			a=$(ctr "$P.out" $f page-faults $c)
			# shellcheck disable=SC2086
			is "$f $c minor-faults" "$(ctr "$P.out" $f minor-faults $c)" "$a" || return 1
			# shellcheck disable=SC2086
			is "$f $c major-faults" "$(ctr "$P.out" $f major-faults $c)" 0 || return 1
		done
	done
	is "the thread's counters, in order" "$(rt_dump "$P.out" | awk '$1 == "arcctr" { for (i = 2; i <= NF; i++) if (index($i, "event=") == 1) e[++n] = substr($i, 7) } END { print e[1] "," e[2] "," e[3] }')" page-faults,minor-faults,major-faults
}
check "three counters at once: minor-faults = page-faults, major-faults 0, on every arc" three

# perf stat's count of the whole process includes its start-up, exit and writing, which vary by some
# faults from run to run (under AddressSanitizer up to about 1 %, its allocator's own mappings): the
# fewest of three runs of each size is the process's floor, and the floors differ by toucher's pages
perf_cross() {
	local n1= n2= m1 t1 t2 big=$((A + 1000)) i a b
	command -v perf >/dev/null && perf stat -x, -e page-faults:u -o /dev/null true >/dev/null 2>&1 || return 2
	for i in 1 2 3; do
		SPYRT_WATCH=none SPYRT_COUNTERS=page-faults SPYRT_OUT="$T/a.out" perf stat -x, -o "$T/a.perf" -e page-faults:u "$P" $A $B $D $K >/dev/null || return 1
		SPYRT_WATCH=none SPYRT_COUNTERS=page-faults SPYRT_OUT="$T/b.out" perf stat -x, -o "$T/b.perf" -e page-faults:u "$P" $big $B $D $K >/dev/null || return 1
		a=$(awk -F, '$3 ~ /^page-faults/ { print $1 }' "$T/a.perf")
		b=$(awk -F, '$3 ~ /^page-faults/ { print $1 }' "$T/b.perf")
		m1=$(ctr "$T/a.out" '*' main page-faults incl)
		t1=$(ctr "$T/a.out" '*' toucher page-faults self)
		t2=$(ctr "$T/b.out" '*' toucher page-faults self)
		echo "run $i: perf stat: $a and $b page faults; main's inclusive $m1; toucher's self $t1 and $t2"
		[ "$a" -ge "$m1" ] && [ $((t2 - t1)) = 1000 ] || return 1
		[ -n "$n1" ] && [ "$n1" -le "$a" ] || n1=$a
		[ -n "$n2" ] && [ "$n2" -le "$b" ] || n2=$b
	done
	echo "the fewest: $n1 and $n2"
	[ $((n2 - n1)) -ge 990 ] && [ $((n2 - n1)) -le 1010 ]
}
if command -v perf >/dev/null && perf stat -x, -e page-faults:u -o /dev/null true >/dev/null 2>&1; then
	check "perf stat's page faults hold main's, and grow with toucher's (+1000 within 1 %)" perf_cross
else
	ok "perf stat cross-check # SKIP perf stat cannot count page-faults:u here (linux-perf is in mk/deps.sh)"
fi

# each thread counts its own: left on a thread of its own while main runs right, at the same time
threads() {
	local tids
	run page-faults $A $B $D $K 0 threads >/dev/null || return 1
	tids=$(rt_dump "$P.out" | awk '$1 == "thread" && /counters/' | wc -l)
	is "threads with counters" "$tids" 2 &&
		is "left -> toucher self" "$(ctr "$P.out" left toucher page-faults self)" $A &&
		is "right -> toucher self" "$(ctr "$P.out" right toucher page-faults self)" $B &&
		is "the thread's left incl" "$(ctr "$P.out" '*' left page-faults incl)" $((A + $(ctr "$P.out" '*' left page-faults self)))
}
check "two threads at once: each counts its own pages" threads

handler() {
	local n
	[ -z "$SPY_TSAN" ] || return 0
	RT_ENV="SPYRT_WATCH=faults SPYRT_COUNTERS=page-faults" rt_run "$P" $A $B $D $K || return 1
	n=$(rt_get "$P.out" sampling taken)
	echo "samples taken: $n"
	[ "$n" -ge $((A + B)) ] &&
		is "left -> toucher self" "$(ctr "$P.out" left toucher page-faults self)" $A &&
		is "right -> toucher self" "$(ctr "$P.out" right toucher page-faults self)" $B
}
check "the sampler's handler at every page fault, inside toucher: its own faults left out$(tsan_skip "$TSAN_DELAYS_SIGNALS")" handler
tap_done
