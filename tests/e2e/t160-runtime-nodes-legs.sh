#!/bin/bash
# t160: Mesa's nodes and legs, by construction on samples/nodes.c (its header gives every count):
# node hits exact per node; legs start>end, start>mid, mid>end 100 each, not shorter than their busy
# waits, start>end's total within 5 % of the program's own clock; rin>rout under recursion: count 10,
# ignored 40 (Mesa: the from node again before the to node loses the opening); ping>pong across two
# threads: count 20 in the owner (pinger), ignored 20 in the ponger (Mesa's owner rule); the node
# histogram of mid's values linear, bucket by bucket; the leg histogram (log) holds every leg, none
# below 300 us; SPYRT_LEG_TRACK=successor with SPYRT_LEG_ADD=successor gives exactly the successor legs;
# the wildcard start>* adds only legs from start; SPYRT_LEG_THREAD=ponger records only that thread;
# bad values are one line each and the defaults; --format=json and html carry the nodes and legs; spinprof prints the Nodes and Legs sections and the
# histograms with those numbers; -s sums two runs; the program built without spy runs the same and
# writes nothing; SPY_NO_NODES compiles the nodes out.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

tap_plan 17

P=$T/nodes
LEGS='start>end,start>mid,mid>end,rin>rout,ping>pong'
HIST='node:mid:linear:0:1:8,leg:start>end:log:10'
build() { rt_sample nodes "$P" -lpthread && RT_ENV="SPYRT_LEGS=$LEGS SPYRT_HIST=$HIST" rt_run "$P"; }
if ! check "nodes.c builds with the plugin and runs with SPYRT_LEGS and SPYRT_HIST" build; then
	for _ in $(seq 15); do not_ok "nodes (not built)"; done
	tap_done
fi
cd "$T" || exit 1

# facts from the dump: "node NAME HITS" and "leg FROM TO COUNT IGNORED" summed over threads
facts() {
	rt_dump "$1" | awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "node" { n[val("name")] += val("hits") }
		$1 == "leg" { c[val("from") " " val("to")] += val("count"); g[val("from") " " val("to")] += val("ignored") }
		END { for (k in n) print "node", k, n[k]; for (k in c) print "leg", k, c[k], g[k] }' | sort
}
want_main() {
	sort <<'EOF'
node start 100
node mid 100
node end 100
node rin 50
node rout 50
node ping 20
node pong 40
leg start end 100 0
leg start mid 100 0
leg mid end 100 0
leg rin rout 10 40
leg ping pong 20 20
EOF
}
same() { diff <(want_"$1") <(facts "$2"); }
check "node hits and leg counts and ignored openings exact" same main nodes.out

# ping>pong: counted in pinger's thread, ignored in ponger's
owner() {
	rt_dump nodes.out | awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "thread" { name[val("tid")] = val("name") }
		$1 == "leg" && val("from") == "ping" && val("count") + val("ignored") { print name[val("tid")], val("count"), val("ignored") }' | sort >owner.txt
	printf '%s\n' "pinger 20 0" "ponger 0 20" | diff - owner.txt
}
check "Mesa's owner rule: ping>pong closed only in the pinger (20), ignored in the ponger (20)" owner

