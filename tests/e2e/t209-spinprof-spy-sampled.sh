#!/bin/bash
# t209: the Spy report of a really sampled run: samples/twocallers.c (heavy and light each do half of
# the work, in work()) built with the plugin and libspyrt, run with SPYRT_WATCH=cpu. work is under main
# (marked ~ and, with all the self ticks, *), heavy and light one disjoint set; work's ticks split between
# its two call lines, each between 30 % and 70 % (half each by construction; ~ 1000 ticks make that many
# standard deviations wide), and adding up to its total with the few ticks that caught work before its
# enter hook ran (no call site: "(?) work"); work's source lines lie inside work's body and
# add up to its self ticks; the PC listing adds up to all ticks; the executable holds most of them; the
# default report ends with the Spy report; with SPYRT_WATCH=calls:work, work's calls are exact (10 100,
# 100 from heavy's call site, 10 000 from light's). Skipped when the runtime records no samples.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

S=${SPY_TWOCALLERS_S:-40000}
P=$T/twocallers
SRC=$SAMPLES/twocallers.c

run_it() {
	rt_sample twocallers "$P" || return 1
	RT_ENV="SPYRT_WATCH=cpu" rt_run "$P" "$S" || return 1
	"$SPINPROF" --spy -b "$P.out" >"$P.spy" 2>"$P.err" || { echo "spinprof --spy: status $?"; cat "$P.err"; return 1; }
}
if ! run_it >"$T/setup.log" 2>&1; then
	echo "1..1"
	not_ok "twocallers builds, runs with SPYRT_WATCH=cpu, spinprof --spy reads it"
	diag <"$T/setup.log"
	tap_done
fi
grep -q '^watching: cpu' "$P.spy" && ! grep -q '^samples: 0 taken' "$P.spy" ||
	tap_skip_all "the runtime recorded no cpu samples"

tap_plan 8

ticks=$(sed -n 's/^samples: .*; \([0-9]*\) ticks in all$/\1/p' "$P.spy")
sec() { awk -v t="$1" '$0 == t { on = 1; getline; next } on && /^~~~~/ { exit } on' "$P.spy"; }

tree() {
	sec "Breakdown of procedures." >"$P.tree"
	grep -q '^  \. \*~work (2 refs) = ' "$P.tree" || { echo "work is not a heavy, indirect child of main"; cat "$P.tree"; return 1; }
	grep -q '^\. main (1 ref) = ' "$P.tree" || { echo "main is not the first root"; cat "$P.tree"; return 1; }
	grep -Eq '^  \. (heavy|light) \(1 ref\)' "$P.tree" && grep -Eq '^  ! (heavy|light) \(1 ref\)' "$P.tree" ||
		{ echo "heavy and light are not one disjoint set"; cat "$P.tree"; return 1; }
}
check "tree: work under main (* and ~), heavy and light one disjoint set" tree

split() {
	local w h l u
	w=$(sed -n 's/^  \. \*~work (2 refs) = \([0-9]*\), \([0-9]*\) .*/\1 \2/p' "$P.tree" | awk '{ printf "%.0f\n", $1 + $2 }')
	h=$(grep -F "(twocallers.c:$(grep -n 'work(100 \* s);' "$SRC" | cut -d: -f1)) work = " "$P.tree" | sed 's/.* = \([0-9]*\) .*/\1/')
	l=$(grep -F "(twocallers.c:$(grep -n '	work(s);' "$SRC" | cut -d: -f1)) work = " "$P.tree" | sed 's/.* = \([0-9]*\) .*/\1/')
	# a tick in work's first instructions, before its enter hook pushed its frame, has no call site:
	# such ticks are listed apart as "(?) work" (seen with --cutoff=0, they are few)
	"$SPINPROF" --spy -b --cutoff=0 "$P.out" 2>>"$P.err" | awk '$0 == "Breakdown of procedures." { on = 1 }
		on && /^Breakdown of highly/ { exit } on' >"$P.tree0" || return 1
	u=$(grep -F "(?) work = " "$P.tree0" | sed 's/.* = \([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s + 0 }')
	awk -v w="$w" -v h="$h" -v l="$l" -v u="$u" 'BEGIN {
		if (w < 200) { print "only " w " ticks in work"; exit 1 }
		if (h + l + u != w) { print "heavy " h " + light " l " + unknown sites " u " != work " w; exit 1 }
		if (u > 0.05 * w) { print u " of " w " ticks without a call site"; exit 1 }
		if (h < 0.3 * w || h > 0.7 * w) { print "heavy has " h " of " w; exit 1 }
	}'
}
check "work's ticks split between heavy's and light's call lines, each 30-70 %, adding up" split

