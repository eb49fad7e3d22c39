#!/bin/bash
# t115: a program with its own SIGPROF handler keeps it: sampling stops before the program's handler
# is installed (so no tick of ours reaches it), one warning line, GMON_SAMP_FOREIGN in the file, and
# the program's own ITIMER_PROF signals all reach its handler. A program that ignores SIGPROF (SIG_IGN)
# is told so, not that it has a handler; spinprof says the ticks expected never came, and why. Under
# AddressSanitizer the sanitizer intercepts sigaction itself, so the runtime cannot see the program's:
# skipped.
. "$(dirname "$0")/lib-sample.sh"
[ -n "$SPY_SAN_FLAGS" ] && tap_skip_all "the sanitizer intercepts sigaction (SAN=$SPY_SAN)"
rt_setup
tap_plan 6

cat >"$T/foreign.c" <<'EOC'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include "sample.h"
static volatile int mine, strange;
static volatile unsigned long sink;
static void on_prof(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	if (si->si_code == SI_TIMER || si->si_code == POLL_IN)
		strange++; /* a tick of the runtime's */
	else
		mine++;
}
NOINL void spin(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++) { x = x * 6364136223846793005ul + 1; BARRIER(); }
	sink = x;
}
int main(int argc, char **argv)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	if (argc > 1 && !strcmp(argv[1], "ign")) { /* ignored from the start, and nothing else */
		signal(SIGPROF, SIG_IGN);
		spin(300000000);
		printf("mine 0 strange 0\n");
		return 0;
	}
	spin(30000000); /* sampled: the runtime's handler is still the only one */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	if (argc > 1)
		signal(SIGPROF, SIG_IGN); /* signal(), then sigaction() */
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	spin(300000000);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_PROF, &it, NULL);
	printf("mine %d strange %d\n", mine, strange);
	return 0;
}
EOC
P=$T/foreign
if ! check "the program builds" rt_cc "$P" "$CC" "$T/foreign.c"; then
	for _ in $(seq 3); do not_ok "not built"; done
	tap_done
fi

# foreign WHAT [ARG]: the one line says WHAT, the file says foreign; with a handler, it gets its
# signals and none of ours
foreign() {
	local what=$1
	shift
	rt_run "$P" "$@" || return 1
	cat "$P.stdout" "$P.stderr"
	[ "$(grep -c . "$P.stderr")" -eq 1 ] && grep -q "^spy: $what; it keeps it" "$P.stderr" &&
		[ "$(( $(samp_line "$P.out" flags) & 1 ))" -eq 1 ] &&
		{ [ "${1:-}" = ign ] || awk '$1 == "mine" { exit !($2 >= 5 && $4 == 0) }' "$P.stdout"; }
}
check "sigaction(SIGPROF): one warning, flag foreign, the program's handler gets its signals and none of ours" \
	foreign "the program has its own SIGPROF handler"
check "signal(SIGPROF, SIG_IGN), then sigaction(): the line says it ignores SIGPROF (its first word on it)" \
	foreign "the program ignores SIGPROF" x
check "signal(SIGPROF, SIG_IGN) alone, first thing in main: the line says it ignores SIGPROF" \
	foreign "the program ignores SIGPROF" ign
# spinprof on such a run in mode arcs (times from the samples): the ticks the file expected never
# came, and why, in the header and in the flat profile; unless one came before main ignored SIGPROF
ignored() {
	local out exp
	RT_ENV=SPYRT_MODE=arcs rt_run "$P" ign || return 1
	[ "$(samp_line "$P.out" taken)" = 0 ] || { echo "# SKIP a tick came before main ignored SIGPROF"; return 0; }
	exp=$(samp_line "$P.out" expected)
	out=$("$SPY_BUILD/spinprof" -b "$P.out" 2>&1)
	[ "${exp:-0}" -gt 0 ] &&
		grep -qx "samples: none: $exp ticks of cpu time were expected and none arrived (the program set SIGPROF's disposition itself)" <<<"$out" &&
		grep -qx " no time accumulated: $exp ticks of cpu time were expected and none arrived (the program set SIGPROF's disposition itself)" <<<"$out" ||
		{ echo "expected $exp"; grep -E '^(samples|warning| no time)' <<<"$out"; return 1; }
}
out=$(ignored 2>&1)
case $?:$out in
0:"# SKIP"*) ok "spinprof: the ticks expected never came, and why $out" ;;
0:*) ok "spinprof: the ticks expected never came, and why" ;;
*) not_ok "spinprof: the ticks expected never came, and why"; printf '%s\n' "$out" | diag ;;
esac

before() {
	rt_run "$P" || return 1
	[ "$(stacks_with "$P.out" main)" -gt 0 ]
}
check "what was sampled before the program took SIGPROF is kept" before
tap_done