times() {
	local prog total min
	prog=$(sed -n 's/^start_to_end_ns //p' nodes.stdout)
	read -r total min < <(rt_dump nodes.out | awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "leg" && val("from") == "start" && val("to") == "end" { t += val("total_ns"); m = val("min_ns") } END { print t, m }')
	echo "program ${prog} ns, leg start>end ${total} ns, shortest ${min} ns"
	awk -v p="$prog" -v t="$total" -v m="$min" 'BEGIN { exit !(t <= p && t >= 0.95 * p && m >= 300000) }'
}
check "start>end: no leg under its 300 us of waits, total within 5 % of the program's own clock" times

hist() {
	rt_dump nodes.out | awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "node" && val("name") == "mid" && val("hits") > 0 { print val("hist") }' >hist.txt
	# the one thread that passed mid (main): linear:base:scale:under:over:buckets
	echo "linear:0:1:0:0:13,13,13,13,12,12,12,12" | diff - hist.txt
}
check "mid's value histogram: 13 in buckets 0-3, 12 in 4-7, nothing under or over" hist

leghist() {
	rt_dump nodes.out | awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "leg" && val("from") == "start" && val("to") == "end" && val("hist") != "-" {
			split(val("hist"), h, ":"); n = split(h[6], b, ",")
			for (i = 1; i <= n; i++) { s += b[i]; if (i - 1 < 9 && b[i]) low += b[i] }
			print h[1], h[3], s + h[4] + h[5], low + h[4] }' >leghist.txt
	# log, shift 10; all 100; none in buckets under 9 ([256, 512) << 10 ns holds 300 us)
	echo "log 10 100 0" | diff - leghist.txt
}
check "start>end's log histogram holds 100 legs, none below 300 us" leghist

report() {
	"$SPINPROF" nodes.out >report.txt 2>report.err || { cat report.err; return 1; }
	awk '/^start -> end / && $4 == 100 { a = 1 } /^rin -> rout / && $4 == 10 && $NF == 40 { b = 1 }
		/^mid / && $2 == 100 && $3 == 100 && $4 == 342 { c = 1 }
		/^Histogram of node mid/ { h = 1 } h && $1 == 4 && $NF == 12 { d = 1 }
		END { exit !(a && b && c && d) }' report.txt || { sed -n '/^Nodes/,$p' report.txt; return 1; }
}
check "spinprof prints the Nodes and Legs sections and mid's histogram with those numbers" report

json() {
	"$SPINPROF" --format=json nodes.out >nodes.json || return 1
	python3 - nodes.json <<'PY' | sort | diff <(want_main) -
import json, sys
n = json.load(open(sys.argv[1]))["nodes"]
for x in n["nodes"]:
    print("node", x["name"], x["hits"])
for l in n["legs"]:
    print("leg", l["from"], l["to"], l["count"], l["ignored"])
PY
}
check "spinprof --format=json carries the same nodes and legs" json

html() {
	"$SPINPROF" --format=html nodes.out >nodes.html || return 1
	# the page's Nodes and legs section holds the report's legs table, escaped
	sed -n '/<h2 id="nodes">/,/<\/pre>/p' nodes.html | grep -q '^start -&gt; end  *100 ' ||
		{ grep -n nodes nodes.html | head; return 1; }
}
check "spinprof --format=html has the Nodes and legs section" html

successor() {
	RT_ENV="SPYRT_LEG_TRACK=successor SPYRT_LEG_ADD=successor" rt_run "$P" || return 1
	sort >want.txt <<'EOF'
leg end rin 1 0
leg end start 99 0
leg mid end 100 0
leg ping pong 20 0
leg pong ping 19 0
leg pong pong 19 0
leg rin rin 40 0
leg rin rout 10 0
leg rout rin 9 0
leg rout rout 40 0
leg start mid 100 0
EOF
	facts nodes.out | grep '^leg' | diff want.txt -
}
check "SPYRT_LEG_TRACK=successor, SPYRT_LEG_ADD=successor: exactly the successor legs" successor

wildcard() {
	RT_ENV="SPYRT_LEGS=start>*" rt_run "$P" || return 1
	echo "leg start mid 100 0" | diff - <(facts nodes.out | grep '^leg')
}
check "SPYRT_LEGS=start>*: the legs from start, to whichever node follows it" wildcard

onethread() {
	RT_ENV="SPYRT_LEG_THREAD=ponger SPYRT_LEG_ADD=successor" rt_run "$P" || return 1
	printf '%s\n' "leg pong pong 19 0" "node pong 20" | diff - <(facts nodes.out)
}
check "SPYRT_LEG_THREAD=ponger: only that thread's passes" onethread

bad() {
	RT_ENV="SPYRT_LEGS=a>b>c SPYRT_LEG_TRACK=x SPYRT_LEG_ADD=y SPYRT_LEG_THREAD=0 SPYRT_HIST=node:mid:linear:0:0:8" \
		rt_run "$P" || return 1
	cat "$P.stderr"
	[ "$(grep -c '^spy: SPYRT_' "$P.stderr")" = 5 ] || return 1
	# the defaults: no legs named, tracking all, adding none, no histogram
	[ -z "$(facts nodes.out | grep '^leg')" ] && rt_dump nodes.out | grep -q '^nodes .*track=all add=none' &&
		! rt_dump nodes.out | grep '^node ' | grep -qv 'hist=-'
}
check "bad SPYRT_LEGS, _LEG_TRACK, _LEG_ADD, _LEG_THREAD, _HIST: one line each, the defaults" bad

# a second histogram for one node or leg: said in one line each, the first kept (it was dropped unseen)
twice() {
	RT_ENV="SPYRT_LEGS=$LEGS SPYRT_HIST=$HIST,node:mid:log,leg:start>end:linear:0:1:4" rt_run "$P" || return 1
	cat "$P.stderr"
	grep -qx "spy: SPYRT_HIST has a second histogram for node mid; keeping the first" "$P.stderr" &&
		grep -qx "spy: SPYRT_HIST has a second histogram for leg start>end; keeping the first" "$P.stderr" &&
		[ "$(grep -c . "$P.stderr")" = 2 ] || return 1
	hist && leghist
}
check "SPYRT_HIST with a second histogram for mid and for start>end: one line each, the first ones kept" twice

sum() {
	RT_ENV="SPYRT_LEGS=$LEGS" rt_run "$P" || return 1
	cp nodes.out one.out
	RT_ENV="SPYRT_LEGS=$LEGS" rt_run "$P" || return 1
	cp nodes.out two.out
	rm -f gmon.sum
	"$SPINPROF" -s one.out two.out >/dev/null || return 1
	facts gmon.sum | awk '$1 == "node" && $2 == "start" { print $3 } $1 == "leg" && $2 == "rin" { print $4, $5 }' |
		tr '\n' ' ' | grep -qx '20 80 200 '
}
check "spinprof -s sums two runs' nodes and legs" sum

plain() {
	$CC -O2 -I"$SAMPLES" -I"$SPY_SRC/runtime" "$SAMPLES/nodes.c" -o plain -lpthread || return 1
	rm -f gmon.out
	./plain | grep -q '^start_to_end_ns' && [ ! -e gmon.out ]
}
check "built without spy (no plugin, no libspyrt): the nodes do nothing, the program runs" plain

off() {
	$CC -O2 -DSPY_NO_NODES -I"$SAMPLES" -I"$SPY_SRC/runtime" "$SAMPLES/nodes.c" -c -o off.o || return 1
	! nm off.o | grep -q __spy_node
}
check "SPY_NO_NODES compiles the nodes out" off

tap_done
