#!/bin/bash
# t023: what takes mode=arcs's inline path off its cache, by construction, with exact counts and
# callers: a function called both straight from a caller and through tail calls (a jump: the runtime
# counts it from the tail caller, which the inline path leaves to __spy_arc_miss), from one loop, so
# that its cache entry is filled by one and met by the other; longjmp out of deep calls, each round,
# after which the same calls hit again; a SIGALRM handler at 20 kHz calling instrumented code that
# the interrupted code also calls, landing anywhere in the inline code (the handler counts its own
# runs: its callee's arcs from the handler must equal them, and the interrupted loop's arcs stay
# exact). No frame abandoned or unmatched; spinprof's self-check holds.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
case $SPY_SAN_FLAGS in
*address*) tap_skip_all "ASan intercepts sigaction itself: the runtime does not wrap handlers there (sample-sig.c)" ;;
esac
tsan_skip_all "$TSAN_NO_TAILCALLS; $TSAN_DELAYS_SIGNALS (the two cases this test builds)"
tap_plan 4

: "${SPINPROF:=$SPY_BUILD/spinprof}"
ARCS=-fplugin-arg-spyinstr-mode=arcs
N=20000 J=300 D=6 M=3000000

cat >"$T/ctl.c" <<'EOC'
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include "sample.h"

static volatile long sink;
static volatile long handled;
static jmp_buf env;

NOINL long tgt(long x) { BARRIER(); return x * 3; }
/* "return tgt (...)": a jump at -O2, tgt counted from tail */
NOINL long tail(long x) { return tgt(x + 1); }
NOINL void both(int n)
{
	for (int i = 0; i < n; i++) {
		sink = tgt(i);
		BARRIER();
		sink = tail(i);
		BARRIER();
	}
}
NOINL long jleaf(long x) { BARRIER(); return x + 1; }
NOINL void deep(int d)
{
	sink = jleaf(d);
	BARRIER();
	if (d == 0)
		longjmp(env, 1);
	deep(d - 1);
	BARRIER();
}
NOINL void jumps(int n, int d)
{
	for (int i = 0; i < n; i++) {
		if (!setjmp(env))
			deep(d);
		sink = jleaf(i);
		BARRIER();
	}
}
NOINL long shared(long x) { BARRIER(); return x ^ 5; }
NOINL void on_alarm(int sig)
{
	(void)sig;
	handled++;
	sink = shared(sig);
	BARRIER();
}
NOINL void loop(long m)
{
	for (long i = 0; i < m; i++) {
		sink = shared(i);
		BARRIER();
	}
}
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), j = atoi(argv[2]), d = atoi(argv[3]);
	long m = atol(argv[4]);
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	both(n);
	jumps(j, d);
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	loop(m);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN);
	printf("handled %ld\n", handled);
	return 0;
}
EOC

P=$T/ctl
built() {
	rt_cc "$P" "$CC" $ARCS "$T/ctl.c" || return 1
	# tail's call to tgt must be a jump for the test to mean anything
	objdump -d --no-show-raw-insn "$P" | awk '/<tail>:/ { f = 1 } f && /jmp/ && /<tgt>/ { ok = 1 } f && /^$/ { f = 0 } END { exit !ok }' ||
		{ echo "tail does not jump to tgt"; objdump -d "$P" | sed -n '/<tail>:/,/^$/p'; return 1; }
}
check "the program builds with mode=arcs; tail's call to tgt is a jump" built

exact() {
	local h
	rt_run "$P" $N $J $D $M || return 1
	h=$(sed -n 's/^handled //p' "$P.stdout")
	[ "${h:-0}" -gt 100 ] || { echo "only ${h:-0} signals handled"; return 1; }
	rt_facts "$P.out" >"$P.facts"
	printf '%s\n' "func main 1" "arc <spontaneous> main 1" "func both 1" "arc main both 1" \
		"func tgt $((2 * N))" "arc both tgt $N" "arc tail tgt $N" "func tail $N" "arc both tail $N" \
		"func jumps 1" "arc main jumps 1" "func deep $((J * (D + 1)))" "arc jumps deep $J" \
		"arc deep deep $((J * D))" "func jleaf $((J * (D + 2)))" "arc deep jleaf $((J * (D + 1)))" \
		"arc jumps jleaf $J" "func loop 1" "arc main loop 1" "func on_alarm $h" "arc <spontaneous> on_alarm $h" \
		"func shared $((M + h))" "arc loop shared $M" "arc on_alarm shared $h" >"$P.expect"
	rt_compare "$P.expect" "$P.facts" || return 1
	[ "$(rt_get "$P.out" lost unmatched)" = 0 ] || { rt_dump "$P.out" | grep '^lost'; return 1; }
}
RT_ENV=SPYRT_MODE=arcs check "tail calls, longjmp, a 20 kHz handler: counts and callers exact" exact
cp "$P.out" "$T/ctl-arcs.out" 2>/dev/null
RT_ENV=SPYRT_MODE=time check "the same under SPYRT_MODE=time" exact

selfcheck() {
	"$SPINPROF" -b "$T/ctl-arcs.out" >"$T/ctl.txt" 2>&1 || { head "$T/ctl.txt"; return 1; }
	grep -q '^self-check: .*add-one counts equal incoming arc counts' "$T/ctl.txt" || { grep self-check "$T/ctl.txt"; return 1; }
}
if [ -x "$SPINPROF" ]; then
	check "spinprof's self-check: add-one counts equal incoming arc counts" selfcheck
else
	ok "spinprof's self-check # SKIP no spinprof at $SPINPROF"
fi

tap_done
