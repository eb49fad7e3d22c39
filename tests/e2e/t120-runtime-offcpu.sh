#!/bin/bash
# t120: time mode charges CPU time, not time off the CPU. A thread blocks on a condition variable in
# waiter for 400 ms, another spins 300 ms of CPU time in burner, main waits in pthread_join: waiter's
# and main's CPU self times are about 0 and their off-CPU self times what they waited; burner's CPU
# self is its thread's CPU clock. A switch read late (a sleep, then a call that returns first) goes to
# the frames that were active through it and not to the later call. Pinned to one CPU beside a busy
# process, burner is preempted: its CPU time stays its CPU clock and the rest is preempted time.
# Without perf_event_open (a seccomp filter refuses it) times are wall time, and the file says so.
# A ring overrun between two reads is counted as lost, and said.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 9

P=$T/offcpu
if ! check "the programs build" rt_cc "$P" "$CC" "$SAMPLES/offcpu.c" ||
	! $CC -O2 -o "$T/noperf" "$SPY_SRC/tests/e2e/noperf.c"; then
	for _ in $(seq 8); do not_ok "not built"; done
	tap_done
fi

# ms FILE FUNC FIELD: FIELD (incl, self, off_incl, off_self, off_self_pre) summed over the arcs into
# FUNC, in milliseconds
ms() {
	rt_dump "$1" | awk -v f="$2" -v k="$3" '
		function val(key,   i) { for (i = 2; i <= NF; i++) if (index($i, key "=") == 1) return substr($i, length(key) + 2) }
		$1 == "times" { hz = val("tsc_hz") }
		$1 == "arc" && val("callee") == f { s += val(k) }
		END { printf "%.1f\n", hz ? s * 1000 / hz : -1 }'
}
# out NAME: the program's printed NAME_ns, in ms
out() { awk -v k="$1_ns" '$1 == k { printf "%.1f\n", $2 / 1e6 }' "$P.stdout"; }
blocked() {
	rt_run "$P" || return 1
	cp "$P.out" "$T/plain.out"
	cat "$P.stdout"
	rt_dump "$P.out" | grep -E '^thread' | grep -c 'offcpu,' | grep -qx 3 || { echo "threads not flagged offcpu"; return 1; }
	rt_is 'self < 20 && off >= 0.95 * 400 && off <= wall + 20' \
		self="$(ms "$P.out" waiter self)" off="$(ms "$P.out" waiter off_self)" wall="$(out waiter_wall)" &&
		rt_is 'self < 20 && off >= 0.95 * wall - 20' \
			self="$(ms "$P.out" main self)" off="$(ms "$P.out" main off_self)" wall="$(out main_wall)" &&
		rt_is 'incl < 20 && off >= 0.95 * 600' \
			incl="$(ms "$P.out" wthread incl)" off="$(ms "$P.out" wthread off_incl)"
}
check "blocked: waiter's and main's CPU self about 0, their waits off the CPU" blocked

burns() {
	local f=${1:-$P.out}
	rt_is 'self >= 0.95 * cpu - 5 && self <= 1.05 * cpu + 5 && self + off >= 0.95 * wall && self + off <= 1.05 * wall + 5' \
		self="$(ms "$f" burner self)" off="$(ms "$f" burner off_self)" cpu="$(out burner_cpu)" wall="$(out burner_wall)"
}
check "burner's CPU self is its thread's CPU clock, CPU + off CPU its wall time" burns "$T/plain.out"

late_read() {
	rt_is 'leaf_off == 0 && late_self < 20 && late_off >= 0.95 * 200 && late_off < 300' \
		leaf_off="$(ms "$T/plain.out" leaf off_incl)" late_self="$(ms "$T/plain.out" late self)" \
		late_off="$(ms "$T/plain.out" late off_self)"
}
check "a switch read late at a later call's exit is its caller's, not the later call's" late_read

