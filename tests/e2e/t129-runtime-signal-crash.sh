#!/bin/bash
# t129: a run ended by SIGSEGV, SIGFPE, SIGILL, SIGBUS or SIGABRT (samples/signals.c, crashing in
# crash_here after 1000 calls of work()) ends with the plain build's wait status, and its profile reads,
# has work() 1000 times and crash_here() once, and says "incomplete: killed by SIGxxx at PC in
# crash_here" (for abort(), whose PC is in libc, the libc function and offset, and crash_here as the
# innermost instrumented call). A
# SIGSEGV on a second thread while main loops: the same status, and the self-check holds. Under
# AddressSanitizer the sanitizer keeps the crash signals: only the statuses are compared.
. "$(dirname "$0")/lib-runtime.sh"
tsan_skip_all "its own handler takes the crash signals (the plain build ends with its status 66 too), and the runtime's write in that handler allocates, signal-unsafe to it"
rt_setup
tap_plan 7

. "$(dirname "$0")/lib-signals.sh"
check "the programs build (plain and with the plugin)" sig_build
ulimit -c 0

# crash HOW PATTERN: the same wait status as plain; the profile reads, its counts, its header line
crash() {
	local how=$1 pat=$2 a b
	cd "$T" && rm -f gmon.out || return 1
	a=$("$T/ws" "$T/plain" "$how" 2>/dev/null | tail -n 1)
	b=$("$T/ws" "$T/sig" "$how" 2>/dev/null | tail -n 1)
	echo "plain: $a, spy: $b"
	[ -n "$a" ] && [ "$a" = "$b" ] || return 1
	[ $asan -eq 0 ] || return 0
	[ "${a%% *}" = signal ] || return 1
	"$SPY_BUILD/spinprof" -b gmon.out >report 2>&1 || { head -n 3 report; return 1; }
	[ "$(rt_facts gmon.out | grep -c -x 'func work 1000\|func crash_here 1')" -eq 2 ] || { rt_facts gmon.out; return 1; }
	# header flags SIGNAL (bit 4) and INCOMPLETE (bit 5) both set
	local f
	f=$(rt_dump gmon.out | sed -n 's/^header .*flags=\(0x[0-9a-f]*\)$/\1/p')
	[ -n "$f" ] && (((f & 0x30) == 0x30)) || { rt_dump gmon.out | head -n 1; return 1; }
	grep -q "$pat" report || { grep -E '^(ended|incomplete)' report; return 1; }
}
for s in SEGV FPE BUS; do
	check "SIG$s: status as plain; profile marked incomplete, killed by SIG$s in crash_here" \
		crash $s "^incomplete: killed by SIG$s at 0x[0-9a-f]* in crash_here; written in the crash handler"
done
# GCC puts __builtin_trap's ud2 in crash_here.cold, outside the function's own range: named by the
# executable's symbols (the .cold part's owner, with its module), or by the shadow stack's innermost call
check "SIGILL: status as plain; incomplete, killed by SIGILL, crash_here named" \
	crash ILL "^incomplete: killed by SIGILL at 0x[0-9a-f]* \(in crash_here\( \[sig\]\)\?;\|(innermost instrumented call: crash_here)\)"
# abort()'s PC is in libc: named by libc's symbols (libc6-dbg's, which make deps installs) with its
# offset and module, as everywhere else, not as the run's bare address
check "SIGABRT (abort): status as plain; incomplete, the PC named in libc, innermost instrumented call crash_here" \
	crash ABRT "^incomplete: killed by SIGABRT at 0x[0-9a-f]* in [^ ]*+0x[0-9a-f]* \[libc\.so\.6\] (innermost instrumented call: crash_here)"

thread() {
	local a b
	cd "$T" && rm -f gmon.out || return 1
	a=$("$T/ws" "$T/plain" tSEGV 2>/dev/null | tail -n 1)
	b=$("$T/ws" "$T/sig" tSEGV 2>/dev/null | tail -n 1)
	echo "plain: $a, spy: $b"
	[ "$a" = "$b" ] || return 1
	[ $asan -eq 0 ] || return 0
	[ "$a" = "signal 11" ] || return 1
	"$SPY_BUILD/spinprof" -b gmon.out >report 2>&1 &&
		grep -q '^incomplete: killed by SIGSEGV at 0x[0-9a-f]* in crash_here' report &&
		grep -q '^self-check: [0-9]* functions, add-one counts equal' report || { grep -E '^(incompl|self|mism)' report; return 1; }
}
check "SIGSEGV on a thread while main loops: status as plain, self-check holds" thread

tap_done
