#!/bin/bash
# t291: spinprof --trace prints the TRACE records of samples/trace.c (SPYRT_TRACE=ping,pong,many;
# t151 checks the file): every event of both threads in one time order, which is the order the
# threads took turns in (ping 0, pong 0, ping 1, ...: enter then exit each, of main's thread and
# bthread's), each call site in the function that made the call (main, bthread), each exit's
# duration the file's value at its tsc_hz; a line per trace with its events and dropped events, and
# the total dropped when the ring overran. Two profiles (and -s) keep every trace. A profile without
# traces is one line "spinprof: FILE: ..." and status 2.
. "$(dirname "$0")/lib-runtime.sh"
. "$(dirname "$0")/lib-spinprof.sh"
rt_setup
[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
tap_plan 6

P=$T/trace
N=4
if ! check "samples/trace.c builds" rt_cc "$P" "$CC" "$SAMPLES/trace.c" -pthread; then
	for _ in $(seq 5); do not_ok "not built"; done
	tap_done
fi
RT_ENV="SPYRT_TRACE=ping,pong,many" rt_run "$P" $N 0 || { echo "Bail out! no profile"; exit 1; }
"$T/gmon-dump" "$P.out" >"$P.dump"
main_tid=$(awk '$1 == "thread" && /flags=main,/ { sub("tid=", "", $2); print $2 }' "$P.dump")

order() {
	"$SPINPROF" --trace "$P.out" >"$P.txt" 2>"$P.err" || { cat "$P.err"; return 1; }
	local want got
	want=$(for i in $(seq 0 $((N - 1))); do echo "enter ping main $main_tid"; echo "exit ping $main_tid"; echo "enter pong bthread"; echo "exit pong"; done)
	got=$(awk '$3 == "enter" || $3 == "exit" { site = ""; if ($3 == "enter") { site = $5; gsub(/[()]/, "", site); sub(/\+0x[0-9a-f]+$/, "", site) }
		print $3, $4, site, $2 }' "$P.txt" |
		awk -v m="$main_tid" '{ if ($1 == "enter" && $2 == "ping") print $1, $2, $3, ($4 == m ? m : "other")
			else if ($1 == "exit" && $2 == "ping") print $1, $2, ($3 == m ? m : "other")
			else if ($1 == "enter") print $1, $2, $3
			else print $1, $2 }')
	diff <(echo "$want") <(echo "$got") | head -20
	[ "$want" = "$got" ] && [ "$(awk '$3 == "enter" && $2 == "'"$main_tid"'"' "$P.txt" | wc -l)" = $N ]
}
check "--trace: both threads' events in the order they took turns, call sites in main and bthread" order

durations() {
	awk 'FNR == NR && $1 == "times" { for (i = 2; i <= NF; i++) if (index($i, "tsc_hz=") == 1) hz = substr($i, 8); next }
		FNR == NR && $1 == "tevent" && / what=1 / { for (i = 2; i <= NF; i++) if (index($i, "value=") == 1) v[++n] = substr($i, 7); next }
		FNR != NR && $3 == "exit" { k++; want = v[k] * 1e6 / hz; if (($NF - want) ^ 2 > 0.0011 ^ 2) { print "exit", k, $NF, "want", want; bad = 1 } }
		END { if (k != n || !n) { print k, "exits printed,", n, "in the file"; bad = 1 } exit bad }' <(awk '$1 != "tevent"' "$P.dump"; awk '$1 == "tevent"' "$P.dump" | awk '{ for (i = 2; i <= NF; i++) if (index($i, "time=") == 1) print substr($i, 6), $0 }' | sort -n | cut -d' ' -f2-) "$P.txt"
}
check "--trace: each exit's duration is the file's, in microseconds" durations

summary() {
	grep -E '^trace of calls, thread [0-9]+: ' "$P.txt"
	[ "$(grep -cE "^trace of calls, thread [0-9]+: $((2 * N)) events, 0 dropped\$" "$P.txt")" = 2 ] &&
		grep -qx "Trace: $((4 * N)) events in time order across threads, times in microseconds from the first" "$P.txt" || return 1
	RT_ENV="SPYRT_TRACE=ping,pong,many" rt_run "$P" $N 3000 || return 1
	"$SPINPROF" --trace "$P.out" >"$P.txt2" || return 1
	grep -E '^trace of calls|^dropped' "$P.txt2"
	local d=$((2 * N + 6000 - 4096))
	grep -qE "^trace of calls, thread [0-9]+: 4096 events, $d dropped \(the earliest: the ring keeps the last\)\$" "$P.txt2" &&
		grep -qx "dropped: $d events in all" "$P.txt2"
}
check "a line per trace: its events and dropped events; the total dropped" summary

summed() {
	RT_ENV="SPYRT_TRACE=ping,pong,many" rt_run "$P" $N 0 || return 1
	cp "$P.out" "$P.a"
	RT_ENV="SPYRT_TRACE=ping,pong,many" rt_run "$P" $N 0 || return 1
	(cd "$T" && "$SPINPROF" -s "$P.a" "$P.out" >/dev/null) || return 1
	"$SPINPROF" --trace "$T/gmon.sum" >"$P.sum" || return 1
	grep -c '^trace of calls' "$P.sum"
	[ "$(grep -c '^trace of calls' "$P.sum")" = 4 ] && [ "$(awk '$3 == "enter"' "$P.sum" | wc -l)" = $((4 * N)) ]
}
check "-s: two runs summed keep all four traces" summed

none() {
	RT_ENV= rt_run "$P" 1 0 || return 1
	"$SPINPROF" --trace "$P.out" >"$T/e.out" 2>"$T/e.err"
	local rc=$?
	cat "$T/e.err"
	[ $rc = 2 ] && [ ! -s "$T/e.out" ] && [ "$(wc -l <"$T/e.err")" = 1 ] && grep -q "^spinprof: $P.out: no trace" "$T/e.err"
}
check "a profile without traces: one line, status 2" none
tap_done
