#!/bin/bash
# t276: spinprof --format=dot writes the call graph for graphviz. samples/calls.c in time mode: `dot
# -Tsvg` takes it without a word; graphviz's own reading of it (dot -Tjson; --cutoff=0, since c's
# sink++ may weigh less than the default cutoff's 0.5 % on a busy machine) has exactly the nodes main,
# a, b, c labelled with their calls (1, 10, 30, 60 ×) and the edges main->a, a->b, b->c labelled 10,
# 30, 60 ×; main's total is 100 % and the selves add up to 100 %. --cutoff=PCT just above c's total
# leaves c and its edge out and keeps b. A program whose light() does a thousandth of heavy()'s work
# loses light at the default cutoff (0.5 %) and shows it with --cutoff=0. In count mode (no times) the
# percentages are of the calls.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v dot >/dev/null || tap_skip_all "no dot (graphviz, in mk/deps.sh)"
command -v python3 >/dev/null || tap_skip_all "no python3 (in mk/deps.sh)"
rt_setup

tap_plan 7

cd "$T" || exit 1

# graph OUT.dot OPTS... PROFILE: spinprof --format=dot, then graphviz's reading of it as
# "node NAME LABEL" and "edge TAIL HEAD LABEL" lines (labels with | for the line breaks) in OUT.facts
graph() {
	local out=$1
	shift
	sp_export dot "$out" "$@" || return 1
	dot -Tsvg "$out" >"$out.svg" 2>"$out.doterr" || { echo "dot -Tsvg refuses it"; cat "$out.doterr"; return 1; }
	[ ! -s "$out.doterr" ] || { echo "dot -Tsvg warns:"; cat "$out.doterr"; return 1; }
	dot -Tjson "$out" 2>&1 | python3 -c '
import json, sys
d = json.load(sys.stdin)
objs = d.get("objects", [])
for o in objs:
    print("node", o["label"].split("\\n")[0], o["label"].replace("\\n", "|"))
for e in d.get("edges", []):
    print("edge", objs[e["tail"]]["label"].split("\\n")[0], objs[e["head"]]["label"].split("\\n")[0], e["label"].replace("\\n", "|"))
' >"$out.facts" || { echo "dot -Tjson unreadable"; return 1; }
}

P=$T/calls
build() { rt_sample calls "$P" && rt_run "$P"; }
if ! check "calls.c builds with the plugin and runs (time mode)" build; then
	for _ in $(seq 6); do not_ok "calls (not built)"; done
	tap_done
fi

shape() {
	graph calls.dot --cutoff=0 calls.out || return 1
	awk '$1 == "node" { split($3, l, "|"); print "node", $2, l[4] } $1 == "edge" { split($4, l, "|"); print "edge", $2, $3, l[2] }' \
		calls.dot.facts | sort >shape.txt
	diff <(sort <<'W'
node main 1×
node a 10×
node b 30×
node c 60×
edge main a 10×
edge a b 30×
edge b c 60×
W
	) shape.txt
}
check "dot -Tsvg takes it; exactly the nodes main, a, b, c with 1, 10, 30, 60 calls and the three edges with their counts" shape

percents() {
	awk '$1 == "node" { split($3, l, "|"); t[$2] = l[2]; s = l[3]; gsub(/[()%]/, "", s); sum += s }
		END { if (t["main"] != "100.00%") { print "main total " t["main"]; exit 1 }
		      if (sum < 99.9 || sum > 100.1) { print "selves sum to " sum; exit 1 } }' calls.dot.facts
}
check "main's total is 100.00 %, the selves add up to 100 %" percents

cutoff() {
	local ct bt
	ct=$(awk '$1 == "node" && $2 == "c" { split($3, l, "|"); sub(/%/, "", l[2]); print l[2] }' calls.dot.facts)
	bt=$(awk '$1 == "node" && $2 == "b" { split($3, l, "|"); sub(/%/, "", l[2]); print l[2] }' calls.dot.facts)
	awk -v c="$ct" -v b="$bt" 'BEGIN { exit !(c + 0.01 < b) }' || { echo "c $ct, b $bt"; return 1; }
	local pct
	pct=$(awk -v c="$ct" 'BEGIN { printf "%.2f", c + 0.01 }')
	graph cut.dot --cutoff="$pct" calls.out || return 1
	! grep -q '^node c ' cut.dot.facts || { echo "c shown at --cutoff=$pct (its total $ct %)"; return 1; }
	! grep -q '^edge b c ' cut.dot.facts || { echo "b->c shown"; return 1; }
	grep -q '^node b ' cut.dot.facts && grep -q '^edge a b ' cut.dot.facts || { cat cut.dot.facts; return 1; }
}
check "--cutoff just above c's total: c and b->c left out, b and a->b kept" cutoff

cat >"$T/light.c" <<'C'
/* heavy() runs a thousand times the iterations of light() */
static volatile unsigned long sink;
__attribute__((noinline)) static void spin(long n)
{
	unsigned long x = sink;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}
__attribute__((noinline)) void heavy(void) { spin(20000000); }
__attribute__((noinline)) void light(void) { spin(20000); }
int main(void)
{
	heavy();
	light();
	return 0;
}
C
L=$T/light
default_cutoff() {
	rt_cc "$L" "$CC" "$T/light.c" && rt_run "$L" || return 1
	graph light.dot light.out || return 1
	grep -q '^node heavy ' light.dot.facts || { cat light.dot.facts; return 1; }
	! grep -q '^node light ' light.dot.facts || { echo "light shown at the default cutoff"; cat light.dot.facts; return 1; }
	graph light0.dot --cutoff=0 light.out || return 1
	grep -q '^node light ' light0.dot.facts && grep -q '^edge main light ' light0.dot.facts || { cat light0.dot.facts; return 1; }
}
check "light() (0.1 % of the work) is left out at the default cutoff, shown with --cutoff=0" default_cutoff

count_mode() {
	RT_ENV="SPYRT_MODE=count SPYRT_WATCH=none" rt_run "$P" || return 1
	graph count.dot calls.out || return 1
	# of 101 calls: c 60 -> 59.41 %
	grep -q '^node c c|59.41%|(59.41%)|60×' count.dot.facts || { cat count.dot.facts; return 1; }
	grep -q 'percentages of calls' count.dot
}
check "count mode: percentages of the 101 calls (c: 60 calls, 59.41 %)" count_mode

names() {
	# a node's name is one dot string: quotes escaped, a backslash in its text form \x5c (spinprof(1),
	# NAMES FROM THE FILE) whose backslash dot reads doubled (the graph's name too)
	cp calls.out 'we"ird\.out'
	graph weird.dot 'we"ird\.out' && grep -q '^digraph "we\\"ird\\\\x5c\.out"' weird.dot
}
check "a profile name with a quote and a backslash stays one dot string" names

tap_done
