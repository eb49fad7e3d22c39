#!/bin/bash
# t013: tail calls keep their logical caller (ABI 5): samples/tailchain.c (direct and indirect tail
# calls, a chain a -> b -> c, a tail call into a function without hooks followed by a deeper frame,
# tail recursion through a pointer) gives the same exact arcs at -O2, -O3 and -Os, where the tail
# calls are jumps, in plugin modes time and arcs, with every call site inside the logical caller
# (libspytrace's callsite check); mode count keeps its exact counts. The recursion, 1 000 000 deep,
# runs in an 8 MiB stack (it would not as calls: checked with -fno-optimize-sibling-calls), past
# libspytrace's 65 536-frame shadow stack, with every arc still exact and every enter exited.
. "$(dirname "$0")/lib.sh"
tsan_skip_all "$TSAN_NO_TAILCALLS"
need_plugin
setup_workdir

DEPTH=1000000

# jumps PROG: each tail call of the sample is a jmp (direct: to its callee), never a call
jumps() {
	local dis=$1.dis fn callee body rc=0
	objdump -d --no-show-raw-insn "$1" >"$dis" || return 1
	for pair in t_direct:spin t_a:t_b t_b:t_c t_foreign:bare t_indirect:'\*' down:'\*'; do
		fn=${pair%%:*} callee=${pair#*:}
		body=$(awk -v f="<$fn>:" '$2 == f { p = 1; next } p && NF == 0 { exit } p' "$dis")
		[ -n "$body" ] || { echo "no $fn in the disassembly"; rc=1; continue; }
		if [ "$callee" = '\*' ]; then
			grep -qE 'jmp +\*' <<<"$body" || { echo "$fn: no indirect jump"; echo "$body"; rc=1; }
		elif ! grep -qE "jmp +[0-9a-f]+ <$callee>" <<<"$body" || grep -qE "call +[0-9a-f]+ <$callee>" <<<"$body"; then
			echo "$fn does not end in a jump to $callee:"
			echo "$body"
			rc=1
		fi
	done
	return $rc
}

deep() {
	local prog=$1 mode=$2 tr=$1.deep.trace
	(ulimit -s 8192 && run_traced "$prog" "$tr" $DEPTH 10) || return 1
	sed -e "s/^func down .*/func down $((DEPTH + 1))/" -e "s/^arc down down .*/arc down down $DEPTH/" \
		"$SAMPLES/tailchain.expect" >"$prog.deep.expect"
	trace_compare "$prog.deep.expect" "$tr" O2 "$mode"
}

levels="O2 O3 Os"
tap_plan $((3 * 6 + 2))
for lv in $levels; do
	for mode in time arcs count; do
		check "tailchain -$lv mode=$mode: exact arcs from the logical callers" check_sample tailchain "$lv" "$mode"
	done
	prog=$T/tailchain-$lv-time
	check "tailchain -$lv: the tail calls are jumps" jumps "$prog"
	for mode in time arcs; do
		check "tailchain -$lv mode=$mode: recursion $DEPTH deep in an 8 MiB stack, exact" deep "$T/tailchain-$lv-$mode" "$mode"
	done
done
prog=$T/tailchain-nosib
if build_sample tailchain O2 "$prog" -fno-optimize-sibling-calls >"$T/build.log" 2>&1; then
	check "-fno-optimize-sibling-calls: the jump check sees calls" eval '! jumps "$prog" >/dev/null'
	check "-fno-optimize-sibling-calls: depth $DEPTH overflows 8 MiB" eval \
		'! (ulimit -s 8192 && SPYTRACE_OUT=$T/nosib.trace "$prog" $DEPTH 10 >/dev/null 2>&1)'
else
	not_ok "tailchain -fno-optimize-sibling-calls builds"; not_ok "(not built)"
fi
tap_done
