#!/bin/bash
# t110: sampling by CPU time (SPYRT_WATCH=cpu, the default): a function doing 9x the work of another
# gets 9x the samples; stacks carry the shadow stack's call sites; ticks taken match the CPU time at
# SPYRT_HZ and SPYRT_DIVISOR; none, count mode (PCs only), spy_off/spy_on, spy_flush, threads (an exited
# thread keeps its samples), fork (the child starts empty), ticks in the profiler, bad values.
. "$(dirname "$0")/lib-sample.sh"

tsan_skip_all "it holds an asynchronous signal until the thread's next intercepted call, so sampling ticks are merged and lost"
rt_setup
tap_plan 16

# A 250 Hz kernel checks CPU timers 250 times a second, so 1000 samples take about 4 s of CPU.
cat >"$T/cpu.c" <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sample.h"
#include "spy.h"
static __thread volatile unsigned long sink; /* per thread: no race between the threads */
static unsigned long unit = 450000000; /* light's iterations; heavy does 9 times as many */
/* the same loop body for both: only the iteration count differs */
NOINL void spin(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		BARRIER();
	}
	sink = x;
}
NOINL void light(void) { spin(unit); BARRIER(); }
NOINL void heavy(void) { spin(9 * unit); BARRIER(); }
NOINL int tiny(int x) { BARRIER(); return x + 1; }
NOINL void *worker(void *a) { light(); BARRIER(); return a; }
int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "ratio";
	if (argc > 2)
		unit = strtoul(argv[2], NULL, 10);
	if (!strcmp(m, "ratio")) {
		light();
		heavy();
	} else if (!strcmp(m, "off")) {
		spy_off();
		heavy();
		spy_on();
		light();
	} else if (!strcmp(m, "flush")) {
		heavy();
		spy_flush();
		light();
	} else if (!strcmp(m, "threads")) {
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, worker, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(m, "fork")) {
		light();
		fflush(stdout);
		pid_t p = fork();
		if (p == 0) {
			heavy();
			exit(0);
		}
		printf("child %d\n", (int)p);
		waitpid(p, NULL, 0);
	} else if (!strcmp(m, "hooks")) {
		int s = 0;
		unsigned long w = 0;
		for (long i = 0; i < (long)unit; i++) {
			s = tiny(s);
			/* some work of main's own, so that under the sanitizers, whose hooks are
			 * slow, not nearly every tick lands in the runtime */
			for (int k = 0; k < 16; k++) {
				w += (unsigned long)k;
				BARRIER();
			}
		}
		sink = (unsigned long)s + w;
	}
	return 0;
}
EOC
P=$T/cpu
if ! check "the program builds" rt_cc "$P" "$CC" "$T/cpu.c"; then
	for _ in $(seq 15); do not_ok "not built"; done
	tap_done
fi

ratio() {
	local l h taken
	# a third more work than the other runs: at 250 Hz the default unit gave 999 to about 1000
	# samples, at the edge of the count this check wants for its 10 % bound
	rt_run "$P" ratio 600000000 || return 1
	taken=$(samp_line "$P.out" taken)
	l=$(stacks_with "$P.out" light)
	h=$(stacks_with "$P.out" heavy)
	echo "watch $(samp_line "$P.out" watch), taken $taken, light $l, heavy $h"
	[ "$(samp_line "$P.out" watch)" = cpu ] && [ "$taken" -ge 1000 ] &&
		awk -v l="$l" -v h="$h" 'BEGIN { exit !(l > 0 && h >= 8.1 * l && h <= 9.9 * l) }'
}
check "cpu (default): 9x the work gets 9x the samples (within 10 %), >= 1000 samples" ratio
cp "$P.out" "$T/ratio.out"

weights() {
	local l h
	l=$(SAMP_FIELD=weight stacks_with "$T/ratio.out" light)
	h=$(SAMP_FIELD=weight stacks_with "$T/ratio.out" heavy)
	echo "weights: light $l ns, heavy $h ns"
	awk -v l="$l" -v h="$h" 'BEGIN { exit !(l > 0 && h >= 8.1 * l && h <= 9.9 * l) }'
}
check "cpu: weights (CPU ns) are 9x too" weights

