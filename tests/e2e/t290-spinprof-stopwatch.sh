#!/bin/bash
# t290: spinprof --stopwatch[=FUNC,...] prints each function's outermost calls as SystemTap's
# @hist_log does, from the stopwatch of samples/stopwatch.c's profile (t150 checks the file against
# the program's own times): its count, min, max, average and standard deviation are the file's
# (recomputed here from the dump's sums), in cycles and in microseconds at the file's tsc_hz; every
# histogram row's value is its bucket's 2^b, its count the bucket's, its bar count * 50 / the largest
# count '@'s; empty buckets show one either side; --stopwatch alone lists the functions by total
# time. The default report's Stopwatch table says the same in microseconds. -s sums two runs: every
# bucket is the two runs' counts added. A function not in the profile, a profile of mode arcs and one written before
# revision 3 are one line "spinprof: FILE: ..." and status 2.
. "$(dirname "$0")/lib-runtime.sh"
. "$(dirname "$0")/lib-spinprof.sh"
rt_setup
[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
tap_plan 9

P=$T/stopwatch
if ! check "samples/stopwatch.c builds" rt_cc "$P" "$CC" "$SAMPLES/stopwatch.c"; then
	for _ in $(seq 8); do not_ok "not built"; done
	tap_done
fi
# a run no interrupt pushed out of its buckets (the sample says so, status 3), in up to 20 tries as t150
# (a run takes milliseconds; under ASan on a busy machine 5 in a row were disturbed). Under ThreadSanitizer
# the sanitized hooks cost more than the sample allows, so every run is disturbed: any run with a
# profile (what is checked here is spinprof against the file; t150 checks the file), and the two runs
# summed are one run twice, whose buckets do double.
run_ok() {
	local i rc
	for ((i = 1; i <= 20; i++)); do
		rm -f "$1"
		SPYRT_WATCH=none SPYRT_OUT="$1" "$P" >/dev/null 2>&1
		rc=$?
		[ -s "$1" ] && { [ $rc -eq 0 ] || { [ -n "$SPY_TSAN" ] && [ $rc -eq 3 ]; }; } && return 0
	done
	return 1
}
run_ok "$P.out" && run_ok "$P.out2" || { echo "Bail out! no undisturbed run in 20"; exit 1; }
[ -z "$SPY_TSAN" ] || cp "$P.out" "$P.out2"
"$T/gmon-dump" "$P.out" >"$P.dump"

# the stopwatch of FUNC as "n min max avg stddev hz" and its buckets "b:count,...", from the dump
want_stats() {
	awk -v f="$2" '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "times" { hz = val("tsc_hz") }
		$1 == "time" && val("func") == f { n += val("outer"); s += val("outer_sum"); q += val("outer_sq_hi") * 18446744073709551616 + val("outer_sq_lo")
			if (mn == "" || val("outer_min") + 0 < mn) mn = val("outer_min") + 0; if (val("max") + 0 > mx) mx = val("max") + 0 }
		END { m = s / n; v = q / n - m * m; printf "%d %d %d %.0f %.0f %s\n", n, mn, mx, m, (v > 0 ? sqrt(v) : 0), hz }' "$1"
}

# spinprof's numbers for FUNC: "n min max avg stddev" from its count line, then its rows "value count bar"
got_block() {
	awk -v f="$2" '
		$0 ~ "^" f " \\(" || $0 == f ":" { on = 1; next }
		on && /^$/ { exit }
		on && /^  count / { gsub(",", ""); print "stats", $2, $4, $8, $6, $10 }
		on && /^  min .*microseconds$/ { gsub(",", ""); print "us", $2, $4, $6, $8 }
		on && / \|/ && !/\|-/ { split($0, a, "|"); v = a[1]; gsub(/ /, "", v); bar = a[2]; sub(/ [0-9]+$/, "", bar); n = gsub(/@/, "@", bar); c = $NF; print "row", v, c, n }
		on && /^ *~$/ { print "gap" }' "$1"
}

stats_spin() {
	"$SPINPROF" --stopwatch=spin "$P.out" >"$P.sw" 2>"$P.err" || { cat "$P.err"; return 1; }
	local w g
	read -r n mn mx avg sd hz <<<"$(want_stats "$P.dump" spin)"
	g=$(got_block "$P.sw" spin | grep '^stats')
	echo "want $n $mn $mx $avg $sd; got $g"
	read -r _ gn gmn gmx gavg gsd <<<"$g"
	[ "$gn" = "$n" ] && [ "$gmn" = "$mn" ] && [ "$gmx" = "$mx" ] &&
		awk -v a="$gavg" -v b="$avg" -v c="$gsd" -v d="$sd" 'BEGIN { exit !((a - b) ^ 2 <= 1 && (c - d) ^ 2 <= 1) }'
	# and the microseconds
	g=$(got_block "$P.sw" spin | grep '^us')
	echo "us: $g"
	read -r _ umn uavg umx usd <<<"$g"
	awk -v hz="$hz" -v mn="$mn" -v mx="$mx" -v avg="$avg" -v sd="$sd" -v a="$umn" -v b="$uavg" -v c="$umx" -v d="$usd" '
		function near(x, y) { return (x - y) ^ 2 <= 0.0011 ^ 2 }
		BEGIN { exit !(near(a, mn * 1e6 / hz) && near(b, avg * 1e6 / hz) && near(c, mx * 1e6 / hz) && near(d, sd * 1e6 / hz)) }'
}
check "--stopwatch=spin: count, min, max, average, stddev in cycles and microseconds" stats_spin

# rows: the used buckets' counts exactly, one empty row either side, bars scaled to 50
hist_rows() {
	local hist
	hist=$(awk '$1 == "time" && / func=spin / { for (i = 2; i <= NF; i++) if (index($i, "outer_hist=") == 1) print substr($i, 12) }' "$P.dump")
	echo "file: $hist"
	got_block "$P.sw" spin | awk -v h="$hist" '
		BEGIN { n = split(h, a, ","); for (i = 1; i <= n; i++) { split(a[i], kv, ":"); c[kv[1]] = kv[2]; if (kv[2] + 0 > mx) mx = kv[2] + 0; if (lo == "" || kv[1] + 0 < lo) lo = kv[1] + 0; if (kv[1] + 0 > hi) hi = kv[1] + 0 } }
		$1 == "row" { b = -1; for (k = 0; k < 40; k++) if ((k ? 2 ^ k : 0) == $2 + 0) b = k
			want = (b in c) ? c[b] : 0; bar = int(want * 50 / mx); if (want && !bar) bar = 1
			if (b < 0 || $3 != want || $4 != bar) { print "bad row:", $0, "want", want, bar; bad = 1 }
			seen[b] = 1; if (first == "") first = b; last = b }
		END { for (k in c) if (!(k in seen)) { print "bucket", k, "missing"; bad = 1 }
			if (first != lo - 1 || last != hi + 1) { print "rows", first, "to", last, "want", lo - 1, "to", hi + 1; bad = 1 }
			exit bad }'
	grep -qE '^ +value \|-{50} count$' "$P.sw"
}
check "--stopwatch=spin: @hist_log rows: value 2^b, the bucket's count, its bar" hist_rows

order() {
	local want got
	"$SPINPROF" --stopwatch "$P.out" >"$P.all" 2>"$P.err" || { cat "$P.err"; return 1; }
	want=$(awk '$1 == "time" { f = ""; s = 0; for (i = 2; i <= NF; i++) { if (index($i, "func=") == 1) f = substr($i, 6); if (index($i, "outer_sum=") == 1) s = substr($i, 11) } print s, f }' "$P.dump" | sort -k1,1nr | awk '{ print $2 }' | paste -sd' ')
	got=$(grep -E '^[a-z_]+ \(' "$P.all" | awk '{ print $1 }' | paste -sd' ')
	echo "want $want; got $got"
	[ "$want" = "$got" ] && [ "$(got_block "$P.all" rec | grep '^stats' | cut -d' ' -f2)" = 3 ]
}
check "--stopwatch: every function, by total time; rec's 3 outermost calls" order

report() {
	"$SPINPROF" "$P.out" >"$P.txt" 2>"$P.err" || { cat "$P.err"; return 1; }
	local l
	l=$(awk '/^Stopwatch: the outermost calls of the/ { on = 1 } on && $NF == "spin" { print; exit }' "$P.txt")
	echo "report: $l"
	read -r n mn mx avg sd hz <<<"$(want_stats "$P.dump" spin)"
	read -r rn rmn ravg rmx rsd _ <<<"$l"
	awk -v hz="$hz" -v n="$n" -v mn="$mn" -v mx="$mx" -v avg="$avg" -v sd="$sd" -v rn="$rn" -v a="$rmn" -v b="$ravg" -v c="$rmx" -v d="$rsd" '
		function near(x, y) { return (x - y) ^ 2 <= 0.0011 ^ 2 }
		BEGIN { exit !(n == rn && near(a, mn * 1e6 / hz) && near(b, avg * 1e6 / hz) && near(c, mx * 1e6 / hz) && near(d, sd * 1e6 / hz)) }'
}
check "the default report's Stopwatch table: spin's count, min, avg, max, stddev in microseconds" report

summed() {
	(cd "$T" && "$SPINPROF" -s "$P.out" "$P.out2" >/dev/null 2>"$P.err") || { cat "$P.err"; return 1; }
	"$T/gmon-dump" "$T/gmon.sum" >"$P.sumdump" || return 1
	grep -qE '^end revision=([3-9]|[1-9][0-9]) ' "$P.sumdump" || { echo "gmon.sum not of revision 3 or later"; return 1; }
	"$SPINPROF" --stopwatch=spin "$T/gmon.sum" >"$P.sumsw" || return 1
	"$SPINPROF" --stopwatch=spin "$P.out2" >"$P.sw2" || return 1
	# each bucket of the sum is the two runs' counts added (an interruption the program cannot see
	# may move a call of one run to a neighbouring bucket: the runs need not be alike)
	diff <(got_block "$P.sumsw" spin | awk '$1 == "row" && $3 > 0 { print $2, $3 }') \
		<({ got_block "$P.sw" spin; got_block "$P.sw2" spin; } |
			awk '$1 == "row" { n[$2] += $3 } END { for (v in n) if (n[v] > 0) print v, n[v] }' | sort -n)
}
check "-s: two runs summed, each bucket's count the sum of the runs' counts" summed

errs() {
	local f=$1 rc
	shift
	"$SPINPROF" "$@" >"$T/e.out" 2>"$T/e.err"
	rc=$?
	cat "$T/e.err"
	# (a profile whose binary is gone also has the reader's warning about it)
	grep -v '^spinprof: warning: ' "$T/e.err" >"$T/e.err1"
	[ $rc -eq 2 ] && [ ! -s "$T/e.out" ] && [ "$(wc -l <"$T/e.err1")" -eq 1 ] && grep -q "^spinprof: $f: " "$T/e.err1"
}
arcs() {
	SPYRT_MODE=arcs SPYRT_OUT="$P.arcs" "$P" 11:1 >/dev/null 2>&1
	errs "$P.arcs" --stopwatch "$P.arcs"
}
check "--stopwatch=nosuch: one line, status 2" errs "$P.out" --stopwatch=spin,nosuch "$P.out"
check "--stopwatch of a mode arcs profile: one line, status 2" arcs
old() {
	local f=$SPY_SRC/tests/fuzz/corpus/fuzz-gmon-decode/rev1-threads-time
	errs "$f" --stopwatch "$f" || return 1
	"$SPINPROF" "$f" >"$T/old.txt" 2>/dev/null && ! grep -q '^Stopwatch' "$T/old.txt"
}
check "a revision 1 file: --stopwatch is one line, status 2; its report has no Stopwatch" old
tap_done
