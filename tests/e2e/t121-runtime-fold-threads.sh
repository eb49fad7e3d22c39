#!/bin/bash
# t121: memory is bounded by the live threads, not by every thread the run had: past 32 exited threads
# kept apart (the busiest), each further one is folded into one THREAD record (flag folded, tid 0,
# COUNTERS threads_folded). N short threads, B at a time, each calls mid 3 times (mid calls leaf
# twice), one of them mid 300 times: counts and arcs exact and summed over the records, kept + folded
# = N, the busy thread kept apart, the self-check holds, spinprof's header says how many were folded
# (and twice as many in two folded records when the profile is summed with itself);
# in modes time (sampling on), arcs and count, one at a time and 8 at a time; sampled stacks folded
# too; exit() while threads are made and folded keeps the self-check. The peak RSS of 20,000 threads is less than twice that of 2,000 (it was 8.7 times: 4 KB kept
# per thread).
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 9

cat >"$T/x.c" <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sample.h"
NOINL unsigned leaf(unsigned x) { BARRIER(); return x + 1; }
NOINL unsigned mid(unsigned x) { unsigned s = leaf(x); BARRIER(); return s + leaf(s); }
NOINL void *worker(void *arg)
{
	unsigned s = 0;
	for (long i = 0; i < (long)arg; i++)
		s += mid((unsigned)i);
	return s == 7 ? arg : NULL;
}
static long hwm(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = atol(line + 6);
	if (f)
		fclose(f);
	return kb;
}
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), b = atoi(argv[2]);
	pthread_t t[64];
	for (int i = 0; i < n; i += b) {
		for (int k = 0; k < b && i + k < n; k++)
			if (pthread_create(&t[k], NULL, worker, (void *)(i + k == n / 2 ? 300L : 3L)))
				return 2;
		for (int k = 0; k < b && i + k < n; k++)
			if (pthread_join(t[k], NULL))
				return 3;
	}
	printf("VmHWM %ld\n", hwm());
	return 0;
}
EOC
X=$T/x
check "the program builds" rt_cc "$X" "$CC" "$T/x.c"

# folded N B [MODE]: N threads, B at a time; every fact above
folded() {
	local n=$1 b=$2 mode=${3:-time} f=$X.out calls kept nf busy
	RT_ENV="SPYRT_MODE=$mode" rt_run "$X" "$n" "$b" || return 1
	calls=$(((n - 1) * 3 + 300))
	rt_facts "$f" >"$X.facts"
	grep -qx "func mid $calls" "$X.facts" && grep -qx "func leaf $((2 * calls))" "$X.facts" &&
		grep -qx "func worker $n" "$X.facts" || { echo "counts:"; cat "$X.facts"; return 1; }
	if [ "$mode" != count ]; then
		grep -qx "arc worker mid $calls" "$X.facts" && grep -qx "arc mid leaf $((2 * calls))" "$X.facts" ||
			{ echo "arcs:"; cat "$X.facts"; return 1; }
	fi
	rt_dump "$f" >"$X.dump"
	kept=$(grep '^thread ' "$X.dump" | grep -v folded | grep -c 'flags=exited,')
	nf=$(rt_get "$f" counter threads_folded)
	[ "$kept" -eq 32 ] && [ "$nf" -eq $((n - 32)) ] || { echo "kept $kept, folded $nf of $n"; return 1; }
	grep -q '^thread tid=0 flags=exited,.*folded,[a-z,]* name=folded ' "$X.dump" ||
		{ echo "no folded record:"; grep '^thread' "$X.dump" | tail -n 2; return 1; }
	# the busy thread (mid 300 times) is one kept apart
	if [ "$mode" != count ]; then
		busy=$(grep -c '^arc tid=[1-9][0-9]* caller=worker callee=mid count=300 ' "$X.dump")
		[ "$busy" -eq 1 ] || { echo "the busy thread is not kept apart"; return 1; }
	fi
	"$SPY_BUILD/spinprof" "$f" >"$X.report" 2>&1 || { head -n 3 "$X.report"; return 1; }
	grep -qx "threads: 34 (one of them $((n - 32)) exited threads folded together)" "$X.report" ||
		{ grep '^threads' "$X.report"; return 1; }
	# two runs summed: their folded threads add up, in a record each
	"$SPY_BUILD/spinprof" "$f" "$f" >"$X.sum" 2>&1 || { head -n 3 "$X.sum"; return 1; }
	grep -qx "threads: 68 (2 of them $((2 * (n - 32))) exited threads folded together)" "$X.sum" ||
		{ echo "summed:"; grep '^threads' "$X.sum"; return 1; }
	[ "$mode" = count ] && return 0
	grep -q '^self-check: [0-9]* functions, add-one counts equal' "$X.report" && ! grep '^mismatch' "$X.report"
}
check "mode time, 2000 threads one at a time: exact, 1968 folded" folded 2000 1
check "mode time, 2000 threads 8 at a time: exact, records reused by running threads" folded 2000 8
check "mode arcs, 2000 threads 8 at a time: exact" folded 2000 8 arcs
check "mode count, 2000 threads 8 at a time: exact counts" folded 2000 8 count
check "mode time, 20000 threads 8 at a time: exact" folded 20000 8

