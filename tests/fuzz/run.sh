#!/bin/bash
# Fuzz spy's readers with libFuzzer (clang -fsanitize=fuzzer,address,undefined), printing TAP: one test
# point per harness, which passes when the run ends without a crash, a leak, a sanitizer report or an
# abort of the harness's own checks; each line gives the runs, the coverage (edges, "cov") and the corpus.
# The harnesses' sources are each one's first line (tests/fuzz/lib.sh, which builds them: each source
# compiled once for all). The seeds are tests/fuzz/corpus/NAME/ (small files kept in the repository, with
# the inputs of every crash found and fixed: each run replays them first); what a run finds goes into
# $SPY_BUILD/fuzz/corpus-NAME/, which grows from run to run; a crashing input is kept in
# $SPY_BUILD/fuzz/crash-NAME-*. fuzz-spinprof-gnu needs a fixed `gcc -pg` program: samples/calls.c, built
# here -no-pie as $SPY_BUILD/fuzz/fuzz-pgprog.
#
# usage: tests/fuzz/run.sh [-t SECONDS] [-T TOTAL] [-r RUNS] [-j JOBS] [HARNESS...]   (default -t 10:
#   seconds per harness; -T: the whole run, build included, within TOTAL seconds: the build may take
#   three quarters (on a busy machine what it could not build is skipped, said why; its objects stay for
#   the next run), each harness gets its share of what is left, at most -t, and with none left only
#   replays its corpus (said on its line); -j runs that many processes of each harness at once,
#   libFuzzer's -fork)
#   make check runs it briefly (tests/e2e/t204-spinprof-fuzz.sh), `make fuzz` longer (FUZZ_SECONDS)
# env: SPY_SRC, SPY_BUILD (default build), FUZZ_CC (default clang-14, else clang), FUZZ_NICE (default 10)
# exit: 0, 1 when a harness failed; "1..0 # SKIP" and 0 when there is no fuzzer toolchain.
set -u

start=$SECONDS
secs=10
total=
runs=
jobs=
while getopts t:T:r:j: o; do
	case $o in
	t) secs=$OPTARG ;;
	T) total=$OPTARG ;;
	r) runs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

SPY_SRC=${SPY_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
build=${SPY_BUILD:-$SPY_SRC/build}
mkdir -p "$build" && build=$(cd "$build" && pwd) || exit 1 # absolute: the harnesses change directory
fz=$build/fuzz
mkdir -p "$fz" || exit 1
nice=${FUZZ_NICE:-10}

cc=${FUZZ_CC:-}
if [ -z "$cc" ]; then
	for c in clang-14 clang; do
		command -v "$c" >/dev/null && { cc=$c; break; }
	done
fi
if [ -z "$cc" ] || ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
	"$cc" -x c -fsanitize=fuzzer,address,undefined - -o "$fz/probe" >/dev/null 2>&1; then
	echo "1..0 # SKIP no libFuzzer toolchain (clang with -fsanitize=fuzzer; mk/deps.sh installs clang-14)"
	exit 0
fi

# shellcheck source=tests/fuzz/lib.sh
. "$SPY_SRC/tests/fuzz/lib.sh"
mapfile -t harnesses < <(fuzz_harnesses "$@")

# the -pg program of fuzz-spinprof-gnu, built the same way each time: its seeds' addresses hold
if [ ! -x "$fz/fuzz-pgprog" ] || [ "$SPY_SRC/samples/calls.c" -nt "$fz/fuzz-pgprog" ]; then
	gcc -O2 -pg -no-pie -I"$SPY_SRC/samples" "$SPY_SRC/samples/calls.c" -o "$fz/fuzz-pgprog" >"$fz/fuzz-pgprog.log" 2>&1
fi
export SPY_FUZZ_PGPROG=$fz/fuzz-pgprog

# every harness built first (coverage counts only the code under test: the harnesses and their mutators
# are left out)
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-fsanitize-coverage-ignorelist="$SPY_SRC/tests/fuzz/not-covered.txt")
declare -A built
while read -r what h rest; do
	built[$h]="$what $rest"
done < <(
	# with -T the build may take three quarters of it
	[ -z "$total" ] || export FUZZ_DEADLINE=$(($(date +%s) + total * 3 / 4 - (SECONDS - start)))
	fuzz_build "$fz" "$cc" flags "${harnesses[@]}"
)

built_in=$((SECONDS - start))
echo "1..${#harnesses[@]}"
n=0 failed=0
for h in "${harnesses[@]}"; do
	n=$((n + 1))
	t=$secs more=
	if [ -n "$total" ]; then # this harness's share of the time left (a second of it for the replay)
		t=$(((total - (SECONDS - start)) / (${#harnesses[@]} - n + 1) - 1))
		[ "$t" -le "$secs" ] || t=$secs
		[ "$t" -ge 1 ] || more=" (replay only: the build took ${built_in} s of the $total)"
	fi
	case ${built[$h]:-fail} in
	built*) ;;
	skip*)
		echo "ok $n - $h # SKIP ${built[$h]#skip }"
		continue
		;;
	*)
		echo "not ok $n - $h: does not build"
		head -n 20 "$fz/$h.build.log" 2>/dev/null | sed 's/^/# /'
		failed=$((failed + 1))
		continue
		;;
	esac
	mkdir -p "$fz/corpus-$h"
	seeds=$SPY_SRC/tests/fuzz/corpus/$h
	[ -d "$seeds" ] || seeds=
	# (-max_total_time=0 would mean no limit: replay only is -runs=0)
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 nice -n "$nice" "$fz/$h" \
		$([ -n "$more" ] && echo -runs=0 || echo -max_total_time="$t") \
		${runs:+-runs=$runs} ${jobs:+-fork=$jobs -ignore_crashes=0} -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$fz/crash-$h-" "$fz/corpus-$h" $seeds \
		>"$fz/$h.log" 2>&1
	rc=$?
	runs_done=$(sed -n 's/^stat::number_of_executed_units: *//p' "$fz/$h.log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$fz/$h.log" | tail -n 1)
	ft=$(grep -o 'ft: [0-9]*' "$fz/$h.log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		[ -n "$more" ] && t="0 s$more" || t="$t s"
		echo "ok $n - $h: ${runs_done:-?} runs in $t, ${cov:-cov: ?} edges, ${ft:-ft: ?} features, corpus $(ls "$fz/corpus-$h" | wc -l) inputs"
	else
		echo "not ok $n - $h: status $rc; the input is in $fz/crash-$h-*"
		grep -E -m 8 'ERROR|SUMMARY|runtime error|#[0-4] |refused|differently|does not read back|exited|Test unit written' \
			"$fz/$h.log" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
done
[ $failed -eq 0 ]
