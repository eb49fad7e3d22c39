#!/bin/bash
# t009: the tail hook (ABI 5) goes before a tail call and the call stays a jump. objdump must show
# each tail call of samples/tailcall.c as a jmp to its callee, and the 10 000 000-deep mutual tail
# recursion must run in an 8 MiB stack with every enter matched by an exit, its arcs counted from
# their logical callers (past the trace's 65 536-frame stack the callee takes its tail caller's
# place). A switch of plain returns beside a tail call (samples/tokens.c) gets one exit hook for
# the returns, not one each, and a tail hook before the tail call.
. "$(dirname "$0")/lib.sh"
tsan_skip_all "$TSAN_NO_TAILCALLS"
need_plugin
setup_workdir

DEPTH=10000000

# tail_jumps PROG: to_leaf jumps to leaf, ping to pong, pong to ping (and never calls them)
tail_jumps() {
	local dis=$1.dis fn callee body rc=0
	objdump -d --no-show-raw-insn "$1" >"$dis" || return 1
	for pair in to_leaf:leaf ping:pong pong:ping; do
		fn=${pair%%:*} callee=${pair#*:}
		body=$(awk -v f="<$fn>:" '$2 == f { p = 1; next } p && NF == 0 { exit } p' "$dis")
		[ -n "$body" ] || { echo "no $fn in the disassembly"; rc=1; continue; }
		if ! grep -qE "jmp +[0-9a-f]+ <$callee>" <<<"$body" || grep -qE "call +[0-9a-f]+ <$callee>" <<<"$body"; then
			echo "$fn does not end in a jump to $callee:"
			echo "$body"
			rc=1
		fi
		grep -qE 'call .*<__spy_tail' <<<"$body" || { echo "$fn has no tail hook"; echo "$body"; rc=1; }
	done
	return $rc
}

deep_run() {
	local prog=$1 mode=$2 tr=$1.deep.trace half=$((DEPTH / 2))
	(ulimit -s 8192 && run_traced "$prog" "$tr" $DEPTH) || return 1
	cat >"$prog.deep.expect" <<EOT
func main 1
func ping $((half + 1))
func pong $half
func to_leaf 10
func leaf 10
arc <spontaneous> main 1
arc main to_leaf 10
arc to_leaf leaf 10
arc main ping 1
arc ping pong $half
arc pong ping $half
EOT
	trace_compare "$prog.deep.expect" "$tr" O2 "$mode"
}

# one_exit PROG: the plugin gives classify (samples/tokens.c: a return per case of a switch, one tail
# call) one exit hook for all the plain returns, not one per case, and a tail hook before its tail call;
# counted in the last GIMPLE dump, since the compiler may later copy a small return block (it does
# with -fno-omit-frame-pointer). The tail call is still a jump.
one_exit() {
	local body n tails dump
	(cd "$T" && rm -f ./*.optimized && build_sample tokens "$2" "$1-dump" -fplugin-arg-spyinstr-mode=time \
		-fdump-tree-optimized -dumpdir "$T/") || return 1
	dump=$(ls "$T"/*tokens*.optimized 2>/dev/null | head -n 1)
	[ -n "$dump" ] || { echo "no GIMPLE dump"; ls "$T"; return 1; }
	n=$(awk '/^;; Function classify/ { p = 1; next } /^;; Function / { p = 0 } p && /__spy_leave \(/ { n++ } END { print n + 0 }' "$dump")
	tails=$(awk '/^;; Function classify/ { p = 1; next } /^;; Function / { p = 0 } p && /__spy_tail \(/ { n++ } END { print n + 0 }' "$dump")
	body=$(objdump -d --no-show-raw-insn "$1" | awk '$2 == "<classify>:" { p = 1; next } p && NF == 0 { exit } p')
	if [ "$n" -ne 1 ] || [ "$tails" -ne 1 ] || ! grep -qE "jmp +[0-9a-f]+ <escape>" <<<"$body"; then
		echo "classify has $n exit hooks (want 1) and $tails tail hooks (want 1) in GIMPLE, or no jump to escape:"
		echo "$body"
		return 1
	fi
}

levels="O2 O3 Os"
tap_plan $((3 * 3 + 2))
for lv in $levels; do
	prog=$T/tailcall-$lv
	if ! build_sample tailcall "$lv" "$prog" -fplugin-arg-spyinstr-mode=time >"$T/build.log" 2>&1; then
		not_ok "tailcall -$lv builds"; diag <"$T/build.log"; not_ok "tailcall -$lv (not built)"
		continue
	fi
	check "tailcall -$lv: the tail calls are jumps, after the tail hook" tail_jumps "$prog"
	check "tailcall -$lv: depth $DEPTH in an 8 MiB stack, exact" deep_run "$prog" time
	if build_sample tokens "$lv" "$T/tokens-$lv" -fplugin-arg-spyinstr-mode=time >"$T/build.log" 2>&1; then
		check "tokens -$lv: one exit hook for a switch of returns, a tail hook before the tail call" one_exit "$T/tokens-$lv" "$lv"
	else
		not_ok "tokens -$lv builds"; diag <"$T/build.log"
	fi
done
# Sanity of the check itself: with sibling calls off the same recursion does not fit.
prog=$T/tailcall-nosib
if build_sample tailcall O2 "$prog" -fno-optimize-sibling-calls >"$T/build.log" 2>&1; then
	check "-fno-optimize-sibling-calls: objdump check sees calls" eval '! tail_jumps "$prog" >/dev/null'
	check "-fno-optimize-sibling-calls: depth $DEPTH overflows 8 MiB" eval \
		'! (ulimit -s 8192 && SPYTRACE_OUT=$T/nosib.trace "$prog" $DEPTH >/dev/null 2>&1)'
else
	not_ok "tailcall -fno-optimize-sibling-calls builds"; not_ok "(not built)"
fi
tap_done
