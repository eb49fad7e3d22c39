#!/bin/bash
# t250: the report of a time profile with off-CPU time (samples/offcpu.c: waiter blocks 400 ms, late
# sleeps 200 ms, burner spins 300 ms of CPU time, main waits in pthread_join): the flat profile's
# seconds are CPU seconds, so burner comes first and waiter, late and main have about 0 self seconds;
# their waits are in the off cpu column (flat: self; call graph: per function and per arc, inclusive),
# and the header gives the total, split into blocked and preempted. `-s` keeps all of it (the file
# summed with itself doubles every off-CPU number). A file of format revision 1 (no off-CPU time)
# still reads, without the column, and the header says its times are wall time.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup
tap_plan 6

P=$T/offcpu
run_it() {
	rt_cc "$P" "$CC" "$SAMPLES/offcpu.c" || return 1
	RT_ENV="SPYRT_MODE=time SPYRT_WATCH=none" rt_run "$P" || return 1
	"$SPINPROF" -b "$P.out" >"$P.txt" 2>"$P.err" || { echo "spinprof: status $?"; cat "$P.err"; return 1; }
	cat "$P.stdout"
}
if ! sp_check "samples/offcpu builds, runs in time mode, spinprof reads it" run_it; then
	for _ in 1 2 3 4; do not_ok "offcpu (no profile)"; done
	tap_done
fi

# flat FILE NAME COLUMN: column COLUMN (self, off, calls) of NAME's flat-profile line
flat() {
	awk -v n="$2" -v c="$3" '
		/^Flat profile:/ { on = 1; next }
		on && /^\f/ { exit }
		on && $NF == n && NF == 8 { print c == "self" ? $3 : c == "off" ? $7 : $4; exit }' "$1"
}
# graph FILE NAME: the off cpu column of NAME's own line [N] in the call graph
graph() {
	awk -v n="$2" '/^index % time/ { on = 1 } on && /^\[[0-9]+\]/ && $(NF - 1) == n { print $(NF - 2); exit }' "$1"
}
# arcoff FILE PARENT CHILD: the off cpu column of CHILD's line under PARENT's entry
arcoff() {
	awk -v p="$2" -v c="$3" '/^index % time/ { on = 1 } on && /^\[[0-9]+\]/ { cur = $(NF - 1); next }
		on && cur == p && $(NF - 1) == c { print $(NF - 2); exit }' "$1"
}
near() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { exit !(a != "" && a - b <= d && b - a <= d) }'; }

flat_cpu() {
	local first
	first=$(awk '/^Flat profile:/ { on = 1 } on && NF == 8 && $1 ~ /^[0-9.]+$/ { print $NF; exit }' "$P.txt")
	echo "first row: $first; waiter self $(flat "$P.txt" waiter self) off $(flat "$P.txt" waiter off)," \
		"late self $(flat "$P.txt" late self) off $(flat "$P.txt" late off), main self $(flat "$P.txt" main self)" \
		"off $(flat "$P.txt" main off), burner self $(flat "$P.txt" burner self)"
	grep -q '^  %   cumulative   self              self     total   off cpu' "$P.txt" &&
		[ "$first" = burner ] && near "$(flat "$P.txt" burner self)" 0.30 0.03 &&
		near "$(flat "$P.txt" waiter self)" 0 0.01 && near "$(flat "$P.txt" waiter off)" 0.41 0.03 &&
		near "$(flat "$P.txt" late self)" 0 0.01 && near "$(flat "$P.txt" late off)" 0.20 0.03 &&
		near "$(flat "$P.txt" main self)" 0 0.01 && awk -v m="$(flat "$P.txt" main off)" 'BEGIN { exit !(m >= 0.55) }'
}
check "flat profile: CPU seconds (burner first, the waiters about 0), waits in the off cpu column" flat_cpu

graph_off() {
	echo "wthread $(graph "$P.txt" wthread), wthread->waiter $(arcoff "$P.txt" wthread waiter)," \
		"wthread->late $(arcoff "$P.txt" wthread late), late->leaf $(arcoff "$P.txt" late leaf)," \
		"waiter's parent $(awk '/^index % time/ { on = 1 } on && $(NF - 1) == "wthread" && !/^\[/ { print $(NF - 2); exit }' "$P.txt")"
	grep -q '^index % time    self  children    called     off cpu  name' "$P.txt" &&
		near "$(graph "$P.txt" wthread)" 0.61 0.05 && near "$(arcoff "$P.txt" wthread waiter)" 0.41 0.03 &&
		near "$(arcoff "$P.txt" wthread late)" 0.20 0.03 && near "$(arcoff "$P.txt" late leaf)" 0 0.005
}
check "call graph: off cpu per function (inclusive) and per arc" graph_off

header() {
	local l
	l=$(grep '^off CPU: ' "$P.txt")
	echo "$l"
	# blocked: waiter 0.4 + late 0.2 + main's joins about 0.6 (on a loaded machine more is preempted)
	[ "$(grep -c '^off CPU: ' "$P.txt")" = 1 ] &&
		awk -v l="$l" 'BEGIN {
			if (!match(l, /^off CPU: [0-9.]+ seconds, of which blocked [0-9.]+ s, preempted [0-9.]+ s \([0-9]+ intervals\); times are CPU time$/)) exit 1
			split(l, w, " "); t = w[3]; b = w[8]; p = w[11]
			exit !(b >= 1.1 && t >= b + p - 0.000002 && t <= b + p + 0.000002)
		}'
}
check "header: the off-CPU total, blocked and preempted" header

summed() {
	(cd "$T" && "$SPINPROF" -b -s "$P.out" "$P.out" >"$T/sum.txt" 2>"$T/sum.err") || { cat "$T/sum.err"; return 1; }
	"$SPINPROF" -b "$T/gmon.sum" >"$T/sum2.txt" 2>>"$T/sum.err" || { cat "$T/sum.err"; return 1; }
	echo "waiter off: $(flat "$P.txt" waiter off) alone, $(flat "$T/sum2.txt" waiter off) summed; wthread->late $(arcoff "$T/sum2.txt" wthread late)"
	near "$(flat "$T/sum2.txt" waiter off)" "$(awk -v a="$(flat "$P.txt" waiter off)" 'BEGIN { print 2 * a }')" 0.011 &&
		near "$(arcoff "$T/sum2.txt" wthread late)" "$(awk -v a="$(arcoff "$P.txt" wthread late)" 'BEGIN { print 2 * a }')" 0.011 &&
		diff <(sed 1d "$T/sum.txt") <(sed 1d "$T/sum2.txt")
}
check "-s: the sum keeps the off-CPU times and reads back the same" summed

old() {
	local f=$SPY_SRC/tests/fuzz/corpus/fuzz-gmon-decode/rev1-threads-time o
	[ "$(od -An -tu4 -j8 -N4 "$f" | tr -d ' ')" = 1 ] || { echo "$f: not of revision 1"; return 1; }
	o=$("$SPINPROF" -b "$f" 2>/dev/null) || return 1
	grep '^off CPU' <<<"$o"
	grep -qx 'off CPU: not measured (the runtime that wrote the file did not measure it): times are wall time, time off the CPU included' <<<"$o" &&
		! grep -q 'off cpu' <<<"$o" && grep -q '^ time   seconds   seconds    calls  us/call  us/call  name' <<<"$o"
}
check "a revision 1 file: read, no off cpu column, its times said to be wall time" old
tap_done
