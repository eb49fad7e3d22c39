#!/bin/bash
# t208: the Spy report's options. A bad --cutoff (not a number, negative, above 100, nan, inf, empty,
# trailing junk) is one line "spinprof: --cutoff=VALUE: ..." and status 2, before any file is read;
# 0, 2.5 and 100 are taken; --spy and --threads on a gcc -pg profile (GNU mode) are one line naming the
# file and status 2; --help lists the new options.
. "$(dirname "$0")/lib-spinprof.sh"

sp_setup

tap_plan 5

bad_cutoffs() {
	local v err rc
	for v in abc -1 101 nan inf '' 5x 1e9 ' 7' 0x10 . 1..2; do
		err=$("$SPINPROF" --spy "--cutoff=$v" /nonexistent/gmon.out 2>&1 >/dev/null)
		rc=$?
		if [ $rc != 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" != 1 ] || [[ $err != "spinprof: --cutoff=$v: "?* ]]; then
			echo "--cutoff='$v': status $rc, stderr: $err"
			return 1
		fi
	done
}
check "a bad --cutoff is one line naming it, status 2" bad_cutoffs

good_cutoffs() {
	local v err
	for v in 0 2.5 100; do
		# accepted: the error is then about the missing file, not the option
		err=$("$SPINPROF" --spy "--cutoff=$v" "$T/none.out" 2>&1 >/dev/null)
		[[ $err == "spinprof: $T/none.out: "* ]] || { echo "--cutoff=$v: $err"; return 1; }
	done
}
check "--cutoff=0, 2.5 and 100 are accepted" good_cutoffs

gnu() {
	$CC -O2 -pg -I"$SAMPLES" "$SAMPLES/calls.c" -o "$T/calls" $SPY_SAN_FLAGS >"$T/calls.log" 2>&1 ||
		{ cat "$T/calls.log"; return 1; }
	(cd "$T" && ./calls >/dev/null) || return 1
	[ -s "$T/gmon.out" ] || { echo "no gmon.out"; return 1; }
	local opt err rc
	for opt in --spy --threads; do
		err=$("$SPINPROF" $opt "$T/calls" "$T/gmon.out" 2>&1 >/dev/null)
		rc=$?
		[ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == "spinprof: $T/gmon.out: "?* ]] ||
			{ echo "$opt: status $rc, stderr: $err"; return 1; }
	done
}
check "--spy and --threads on a gcc -pg profile: one line naming it, status 2" gnu

gnu_default() {
	"$SPINPROF" -b "$T/calls" "$T/gmon.out" >"$T/gnu.txt" 2>"$T/gnu.err" || { cat "$T/gnu.err"; return 1; }
	! grep -q 'Spy report\|Breakdown of' "$T/gnu.txt"
}
check "GNU mode's report has no Spy part" gnu_default

check "--help lists --spy, --threads and --cutoff" bash -c "'$SPINPROF' --help | grep -q -- '--spy' && '$SPINPROF' --help | grep -q -- '--threads' && '$SPINPROF' --help | grep -q -- '--cutoff=PCT'"

tap_done
