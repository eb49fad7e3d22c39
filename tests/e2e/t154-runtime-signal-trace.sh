#!/bin/bash
# t154: the interruption trace (Multics): with SPYRT_SIGNAL_TRACE=N the runtime's handler stands in
# for each handler the program installs, records the signal (time, number, interrupted PC, innermost
# instrumented call) into its thread's ring of N, and calls the program's handler as it asked
# (plain or SA_SIGINFO); sigaction() reads the program's handler back. samples/sigs.c raises SIGUSR1
# N1 times from sender1 and SIGUSR2 N2 times from sender2: the trace holds exactly those signals, in
# that order, in those functions, and the handlers ran exactly as without the trace. A ring of 4
# keeps the last 4 and counts the others dropped; without the variable nothing is traced; a bad value
# is one line and no trace. spinprof --trace prints them. (Under AddressSanitizer, which intercepts
# sigaction itself, the runtime does not interpose it: skipped. Under ThreadSanitizer, which does the
# same, the points that need a trace skip; the runs without one hold.)
. "$(dirname "$0")/lib-runtime.sh"
. "$(dirname "$0")/lib-spinprof.sh"
[[ $SPY_SAN_FLAGS == *address* ]] && tap_skip_all "AddressSanitizer intercepts sigaction: no interruption trace"
rt_setup
tap_plan 6

P=$T/sigs
if ! check "samples/sigs.c builds" rt_cc "$P" "$CC" "$SAMPLES/sigs.c"; then
	for _ in $(seq 5); do not_ok "not built"; done
	tap_done
fi
WANT="got1 5 got2 3 info 3 readback 1"
TSAN_NO_TRACE="it intercepts sigaction itself, so the runtime does not interpose it: no interruption trace"

# the signal events as "SIG FUNC"
events() { rt_dump "$1" | awk '$1 == "tevent" { w = ""; f = ""; for (i = 2; i <= NF; i++) { if (index($i, "what=") == 1) w = substr($i, 6); if (index($i, "func=") == 1) f = substr($i, 6) } print w, f }'; }
expected() { for _ in $(seq "$1"); do echo "10 sender1"; done; for _ in $(seq "$2"); do echo "12 sender2"; done; }

traced() {
	[ -z "$SPY_TSAN" ] || return 0
	RT_ENV="SPYRT_SIGNAL_TRACE=16" rt_run "$P" 5 3 || return 1
	cat "$P.stdout"
	rt_dump "$P.out" | grep '^trace'
	[ "$(cat "$P.stdout")" = "$WANT" ] && [ "$(rt_dump "$P.out" | grep -c '^trace kind=signals .* events=8 dropped=0$')" = 1 ] &&
		diff <(events "$P.out") <(expected 5 3)
}
check "8 signals in order, in sender1 and sender2; the handlers ran as asked; sigaction reads back$(tsan_skip "$TSAN_NO_TRACE")" traced

ring() {
	[ -z "$SPY_TSAN" ] || return 0
	RT_ENV="SPYRT_SIGNAL_TRACE=4" rt_run "$P" 5 3 || return 1
	rt_dump "$P.out" | grep '^trace'
	[ "$(cat "$P.stdout")" = "$WANT" ] && rt_dump "$P.out" | grep -q '^trace kind=signals .* events=4 dropped=4$' &&
		diff <(events "$P.out") <(expected 1 3)
}
check "a ring of 4: the last 4 signals, 4 dropped$(tsan_skip "$TSAN_NO_TRACE")" ring

untraced() {
	rt_run "$P" 5 3 || return 1
	[ "$(cat "$P.stdout")" = "$WANT" ] && ! rt_dump "$P.out" | grep -q '^trace'
}
check "without SPYRT_SIGNAL_TRACE: the same run, no trace" untraced

bad() {
	RT_ENV="SPYRT_SIGNAL_TRACE=many" rt_run "$P" 5 3 || return 1
	cat "$P.stderr"
	[ "$(wc -l <"$P.stderr")" = 1 ] && grep -q "^spy: SPYRT_SIGNAL_TRACE='many'" "$P.stderr" &&
		[ "$(cat "$P.stdout")" = "$WANT" ] && ! rt_dump "$P.out" | grep -q '^trace'
}
check "SPYRT_SIGNAL_TRACE=many: one line, no trace" bad

printed() {
	[ -z "$SPY_TSAN" ] || return 0
	RT_ENV="SPYRT_SIGNAL_TRACE=16" rt_run "$P" 5 3 || return 1
	"$SPINPROF" --trace "$P.out" >"$P.txt" || return 1
	grep ' signal ' "$P.txt" | head -2
	diff <(awk '$3 == "signal" { print $4, $NF }' "$P.txt") <(expected 5 3 | sed 's/^10/SIGUSR1/; s/^12/SIGUSR2/') &&
		grep -qE '^trace of signals, thread [0-9]+: 8 events, 0 dropped$' "$P.txt"
}
check "spinprof --trace: the signals by name, in time order, in their functions$(tsan_skip "$TSAN_NO_TRACE")" printed
tap_done
