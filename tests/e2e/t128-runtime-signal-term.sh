#!/bin/bash
# t128: a run ended by SIGINT, SIGTERM, SIGHUP or SIGQUIT keeps its profile: samples/signals.c built
# plain and with the plugin ends with the same wait status (the same signal), and the profile exists,
# reads, has work() 1000 times and says which signal ended the run. Also: `timeout` (SIGTERM from
# outside) mid-loop, a program's own SIGINT handler runs first (then its SIG_DFL and raise reach the
# runtime), a handler that only sets a flag keeps the run going to a normal exit, SIGINT's disposition
# reads back as SIG_DFL, and a SIGHUP ignored from the start (nohup) stays ignored.
. "$(dirname "$0")/lib-runtime.sh"
tsan_skip_all "it holds a terminating signal until the thread's next intercepted call (a loop without one never ends), and the runtime's write in that handler allocates, signal-unsafe to it"
rt_setup
tap_plan 11

. "$(dirname "$0")/lib-signals.sh"
check "the programs build (plain and with the plugin)" sig_build
ulimit -c 0
# asan (lib-signals.sh): under AddressSanitizer sigaction() is the sanitizer's: a handler the program
# sets replaces the runtime's for good, and SIGINT's disposition reads back as the runtime's handler

# same HOW [PATTERN]: the wait status of the two builds is the same, and the profile reads, has
# work() 1000 times, and its header line matches PATTERN
same() {
	local how=$1 pat=$2 a b
	cd "$T" && rm -f gmon.out || return 1
	a=$("$T/ws" "$T/plain" "$how" 2>/dev/null | tail -n 1)
	b=$("$T/ws" "$T/sig" "$how" 2>/dev/null | tail -n 1)
	echo "plain: $a, spy: $b"
	[ -n "$a" ] && [ "$a" = "$b" ] || return 1
	"$SPY_BUILD/spinprof" -b gmon.out >report 2>&1 || { head -n 3 report; return 1; }
	grep -qx 'func work 1000' <(rt_facts gmon.out) || { rt_facts gmon.out; return 1; }
	[ -z "$pat" ] || grep -q "$pat" report || { grep -E '^(ended|incomplete)' report; return 1; }
}
for s in INT TERM HUP QUIT; do
	check "SIG$s: status as plain, profile with work() 1000 times, 'ended by SIG$s'" \
		same $s "^ended by SIG$s at 0x[0-9a-f]* .*the profile was written before the signal took effect"
done

# the signal lands anywhere in the loop, also between a call's count and its enter hook: 5 runs
timeout_term() {
	local a b i
	cd "$T" || return 1
	a=$(timeout 0.3 "$T/plain" forever; echo $?)
	for ((i = 0; i < 5; i++)); do
		rm -f gmon.out
		b=$(timeout 0.3 "$T/sig" forever; echo $?)
		echo "run $i: plain: $a, spy: $b"
		[ "$a" = 124 ] && [ "$b" = 124 ] && "$SPY_BUILD/spinprof" -b gmon.out >report 2>&1 &&
			grep -q '^ended by SIGTERM at 0x[0-9a-f]* in \(work\|main\)\|^ended by SIGTERM at 0x[0-9a-f]* \(in [^ ]* \[[^]]*\] \)\?(innermost instrumented call: \(work\|main\))' report &&
			grep -q '^self-check: [0-9]* functions, add-one counts equal' report || { grep -E '^(ended|self|mism)' report; return 1; }
	done
}
# the PC is in work, in main's loop between two calls (seen once in CI), or elsewhere (a tick's handler,
# a hook: named by its module's symbols, "enter_timed+0x12 [libspyrt.so]")
check "timeout 0.3 (SIGTERM mid-loop), 5 runs: status 124 as plain, profile reads, self-check holds" timeout_term

# the signal lands in a loop without calls: no hook comes, a timer writes the profile; the PC is
# spin's, or (a tick's handler running when SIGTERM came, seen once under load) elsewhere with spin
# the thread's innermost instrumented call
spin() {
	local a b
	cd "$T" && rm -f gmon.out || return 1
	a=$(timeout 0.3 "$T/plain" spin; echo $?)
	b=$(timeout 0.3 "$T/sig" spin; echo $?)
	echo "plain: $a, spy: $b"
	[ "$a" = 124 ] && [ "$b" = 124 ] && "$SPY_BUILD/spinprof" -b gmon.out >report 2>&1 &&
		grep -q '^ended by SIGTERM at 0x[0-9a-f]* \(in spin\|\(in [^ ]* \[[^]]*\] \)\?(innermost instrumented call: spin)\)' report &&
		grep -qx 'func work 1000' <(rt_facts gmon.out) ||
		{ grep -E '^(ended|spinprof)' report; return 1; }
}
check "timeout 0.3 in a loop without calls: status 124 as plain, profile written (in spin)" spin

own() {
	local out
	cd "$T" || return 1
	out=$("$T/ws" "$T/sig" own)
	echo "$out"
	[ "$out" = "$(printf 'own handler\nsignal 2')" ] || return 1
	[ $asan -eq 1 ] || same own '^ended by SIGINT'
}
check "the program's own SIGINT handler runs first; its SIG_DFL and raise then end the run (status as plain)" own

flag() {
	local out
	cd "$T" && rm -f gmon.out || return 1
	out=$("$T/ws" "$T/sig" flag)
	echo "$out"
	[ "$out" = "$(printf 'flagged\nexit 0')" ] && same flag && ! grep -q '^ended by' report
}
check "a SIGTERM handler that sets a flag: the run goes on to exit 0, the profile is the normal one" flag

query() {
	local a b
	cd "$T" || return 1
	a=$("$T/plain" query) b=$("$T/sig" query)
	echo "plain: $a, spy: $b"
	[ "$a" = "$b" ] && [ "$(head -n 1 <<<"$b")" = default ]
}
if [ $asan -eq 1 ]; then
	ok "SIGINT's disposition reads back as SIG_DFL # SKIP AddressSanitizer intercepts sigaction"
else
	check "SIGINT's disposition reads back as SIG_DFL, as in the plain build" query
fi

nohup_hup() {
	local a b
	cd "$T" && rm -f gmon.out || return 1
	a=$(trap '' HUP && "$T/ws" "$T/plain" HUP | tail -n 1)
	b=$(trap '' HUP && "$T/ws" "$T/sig" HUP | tail -n 1)
	echo "plain: $a, spy: $b"
	[ "$a" = "exit 3" ] && [ "$b" = "exit 3" ] && "$SPY_BUILD/spinprof" -b gmon.out >report 2>&1 &&
		! grep -q '^ended by' report
}
check "SIGHUP ignored from the start (nohup): still ignored, the run ends normally" nohup_hup

tap_done
