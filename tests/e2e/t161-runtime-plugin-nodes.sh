#!/bin/bash
# t161: nodes placed without editing the source, by the plugin option node=FILE:LINE[=NAME]. On
# samples/calls.c (main -> a x10 -> b x3 -> c x2): a node on c's body (line 13), on a's call of b (line
# 27) and on b's call of c (line 19) passes 60, 30 and 60 times at -O0, -O1, -O2, -O3 and -Os (loops
# unrolled and all: the node is placed before optimisation, so it runs as often as its line), and with
# -flto; the default name is FILE@LINE; names with '=' survive GCC's argument parsing; with
# SPYRT_LEG_ADD=successor the successor legs are exact; a line without code is a compile error naming
# it; a bad item is one error; a node for another file is no error.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

tap_plan 7
cd "$T" || exit 1

NODES='-fplugin-arg-spyinstr-node=calls.c:13=inc,calls.c:27,samples/calls.c:19=callc'
hits() {
	rt_dump "$1" | awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "node" { n[val("name")] += val("hits") } END { for (k in n) print k, n[k] }' | LC_ALL=C sort | tr '\n' ' '
}
levels() {
	local o got
	for o in O0 O1 O2 O3 Os; do
		rt_cc "$T/calls-$o" "$CC" "-$o" "$NODES" "$SAMPLES/calls.c" && rt_run "$T/calls-$o" || return 1
		got=$(hits "calls-$o.out")
		echo "-$o: $got"
		[ "$got" = "callc 60 calls.c@27 30 inc 60 " ] || return 1
	done
}
check "node hits exact at -O0, -O1, -O2, -O3, -Os: callc 60, calls.c@27 30, inc 60" levels

lto() {
	rt_cc "$T/calls-lto" "$CC" -flto "$NODES" "$SAMPLES/calls.c" && rt_run "$T/calls-lto" || return 1
	[ "$(hits calls-lto.out)" = "callc 60 calls.c@27 30 inc 60 " ] || { hits calls-lto.out; return 1; }
}
check "with -flto the nodes stay exact" lto

legs() {
	RT_ENV="SPYRT_LEG_ADD=successor SPYRT_LEG_TRACK=successor" rt_run "$T/calls-O2" || return 1
	rt_dump calls-O2.out | awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
		$1 == "leg" { print val("from"), val("to"), val("count") }' | LC_ALL=C sort >legs.txt
	printf '%s\n' "callc inc 60" "calls.c@27 callc 30" "inc callc 30" "inc calls.c@27 29" | diff - legs.txt
}
check "successor legs between the plugin's nodes exact" legs

nocode() {
	! $CC -O2 -fplugin="$SPY_PLUGIN" -fplugin-arg-spyinstr-node=calls.c:8 -I"$SAMPLES" -c "$SAMPLES/calls.c" \
		-o x.o 2>err.txt || return 1
	cat err.txt
	grep -q 'node=calls.c:8: line 8 of .*calls.c has no code' err.txt
}
check "a node on a line without code: a compile error naming the line" nocode

bad() {
	! $CC -O2 -fplugin="$SPY_PLUGIN" -fplugin-arg-spyinstr-node=calls.c -I"$SAMPLES" -c "$SAMPLES/calls.c" \
		-o x.o 2>err.txt || return 1
	cat err.txt
	grep -q "option 'node' has a bad item 'calls.c' (want FILE:LINE or FILE:LINE=NAME)" err.txt
}
check "a bad item: one error saying what is wanted" bad

other() {
	$CC -O2 -fplugin="$SPY_PLUGIN" -fplugin-arg-spyinstr-node=other.c:8 -I"$SAMPLES" -c "$SAMPLES/calls.c" -o x.o
}
check "a node on another file's line is no error in this one" other

names() {
	$CC -O2 -fplugin="$SPY_PLUGIN" -fplugin-arg-spyinstr-verbose \
		'-fplugin-arg-spyinstr-node=calls.c:13=aa,calls.c:19=bbb,calls.c:27=cccc' -I"$SAMPLES" \
		-c "$SAMPLES/calls.c" -o x.o 2>err.txt || { cat err.txt; return 1; }
	grep -o "node ‘[a-z]*’" err.txt | sort | tr '\n' ' ' | grep -qx "node ‘aa’ node ‘bbb’ node ‘cccc’ " ||
		{ cat err.txt; return 1; }
}
check "names after '=' arrive whole (GCC 12 cuts a plugin argument by one character per '=')" names

tap_done
