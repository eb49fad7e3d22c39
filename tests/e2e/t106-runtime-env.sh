#!/bin/bash
# t106: the environment: each bad value is one stderr line naming the variable and the value, the
# default is used and the program's exit status is untouched; SPYRT_OFF, SPYRT_READY (the Multics
# ready message), SPYRT_START/SPYRT_STOP (recording while starts exceed stops), SPYRT_ARCS.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup

bads=("SPYRT_MODE=fast" "SPYRT_ARCS=12x" "SPYRT_ARCS=1" "SPYRT_OFF=yes" "SPYRT_READY=2" "SPYRT_OUT=" \
	"SPYRT_OUT=dir/" "SPYRT_OUT=a%s" "SPYRT_START=" "SPYRT_STOP=a b" "SPYRT_TYPO=1")
tap_plan $((2 + ${#bads[@]} + 7))

C=$T/calls
check "calls builds" rt_sample calls "$C"
cat >"$T/status.c" <<'EOC'
#include "sample.h"
NOINL int f(int x) { BARRIER(); return x + 1; }
int main(void) { return f(6); }
EOC
check "a program exiting with status 7 builds" rt_cc "$T/status" "$CC" "$T/status.c"

one_bad() {
	local var=$1 name=${1%%=*} value=${1#*=} err rc
	rm -f "$T/gmon.out"
	err=$(cd "$T" && env "$var" ./status 2>&1 >/dev/null)
	rc=$?
	echo "$err"
	[ $rc -eq 7 ] || { echo "status $rc, want 7"; return 1; }
	[ "$(grep -c . <<<"$err")" -eq 1 ] || { echo "want one line"; return 1; }
	grep -qF "$name" <<<"$err" && grep -qF "'$value'" <<<"$err" || { echo "does not name $name and '$value'"; return 1; }
	# the defaults: gmon.out here, mode time
	[ -s "$T/gmon.out" ] && [ "$(rt_get "$T/gmon.out" header mode)" = time ] ||
		{ echo "no gmon.out in time mode"; ls "$T"; return 1; }
	grep -q '^func f 1$' <(rt_facts "$T/gmon.out") || { echo "f not counted"; return 1; }
}
for b in "${bads[@]}"; do
	check "bad $b: one line naming it, defaults used, status kept" one_bad "$b"
done

off() {
	RT_ENV=SPYRT_OFF=1 rt_run "$C" || return 1
	rt_facts "$C.out" >"$C.facts"
	grep -qx 'func c 0' "$C.facts" && ! grep -q '^arc' "$C.facts" || { cat "$C.facts"; return 1; }
}
check "SPYRT_OFF=1: nothing recorded" off

ready() {
	RT_ENV=SPYRT_READY=1 rt_run "$C" || return 1
	cat "$C.stderr"
	grep -Eq '^r [0-2][0-9]:[0-5][0-9]:[0-5][0-9] [0-9]+\.[0-9]{3} cpu [0-9]+ faults \([0-9]+ major\)$' "$C.stderr" &&
		[ "$(grep -c . "$C.stderr")" -eq 1 ]
}
check "SPYRT_READY=1: one ready line (time of day, cpu seconds, page faults)" ready

# calls: main -> a (10) -> b (30) -> c (60)
start_only() {
	RT_ENV=SPYRT_START=b rt_run "$C" || return 1
	rt_facts "$C.out" | grep '^arc' >"$C.arcs"
	# a was entered before recording began (no frame), but b's calls are made by a's code: a's
	printf '%s\n' 'arc a b 30' 'arc b c 60' | diff - "$C.arcs" || return 1
	# the counts are switched with the arcs (t137): main and a were called outside the window
	rt_facts "$C.out" | awk '$1 == "func" && $3' >"$C.funcs"
	printf '%s\n' 'func b 30' 'func c 60' | diff - "$C.funcs"
}
check "SPYRT_START=b alone: only b's activations (b and what it calls)" start_only

stop_only() {
	RT_ENV=SPYRT_STOP=c rt_run "$C" || return 1
	rt_facts "$C.out" | grep '^arc' >"$C.arcs"
	printf '%s\n' 'arc <spontaneous> main 1' 'arc a b 1' 'arc main a 1' | diff - "$C.arcs"
}
check "SPYRT_STOP=c alone: everything until c is first called" stop_only

start_stop() {
	RT_ENV="SPYRT_START=a SPYRT_STOP=c" rt_run "$C" || return 1
	rt_facts "$C.out" | grep '^arc' >"$C.arcs"
	printf '%s\n' 'arc a b 1' 'arc main a 1' | diff - "$C.arcs"
}
check "SPYRT_START=a SPYRT_STOP=c: from a's first call to c's" start_stop

no_such() {
	RT_ENV=SPYRT_START=nosuch rt_run "$C" || return 1
	cat "$C.stderr"
	[ "$(grep -c . "$C.stderr")" -eq 1 ] && grep -q "SPYRT_START=nosuch: no instrumented function" "$C.stderr" &&
		rt_dump "$C.out" | grep -q '^error SPYRT_START=nosuch: no instrumented function has that name$'
}
check "SPYRT_START naming no function: said once at the end, and in the file" no_such

arcs_ok() {
	RT_ENV="SPYRT_ARCS=64" rt_check_expect calls "$C" && [ ! -s "$C.stderr" ]
}
check "SPYRT_ARCS=64: accepted, silent, exact" arcs_ok
tap_done
