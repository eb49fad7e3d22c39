#!/bin/bash
# t207: the Spy tree of a real time-mode profile without samples, built from the exact cycles:
# samples/twocallers.c (main calls heavy and light, both call work) built with the plugin and libspyrt,
# run with SPYRT_MODE=time SPYRT_WATCH=none. work sits under main (its immediate dominator, which does
# not call it: marked ~) with 2 refs, heavy and light share a disjoint set, work is in another; each call
# line carries the file:line of its call site read through the binary (the lines of the source's calls);
# the numbers agree with the gprof part of the same run (work's TOTAL% with its % time, each caller's
# line with its child line's self + children), work's total is the sum of its callers' lines, and with
# --cutoff=0 the SELF column adds up to the header's total. A profile with neither times nor samples
# (mode arcs) is refused by --spy, and -b alone prints no Spy report for it. The header dates the run
# ("run: START to END UTC", as Cedar's Spy dated its report; issue 26, item 6).
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

S=${SPY_TWOCALLERS_S:-20000}
P=$T/twocallers
SRC=$SAMPLES/twocallers.c

tap_plan 9

run_it() {
	rt_sample twocallers "$P" || return 1
	RT_ENV="SPYRT_MODE=time SPYRT_WATCH=none" rt_run "$P" "$S" || return 1
	cp "$P.out" "$P-time.out" # (the last point's; others run the program again)
	"$SPINPROF" --spy -b --cutoff=0 "$P.out" >"$P.spy" 2>"$P.err" || { echo "spinprof --spy: status $?"; cat "$P.err"; return 1; }
	"$SPINPROF" -b "$P.out" >"$P.txt" 2>>"$P.err" || { echo "spinprof -b: status $?"; cat "$P.err"; return 1; }
	sp_facts "$P.txt" >"$P.facts"
}
if ! sp_check "twocallers S=$S builds, runs in time mode without sampling, spinprof --spy reads it" run_it; then
	for _ in 1 2 3 4 5 6 7; do not_ok "twocallers (no profile)"; done
	tap_done
fi

# the tree section as "DEPTH ENTER MARKS NAME REFS SELF CALLEES TOTAL%" per entry
entries() {
	awk '/^Breakdown of procedures\./ { on = 1; getline; next } on && /^~~~~/ { exit } on' "$1" | awk '
		{
			i = 1; n = 0
			while (substr($0, i + 1, 1) == " " && index(".! ", substr($0, i, 1)) && substr($0, i, 1) != "") {
				last = substr($0, i, 1); i += 2; n++
			}
			rest = substr($0, i)
			if (rest == "" || substr(rest, 1, 1) == "(")
				next
			marks = ""
			while (substr(rest, 1, 1) == "*" || substr(rest, 1, 1) == "~") { marks = marks substr(rest, 1, 1); rest = substr(rest, 2) }
			if (!match(rest, / \([0-9]+ refs?\) = /))
				next
			name = substr(rest, 1, RSTART - 1)
			refs = substr(rest, RSTART + 2); sub(/ .*/, "", refs)
			nums = substr(rest, RSTART + RLENGTH); sub(/\.$/, "", nums); gsub(/[,()%]/, "", nums); split(nums, v, " ")
			print n - 1, last, (marks == "" ? "-" : marks), name, refs, v[1], v[2], v[NF == 0 ? 1 : length(v)]
		}'
}
entries "$P.spy" >"$P.entries"

shape() {
	grep -q '^watching: nothing sampled; the tree is built from the exact cycles of mode time$' "$P.spy" ||
		{ echo "no time-mode header line"; return 1; }
	awk '$4 == "main" || $4 == "heavy" || $4 == "light" || $4 == "work"' "$P.entries" | awk '
		function bad(m) { print m; problems++ }
		{ d[$4] = $1; e[$4] = $2; mk[$4] = $3; refs[$4] = $5; ord[$4] = NR; seen[$4]++ }
		END {
			if (d["main"] != 0) bad("main at depth " d["main"])
			for (f in seen) if (seen[f] != 1) bad(f " printed " seen[f] " times")
			if (d["heavy"] != 1 || d["light"] != 1 || d["work"] != 1) bad("heavy, light, work not all at depth 1 under main")
			if (mk["work"] !~ /~/) bad("work not marked ~ (main does not call it)")
			if (refs["work"] != 2) bad("work has " refs["work"] " refs, want 2")
			first = ord["heavy"] < ord["light"] ? "heavy" : "light"; second = first == "heavy" ? "light" : "heavy"
			if (ord[second] != ord[first] + 1 || e[second] != "!") bad("heavy and light are not one disjoint set")
			if (e["work"] != ".") bad("work shares a set with a caller")
			exit problems != 0
		}' || { cat "$P.spy"; return 1; }
}
check "tree: work under main (~, 2 refs), heavy and light one disjoint set, work apart, each once" shape

sites() {
	local l
	for l in "(twocallers.c:$(grep -n 'h = heavy(s);' "$SRC" | cut -d: -f1)) heavy = " \
		"(twocallers.c:$(grep -n 'l = light(s);' "$SRC" | cut -d: -f1)) light = " \
		"(twocallers.c:$(grep -n 'work(100 \* s);' "$SRC" | cut -d: -f1)) work = " \
		"(twocallers.c:$(grep -n '	work(s);' "$SRC" | cut -d: -f1)) work = "; do
		grep -qF -- "$l" "$P.spy" || { echo "no call line '$l'"; cat "$P.spy"; return 1; }
	done
}
check "each call line names its call site's file:line, read through the binary" sites

