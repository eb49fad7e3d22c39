#!/bin/bash
# t278: spinprof --diff OLD NEW compares two spy profiles function by function, matched by name. A
# program whose main calls mid(3) N times (so mid N, leaf 3N) and a function 5 times, named gone in
# one build and renamed in the other, run with N = 10 (old) and 25 (new): in count mode the rows are
# exactly leaf 30 75 +45 2.500, mid 10 25 +15 2.500, gone 5 - -5 (only old), renamed - 5 +5 (only new),
# main 1 1 +0 1.000, in that order (the largest change first, then by name). In time mode the same
# calls, both command lines in the headers side by side, and the rows in order of the change of
# total time; a profile against itself changes nothing. Wrong operands and options: one line, status 2.
. "$(dirname "$0")/lib-diff.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

tap_plan 8

cd "$T" || exit 1
diff_prog >prog.c

build() {
	rt_cc "$T/old" "$CC" -DGONE=gone prog.c && rt_cc "$T/new" "$CC" -DGONE=renamed prog.c || return 1
	RT_ENV="SPYRT_MODE=count SPYRT_WATCH=none" rt_run "$T/old" 10 && RT_ENV="SPYRT_MODE=count SPYRT_WATCH=none" rt_run "$T/new" 25 || return 1
	mv old.out c-old.out && mv new.out c-new.out
	rt_run "$T/old" 10 && rt_run "$T/new" 25
}
if ! check "two builds of the program run with 10 and 25, in count and time mode" build; then
	for _ in $(seq 7); do not_ok "(not built)"; done
	tap_done
fi

run_diff() {
	local out=$1
	shift
	"$SPINPROF" --diff "$@" >"$out" 2>"$out.err" || { echo "status $?"; cat "$out.err"; return 1; }
	[ ! -s "$out.err" ] || { cat "$out.err"; return 1; }
}

count_rows() {
	run_diff count.txt c-old.out c-new.out || return 1
	diff <(printf '%s\n' "$DIFF_WANT") <(diff_rows count.txt)
}
check "count mode: leaf +45, mid +15, gone only old, renamed only new, main +0, the largest change first" count_rows

time_rows() {
	run_diff time.txt old.out new.out || return 1
	diff <(printf '%s\n' "$DIFF_WANT" | sort) <(diff_rows time.txt | sort)
}
check "time mode: the same calls, differences and ratios" time_rows

headers() {
	grep -Eq "^command +$T/old 10 +$T/new 25\$" time.txt || { grep '^command' time.txt; return 1; }
	grep -Eq '^kind +spy, mode time +spy, mode time$' time.txt || { grep '^kind' time.txt; return 1; }
	grep -Eq '^calls +46 +106$' time.txt || { grep '^calls' time.txt; return 1; }
}
check "the headers side by side: both command lines, modes, and all calls (46, 106)" headers

order() {
	# the total diff column (the 8th number from the end) does not grow down the table
	awk '/^ +self old +self new/ { on = 1; next }
		on && NF >= 13 { d = $(NF - 6); if (d == "-") d = 0; d = d < 0 ? -d : d
			if (n++ && d > prev + 1e-9) { print "row " $NF ": |total diff| " d " after " prev; bad = 1 }
			prev = d }
		END { exit bad || n != 5 }' time.txt
}
check "time mode: rows in order of the change of total time" order

same() {
	run_diff same.txt old.out old.out || return 1
	awk '/^ +self old +self new/ { on = 1; next }
		on && NF >= 13 { if (substr($0, 1, 1) != " " || $(NF - 2) != "+0" || $(NF - 1) != "1.000" || ($(NF - 6) + 0) != 0 || ($(NF - 10) + 0) != 0) { print; bad = 1 } }
		END { exit bad }' same.txt
}
check "a profile against itself: every difference 0, every ratio of calls 1" same

errors() {
	local args err rc
	for args in "old.out" "old.out new.out c-old.out" "-p old.out new.out" "--format=json old.out new.out" \
		"old.out missing.out" "--dump old.out new.out"; do
		# shellcheck disable=SC2086
		err=$("$SPINPROF" --diff $args 2>&1 >/dev/null)
		rc=$?
		[ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ $err == spinprof:* ]] ||
			{ echo "--diff $args: status $rc: $err"; return 1; }
	done
	"$SPINPROF" --diff old.out missing.out 2>&1 | grep -q '^spinprof: missing.out: '
}
check "one run, three runs, a report option, --format, --dump, a missing file: one line, status 2" errors

helps() { "$SPINPROF" --help | grep -q -- '--diff OLD NEW' && "$SPINPROF" --no-such-option 2>&1 | grep -q -- '--diff'; }
check "--help and the usage line name --diff" helps

tap_done
