#!/bin/bash
# t118: longjmp in libspyrt: after h longjmps back to f over g (or g_big), f's next call is f's own,
# whatever the callee pushes before its entry hook (samples/ljprologue.c: 8, 24 and 100+ bytes, the
# dead frame 8 or 100+): exact arcs (f -> spinN, never g -> spinN), the 120 dead frames of g, g_big and
# h abandoned, nothing unmatched, in SPYRT_MODE time and arcs, and from code built with mode=arcs
# (whose frames end without exits: none abandoned). In mode time f's inclusive time holds spinN's.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 5

P=$T/ljprologue
PA=$T/ljprologue-arcs
check "ljprologue builds (mode time, mode arcs)" eval 'rt_sample ljprologue "$P" && rt_sample ljprologue "$PA" -fplugin-arg-spyinstr-mode=arcs'

# run PROG ABANDONED [VAR=VALUE...]
run() {
	local prog=$1 ab=$2
	shift 2
	RT_ENV="$*" rt_run "$prog" || return 1
	rt_facts "$prog.out" >"$prog.facts"
	rt_compare "$SAMPLES/ljprologue.expect" "$prog.facts" || return 1
	[ "$(rt_get "$prog.out" lost abandoned)" = "$ab" ] && [ "$(rt_get "$prog.out" lost unmatched)" = 0 ] ||
		{ rt_dump "$prog.out" | grep '^lost'; return 1; }
}
check "SPYRT_MODE=time: f calls spinN after the longjmp; 120 frames abandoned" run "$P" 120 SPYRT_MODE=time
cp "$P.out" "$T/time.out"
check "SPYRT_MODE=arcs: the same" run "$P" 120 SPYRT_MODE=arcs
check "code built with mode=arcs: the same arcs" run "$PA" 0

# f's inclusive time holds its calls of spinN, and none of it is charged to g or h
times() {
	rt_dump "$T/time.out" | awk '
		$1 == "arc" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			if (v["caller"] == "main" && v["callee"] == "f") f = v["incl"]
			if (v["caller"] == "f" && v["callee"] ~ /^spin/) s += v["incl"]
			if (v["callee"] ~ /^spin/ && v["caller"] != "f") bad++ }
		END { print "f " f ", its spins " s; exit !(s > 0 && f >= s && !bad) }'
}
check "mode time: f's inclusive time holds its spins" times
tap_done
