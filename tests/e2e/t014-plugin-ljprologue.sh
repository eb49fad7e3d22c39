#!/bin/bash
# t014: a longjmp leaves dead frames, and the next call from the longjmp's target is its own,
# whatever the callee's prologue: samples/ljprologue.c gives exact arcs (f -> spinN, never g -> spinN)
# and 120 repaired frames in plugin modes time and arcs, at -O2, -O3 and -Os. At -O2 the
# disassembly must show the prologues the sample is built for: bytes below the return address at
# the entry hook (its CFA argument's offset from %rsp, less 8) of g 8, g_big 100+, spin8 8,
# spin24 24 and spin120 100+ (not under the sanitizers, whose frames differ). An instrumented
# x86-64 function cannot call its hook with 0 bytes pushed: the call needs a 16-byte aligned stack,
# so 8 is the least.
. "$(dirname "$0")/lib.sh"
need_plugin
setup_workdir

# pushed PROG FN: the bytes FN has pushed or reserved when it calls its entry hook
pushed() {
	local off
	off=$(objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '
		$2 == f { p = 1; next }
		p && NF == 0 { exit }
		p && /lea +0x[0-9a-f]+\(%rsp\),%r(dx|si)/ { split($0, a, "lea +0x"); split(a[2], b, "("); off = b[1] }
		p && /call .*<__spy_(entry|arc)/ { print off; exit }')
	[ -n "$off" ] && echo $((16#$off - 8))
}

prologues() {
	local prog=$1 fn want got rc=0
	for want in g:8 g_big:100+ spin8:8 spin24:24 spin120:100+; do
		fn=${want%%:*} want=${want#*:}
		got=$(pushed "$prog" "$fn")
		case $want in
		*+) [ -n "$got" ] && [ "$got" -ge "${want%+}" ] ;;
		*) [ "$got" = "$want" ] ;;
		esac || { echo "$fn pushes ${got:-?} bytes before its entry hook, want $want"; rc=1; }
	done
	return $rc
}

tap_plan $((3 * 2 + 2))
for lv in O2 O3 Os; do
	for mode in time arcs; do
		check "ljprologue -$lv mode=$mode: the call after a longjmp is its caller's, frames repaired" \
			check_sample ljprologue "$lv" "$mode"
	done
done
for mode in time arcs; do
	if [ -n "$SPY_SAN_FLAGS" ]; then
		# the sanitizers' frames (a frame pointer, redzones) are not the shapes measured here
		ok "ljprologue -O2 mode=$mode: prologues # SKIP under sanitizers"
		continue
	fi
	check "ljprologue -O2 mode=$mode: prologues of 8, 24 and 100+ bytes before the hook" prologues "$T/ljprologue-O2-$mode"
done
tap_done
