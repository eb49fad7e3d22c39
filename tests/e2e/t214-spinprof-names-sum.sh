#!/bin/bash
# t214: spinprof's names, summed profiles and granularity line.
# - A C++ spy profile (samples/exceptions.cc, time mode): with --no-demangle every function of the sample's
#   .expect is listed under its assembler name with its expected calls and arcs; the default report and
#   --demangle are that same report with every name demangled (c++filt, an independent demangler, maps the
#   one onto the other fact for fact), and show no mangled name of the sample.
# - -s over several spy profiles writes a gmon.sum that lists each function once (its count the sum), the
#   threads of both runs, and reads back to the report of the profiles given together; two different runs
#   as well as one profile given twice.
# - Profiles recorded in different modes (time and arcs) are refused, not summed.
# - The call graph's granularity line: in time mode the cycle's length (1e9 / the header's time-stamp
#   rate) and the seconds of all self times, in arcs mode that there are no times, and for a gcc -pg
#   program exactly gprof's line.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v c++filt >/dev/null || tap_skip_all "no c++filt"
rt_setup

# report NAME OUT OPT...: spinprof -b OPT... on $T/NAME.out into $T/OUT, with its facts in $T/OUT.facts
report() {
	local name=$1 out=$2
	shift 2
	"$SPINPROF" -b "$@" "$T/$name.out" >"$T/$out" 2>"$T/$out.err" ||
		{ echo "spinprof -b $* $name.out: status $?"; head "$T/$out.err"; return 1; }
	sp_facts "$T/$out" >"$T/$out.facts"
	[ -s "$T/$out.facts" ] || { echo "no facts parsed from spinprof -b $*"; return 1; }
}

build_run() {
	rt_sample "$1" "$T/$1" && RT_ENV=SPYRT_MODE=${2:-time} rt_run "$T/$1" && cp "$T/$1.out" "$T/$1-${2:-time}.out"
}

mangled_names() { awk '$1 == "func" && $2 ~ /^_Z/ { print $2 }' "$SAMPLES/exceptions.expect"; }