shape() {
	# every sample of light's or heavy's work: spin, called from light/heavy, called from main; a
	# sample in the profiler (flags runtime: spin's hooks, before its frame is pushed or after it is
	# popped) is the hooks' time, not their work
	rt_dump "$T/ratio.out" | awk '
		$1 == "stack" && /[,=](light|heavy)@/ && !/flags=([a-z]*,)*runtime,/ {
			for (i = 2; i <= NF; i++) if (index($i, "frames=") == 1) fr = substr($i, 8)
			n = split(fr, f, ",")
			if (n != 3 || f[1] !~ /^spin@0x[0-9a-f]+$/ || f[2] !~ /^(light|heavy)@0x[0-9a-f]+$/ || f[3] !~ /^main@/) { print "bad: " $0; bad++ }
			seen++
		}
		END { exit !(seen > 0 && !bad) }'
}
check "stacks are the shadow stack, innermost first, with call sites: spin, light|heavy, main" shape

expected() {
	local e t m
	e=$(samp_line "$T/ratio.out" expected)
	t=$(samp_line "$T/ratio.out" taken)
	m=$(samp_line "$T/ratio.out" missed)
	echo "expected $e, taken $t, missed $m, cpu_ns $(samp_line "$T/ratio.out" cpu_ns)"
	within $((t + m)) "$e" 15
}
check "ticks taken (with those missed) match the CPU time x SPYRT_HZ" expected

none() {
	RT_ENV=SPYRT_WATCH=none rt_run "$P" ratio 20000000 || return 1
	! rt_dump "$P.out" | grep -Eq '^(sampling|stack) ' && [ ! -s "$P.stderr" ]
}
check "SPYRT_WATCH=none: no sampling record, no stacks, silent" none

count_mode() {
	local spin
	RT_ENV=SPYRT_MODE=count rt_run "$P" ratio 100000000 || return 1
	spin=$(rt_dump "$P.out" | awk '$1 == "func" && $2 == "spin" { for (i = 3; i <= NF; i++) if (index($i, "addr=") == 1) print substr($i, 6) }')
	rt_dump "$P.out" | awk -v spin="$spin" '
		function hex(s,   i, c, v) { s = tolower(substr(s, 3)); v = 0; for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c } return v }
		$1 == "stack" {
			for (i = 2; i <= NF; i++) {
				if (index($i, "count=") == 1) c = substr($i, 7)
				if (index($i, "pc=") == 1) pc = hex(substr($i, 4))
				if (index($i, "frames=") == 1) fr = substr($i, 8)
			}
			if (fr != "-") deep++
			all += c
			if (pc >= hex(spin) && pc < hex(spin) + 512) in_spin += c
		}
		END { printf "samples %d, in spin %d, with frames %d\n", all, in_spin, deep; exit !(all >= 100 && in_spin >= 0.9 * all && !deep) }'
}
check "SPYRT_MODE=count: no shadow stack, so PCs only; they fall in spin" count_mode

off_on() {
	local l h
	rt_run "$P" off 100000000 || return 1
	l=$(stacks_with "$P.out" light)
	h=$(stacks_with "$P.out" heavy)
	echo "light $l heavy $h"
	[ "$h" -eq 0 ] && [ "$l" -ge 10 ]
}
check "spy_off/spy_on: nothing sampled while off" off_on

flush() {
	local l h
	rt_run "$P" flush 100000000 || return 1
	l=$(stacks_with "$P.out" light)
	h=$(stacks_with "$P.out" heavy)
	echo "light $l heavy $h taken $(samp_line "$P.out" taken)"
	[ "$h" -eq 0 ] && [ "$l" -ge 10 ] && [ "$(samp_line "$P.out" taken)" -lt $((l * 2)) ]
}
check "spy_flush: the samples so far are forgotten" flush

threads() {
	rt_run "$P" threads 200000000 || return 1
	rt_dump "$P.out" | awk '
		$1 == "thread" { split($2, a, "="); if ($3 ~ /exited/) exited[a[2]] = 1; else if ($3 ~ /main/) main = a[2] }
		$1 == "stack" && /[,=]light@/ { split($2, a, "="); split($3, c, "="); n[a[2]] += c[2] }
		END {
			for (t in exited) { k++; printf "exited thread %s: %d samples of light\n", t, n[t]; if (n[t] < 30) bad++ }
			printf "main %s: %d\n", main, n[main]
			exit !(k == 2 && !bad && n[main] == 0)
		}'
}
check "threads: each worker's samples under its own tid, kept after it exited" threads

