#!/bin/bash
# t101: threads: samples/threads.c with N threads of M calls gives exactly N*M calls of work() and
# worker->work arcs, one thread record per thread (N exited + main), whose per-thread counts and arcs
# add up; in SPYRT_MODE time and count, with libspyrt.so and libspyrt.a. samples/vecargs.c: the
# counter's slow path at a thread's first call keeps the vector registers that hold its arguments.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup

# threads_exact PROG N M: exact counts and arcs, and the thread records
threads_exact() {
	local prog=$1 n=$2 m=$3 d
	rt_run "$prog" "$n" "$m" || return 1
	threads_expect "$n" "$m" >"$prog.expect"
func main 1
func worker $n
func work $((n * m))
arc <spontaneous> main 1
arc <spontaneous> worker $n
arc worker work $((n * m))
EOT
	rt_facts "$prog.out" >"$prog.facts"
	if [ "${RT_ENV:-}" = SPYRT_MODE=count ]; then
		grep -v '^arc' "$prog.expect" >"$prog.expect2" && mv "$prog.expect2" "$prog.expect"
	fi
	rt_compare "$prog.expect" "$prog.facts" || return 1
	d=$(rt_dump "$prog.out")
	# past 32 exited threads, the others are folded into one record, tid 0 (fold.c)
	awk -v n="$n" -v m="$m" '
		$1 == "counter" && $2 ~ /^threads_folded=/ { folded = substr($2, 16) }
		$1 == "thread" && $3 ~ /folded/ { next }
		$1 == "thread" { threads++; if ($3 ~ /exited/) exited++; if ($3 ~ /main/) main++ }
		$1 == "count" && $3 == "func=work" {
			v = substr($4, 7); sum += v
			if ($2 == "tid=0") fv = v; else if (v != m) bad++
		}
		END {
			if (fv != m * folded) bad++
			threads += folded; exited += folded
			if (threads != n + 1 || exited != n || main != 1 || sum != n * m || bad) {
				printf "threads %d (want %d), exited %d, main %d, per-thread work counts sum %d (want %d), %d not %d\n",
					threads, n + 1, exited, main, sum, n * m, bad, m
				exit 1
			}
		}' <<<"$d"
}

runs="1:300000 4:250000 16:20000 64:3000"
tap_plan $((3 + 3 * 4 + 3))
P=$T/threads
PS=$T/threads-static
check "threads builds (libspyrt.so)" rt_sample threads "$P"
check "threads builds (libspyrt.a)" rt_cc_static "$PS" "$CC" "$SAMPLES/threads.c"
for r in $runs; do
	n=${r%%:*} m=${r#*:}
	RT_ENV=SPYRT_MODE=time check "time: $n threads x $m calls, exact" threads_exact "$P" "$n" "$m"
	RT_ENV=SPYRT_MODE=count check "count: $n threads x $m calls, exact" threads_exact "$P" "$n" "$m"
	RT_ENV=SPYRT_MODE=time check "static, time: $n threads x $m calls, exact" threads_exact "$PS" "$n" "$m"
done

# many short threads: their data is kept, their memory is not
many() {
	cat >"$T/many.c" <<'EOC'
#include <pthread.h>
#include "sample.h"
NOINL void tick(void) { BARRIER(); }
NOINL void *run(void *a) { for (long i = 0; i < (long)a; i++) { tick(); BARRIER(); } return 0; }
int main(void)
{
	for (int r = 0; r < 100; r++) {
		pthread_t t[20];
		for (int i = 0; i < 20; i++)
			pthread_create(&t[i], 0, run, (void *)1000L);
		for (int i = 0; i < 20; i++)
			pthread_join(t[i], 0);
	}
	return 0;
}
EOC
	rt_cc "$T/many" "$CC" "$T/many.c" || return 1
	rt_run "$T/many" || return 1
	rt_facts "$T/many.out" | grep -qx 'func tick 2000000' &&
		rt_facts "$T/many.out" | grep -qx 'arc run tick 2000000' &&
		[ $(($(rt_dump "$T/many.out" | grep '^thread ' | grep -v folded | grep -c 'flags=exited,')
		   + $(rt_get "$T/many.out" counter threads_folded))) -eq 2000 ] ||
		{ rt_facts "$T/many.out" | grep tick; return 1; }
}
check "2000 short threads x 1000 calls: exact, every thread kept apart or folded" many

# vecargs PROG: each thread's first instrumented call, where its counter slab is made, takes its
# arguments in vector registers; they come through (the program checks) and the counts are exact
vecargs() {
	rt_run "$1" || return 1
	rt_facts "$1.out" | grep -qx 'func mix 4' && rt_facts "$1.out" | grep -qx 'func vsum 4' ||
		{ rt_facts "$1.out"; return 1; }
}
if rt_sample vecargs "$T/vecargs" -pthread && rt_cc_static "$T/vecargs-static" "$CC" -pthread "$SAMPLES/vecargs.c"; then
	RT_ENV=SPYRT_MODE=count check "vector arguments survive the counter's slow path (count)" vecargs "$T/vecargs"
	RT_ENV=SPYRT_MODE=time check "vector arguments survive the counter's slow path (time)" vecargs "$T/vecargs"
	check "vector arguments survive the counter's slow path (libspyrt.a)" vecargs "$T/vecargs-static"
else
	not_ok "vecargs builds"; not_ok "(not built)"; not_ok "(not built)"
fi
tap_done