lines() {
	local lo hi
	lo=$(grep -n '^NOINL void work(long n)' "$SRC" | cut -d: -f1)
	hi=$(awk -v lo="$lo" 'NR > lo && /^}/ { print NR; exit }' "$SRC")
	sec "Breakdown of highly active procedures." | awk -v lo="$lo" -v hi="$hi" '
		/^work \(2 refs\) = / { on = 1; self = $5; sub(/,/, "", self); next }
		on && /^    \(/ {
			split($1, a, ":"); line = a[2]; sub(/\)/, "", line)
			if (a[1] != "(twocallers.c" || line < lo || line > hi) { print "line outside work: " $0; bad = 1 }
			sum += $3; n++; next
		}
		on { on = 0 }
		END { if (!n || sum != self || bad) { print n " lines, " sum " ticks, work self " self; exit 1 } }'
}
check "work's source lines lie inside work's body and add up to its self ticks" lines

pcs() {
	awk -v t="$ticks" '
		/^All ticks/ { on = 1; next }
		on && /^(Count|-----)/ { next }
		on && NF == 0 { exit }
		on { s += $1; if (!top) top = $3 }
		END { if (s != t || top != "work") { print "all ticks add up to " s " of " t ", top " top; exit 1 } }' "$P.spy"
}
check "the PC listing adds up to all ticks, work on top" pcs

modules() {
	awk -v t="$ticks" -v exe="$P" '
		/^Samples per executable/ { on = 1; next }
		on && /^(Count|-----)/ { next }
		on && NF == 0 { exit }
		on && $3 == exe { c = $1 }
		END { if (c < 0.8 * t) { print exe " has " c " of " t " ticks"; exit 1 } }' "$P.spy"
}
check "the executable holds most ticks in the modules breakdown" modules

default_report() {
	"$SPINPROF" "$P.out" >"$P.txt" 2>>"$P.err" || return 1
	awk '/^Index by function name/ { idx = NR } /^Breakdown of procedures\./ { spy = NR }
		END { if (!idx || !spy || spy < idx) { print "index at " idx ", Spy tree at " spy; exit 1 } }' "$P.txt"
}
check "the default report ends with the Spy report" default_report

calls() {
	RT_ENV="SPYRT_WATCH=calls:work" rt_run "$P" 20 || return 1
	"$SPINPROF" --spy -b --cutoff=0 "$P.out" >"$P.calls" 2>>"$P.err" || return 1
	local h l
	h=$(grep -n 'work(100 \* s);' "$SRC" | cut -d: -f1)
	l=$(grep -n '	work(s);' "$SRC" | cut -d: -f1)
	grep -q '^watching: calls of work$' "$P.calls" && grep -q '\*~work (2 refs) = 10100, 0 (100\.0%) (100\.0%)\.$' "$P.calls" &&
		grep -qF "(twocallers.c:$h) work = 100 (1.0%)." "$P.calls" &&
		grep -qF "(twocallers.c:$l) work = 10000 (99.0%)." "$P.calls" || { cat "$P.calls"; return 1; }
}
check "calls:work: work's 10100 calls exactly, 100 from heavy's call site, 10000 from light's" calls

check "spinprof wrote nothing on stderr" bash -c "! grep -q . '$P.err'"

tap_done
