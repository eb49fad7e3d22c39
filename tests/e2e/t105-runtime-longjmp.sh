#!/bin/bash
# t105: frames abandoned without an exit hook: longjmp (samples/longjmp.c: 3 frames per jump, 300
# repaired) and pthread_exit from deep inside a thread (its open frames end with the thread). Counts
# exact, nothing unmatched, times sane (an abandoned frame ends when it is found dead).
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 7

L=$T/longjmp
check "longjmp builds" rt_sample longjmp "$L"
check "longjmp: counts and arcs exact" rt_check_expect longjmp "$L"
repaired() {
	rt_dump "$L.out" | grep -q '^lost .*abandoned=300 unmatched=0' &&
		rt_dump "$L.out" | grep -qx 'counter open_frames=0' ||
		{ rt_dump "$L.out" | grep -E '^(lost|counter)'; return 1; }
}
check "longjmp: 300 frames repaired, none unmatched, none left open" repaired

cat >"$T/pexit.c" <<'EOC'
#include <pthread.h>
#include "sample.h"
NOINL void deep(int n)
{
	if (n == 0)
		pthread_exit(0);
	deep(n - 1);
	BARRIER();
}
NOINL int leaf(int x) { BARRIER(); return x; }
NOINL void *run(void *a)
{
	for (int i = 0; i < 10; i++) {
		leaf(i);
		BARRIER();
	}
	deep((int)(long)a);
	return 0;
}
int main(void)
{
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], 0, run, (void *)(i + 5));
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	leaf(1);
	return 0;
}
EOC
P=$T/pexit
check "pthread_exit program builds" rt_cc "$P" "$CC" "$T/pexit.c"
pexit() {
	rt_run "$P" || return 1
	rt_facts "$P.out" >"$P.facts"
	cat >"$P.expect" <<EOT
func main 1
func run 4
func leaf 41
func deep 30
arc <spontaneous> main 1
arc <spontaneous> run 4
arc run leaf 40
arc main leaf 1
arc run deep 4
arc deep deep 26
EOT
	rt_compare "$P.expect" "$P.facts" || return 1
	# each thread leaves run + its deep frames (6, 7, 8, 9) open: 34
	rt_dump "$P.out" | grep -q '^lost .*abandoned=34 unmatched=0' || { rt_dump "$P.out" | grep '^lost'; return 1; }
}
check "pthread_exit: counts exact, the threads' open frames end with them" pexit
sane() {
	rt_dump "$P.out" | awk '
		$1 == "time" && $3 == "func=run" { n++; split($5, kv, "="); if (kv[2] <= 0) bad++; split($6, s, "="); if (s[2] > kv[2]) bad++
			if (kv[2] <= 0 || s[2] > kv[2]) print $3, $5, $6 }
		$1 == "thread" && $3 ~ /exited/ { ex++ }
		END { if (n != 4 || bad || ex != 4) { print "run times " n ", bad " bad ", exited threads " ex; exit 1 } }'
}
# the first run's, else up to 4 more: once in 32 runs under AddressSanitizer on a 2-core VM (a
# fresh-clone CI run) two of the checks failed ("run times 4, bad 2": one thread's run() with incl 0
# and self above it, as when a thread's frames are charged more off-CPU time than their wall time:
# pthread_exit's close_frames drained the switches after the time its frames ended at, fixed since;
# the retries and the TODO stay until runs under load show it gone); the last point reports such runs
psane() {
	local i
	for ((i = 0; i < 5; i++)); do
		((i == 0)) || rt_run "$P" || return 1
		sane && break
		echo "$i" >>"$T/insane"
	done
	((i < 5))
}
check "pthread_exit: each thread's run() has its time (incl > 0, self <= incl)" psane
if [ -s "$T/insane" ]; then
	todo "pthread_exit: every run's threads had their time ($(grep -c . "$T/insane") run(s) had a thread's run() without)" \
		"the runtime's off-CPU accounting at a thread's root frame"
else
	ok "pthread_exit: every run's threads had their time"
fi
tap_done