hz=$(sed -n 's/^unit: one cycle (time stamps at \([0-9]*\) Hz).*/\1/p' "$P.spy")
total=$(sed -n 's/.*; total \([0-9]*\) cycles$/\1/p' "$P.spy")

# callee LINE-PATTERN: the cycles of the first call line matching it
callee() { grep -E -- "$1" "$P.spy" | head -n 1 | sed 's/.* = \([0-9]*\) (.*/\1/'; }

gprof_agrees() {
	local hw lw
	hw=$(callee "\\(twocallers.c:$(grep -n 'work(100 \* s);' "$SRC" | cut -d: -f1)\\) work = ")
	lw=$(callee "\\(twocallers.c:$(grep -n '	work(s);' "$SRC" | cut -d: -f1)\\) work = ")
	awk -v hz="$hz" -v hw="$hw" -v lw="$lw" -v total="$total" '
		function bad(m) { print m; problems++ }
		function abs(x) { return x < 0 ? -x : x }
		FNR == NR { if ($4 == "work") wt = $8; next }
		{ at = index($0, " = "); k = substr($0, 1, at - 1); split(substr($0, at + 3), v, " "); f[k] = v[2] + v[3]; pc[k] = v[2] }
		END {
			if (hz <= 0 || total <= 0) bad("no rate or total in the header")
			if (abs(hw / hz - f["child heavy work"]) > 0.011) bad("heavy->work " hw / hz " s, call graph " f["child heavy work"])
			if (abs(lw / hz - f["child light work"]) > 0.011) bad("light->work " lw / hz " s, call graph " f["child light work"])
			if (abs(wt - pc["prim work"]) > 0.15) bad("work TOTAL% " wt ", call graph % time " pc["prim work"])
			exit problems != 0
		}' "$P.entries" "$P.facts"
}
check "the numbers agree with the gprof part: callers' lines with child lines, work's TOTAL% with % time" gprof_agrees

sums() {
	local hw lw wtot
	hw=$(grep -E '\(twocallers.c:[0-9]+\) work = ' "$P.spy" | sed -n 1p | sed 's/.* = \([0-9]*\) (.*/\1/')
	lw=$(grep -E '\(twocallers.c:[0-9]+\) work = ' "$P.spy" | sed -n 2p | sed 's/.* = \([0-9]*\) (.*/\1/')
	wtot=$(awk '$4 == "work" { printf "%.0f\n", $6 + $7 }' "$P.entries")
	awk -v a="$hw" -v b="$lw" -v w="$wtot" 'BEGIN { d = a + b - w; if (w <= 0 || d > 2 || d < -2) { print "work " w " != " a " + " b; exit 1 } }' || return 1
	# main holds everything; the hooks' cost, taken off each function's self and clamped at 0 (under the
	# sanitizers a caller's tiny self can come out negative), can leave it a hair above 100 %
	awk '$4 == "main" && ($8 < 99.5 || $8 > 100.5) { print "main TOTAL% " $8; exit 1 }' "$P.entries" || return 1
	awk -v total="$total" '{ s += $6; n++ } END { if (s - total > n || total - s > n) { print "SELF adds up to " s ", total " total; exit 1 } }' "$P.entries"
}
check "work's total is the sum of its callers' lines; main is 100 %; SELF adds up to the total" sums

check "the gprof part (-b) of a profile without samples has no Spy report" bash -c "! grep -q 'Spy report\|Breakdown of' '$P.txt'"

arcs_refused() {
	local err rc
	RT_ENV="SPYRT_MODE=arcs SPYRT_WATCH=none" rt_run "$P" 10 || return 1
	err=$("$SPINPROF" --spy "$P.out" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == "spinprof: $P.out: "* ]] ||
		{ echo "status $rc, stderr: $err"; return 1; }
}
check "--spy on a mode arcs profile without samples: one line, status 2" arcs_refused

check "spinprof wrote nothing on stderr" bash -c "! grep -q . '$P.err'"

# Cedar's header dates the run: "run: START to END UTC", the file's start_ns and end_ns to the second
dated() {
	local t0 t1 want
	t0=$(rt_dump "$P-time.out" | sed -n 's/^times start_ns=\([0-9]*\) end_ns=\([0-9]*\) .*/\1/p')
	t1=$(rt_dump "$P-time.out" | sed -n 's/^times start_ns=\([0-9]*\) end_ns=\([0-9]*\) .*/\2/p')
	[ -n "$t0" ] && [ -n "$t1" ] || { rt_dump "$P-time.out" | grep '^times'; return 1; }
	if [ "$(date -u -d "@$((t0 / 1000000000))" +%F)" = "$(date -u -d "@$((t1 / 1000000000))" +%F)" ]; then
		want="run: $(date -u -d "@$((t0 / 1000000000))" '+%F %T') to $(date -u -d "@$((t1 / 1000000000))" +%T) UTC"
	else
		want="run: $(date -u -d "@$((t0 / 1000000000))" '+%F %T') to $(date -u -d "@$((t1 / 1000000000))" '+%F %T') UTC"
	fi
	echo "want: $want"
	grep -m1 '^run: ' "$P.spy"
	grep -qx "$want" "$P.spy"
}
check "the Spy header dates the run (start and end, UTC)" dated
tap_done
