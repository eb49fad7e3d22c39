#!/bin/bash
# t279: spinprof --diff on GNU data: each run is a gcc -pg program followed by its gmon.out
# (`--diff PROG1 gmon1 PROG2 gmon2`). t278's program, built twice with -pg (the function 5 times
# called gone in one build, renamed in the other) and run with 10 and 25: the rows are exactly
# leaf 30 75 +45, mid 10 25 +15, gone only old, renamed only new, as gprof counts them (main has no
# caller GNU's data records: gprof leaves it out, and so do both runs here). A spy profile against a
# GNU run compares by name too. A program without its gmon.out is one line and status 2.
. "$(dirname "$0")/lib-diff.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

tap_plan 5

cd "$T" || exit 1
diff_prog >prog.c

# gprof's calls per function of PROG GMON (the flat profile's calls column), as "NAME CALLS"
gprof_calls() { gprof -b -p "$1" "$2" | awk 'NF == 7 && $4 ~ /^[0-9]+$/ { print $7, $4 }' | sort; }

build() {
	mkdir -p g1 g2
	# shellcheck disable=SC2086
	$CC -O2 -pg -DGONE=gone prog.c -o g1/prog $SPY_SAN_FLAGS && $CC -O2 -pg -DGONE=renamed prog.c -o g2/prog $SPY_SAN_FLAGS || return 1
	(cd g1 && ./prog 10) && (cd g2 && ./prog 25) && [ -s g1/gmon.out ] && [ -s g2/gmon.out ]
}
if ! check "two -pg builds of the program run with 10 and 25" build; then
	for _ in $(seq 4); do not_ok "(not built)"; done
	tap_done
fi

rows() {
	"$SPINPROF" --diff g1/prog g1/gmon.out g2/prog g2/gmon.out >gnu.txt 2>gnu.err || { echo "status $?"; cat gnu.err; return 1; }
	[ ! -s gnu.err ] || { cat gnu.err; return 1; }
	# main is in neither run's table when gprof does not count it either
	local want=$DIFF_WANT
	if ! gprof_calls g1/prog g1/gmon.out | grep -q '^main '; then
		want=$(grep -v ' main ' <<<"$want")
	fi
	diff <(printf '%s\n' "$want") <(diff_rows gnu.txt)
}
check "--diff PROG1 gmon1 PROG2 gmon2: leaf +45, mid +15, gone only old, renamed only new" rows

gprof_agrees() {
	local side
	for side in 1 2; do
		gprof_calls "g$side/prog" "g$side/gmon.out" >"gprof$side.txt"
		[ -s "gprof$side.txt" ] || { echo "nothing parsed from gprof"; return 1; }
		diff "gprof$side.txt" <(diff_rows gnu.txt | awk -v s="$side" '{ c = s == 1 ? $3 : $4; if (c != "-") print $2, c }' | sort) ||
			{ echo "run $side"; return 1; }
	done
}
check "each run's calls are gprof's (the flat profile of each program and gmon.out)" gprof_agrees

mixed() {
	rt_cc "$T/spy" "$CC" -DGONE=gone prog.c && RT_ENV="SPYRT_MODE=count SPYRT_WATCH=none" rt_run "$T/spy" 10 || return 1
	"$SPINPROF" --diff spy.out g2/prog g2/gmon.out >mixed.txt 2>mixed.err || { echo "status $?"; cat mixed.err; return 1; }
	diff_rows mixed.txt | grep -qx '= leaf 30 75 +45 2.500' && diff_rows mixed.txt | grep -qx '= mid 10 25 +15 2.500' &&
		diff_rows mixed.txt | grep -qx '+ renamed - 5 +5 new' || { cat mixed.txt; return 1; }
	grep -Eq '^kind +spy, mode count +gcc -pg' mixed.txt || { grep '^kind' mixed.txt; return 1; }
}
check "a spy profile against a GNU run: matched by name, kinds side by side" mixed

no_gmon() {
	local err
	err=$("$SPINPROF" --diff g1/prog g1/gmon.out g2/prog 2>&1 >/dev/null)
	[ $? -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ $err == "spinprof: g2/prog: "* ]] || { echo "$err"; return 1; }
}
check "a program without its gmon.out: one line naming it, status 2" no_gmon

tap_done
