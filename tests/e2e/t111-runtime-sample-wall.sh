#!/bin/bash
# t111: SPYRT_WATCH=wall: a thread blocked in nanosleep is sampled as waiting, by its stack, for about
# as long as it slept, and its sleep is never cut short (no signal reaches a blocked thread); running
# code is sampled as in cpu mode; the sampler thread is not a profiled thread. In cpu mode the sleep
# costs no samples.
. "$(dirname "$0")/lib-sample.sh"
tsan_skip_all "it holds an asynchronous signal until the thread's next intercepted call, so sampling ticks are merged and lost"
rt_setup
tap_plan 6

cat >"$T/wall.c" <<'EOC'
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include "sample.h"
static volatile unsigned long sink;
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
/* 300 ms in one nanosleep: EINTR (a signal) would end it early */
NOINL int sleeper(void)
{
	struct timespec d = { 0, 300000000 };
	double t0 = now();
	int rc = nanosleep(&d, NULL);
	double el = now() - t0;
	BARRIER();
	printf("nanosleep %d errno %d slept %.3f\n", rc, rc ? errno : 0, el);
	return rc == 0 && el >= 0.3;
}
NOINL void spin(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		BARRIER();
	}
	sink = x;
}
NOINL void busy(void) { spin(100000000); BARRIER(); }
int main(void)
{
	int ok = 1;
	double in_sleeper = 0;
	for (int i = 0; i < 3; i++) {
		double t0 = now();
		ok &= sleeper();
		in_sleeper += now() - t0;
		busy();
	}
	printf("in_sleeper_ns %.0f\n", in_sleeper * 1e9);
	puts(ok ? "sleeps whole" : "sleep cut short");
	return !ok;
}
EOC
P=$T/wall
if ! check "the program builds" rt_cc "$P" "$CC" "$T/wall.c"; then
	for _ in $(seq 5); do not_ok "not built"; done
	tap_done
fi

# The waiting time charged to sleeper is at least most of its 900 ms of sleep, and at most the real
# time the program measured inside it (on a loaded machine it also waits for a CPU after waking).
wall() {
	local w n in
	RT_ENV=SPYRT_WATCH=wall rt_run "$P" || { cat "$P.stdout"; return 1; }
	cp "$P.out" "$T/wall.out"
	cat "$P.stdout"
	grep -qx 'sleeps whole' "$P.stdout" || return 1
	in=$(awk '$1 == "in_sleeper_ns" { print $2 }' "$P.stdout")
	n=$(stacks_with "$P.out" sleeper waiting)
	w=$(SAMP_FIELD=weight stacks_with "$P.out" sleeper waiting)
	echo "sleeper: $n waiting samples, $w ns (slept 900 ms, $in ns in sleeper)"
	[ "$(samp_line "$P.out" watch)" = wall ] && [ "$n" -ge 400 ] &&
		awk -v w="$w" -v m="$in" 'BEGIN { exit !(w >= 0.75 * 900e6 && w <= 1.1 * m + 20e6) }'
}
check "wall: the sleeping function's stack is sampled as waiting for about its 900 ms" wall

check "wall: every nanosleep lasted its full 300 ms and returned 0" grep -qx 'sleeps whole' "$P.stdout"

# (busy may also wait, for a CPU, on a loaded machine: that is wall time too)
running() {
	local b bw
	b=$(stacks_with "$T/wall.out" busy -)
	bw=$(stacks_with "$T/wall.out" busy waiting)
	echo "busy: $b running samples, $bw waiting"
	[ "$b" -ge 40 ]
}
check "wall: running code is sampled as running" running

no_sampler() {
	rt_dump "$T/wall.out" | awk '$1 == "thread" { n++ } $1 == "stack" { split($2, a, "="); t[a[2]] = 1 }
		END { for (k in t) m++; exit !(n == 1 && m == 1) }'
}
check "wall: the sampler thread is neither a thread record nor a sampled thread" no_sampler

cpu() {
	local s
	rt_run "$P" || { cat "$P.stdout"; return 1; }
	s=$(stacks_with "$P.out" sleeper)
	echo "cpu: sleeper $s samples, busy $(stacks_with "$P.out" busy), waiting $(stacks_with "$P.out" main waiting)"
	grep -qx 'sleeps whole' "$P.stdout" && [ "$s" -le 3 ] && [ "$(stacks_with "$P.out" main waiting)" -eq 0 ] &&
		[ "$(stacks_with "$P.out" busy)" -ge 40 ]
}
check "cpu: the sleep costs (almost) no samples, nothing is waiting" cpu
tap_done