preempted() {
	local hog rc=0
	command -v taskset >/dev/null || { echo "no taskset"; return 1; }
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	rm -f "$P.out"
	SPYRT_OUT="$P.out" taskset -c 0 "$P" >"$P.stdout" 2>"$P.stderr" || rc=1
	kill "$hog"
	wait "$hog" 2>/dev/null
	[ $rc = 0 ] || { cat "$P.stderr"; return 1; }
	cat "$P.stdout"
	burns "$P.out" &&
		rt_is 'pre >= 0.9 * (wall - cpu) && pre >= 100' pre="$(ms "$P.out" burner off_self_pre)" \
			wall="$(out burner_wall)" cpu="$(out burner_cpu)"
}
check "preempted: beside a busy process on one CPU, burner's CPU self stays its CPU clock, the rest is preempted" preempted

no_perf() {
	rm -f "$P.out"
	SPYRT_OUT="$P.out" "$T/noperf" "$P" >"$P.stdout" 2>"$P.stderr" || { cat "$P.stderr"; return 1; }
	cat "$P.stdout" "$P.stderr"
	grep -q 'off-CPU time not measured (perf_event_open: Permission denied): times are wall time' "$P.stderr" &&
		rt_dump "$P.out" | grep -Eq '^header .*flags=0x[0-9a-f]*[89a-f]( |$)' &&
		! rt_dump "$P.out" | grep -q 'offcpu,' &&
		rt_is 'self >= 0.95 * 400 && off == 0' self="$(ms "$P.out" waiter self)" off="$(ms "$P.out" waiter off_self)" &&
		"$SPY_BUILD/spinprof" -b "$P.out" 2>/dev/null | grep -qx 'off CPU: not measured (the runtime could not open its context-switch events): times are wall time, time off the CPU included'
}
check "without perf_event_open: wall time, one line on stderr, and the header and report say so" no_perf

# N short sleeps in one call, with no hook between them: each is a switch out and in (two records of
# 16 bytes); the ring holds 1024 such pairs, so 600 sleeps are all seen and 3000 overrun it: what
# was lost is counted and said on stderr, and the newest 1024 intervals are still charged to sleeper
cat >"$T/many.c" <<'EOC'
#include <stdlib.h>
#include <time.h>
#include "sample.h"
NOINL void sleeper(int n)
{
	struct timespec d = { 0, 20000 };
	for (int i = 0; i < n; i++)
		nanosleep(&d, NULL);
	BARRIER();
}
int main(int argc, char **argv)
{
	sleeper(atoi(argv[1]));
	return 0;
}
EOC
lost() {
	local M=$T/many n1 l1 n3 l3
	rt_cc "$M" "$CC" "$T/many.c" || return 1
	rt_run "$M" 600 || return 1
	n1=$(rt_get "$M.out" thread off_switches) l1=$(rt_get "$M.out" thread off_lost)
	# a sleep whose timer expires before the thread is switched out has no interval
	rt_is 'n >= 540 && l == 0 && off >= n * 0.020' n="$n1" l="$l1" off="$(ms "$M.out" sleeper off_self)" || return 1
	grep -q 'records lost' "$M.stderr" && { echo "600 sleeps: loss reported"; return 1; }
	rt_run "$M" 3000 || return 1
	n3=$(rt_get "$M.out" thread off_switches) l3=$(rt_get "$M.out" thread off_lost)
	cat "$M.stderr"
	# the ring holds 1024 intervals; a switch while the ring is being read (the thread preempted
	# in the drain, as seen under the sanitizers) adds its own, so a few more may be charged; the
	# records lost (two a sleep) and the intervals charged account for about all 3000 sleeps
	rt_is 'l > 0 && n >= 500 && n <= 1024 + 8 && 2 * n + l >= 5400 && off >= n * 0.020' n="$n3" l="$l3" \
		off="$(ms "$M.out" sleeper off_self)" &&
		grep -q 'context-switch records lost' "$M.stderr"
}
check "a full ring: the records lost are counted and said, the rest still charged" lost

# the hooks' fast path in time mode still matches: counts and arcs of samples/calls exact
S=$T/calls
check "calls builds" rt_sample calls "$S"
RT_ENV=SPYRT_MODE=time check "calls, time mode: counts and arcs exact" rt_check_expect calls "$S"
tap_done
