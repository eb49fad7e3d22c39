#!/bin/bash
# t130: what the runtime says at run time: samples dropped for full stack tables are one line at exit
# (with the numbers the file has), a warning about a long value keeps its reason, a value with a
# newline stays one line, SPYRT_MODE=count with SPYRT_WATCH=calls:FUNC is one line for one problem,
# and spinprof's statement of the profiler's share with several threads says what it is a share of (and stays
# <= 100 %).
# A run with every signal blocked from its start: spinprof says the ticks the file expected never
# came (blocked?), in the header and where the flat profile has no time.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 9

# samples/stacks.c: 2^19 leaf calls, each under one of 2^19 distinct stacks of 20 frames: the frame
# pool fills
cat >"$T/thr.c" <<'EOC'
#include <pthread.h>
#include "sample.h"
NOINL int leaf(int x) { BARRIER(); return x + 1; }
NOINL void *work(void *a) { unsigned s = 0; for (int i = 0; i < 2000000; i++) s += (unsigned)leaf(i); return s ? a : 0; }
int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], 0, work, 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	return 0;
}
EOC
check "the programs build" eval 'rt_cc "$T/drop" "$CC" "$SAMPLES/stacks.c" && rt_cc "$T/thr" "$CC" "$T/thr.c" -pthread'

dropped() {
	local err n d
	cd "$T" || return 1
	err=$(SPYRT_WATCH=calls:leaf ./drop 2>&1 >/dev/null) || return 1
	echo "$err"
	d=$(rt_get gmon.out sampling dropped)
	n=$(grep -c 'samples dropped' <<<"$err")
	[ "$n" -eq 1 ] && [ "${d:-0}" -gt 0 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] &&
		grep -q "^spy: $d of 524288 samples dropped ([0-9]* %): stack tables full" <<<"$err"
}
check "samples dropped for full tables: one line at exit, the file's number of 524288" dropped

long_value() {
	local err v
	cd "$T" || return 1
	v=$(printf 'a%.0s' $(seq 6000))
	err=$(SPYRT_START=$v "$T/drop" 2>&1 >/dev/null)
	echo "${err:0:100}...${err: -100}"
	[ "$(grep -c . <<<"$err")" -eq 1 ] && [ ${#err} -le 1100 ] &&
		grep -q "^spy: SPYRT_START='aaaa.*is not a function name; ignored$" <<<"$err"
}
check "a 6000-byte value: one line of at most 1100 bytes that keeps its reason" long_value

long_name() {
	local err v
	cd "$T" || return 1
	v=$(printf 'b%.0s' $(seq 600))
	err=$(SPYRT_START=$v "$T/drop" 2>&1 >/dev/null)
	echo "${err:0:100}...${err: -100}"
	[ "$(grep -c . <<<"$err")" -eq 1 ] && grep -q "^spy: SPYRT_START=bbbb.*: no instrumented function has that name$" <<<"$err" &&
		"$SPY_BUILD/spinprof" -b "$T/gmon.out" | grep -q '^runtime error: SPYRT_START=bbb.*no instrumented function has that name$'
}
check "a 600-byte function name not found: the line and the file's error keep the reason" long_name

newline() {
	local err
	cd "$T" || return 1
	err=$(SPYRT_MODE=$'ti\nme' "$T/drop" 2>&1 >/dev/null)
	echo "$err"
	[ "$(wc -l <<<"$err")" -eq 1 ] && [ "$err" = "spy: SPYRT_MODE='ti\\nme' is not count, arcs or time; using time" ]
}
check "a value with a newline: one line, the newline shown as \\n" newline

count_calls() {
	local err
	cd "$T" || return 1
	err=$(SPYRT_MODE=count SPYRT_WATCH=calls:leaf "$T/drop" 2>&1 >/dev/null)
	echo "$err"
	[ "$(grep -c . <<<"$err")" -eq 1 ] && grep -q 'calls:leaf needs the hooks' <<<"$err" &&
		"$SPY_BUILD/spinprof" -b "$T/gmon.out" | grep -q '^runtime error: SPYRT_WATCH=calls: SPYRT_MODE=count has no hooks'
}
check "SPYRT_MODE=count with SPYRT_WATCH=calls:leaf: one line (the file still says it)" count_calls

# overhead SHARE-PATTERN [ENV...]: the header's share of the profiler names its base and is at most 100 %
overhead() {
	local line pct pat=$1
	[ -z "$SPY_TSAN" ] || [ $# -gt 1 ] || return 0 # under TSan the sampled run (no setting given) skips
	shift
	cd "$T" && env "$@" ./thr || return 1
	line=$("$SPY_BUILD/spinprof" -b gmon.out | grep -m1 '^profiler:')
	echo "$line"
	pct=$(sed -n 's/^profiler: \([0-9.]*\)% of .*/\1/p' <<<"$line")
	grep -q "^profiler: [0-9.]*% of $pat" <<<"$line" && awk -v p="$pct" 'BEGIN { exit !(p != "" && p <= 100) }'
}
check "four threads, sampled: the share is of the CPU time, by the samples$(tsan_skip its hooks cost more than their calibration says)" overhead "the CPU time ([0-9]* of the [0-9]* ticks on the CPU"
check "four threads, not sampled: the share is of the measured time, by the calibration" \
	overhead "the measured\( CPU\)\? time (its hooks' calibrated cost" SPYRT_WATCH=none

# every signal blocked from the exec on (the mask is inherited): mode arcs' times from cpu ticks that
# never come
cat >"$T/blockall.c" <<'EOC'
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	sigset_t all;
	sigfillset(&all);
	if (argc < 2 || sigprocmask(SIG_BLOCK, &all, NULL))
		return 127;
	execv(argv[1], argv + 1);
	perror("execv");
	return 127;
}
EOC
blocked() {
	local out exp why="SIGPROF blocked in every thread?"
	# shellcheck disable=SC2086
	$CC -O2 $SPY_SAN_FLAGS "$T/blockall.c" -o "$T/blockall" || return 1
	rm -f "$T/blk.out"
	SPYRT_MODE=arcs SPYRT_WATCH=cpu SPYRT_OUT="$T/blk.out" "$T/blockall" "$T/thr" || return 1
	exp=$(rt_get "$T/blk.out" sampling expected)
	[ "$(rt_get "$T/blk.out" sampling taken)" = 0 ] && [ "${exp:-0}" -gt 0 ] || { rt_dump "$T/blk.out" | grep '^sampling'; return 1; }
	out=$("$SPY_BUILD/spinprof" -b "$T/blk.out" 2>&1)
	grep -qx "samples: none: $exp ticks of cpu time were expected and none arrived ($why)" <<<"$out" &&
		grep -qx " no time accumulated: $exp ticks of cpu time were expected and none arrived ($why)" <<<"$out" ||
		{ printf '%s\n' "$out" | head -n 20; return 1; }
}
check "every signal blocked: spinprof says the ticks expected never came, and asks whether SIGPROF was blocked" blocked

tap_done
