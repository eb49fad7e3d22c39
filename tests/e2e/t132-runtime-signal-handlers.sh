#!/bin/bash
# t132: a program's own instrumented signal handler nests exactly on the interrupted thread's shadow
# stack: samples/sighandler.c runs on_alarm 5000 times from a 5 kHz SIGALRM while main loops in
# instrumented calls. Counted by construction: on_alarm 5000, hmid 5000, hleaf 10000 (add-one counts
# and arcs alike), on_alarm spontaneous, leaf's calls all from mid; no frame abandoned or unmatched
# and spinprof's self-check holds: in modes time and arcs, code built with mode=arcs, with every hook
# on the slow path (SPYRT_START, where a handler that lands in a hook waits for it), installed with
# SA_SIGINFO and with signal(), and reading the action back gives the program's handler; a handler
# calling the very code it interrupts (its arcs' counts are added to in one instruction).
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
case $SPY_SAN_FLAGS in
*address*) tap_skip_all "ASan intercepts sigaction itself: the runtime does not wrap handlers there (sample-sig.c)" ;;
esac
# ThreadSanitizer too: and it runs a handler only when the thread next enters a function it intercepts,
# so a loop of plain calls may see none of the 5000 (the run waited past the test's timeout)
tsan_skip_all "it intercepts sigaction itself: the runtime does not wrap handlers there (sample-sig.c); and it delays each handler to the thread's next intercepted call"

tap_plan 8

N=5000
check "the sample builds" rt_cc "$T/sh" "$CC" "$SAMPLES/sighandler.c"
check "the sample builds with mode=arcs" rt_cc "$T/sha" "$CC" -fplugin-arg-spyinstr-mode=arcs \
	"$SAMPLES/sighandler.c"

# exact PROG N [HOW]: run, then every fact the handler's construction fixes (HOW info: on_alarm is
# called by on_alarm_info, the handler; shared: on_alarm calls mid too)
exact() {
	local prog=$1 f
	rt_run "$@" || return 1
	grep -qx "handled $N" "$prog.stdout" || { echo "stdout: $(cat "$prog.stdout")"; return 1; }
	f=$prog.out
	rt_facts "$f" >"$prog.facts"
	awk -v n=$N -v info="${3:-}" '
		{ v[$1 " " $2 ($1 == "arc" ? " " $3 : "")] = $NF }
		END {
			want["func on_alarm"] = n; want["func hmid"] = n; want["func hleaf"] = 2 * n
			want["arc on_alarm hmid"] = n; want["arc hmid hleaf"] = 2 * n
			if (info == "info") {
				want["arc <spontaneous> on_alarm_info"] = n; want["arc on_alarm_info on_alarm"] = n
			} else {
				want["arc <spontaneous> on_alarm"] = n
			}
			if (info == "shared")
				want["arc on_alarm mid"] = n
			want["arc mid leaf"] = 2 * v["func mid"]
			want["func leaf"] = 2 * v["func mid"]
			for (k in want) if (v[k] != want[k]) { print k ": " v[k] + 0 ", want " want[k]; bad = 1 }
			if (v["func mid"] < 1000) { print "mid called only " v["func mid"] " times"; bad = 1 }
			exit bad
		}' "$prog.facts" || { cat "$prog.facts"; return 1; }
	[ "$(rt_get "$f" lost abandoned)" = 0 ] && [ "$(rt_get "$f" lost unmatched)" = 0 ] ||
		{ rt_dump "$f" | grep '^lost'; return 1; }
	"$SPY_BUILD/spinprof" "$f" >"$prog.report" 2>&1 || { head -n 3 "$prog.report"; return 1; }
	grep -q '^self-check: [0-9]* functions, add-one counts equal' "$prog.report" &&
		! grep '^mismatch' "$prog.report"
}

check "mode time: exact counts and arcs, none abandoned or unmatched" exact "$T/sh" $N
# with ENV CMD...: CMD with the runtime's environment ENV (rt_run's RT_ENV)
with() {
	local RT_ENV=$1
	shift
	"$@"
}

check "mode arcs (SPYRT_MODE=arcs): the same" with SPYRT_MODE=arcs exact "$T/sh" $N
check "code built with mode=arcs: the same" exact "$T/sha" $N
check "every hook on the slow path (SPYRT_START=main), SA_SIGINFO: the same" \
	with SPYRT_START=main exact "$T/sh" $N info
check "installed with signal(): the same" exact "$T/sh" $N signal
check "the handler calls mid, the code it interrupts (the same arcs): the same" exact "$T/sh" $N shared
tap_done
