#!/bin/bash
# t126: the profile written while other threads run is one moment's: each function's add-one count
# equals the calls its arcs recorded (spinprof's self-check) when a thread calls exit(5) while main
# loops in instrumented calls (50 runs), when main calls exit(6) with threads running, and for
# spy_dump() from a thread (the dump and the final file), in modes time and arcs; beside them a
# thread asleep in the kernel and one that wakes every 100 us to make calls (samples/exitthreads.c).
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 6

X=$T/x
check "samples/exitthreads.c builds" rt_cc "$X" "$CC" "$SAMPLES/exitthreads.c"

# runs N HOW STATUS [FILE...]: N runs, each exits with STATUS and every FILE passes the self-check
runs() {
	local n=$1 how=$2 want=$3 i rc f bad=0
	shift 3
	cd "$T" || return 1
	for ((i = 0; i < n; i++)); do
		rm -f gmon.out d.out
		DUMP=$T/d.out "$X" "$how"
		rc=$?
		[ $rc -eq "$want" ] || { echo "run $i: status $rc"; return 1; }
		for f in "$@"; do
			"$SPY_BUILD/spinprof" "$f" >report 2>&1 || { echo "run $i: $f:"; head -n 3 report; return 1; }
			grep -q '^self-check: [0-9]* functions, add-one counts equal' report &&
				! grep -q '^mismatch' report || { echo "run $i: $f"; grep '^mismatch' report; bad=1; }
		done
		[ $bad -eq 0 ] || return 1
	done
}
check "a thread calls exit(5) while main loops: 50 runs, no mismatch" runs 50 exit 5 gmon.out
check "main calls exit(6) while two threads make calls: 10 runs, no mismatch" runs 10 main 6 gmon.out
check "spy_dump() from a thread while main loops: 10 runs, dump and final file without mismatch" \
	runs 10 dump 0 d.out gmon.out
arcs() { SPYRT_MODE=arcs runs 20 exit 5 gmon.out; }
check "SPYRT_MODE=arcs: exit(5) from a thread, 20 runs, no mismatch" arcs

# a thread asleep costs the write no waiting: the whole run stays far below the wait's cap per write
quick() {
	local t0 t1
	[ -z "$SPY_TSAN" ] || return 0
	cd "$T" || return 1
	t0=$(date +%s%N)
	for ((i = 0; i < 10; i++)); do "$X" exit; done
	t1=$(date +%s%N)
	echo "10 runs: $(((t1 - t0) / 1000000)) ms"
	[ $(((t1 - t0) / 1000000)) -lt 5000 ]
}
check "ten runs with a sleeping thread take well under 5 s$(tsan_skip its timing is not the program)" quick

tap_done