# every func of the sample's .expect has its calls in the flat profile (the sample has no recursion), and
# every arc is a parent line of its callee and a child line of its caller with its count
no_demangle() {
	report exceptions nodm.txt --no-demangle || return 1
	awk '
		FNR == NR {
			sub(/#.*/, "")
			if ($1 == "func") want["flat " $2] = $3
			if ($1 == "arc" && $2 != "<spontaneous>") {
				want["parent " $3 " " $2] = $4
				want["child " $2 " " $3] = $4
			}
			next
		}
		{ at = index($0, " = "); split(substr($0, at + 3), v, " "); got[substr($0, 1, at - 1)] = v[1] }
		END {
			for (k in want)
				if (got[k] != want[k]) { print k ": " (k in got ? got[k] : "(none)") ", want " want[k]; bad++ }
			exit bad != 0
		}' "$SAMPLES/exceptions.expect" "$T/nodm.txt.facts"
}

# demangled FILE: FILE's facts are nodm's with names demangled, and FILE shows no mangled sample name
demangled() {
	local n
	c++filt <"$T/nodm.txt.facts" | sort >"$T/nodm.dm.facts"
	diff "$T/nodm.dm.facts" "$T/$1.facts" || { echo "$1: not the --no-demangle report demangled"; return 1; }
	for n in $(mangled_names); do
		if grep -qF -- "$n" "$T/$1"; then
			echo "$1 shows $n"
			return 1
		fi
	done
	grep -q '^flat Counter::bump(int) = 4 ' "$T/$1.facts" || { echo "no Counter::bump(int) with 4 calls"; return 1; }
}

demangle_default() { report exceptions dflt.txt && demangled dflt.txt; }
demangle_opt() { report exceptions dm.txt --demangle && demangled dm.txt; }

# dump_funcs FILE: "NAME COUNT" per func record of FILE, and a line "threads N"
dump_funcs() {
	rt_dump "$1" | awk '
		$1 == "func" { for (i = 2; i <= NF; i++) if ($i ~ /^count=/) print $2, substr($i, 7) }
		$1 == "thread" { n++ }
		END { print "threads", n + 0 }' | sort
}

# sum_check A B: -s A B lists every function of A and B once with the summed count, both runs' threads,
# and reads back to the report of A and B given together (but for the header's file count)
sum_check() {
	local d=$T/sum.$RANDOM want
	mkdir -p "$d"
	(cd "$d" && "$SPINPROF" -s -b "$1" "$2" >ab.txt 2>ab.err) || { echo "spinprof -s: status $?"; cat "$d/ab.err"; return 1; }
	[ -s "$d/gmon.sum" ] || { echo "no gmon.sum"; return 1; }
	dump_funcs "$d/gmon.sum" >"$d/sum.funcs"
	want=$( (dump_funcs "$1" && dump_funcs "$2") |
		awk '{ c[$1] += $2 } END { for (k in c) print k, c[k] }' | sort)
	[ "$want" = "$(cat "$d/sum.funcs")" ] || { echo "gmon.sum's functions:"; cat "$d/sum.funcs"; echo "want:"; echo "$want"; return 1; }
	cut -d' ' -f1 "$d/sum.funcs" | sort | uniq -d | grep -q . && { echo "a function listed twice"; return 1; }
	"$SPINPROF" -b "$d/gmon.sum" >"$d/sum.txt" 2>"$d/sum.err" || { echo "spinprof gmon.sum: status $?"; return 1; }
	diff <(sed 1d "$d/sum.txt") <(sed 1d "$d/ab.txt") || { echo "gmon.sum's report differs from A B's"; return 1; }
}

sum_two_runs() {
	RT_ENV=SPYRT_MODE=time rt_run "$T/calls" && cp "$T/calls.out" "$T/calls-2.out" &&
		sum_check "$T/calls-time.out" "$T/calls-2.out"
}

granularity_time() {
	local hz line want
	"$SPINPROF" -b "$T/calls-time.out" >"$T/g-time.txt" 2>/dev/null || return 1
	hz=$(sed -n 's/^mode: time (time stamps at \([0-9]*\) Hz.*/\1/p' "$T/g-time.txt")
	[ -n "$hz" ] || { echo "no time-stamp rate in the header"; return 1; }
	line=$(grep '^granularity:' "$T/g-time.txt")
	want=$(awk -v hz="$hz" 'BEGIN { printf "one cycle %.3g ns;", 1e9 / hz }')
	[[ $line == "granularity: exact cycle counts, $want "*" seconds in all" ]] ||
		{ echo "got: $line"; echo "want: granularity: exact cycle counts, $want S seconds in all"; return 1; }
	# the seconds: the flat profile's self seconds, summed (each rounded to 0.01 there)
	awk -v l="$line" '
		/^Flat profile:/ { f = 1; next }
		f && $1 ~ /^[0-9]+\.[0-9]+$/ && $3 ~ /^[0-9]+\.[0-9]+$/ { s += $3; n++ }
		/^[ \t]*Call graph/ { f = 0 }
		END {
			nw = split(l, w, " "); t = w[nw - 3] + 0
			if (n == 0 || t - s > 0.01 * n || s - t > 0.01 * n) { print "seconds " t ", flat profile sums to " s; exit 1 }
		}' "$T/g-time.txt"
}

granularity_arcs() {
	local line
	"$SPINPROF" -b "$T/calls-arcs.out" >"$T/g-arcs.txt" 2>/dev/null || return 1
	line=$(grep '^granularity:' "$T/g-arcs.txt")
	[ "$line" = "granularity: exact call counts; no times in mode arcs" ] || { echo "got: $line"; return 1; }
}

granularity_gnu() {
	local d=$T/pg
	command -v gprof >/dev/null || { echo "no gprof"; return 1; }
	mkdir -p "$d"
	# shellcheck disable=SC2086
	$CC -O2 -pg -I"$SAMPLES" "$SAMPLES/calls.c" -o "$d/prog" $SPY_SAN_FLAGS >"$d/cc.log" 2>&1 ||
		{ echo "compile failed"; head "$d/cc.log"; return 1; }
	(cd "$d" && ./prog >/dev/null) && [ -s "$d/gmon.out" ] || { echo "calls -pg wrote no gmon.out"; return 1; }
	diff <(cd "$d" && gprof -b -q ./prog gmon.out | grep '^granularity') \
		<(cd "$d" && "$SPINPROF" -b -q ./prog gmon.out | grep '^granularity')
}

mixed_modes() {
	local rc=0
	"$SPINPROF" -b "$T/calls-time.out" "$T/calls-arcs.out" >"$T/mixed.txt" 2>"$T/mixed.err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/mixed.err")" = 1 ] &&
		grep -q "^spinprof: $T/calls-arcs.out: recorded in mode arcs, $T/calls-time.out in mode time: cannot sum\$" "$T/mixed.err" ||
		{ echo "status $rc, stderr:"; cat "$T/mixed.err"; return 1; }
}

tap_plan 11
if sp_check "exceptions (C++): builds, runs in time mode" build_run exceptions; then
	cp "$T/exceptions-time.out" "$T/exceptions.out"
	check "--no-demangle: assembler names, with the sample's calls and arcs" no_demangle
	check "default: the --no-demangle report with every name demangled" demangle_default
	check "--demangle: the same" demangle_opt
else
	for _ in 1 2 3; do not_ok "exceptions (no profile)"; done
fi
if sp_check "calls: builds, runs in time and arcs mode" eval 'build_run calls time && build_run calls arcs'; then
	check "-s of one profile given twice: each function once, counts doubled" \
		sum_check "$T/calls-time.out" "$T/calls-time.out"
	check "-s of two runs: each function once, counts summed" sum_two_runs
	check "granularity, time mode: the cycle's length and the seconds in all" granularity_time
	check "granularity, arcs mode: no times" granularity_arcs
	check "a time profile and an arcs profile are not summed: one line, exit 2" mixed_modes
else
	for _ in 1 2 3 4 5; do not_ok "calls (no profile)"; done
fi
check "granularity, gcc -pg program: gprof's line" granularity_gnu
tap_done
