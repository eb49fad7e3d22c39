#!/bin/bash
# t157: spinprof reports SPYRT_COUNTERS' totals, checked against samples/ctrpages.c's construction
# (toucher writes A pages for left and B for right, rtouch K pages at each of D levels, RT page faults
# in all: D*K and the hooks' first touches for its arc to itself, which it calls, at most 8 pages, and
# as many shadow pages under AddressSanitizer):
#  - the flat profile: a pair of columns per counter, self and total per call: toucher's (A+B)/2 and
#    (A+B)/2, rtouch's RT and RT (one call from elsewhere, recursion counted once), right's total/call B plus
#    its own; the header names the counters;
#  - the json export: header.counters, and each function's and arc's counters by name (toucher's
#    self A+B, the arc left -> toucher A, rtouch's self and total RT, the arc rtouch -> rtouch total 0);
#  - the callgrind export: the counter an event after the time's, read by valgrind's own
#    callgrind_annotate: toucher's A+B, and with --inclusive=yes left's A plus its own, rtouch's RT;
#  - summing (-s): two runs' gmon.sum holds both runs' totals (toucher's self 2(A+B)), and its
#    report is the two files' report.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"
[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup
tap_plan 6

. "$(dirname "$0")/lib-counters.sh"
cd "$T" || exit 1
A=400 B=100 D=4 K=6
ctr_build 5
RT_ENV="SPYRT_WATCH=none SPYRT_COUNTERS=page-faults" rt_run "$P" $A $B $D $K || exit 1
cp "$P.out" one.out
RT_ENV="SPYRT_WATCH=none SPYRT_COUNTERS=page-faults" rt_run "$P" $A $B $D $K || exit 1
cp "$P.out" two.out
RS=$(ctr one.out main right page-faults self) # right's own: the hooks' first touches, if any
# rtouch's faults over its frames: D*K and the hooks' first touches for the arc rtouch -> rtouch
RT=$(ctr one.out '*' rtouch page-faults self)
RT2=$(ctr two.out '*' rtouch page-faults self)

# col FUNC N: the flat profile's field N counted from the name backwards (1: the last counter column)
flat() {
	"$SPINPROF" -b -p one.out 2>flat.err >flat.txt || { cat flat.err; return 1; }
	cat flat.txt | head -12
	col() { awk -v f="$1" -v n="$2" '$NF == f { print $(NF - n) }' flat.txt; }
	echo "rtouch's page faults: $RT"
	[ "$RT" -ge $((D * K)) ] && [ "$RT" -le $((D * K + HOOKS)) ] || return 1
	grep -q ' self/call total/call  name *$' <(grep -m1 '^ *time ' flat.txt) &&
		grep -q ' page-faults  *$' <(grep -m1 'cumulative' flat.txt) &&
		is "toucher self/call" "$(col toucher 2)" "$(awk -v a=$A -v b=$B 'BEGIN { printf "%.2f", (a + b) / 2 }')" &&
		is "toucher total/call" "$(col toucher 1)" "$(awk -v a=$A -v b=$B 'BEGIN { printf "%.2f", (a + b) / 2 }')" &&
		is "rtouch self/call" "$(col rtouch 2)" "$RT.00" &&
		is "rtouch total/call" "$(col rtouch 1)" "$RT.00" &&
		is "right total/call" "$(col right 1)" "$((B + RS)).00" &&
		"$SPINPROF" one.out 2>/dev/null | grep -qx 'counters: page-faults (per call in the flat profile)'
}
check "flat profile: self and total per call of each counter, as constructed" flat

json() {
	command -v python3 >/dev/null || return 2
	"$SPINPROF" --format=json -o one.json one.out 2>json.err || { cat json.err; return 1; }
	python3 - one.json $A $B $D $K $RT <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
A, B, D, K, RT = map(int, sys.argv[2:])
name = {f["id"]: f["name"] for f in d["functions"]}
fn = {f["name"]: f for f in d["functions"]}
arc = {(name[a["caller"]], name[a["callee"]]): a for a in d["arcs"]}
got = [
    ("header.counters", d["header"]["counters"], ["page-faults"]),
    ("toucher self", fn["toucher"]["counters"]["page-faults"]["self"], A + B),
    ("toucher total", fn["toucher"]["counters"]["page-faults"]["total"], A + B),
    ("left -> toucher", arc[("left", "toucher")]["counters"]["page-faults"]["self"], A),
    ("right -> toucher", arc[("right", "toucher")]["counters"]["page-faults"]["total"], B),
    ("rtouch total", fn["rtouch"]["counters"]["page-faults"]["total"], RT),
    ("rtouch self", fn["rtouch"]["counters"]["page-faults"]["self"], RT),
    ("rtouch -> rtouch total", arc[("rtouch", "rtouch")]["counters"]["page-faults"]["total"], 0),
    ("no cpi without instructions and cycles", "cpi" in fn["toucher"], False),
]
bad = 0
for what, g, w in got:
    print(what, g, "want", w)
    bad += g != w
sys.exit(bad != 0)
PY
}
if command -v python3 >/dev/null; then
	check "json: header.counters, functions' and arcs' counters by name" json
else
	ok "json # SKIP no python3 (in mk/deps.sh)"
fi

cgrind() {
	local t
	"$SPINPROF" --format=callgrind -o one.cg one.out 2>cg.err || { cat cg.err; return 1; }
	[ ! -s cg.err ] || { cat cg.err; return 1; }
	grep -qx 'events: Cycles OffCPU page_faults' one.cg || grep -qx 'events: Cycles page_faults' one.cg || { grep events one.cg; return 1; }
	# the page_faults column of callgrind_annotate's function list (the last of the event columns)
	pf() { callgrind_annotate --threshold=100 "$@" one.cg 2>/dev/null | awk -v f="$FN" '$NF ~ (":" f "$") { gsub(/\([^)]*\)/, ""); $0 = $0; gsub(/,/, "", $(NF - 1)); print $(NF - 1); exit }'; }
	t=$(FN=toucher pf)
	is "toucher's page faults (self)" "$t" $((A + B)) &&
		is "left's inclusive" "$(FN=left pf --inclusive=yes)" $((A + $(ctr one.out main left page-faults self))) &&
		is "rtouch's inclusive" "$(FN=rtouch pf --inclusive=yes)" "$RT"
}
if command -v callgrind_annotate >/dev/null; then
	check "callgrind: the counter as an event, read by callgrind_annotate" cgrind
else
	ok "callgrind # SKIP no callgrind_annotate (valgrind, in mk/deps.sh)"
fi

summed() {
	rm -f gmon.sum
	"$SPINPROF" -s one.out two.out >/dev/null 2>sum.err || { cat sum.err; return 1; }
	is "summed toucher self" "$(ctr gmon.sum '*' toucher page-faults self)" $((2 * (A + B))) &&
		is "summed rtouch incl" "$(ctr gmon.sum '*' rtouch page-faults incl)" $((RT + RT2)) &&
		diff <("$SPINPROF" -b -p one.out two.out 2>&1) <("$SPINPROF" -b -p gmon.sum 2>&1)
}
check "summing (-s): the sum holds both runs' counters, and reports as the two files" summed

# a profile without counters has no counter columns, no counters in json
without() {
	RT_ENV="SPYRT_WATCH=none" rt_run "$P" $A $B $D $K || return 1
	"$SPINPROF" -b -p "$P.out" 2>/dev/null | grep -q 'self/call' && return 1
	"$SPINPROF" --format=json "$P.out" 2>/dev/null | grep -q '"counters"' && return 1
	! rt_dump "$P.out" | grep -q '^arcctr'
}
check "without SPYRT_COUNTERS: no counter columns, no counters in json" without
tap_done