forked() {
	local c
	rt_run "$P" fork 100000000 || return 1
	c=$(awk '$1 == "child" { print $2 }' "$P.stdout")
	[ -s "$P.out.$c" ] || { ls "$T"; return 1; }
	echo "parent: light $(stacks_with "$P.out" light) heavy $(stacks_with "$P.out" heavy);" \
		"child: light $(stacks_with "$P.out.$c" light) heavy $(stacks_with "$P.out.$c" heavy)"
	[ "$(stacks_with "$P.out" heavy)" -eq 0 ] && [ "$(stacks_with "$P.out" light)" -ge 10 ] &&
		[ "$(stacks_with "$P.out.$c" light)" -eq 0 ] && [ "$(stacks_with "$P.out.$c" heavy)" -ge 100 ] &&
		rt_dump "$P.out.$c" | awk -v c="$c" '$1 == "stack" && $2 != "tid=" c { exit 1 }'
}
check "fork: the child samples its own thread from empty, the parent keeps its own" forked

hz() {
	local t cpu
	RT_ENV=SPYRT_HZ=200 rt_run "$P" ratio 100000000 || return 1
	t=$(samp_line "$P.out" taken)
	cpu=$(samp_line "$P.out" cpu_ns)
	echo "hz $(samp_line "$P.out" hz): taken $t in $cpu ns of CPU"
	[ "$(samp_line "$P.out" hz)" = 200 ] && within "$t" $((cpu / 5000000)) 15
}
check "SPYRT_HZ=200: 200 samples per CPU second" hz

divisor() {
	local t cpu w
	RT_ENV=SPYRT_DIVISOR=4 rt_run "$P" ratio 100000000 || return 1
	t=$(samp_line "$P.out" taken)
	cpu=$(samp_line "$P.out" cpu_ns)
	w=$(SAMP_FIELD=weight stacks_with "$P.out" main)
	echo "divisor $(samp_line "$P.out" divisor): taken $t, weight $w ns, cpu $cpu ns"
	[ "$(samp_line "$P.out" divisor)" = 4 ] && within "$t" $((cpu / 4000000)) 15 && within "$w" "$cpu" 15
}
check "SPYRT_DIVISOR=4: one tick in 4, each weighing 4 ms, totals unbiased" divisor

in_runtime() {
	local r t
	rt_run "$P" hooks 30000000 || return 1
	r=$(samp_line "$P.out" in_runtime)
	t=$(samp_line "$P.out" taken)
	echo "in_runtime $r of $t; runtime-flagged stacks $(stacks_with "$P.out" main runtime)"
	[ "$r" -gt 0 ] && [ "$r" -lt "$t" ] && [ "$(stacks_with "$P.out" main runtime)" -eq "$r" ] &&
		[ "$(samp_line "$P.out" handler_cycles)" -gt 0 ]
}
check "ticks in the hooks are counted apart (in_runtime, flag runtime); handler cycles measured" in_runtime

bad_one() {
	local var=$1 name=${1%%=*} value=${1#*=}
	rm -f "$P.out"
	env "$var" SPYRT_OUT="$P.out" "$P" ratio 20000000 >/dev/null 2>"$P.stderr" || return 1
	cat "$P.stderr"
	[ "$(grep -c . "$P.stderr")" -eq 1 ] && grep -qF "$name='$value'" "$P.stderr" &&
		[ "$(samp_line "$P.out" watch)" = cpu ] && [ "$(samp_line "$P.out" hz)" = 1000 ] &&
		[ "$(samp_line "$P.out" divisor)" = 1 ] && [ "$(samp_line "$P.out" taken)" -gt 0 ]
}
bads() {
	local b
	for b in SPYRT_WATCH=gpu SPYRT_WATCH=calls: SPYRT_HZ=0 SPYRT_HZ=1e3 SPYRT_HZ=1000000 SPYRT_DIVISOR=0 SPYRT_DIVISOR=-2; do
		bad_one "$b" || { echo "for $b"; return 1; }
	done
}
check "bad SPYRT_WATCH, SPYRT_HZ, SPYRT_DIVISOR: one line naming each, defaults used" bads

silent() {
	rt_run "$P" ratio 20000000 && [ ! -s "$P.stderr" ] && [ "$(samp_line "$P.out" flags)" = 0x0 ]
}
check "default sampling is silent and flags nothing" silent
tap_done