# every call of leaf a sample (SPYRT_WATCH=calls:leaf): the folded record's stacks (tid 0) hold the
# folded threads' 6 each, merged into one stack per call site of leaf, and all stacks hold every call
samples() {
	local n=2000
	RT_ENV="SPYRT_WATCH=calls:leaf" rt_run "$X" $n 8 || return 1
	rt_dump "$X.out" | awk -v n=$n '
		$1 == "stack" { c = substr($3, 7); all += c; if ($2 == "tid=0") { f += c; fs++ } }
		END {
			want = 2 * ((n - 1) * 3 + 300)
			if (all != want || f != 6 * (n - 32) || fs != 2) {
				printf "samples %d (want %d), folded %d in %d stacks (want %d in 2)\n", all, want, f, fs, 6 * (n - 32)
				exit 1
			}
		}'
}
check "SPYRT_WATCH=calls:leaf, 2000 threads: the folded stacks merged, every call sampled" samples

# exit() while two threads keep making short threads, whose records are folded and reused as the
# profile is written: the self-check holds in every run (10 runs, modes time and arcs)
cat >"$T/st.c" <<'EOC'
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "sample.h"
NOINL unsigned leaf(unsigned x) { BARRIER(); return x + 1; }
NOINL unsigned mid(unsigned x) { unsigned s = leaf(x); BARRIER(); return s + leaf(s); }
NOINL void *worker(void *arg) { unsigned s = 0; for (long i = 0; i < (long)arg; i++) s += mid(i); return s == 7 ? arg : NULL; }
NOINL void *spawner(void *arg)
{
	for (;;) {
		pthread_t t[4];
		for (int k = 0; k < 4; k++)
			pthread_create(&t[k], NULL, worker, arg);
		for (int k = 0; k < 4; k++)
			pthread_join(t[k], NULL);
	}
	return NULL;
}
int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, spawner, (void *)3L);
	pthread_create(&b, NULL, spawner, (void *)50L);
	usleep(300000);
	exit(0);
}
EOC
racing() {
	local i mode
	rt_cc "$T/st" "$CC" "$T/st.c" || return 1
	for mode in time arcs; do
		for ((i = 0; i < 5; i++)); do
			RT_ENV="SPYRT_MODE=$mode" rt_run "$T/st" || return 1
			"$SPY_BUILD/spinprof" "$T/st.out" >"$T/st.report" 2>&1 || { head -n 3 "$T/st.report"; return 1; }
			grep -q '^threads: [0-9]* (one of them [0-9]* exited threads folded together)' "$T/st.report" &&
				grep -q '^self-check: [0-9]* functions, add-one counts equal' "$T/st.report" &&
				! grep '^mismatch' "$T/st.report" || { echo "$mode run $i"; grep '^threads' "$T/st.report"; return 1; }
		done
	done
}
check "exit() while threads are made, folded and reused: self-check holds (10 runs)" racing

# peak memory: 20,000 threads less than twice 2,000 (a thread kept ~4 KB: 8.7 times before)
rss() {
	RT_ENV= rt_run "$X" "$1" 1 || return 1
	sed -n 's/^VmHWM //p' "$X.stdout"
}
bounded() {
	local a b
	a=$(rss 2000) && b=$(rss 20000) || return 1
	echo "peak RSS: 2000 threads $a KiB, 20000 threads $b KiB"
	[ "$b" -gt 0 ] && [ "$b" -lt $((2 * a)) ]
}
check "peak RSS of 20000 threads < 2 x that of 2000" bounded
tap_done
