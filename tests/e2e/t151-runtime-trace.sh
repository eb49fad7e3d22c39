#!/bin/bash
# t151: SPYRT_TRACE=FUNC,... (format revision 3, TRACE records): samples/trace.c's two threads take
# turns calling ping and pong N times, each call calling other (not traced). Each thread's TRACE
# record holds exactly its 2N events, enter and exit of the one function alternating, in time order,
# each exit's duration its time less its entry's, no event of other; then M calls of many fill main's
# ring of 4096: it keeps the last 4096 and says it dropped the 2N + 2M - 4096 before. Without
# SPYRT_TRACE there are no TRACE records; a bad list, and SPYRT_TRACE in mode arcs, are one line on
# stderr and no trace; a name no function has is the profile's error.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 7

P=$T/trace
N=6
if ! check "samples/trace.c builds" rt_cc "$P" "$CC" "$SAMPLES/trace.c" -pthread; then
	for _ in $(seq 6); do not_ok "not built"; done
	tap_done
fi

# the facts of each TRACE record: "trace TID EVENTS DROPPED" then its events "TID TIME WHAT FUNC VALUE"
per_thread() {
	RT_ENV="SPYRT_TRACE=ping,pong,many" rt_run "$P" $N 0 || return 1
	rt_dump "$P.out" >"$P.dump"
	awk -v N=$N '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "trace" { nt++; if (val("kind") != "calls" || val("events") != 2 * N || val("dropped") != 0) { print "bad:", $0; bad = 1 } }
		$1 == "tevent" { tid = val("tid"); f = val("func"); w = val("what"); t = val("time") + 0
			k = n[tid]++
			if (k == 0) fn[tid] = f
			if (f != fn[tid] || (f != "ping" && f != "pong")) { print "function", f, "in", tid; bad = 1 }
			if (w != k % 2) { print "event", k, "of", tid, "is", w; bad = 1 }
			if (t < last[tid]) { print "time goes back in", tid; bad = 1 }
			if (w == 1 && val("value") != t - last[tid]) { print "duration", val("value"), "not", t - last[tid]; bad = 1 }
			last[tid] = t }
		END { if (nt != 2) { print nt, "traces"; bad = 1 }
			for (x in n) printf "thread %s: %d events of %s\n", x, n[x], fn[x]
			exit bad }' "$P.dump"
}
check "two threads: each its 2N events of its function, enter and exit alternating, durations exact" per_thread

ring() {
	local m=3000 want
	RT_ENV="SPYRT_TRACE=ping,pong,many" rt_run "$P" $N $m || return 1
	want="events=4096 dropped=$((2 * N + 2 * m - 4096))"
	rt_dump "$P.out" | grep '^trace ' | tee "$P.tr"
	grep -q "^trace kind=calls tid=[0-9]* $want\$" "$P.tr" &&
		[ "$(rt_dump "$P.out" | awk '$1 == "tevent" && / func=many /' | wc -l)" = 4096 ]
}
check "the ring keeps the last 4096 events and counts the ones it dropped" ring

untraced() {
	rt_run "$P" $N 0 || return 1
	! rt_dump "$P.out" | grep -q '^trace'
}
check "without SPYRT_TRACE: no TRACE record" untraced

refused() {
	local v=$1 want=$2
	shift 2
	rm -f "$P.out"
	env "$@" SPYRT_TRACE="$v" SPYRT_OUT="$P.out" "$P" 2 0 >/dev/null 2>"$P.err"
	cat "$P.err"
	[ "$(wc -l <"$P.err")" = 1 ] && grep -q "$want" "$P.err" && [ -s "$P.out" ] && ! rt_dump "$P.out" | grep -q '^trace'
}
check "SPYRT_TRACE=ping,,pong: one line, no trace" refused "ping,,pong" "^spy: SPYRT_TRACE='ping,,pong' is not a list"
check "SPYRT_TRACE in mode arcs: one line, no trace" refused "ping" "^spy: SPYRT_TRACE needs SPYRT_MODE=time" SPYRT_MODE=arcs

nosuch() {
	RT_ENV="SPYRT_TRACE=ping,nosuch" rt_run "$P" 2 0
	rt_dump "$P.out" | grep -E '^error|^trace'
	rt_dump "$P.out" | grep -qx 'error SPYRT_TRACE=nosuch: no instrumented function has that name' &&
		[ "$(rt_dump "$P.out" | grep -c '^tevent .* func=ping ')" = 4 ]
}
check "a name no function has: the profile's error; the others traced" nosuch
tap_done
