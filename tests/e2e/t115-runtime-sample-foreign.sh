#!/bin/bash
# t115: a program with its own SIGPROF handler keeps it: sampling stops before the program's handler
# is installed (so no tick of ours reaches it), one warning line, GMON_SAMP_FOREIGN in the file, and
# the program's own ITIMER_PROF signals all reach its handler. Under AddressSanitizer the sanitizer
# intercepts sigaction itself, so the runtime cannot see the program's: skipped.
. "$(dirname "$0")/t110-runtime-sample-cpu.sh"
[ -n "$SPY_SAN_FLAGS" ] && tap_skip_all "the sanitizer intercepts sigaction (SAN=$SPY_SAN)"
rt_setup
tap_plan 4

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
	(void)argv;
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

foreign() {
	rt_run "$P" "$@" || return 1
	cat "$P.stdout" "$P.stderr"
	[ "$(grep -c . "$P.stderr")" -eq 1 ] && grep -q 'own SIGPROF handler' "$P.stderr" &&
		[ "$(( $(samp_line "$P.out" flags) & 1 ))" -eq 1 ] &&
		awk '$1 == "mine" { exit !($2 >= 5 && $4 == 0) }' "$P.stdout"
}
check "sigaction(SIGPROF): one warning, flag foreign, the program's handler gets its signals and none of ours" foreign
check "signal(SIGPROF) first: the same" foreign x

before() {
	rt_run "$P" || return 1
	[ "$(stacks_with "$P.out" main)" -gt 0 ]
}
check "what was sampled before the program took SIGPROF is kept" before
tap_done
