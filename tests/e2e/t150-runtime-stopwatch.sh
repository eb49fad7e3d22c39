#!/bin/bash
# t150: the stopwatch (format revision 3): samples/stopwatch.c calls spin for 1.5 * 2^B cycles, N
# times per class B:N, and rec(3) three times (12 calls, 3 outermost, each around one spin in bucket
# 18). Each function time's outermost-call histogram must hold exactly those counts in exactly those
# buckets; rec's every-call histogram its 12 calls, its outermost one 3. spin times its own calls:
# the hooks' count, min, max, sum and sum of squares may exceed what spin saw only by the hooks' own
# cost per call (D cycles, far above the calibrated cost of the header). A run that an interrupt
# pushed past the middle of a bucket (the program says "disturbed", status 3) is run again, up to 20
# times (a run takes milliseconds; on a busy machine 5 runs in a row were disturbed); the runs are not
# sampled (SPYRT_WATCH=none), so that no tick of the profiler's lands between a hook's time stamp and
# spin's own, where spin cannot see it. Mode arcs writes no stopwatch.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 7

P=$T/stopwatch
CLASSES="11:7 14:5 17:3 19:2"
D=4000 # samples/stopwatch.c's SPY_HOOKS_MAX: the hooks of a call on cold caches
if ! check "samples/stopwatch.c builds" rt_cc "$P" "$CC" "$SAMPLES/stopwatch.c"; then
	for _ in $(seq 6); do not_ok "not built"; done
	tap_done
fi

# Under ThreadSanitizer the hooks are sanitized code, far slower than SPY_HOOKS_MAX cycles: every run is
# disturbed (status 3), and the times it holds say nothing of the stopwatch's accuracy. Its file and
# the mode arcs point still hold; the points on times skip.
TSAN_TIMES="its hooks cost more than SPY_HOOKS_MAX cycles, so every run is disturbed and no time is the stopwatch's own"

# run the sample until a run is not disturbed (under TSan: one run, disturbed or not, with a profile)
undisturbed() {
	local i rc
	for ((i = 1; i <= 20; i++)); do
		rm -f "$P.out"
		# shellcheck disable=SC2086
		SPYRT_WATCH=none SPYRT_OUT="$P.out" "$P" $CLASSES >"$P.stdout" 2>"$P.stderr"
		rc=$?
		[ $rc -eq 0 ] && [ -s "$P.out" ] && return 0
		[ $rc -eq 3 ] || { echo "status $rc"; cat "$P.stderr"; return 1; }
		[ -z "$SPY_TSAN" ] || { [ -s "$P.out" ] && return 0; }
		echo "run $i disturbed"
	done
	return 1
}
if ! check "an undisturbed run in 20$([ -z "$SPY_TSAN" ] || echo " (under ThreadSanitizer: a run, $TSAN_TIMES)")" undisturbed; then
	for _ in $(seq 5); do not_ok "no run"; done
	tap_done
fi
rt_dump "$P.out" >"$P.dump"

# timeline FUNC KEY: KEY= of FUNC's function time
tf() { awk -v f="$2" -v k="$3" '$1 == "time" { v = ""; ok = 0; for (i = 2; i <= NF; i++) { if ($i == "func=" f) ok = 1; if (index($i, k "=") == 1) v = substr($i, length(k) + 2) } if (ok) { print v; exit } }' "$1"; }

# the file's revision is the writer's (3 brought the stopwatch)
REV=$(sed -n 's/^#define GMON_SPY_MINOR \([0-9]*\)u$/\1/p' "$SPY_SRC/common/gmon-format.h")
revision() {
	[ "${REV:-0}" -ge 3 ] && grep -E "^end revision=$REV " "$P.dump" && grep -E '^thread .*flags=[a-z,]*stopwatch,' "$P.dump"
}
check "the file is of the current revision ($REV, 3 or later) and its thread has stopwatches" revision

# the expected outermost histogram of spin: the classes, and rec's 3 spins in bucket 18
buckets() {
	local want got
	[ -z "$SPY_TSAN" ] || return 0
	want=$(for c in $CLASSES 18:3; do echo "$c"; done | sort -t: -k1,1n | paste -sd,)
	got=$(tf "$P.dump" spin outer_hist)
	echo "spin outer_hist $got, want $want; outer $(tf "$P.dump" spin outer) calls $(tf "$P.dump" spin calls)"
	[ "$got" = "$want" ] && [ "$(tf "$P.dump" spin outer)" = 20 ] && [ "$(tf "$P.dump" spin calls)" = 20 ]
}
check "spin: each bucket holds exactly its class's calls$(tsan_skip "$TSAN_TIMES")" buckets

recursion() {
	local l
	[ -z "$SPY_TSAN" ] || return 0
	l=$(grep -E '^time .*func=rec ' "$P.dump")
	echo "$l"
	[ "$(tf "$P.dump" rec calls)" = 12 ] && [ "$(tf "$P.dump" rec hist)" = 18:12 ] &&
		[ "$(tf "$P.dump" rec outer)" = 3 ] && [ "$(tf "$P.dump" rec outer_hist)" = 18:3 ] &&
		[ "$(tf "$P.dump" rec outer_min)" -gt "$(tf "$P.dump" rec min)" ] &&
		[ "$(tf "$P.dump" rec outer_sum)" = "$(tf "$P.dump" rec incl)" ]
}
check "rec: 12 calls in bucket 18, of which the 3 outermost are the stopwatch's$(tsan_skip "$TSAN_TIMES")" recursion

# spin's statistics against what spin measured itself, each at most D cycles a call more
statistics() {
	[ -z "$SPY_TSAN" ] || return 0
	awk -v D=$D -v n="$(tf "$P.dump" spin outer)" -v mn="$(tf "$P.dump" spin outer_min)" \
		-v mx="$(tf "$P.dump" spin max)" -v sum="$(tf "$P.dump" spin outer_sum)" \
		-v hi="$(tf "$P.dump" spin outer_sq_hi)" -v lo="$(tf "$P.dump" spin outer_sq_lo)" '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "class" { c += val("calls"); s += val("sum"); q += val("sumsq")
			if (omn == "" || val("min") + 0 < omn) omn = val("min") + 0
			if (val("max") + 0 > omx) omx = val("max") + 0 }
		function within(what, got, lo_, hi_) {
			printf "%s: %s in [%s, %s]\n", what, got, lo_, hi_
			if (got < lo_ || got > hi_) bad = 1
		}
		END {
			n += 0; mn += 0; mx += 0; sum += 0; sq = hi * 18446744073709551616 + lo
			within("count", n, c, c); within("min", mn, omn, omn + D); within("max", mx, omx, omx + D)
			within("sum", sum, s, s + c * D); within("sum of squares", sq, q, q + 2 * D * s + c * D * D)
			exit bad
		}' "$P.stdout"
}
check "spin: count, min, max, sum and sum of squares are spin's own, plus at most $D cycles a call$(tsan_skip "$TSAN_TIMES")" statistics

arcs_mode() {
	SPYRT_MODE=arcs SPYRT_OUT="$P.arcs" "$P" 11:1 >/dev/null 2>&1
	[ -s "$P.arcs" ] || { echo "no profile"; return 1; }
	rt_dump "$P.arcs" | grep -E '^thread|^time'
	! rt_dump "$P.arcs" | grep -qE '^thread .*flags=[a-z,]*stopwatch,|^time '
}
check "mode arcs: no stopwatch" arcs_mode
tap_done
