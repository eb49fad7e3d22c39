#!/bin/bash
# t201: spinprof on spy profiles. Samples built with the plugin and libspyrt, run in SPYRT_MODE=time and
# arcs: the flat profile's calls and the call graph's counts equal samples/NAME.expect exactly (gprof's
# conventions: the flat profile and a parent's A/B leave out self-recursive calls, the entry's "A+B" adds
# them), every expected arc is a parent line of its callee and a child line of its caller with the
# expected count, <spontaneous> is the parent of main; the header's self-check (counters against
# incoming arcs) finds no mismatch; two profiles given together, and the gmon.sum that -s writes, hold
# twice the counts.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

# sp_expect_check EXPECT FACTS [TIMES]: every func and arc of a samples .expect (times TIMES) against
# spinprof's facts
sp_expect_check() {
	awk -v times="${3:-1}" '
		function bad(msg) { problems++; print msg }
		function val(k,   s) { s = facts[k]; return s == "" ? "(none)" : s }
		FNR == NR {
			sub(/#.*/, "")
			if ($1 ~ /^@/) {
				if (index("," substr($1, 2) ",", ",O2,") == 0)
					next
				sub(/^[ \t]*@[^ \t]+[ \t]+/, "")
			}
			if ($1 == "func") ef[$2] = $3 * times
			if ($1 == "arc") ea[$2 " " $3] = $4 * times
			next
		}
		{ at = index($0, " = "); facts[substr($0, 1, at - 1)] = substr($0, at + 3) }
		END {
			for (f in ef) {
				self = ((f " " f) in ea) ? ea[f " " f] : 0
				split(val("flat " f), v, " ")
				if (v[1] != ef[f] - self)
					bad("flat " f ": calls " v[1] ", want " ef[f] - self " (" ef[f] " less " self " self-calls)")
				split(val("prim " f), v, " ")
				n = split(v[1], ab, "+")
				if (ab[1] + ab[2] != ef[f] || (self > 0) != (n == 2))
					bad("call graph " f ": called " v[1] ", want " (self ? ef[f] - self "+" self : ef[f]))
			}
			for (k in ea) {
				split(k, p, " ")
				if (p[1] == "<spontaneous>") {
					if (!(("parent " p[2] " <spontaneous>") in facts))
						bad("call graph " p[2] ": no <spontaneous> parent")
					continue
				}
				split(val("parent " p[2] " " p[1]), v, " ")
				if (v[1] != ea[k])
					bad("arc " p[1] " -> " p[2] ": count " v[1] " in " p[2] "\047s parents, want " ea[k])
				split(val("child " p[1] " " p[2]), v, " ")
				if (v[1] != ea[k])
					bad("arc " p[1] " -> " p[2] ": count " v[1] " in " p[1] "\047s children, want " ea[k])
			}
			exit problems != 0
		}' "$1" "$2"
}

# sp_selfcheck OUT: the header has a self-check line, and it reports no mismatch
sp_selfcheck() {
	local h
	h=$(sp_header "$1")
	grep -qi 'self-check\|self check\|multics' <<<"$h" || { echo "no self-check line in the header:"; echo "$h"; return 1; }
	if grep -i 'self-check\|self check\|multics' <<<"$h" | grep -i 'mismatch\|differ\|wrong\|fail\|not possible' |
		grep -qvi '\b0 mismatch\|no mismatch\|none differ\|0 differ' || grep -qi '^mismatch' <<<"$h"; then
		echo "the self-check reports a problem:"
		echo "$h"
		return 1
	fi
	return 0
}

# sp_run NAME MODE [ARG...]: build samples/NAME once, run it in MODE, spinprof -b it; $T/NAME-MODE.{out,txt,facts}
sp_run() {
	local name=$1 mode=$2 p=$T/$1
	shift 2
	[ -x "$p" ] || rt_sample "$name" "$p" || return 1
	RT_ENV=SPYRT_MODE=$mode rt_run "$p" "$@" || return 1
	cp "$p.out" "$T/$name-$mode.out"
	"$SPINPROF" -b "$T/$name-$mode.out" >"$T/$name-$mode.txt" 2>"$T/$name-$mode.err" ||
		{ echo "spinprof -b $name-$mode.out: status $?"; head "$T/$name-$mode.err"; return 1; }
	sp_facts "$T/$name-$mode.txt" >"$T/$name-$mode.facts"
}

# sp_sum NAME MODE: spinprof A B and -s; both must hold twice the counts of the single profile
sp_sum() {
	local b=$T/$1-$2 d=$T/sum-$1-$2
	mkdir -p "$d"
	cp "$b.out" "$d/b.out"
	"$SPINPROF" -b "$b.out" "$d/b.out" >"$d/ab.txt" 2>"$d/ab.err" || { echo "spinprof A B: status $?"; cat "$d/ab.err"; return 1; }
	sp_facts "$d/ab.txt" >"$d/ab.facts"
	echo "spinprof A B:"
	sp_expect_check "$SAMPLES/$1.expect" "$d/ab.facts" 2 || return 1
	(cd "$d" && "$SPINPROF" -s -b "$b.out" b.out >s.txt 2>s.err) || { echo "spinprof -s: status $?"; cat "$d/s.err"; return 1; }
	[ -s "$d/gmon.sum" ] || { echo "spinprof -s wrote no gmon.sum"; return 1; }
	"$SPINPROF" -b "$d/gmon.sum" >"$d/sum.txt" 2>"$d/sum.err" || { echo "spinprof gmon.sum: status $?"; cat "$d/sum.err"; return 1; }
	sp_facts "$d/sum.txt" >"$d/sum.facts"
	echo "spinprof gmon.sum:"
	sp_expect_check "$SAMPLES/$1.expect" "$d/sum.facts" 2
}

samples="calls recursion threads twocallers"
tap_plan $(($(wc -w <<<"$samples") * 2 * 4))
for s in $samples; do
	for m in time arcs; do
		if ! sp_check "$s, SPYRT_MODE=$m: builds, runs, spinprof reads its profile" sp_run "$s" "$m"; then
			for _ in 1 2 3; do not_ok "$s, $m (no profile)"; done
			continue
		fi
		check "$s, $m: flat profile and call graph counts equal $s.expect" \
			sp_expect_check "$SAMPLES/$s.expect" "$T/$s-$m.facts"
		check "$s, $m: the header's self-check finds no mismatch" sp_selfcheck "$T/$s-$m.txt"
		check "$s, $m: two profiles summed (A B, and -s's gmon.sum) hold twice the counts" sp_sum "$s" "$m"
	done
done
tap_done
