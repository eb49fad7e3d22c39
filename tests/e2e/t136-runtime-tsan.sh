#!/bin/bash
# t136: libspyrt under ThreadSanitizer, in the normal suite (issue 15, item 6): the runtime's sources
# built with -fsanitize=thread, programs with the plugin and -fsanitize=thread. A program starts (TSan's
# start-up once called the runtime's sigaction interposer and crashed), its threads end (a destructor
# once locked a mutex after TSan had torn the thread down), and no race is reported (TSan stops the
# program at the first, status 66) while the writer reads threads that keep calling: exit() from a
# thread while main loops, exit() from main while threads run, spy_dump() from a thread, in modes time
# and arcs (samples/exitthreads.c, 5000 rounds, with a thread asleep and one ticking), and the wall
# sampler reading running stacks. Each profile is exact where it is known
# (samples/threads.c: work N*M) and passes spinprof's self-check.
. "$(dirname "$0")/lib-runtime.sh"
# under SAN= the whole suite runs under that sanitizer (TSan cannot be combined with ASan)
[ -z "$SPY_SAN_FLAGS" ] || tap_skip_all "the suite runs under SAN=$SPY_SAN: TSan does not mix with the others, and under SAN=thread every threaded test is this one"
need_plugin
setup_workdir
printf 'int main(void) { return 0; }\n' >"$T/probe.c"
$CC -fsanitize=thread "$T/probe.c" -o "$T/probe" 2>/dev/null ||
	tap_skip_all "$CC cannot link -fsanitize=thread (libtsan2, in mk/deps.sh)"
tap_plan 8

TSAN="-fsanitize=thread -fno-omit-frame-pointer"
RT_DIR=$T/rt
export TSAN_OPTIONS=halt_on_error=1:exitcode=66:report_thread_leaks=0
build_rt() {
	local f
	mkdir -p "$RT_DIR/obj" || return 1
	for f in "$SPY_SRC"/runtime/*.c; do
		# shellcheck disable=SC2086
		$CC -std=gnu17 -O2 -g -fPIC -fvisibility=hidden $TSAN -Wall -Wextra -Werror -I"$SPY_SRC/common" \
			-I"$SPY_SRC/runtime" -c "$f" -o "$RT_DIR/obj/$(basename "$f" .c).o" || return 1
	done
	for f in $RT_COMMON; do
		# shellcheck disable=SC2086
		$CC -std=gnu17 -O2 -g -fPIC -fvisibility=hidden $TSAN -Wall -Wextra -Werror $RT_COMMON_DEFS \
			-c "$SPY_SRC/common/$f.c" -o "$RT_DIR/obj/common-$f.o" || return 1
	done
	# shellcheck disable=SC2086
	$CC -shared $TSAN -o "$RT_DIR/libspyrt.so" "$RT_DIR"/obj/*.o -lpthread -ldl &&
		ar rcs "$RT_DIR/libspyrt.a" "$RT_DIR"/obj/*.o &&
		$CC -O2 -g -I"$SPY_SRC/common" "$SPY_SRC/tests/gmon-dump.c" "$SPY_SRC"/common/*.c -o "$T/gmon-dump" -lz
}
check "the runtime builds with -fsanitize=thread, without a warning" build_rt

X=$T/x
THR=$T/thr
# shellcheck disable=SC2086
progs() {
	rt_cc "$X" "$CC" $TSAN "$SAMPLES/exitthreads.c" && rt_cc "$THR" "$CC" $TSAN "$SAMPLES/threads.c" &&
		rt_cc_static "$THR-static" "$CC" $TSAN "$SAMPLES/threads.c"
}
check "the programs build with the plugin and -fsanitize=thread (shared and static runtime)" progs

# threads PROG: 4 threads of 20000 calls, exact, no report
threads() {
	rt_run "$1" 4 20000 || return 1
	rt_facts "$1.out" >"$1.facts"
	threads_expect 4 20000 >"$1.expect"
	rt_compare "$1.expect" "$1.facts"
}
check "samples/threads.c, 4 x 20000 calls: starts, ends, exact counts, no race (libspyrt.so)" threads "$THR"
check "the same with libspyrt.a: the interposers are not the sanitizer's, start-up works" threads "$THR-static"

# runs N HOW STATUS [FILE...]: N runs, each exits with STATUS (66: a race) and every FILE passes the
# self-check
runs() {
	local n=$1 how=$2 want=$3 i rc f
	shift 3
	cd "$T" || return 1
	for ((i = 0; i < n; i++)); do
		rm -f gmon.out d.out
		# shellcheck disable=SC2086
		env ${RT_ENV:-} DUMP="$T/d.out" "$X" "$how" 5000 2>"$T/x.err"
		rc=$?
		[ $rc -eq "$want" ] || { echo "run $i: status $rc"; head -n 30 "$T/x.err"; return 1; }
		for f in "$@"; do
			"$SPY_BUILD/spinprof" "$f" >report 2>&1 || { echo "run $i: $f:"; head -n 3 report; return 1; }
			grep -q '^self-check: [0-9]* functions, add-one counts equal' report &&
				! grep -q '^mismatch' report || { echo "run $i: $f"; grep '^mismatch' report; return 1; }
		done
	done
}
check "a thread calls exit(5) while main loops: 5 runs, no race, self-check holds" runs 5 exit 5 gmon.out
check "main calls exit(6) while a thread loops: 5 runs, no race, self-check holds" runs 5 main 6 gmon.out
check "spy_dump() from a thread while main loops: 5 runs, no race, dump and final file hold" \
	runs 5 dump 0 d.out gmon.out
arcs_wall() { RT_ENV="SPYRT_MODE=arcs SPYRT_WATCH=wall" runs 5 exit 5 gmon.out; }
check "SPYRT_MODE=arcs, SPYRT_WATCH=wall (a sampler thread reads the stacks): 5 runs, no race" arcs_wall

tap_done
