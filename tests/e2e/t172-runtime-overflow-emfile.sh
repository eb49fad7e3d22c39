#!/bin/bash
# t172: a stack overflow and a program without a file descriptor left still get their profile (issue
# 24, item 7). samples/overflow.c: infinite recursion in deep() after 1000 calls of work() ends by
# SIGSEGV as the plain build does, and its profile is marked incomplete, killed by SIGSEGV in deep,
# with the counts so far (the crash handler runs on the runtime's alternate signal stack); on a thread
# that set its own alternate signal stack first, that stack stays its own and the crash writes the
# same. A program that opened descriptors until EMFILE (soft limit 64) writes its profile with
# spy_dump() and at exit, and finds its limit as it left it; with the hard limit at 64 too, the one
# line says why nothing was written, and the status is still 0.
. "$(dirname "$0")/lib-runtime.sh"
tsan_skip_all "its own handler takes the crash signals, and the runtime's write in that handler allocates, signal-unsafe to it"
rt_setup
tap_plan 5

. "$(dirname "$0")/lib-signals.sh" # ws, asan
cd "$T" || exit 1
ulimit -c 0
check "the programs build (plain and with the plugin)" eval '$CC -O2 "$T/ws.c" -o "$T/ws" &&
	$CC -O2 -I"$SAMPLES" -I"$SPY_SRC/runtime" $SPY_SAN_FLAGS "$SAMPLES/overflow.c" -o "$T/plain" -pthread &&
	rt_cc "$T/ov" "$CC" "$SAMPLES/overflow.c" -pthread'

# overflowed HOW WORK: the plain build's wait status; the profile marked incomplete by SIGSEGV in deep,
# with WORK calls of work() and deep's calls up to the overflow
overflowed() {
	local a b f deep
	rm -f gmon.out
	a=$("$T/ws" "$T/plain" "$1" 2>/dev/null | tail -n 1)
	b=$("$T/ws" "$T/ov" "$1" 2>ov.stderr | tail -n 1)
	echo "plain: $a, spy: $b"
	[ -n "$a" ] && [ "$a" = "$b" ] || return 1
	# AddressSanitizer keeps the crash signals (its own alternate stack): only the statuses compare
	[ $asan -eq 0 ] || return 0
	[ "$a" = "signal 11" ] || return 1
	[ -s gmon.out ] || { echo "no profile"; cat ov.stderr; return 1; }
	f=$(rt_dump gmon.out | sed -n 's/^header .*flags=\(0x[0-9a-f]*\)$/\1/p')
	[ -n "$f" ] && (((f & 0x30) == 0x30)) || { rt_dump gmon.out | head -n 1; return 1; }
	"$SPY_BUILD/spinprof" -b gmon.out >report 2>&1 || { head -n 3 report; return 1; }
	# the overflow lands in deep or in its hook (then deep is the innermost instrumented call)
	# the stack overflows in deep or in its entry hook (named by libspyrt.so's symbols then)
	grep -q '^incomplete: killed by SIGSEGV at 0x[0-9a-f]* \(in deep;\|\(in [^ ]* \[[^]]*\] \)\?(innermost instrumented call: deep)\)' report ||
		{ grep -E '^(ended|incomplete)' report; return 1; }
	rt_facts gmon.out >facts
	deep=$(sed -n 's/^func deep //p' facts)
	echo "deep: ${deep:-none} calls"
	grep -q -x "func work $2" facts && [ "${deep:-0}" -gt 1000 ] || { cat facts; return 1; }
}
check "infinite recursion: SIGSEGV as plain; profile incomplete, killed by SIGSEGV in deep, counts so far" \
	overflowed recurse 1000
# work() 1000 times in main, 1000 times on the thread
own() {
	overflowed own 2000 || return 1
	# waited for (a process substitution left it running, and its crash's gmon.out then replaced the
	# next point's under load)
	[ $asan -eq 1 ] || grep -q -x 'own altstack kept' <<<"$("$T/ov" own 2>/dev/null)"
}
check "on a thread with its own alternate signal stack: kept as its own, the same profile" own

# LeakSanitizer's check at exit reads /proc, for which no descriptor is left: off
noleaks=ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
emfile() {
	local out rc
	rm -f gmon.out emfile-dump.out
	out=$(env "$noleaks" "$T/ov" emfile 2>&1)
	rc=$?
	echo "$out"
	[ $rc -eq 0 ] && [ -s gmon.out ] && [ -s emfile-dump.out ] || return 1
	grep -q -x 'limit kept' <<<"$out" && ! grep -q '^spy:' <<<"$out" || return 1
	rt_facts gmon.out >facts && rt_facts emfile-dump.out >dump.facts
	grep -q -x 'func work 1000' facts && grep -q -x 'func work 1000' dump.facts || { cat facts dump.facts; return 1; }
}
check "no descriptor left (EMFILE): spy_dump and the exit write the profile; the limit is as it was" emfile

emfile_hard() {
	local out rc
	rm -f gmon.out emfile-dump.out
	out=$(env "$noleaks" "$T/ov" emfile hard 2>&1)
	rc=$?
	echo "$out"
	[ $rc -eq 0 ] && [ ! -e gmon.out ] && grep -q -x 'limit kept' <<<"$out" || return 1
	[ "$(grep -c '^spy: cannot write profile: no file descriptor left (RLIMIT_NOFILE.s hard limit, 64, in use)$' <<<"$out")" -eq 2 ] &&
		[ "$(grep -c '^spy:' <<<"$out")" -eq 2 ]
}
check "no descriptor left and the hard limit reached: one line a write, status 0" emfile_hard

tap_done
