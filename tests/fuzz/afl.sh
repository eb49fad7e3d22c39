#!/bin/bash
# Fuzz spy's readers with AFL++ (Debian's afl++), a second engine beside libFuzzer (tests/fuzz/run.sh):
# the same harnesses, built with afl-clang-fast -fsanitize=fuzzer (AFL++'s driver) under ASan and UBSan
# (tests/fuzz/lib.sh: each source once for all), started from the same seeds (tests/fuzz/corpus/NAME/).
# For the spy harnesses the custom mutator afl-spy-mutator.c mutates records and seals every input
# (CRCs, END), AFL's own mutants included; its SPY_FUZZ_PREFIX is the harness's count of option bytes.
# Prints TAP, one test point per harness: its executions, edges found, and crashes (none, or it fails;
# AFL keeps them in $SPY_BUILD/fuzz-afl/NAME/default/crashes/). Runs go on from the last run's queue.
#
# usage: tests/fuzz/afl.sh [-t SECONDS] [HARNESS...]   (default -t 60 per harness; `make fuzz-afl`)
# env: SPY_SRC, SPY_BUILD (default build), FUZZ_NICE (default 10)
set -u

secs=60
while getopts t: o; do
	case $o in
	t) secs=$OPTARG ;;
	*) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

SPY_SRC=${SPY_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
build=${SPY_BUILD:-$SPY_SRC/build}
mkdir -p "$build" && build=$(cd "$build" && pwd) || exit 1 # absolute: the harnesses change directory
fz=$build/fuzz-afl
mkdir -p "$fz" || exit 1
nice=${FUZZ_NICE:-10}

if ! command -v afl-clang-fast >/dev/null || ! command -v afl-fuzz >/dev/null; then
	echo "1..0 # SKIP no AFL++ (mk/deps.sh installs afl++)"
	exit 0
fi

# shellcheck source=tests/fuzz/lib.sh
. "$SPY_SRC/tests/fuzz/lib.sh"
mapfile -t harnesses < <(fuzz_harnesses "$@")

# the custom mutator, and the -pg program of the GNU harness (as run.sh builds it)
gcc -O2 -g -shared -fPIC -I"$SPY_SRC/common" -I"$SPY_SRC/tests/fuzz" "$SPY_SRC/tests/fuzz/afl-spy-mutator.c" \
	"$SPY_SRC/tests/fuzz/spy-mutate.c" "$SPY_SRC"/common/*.c -o "$fz/afl-spy-mutator.so" -lz ||
	{ echo "Bail out! the AFL++ mutator does not build"; exit 1; }
gcc -O2 -pg -no-pie -I"$SPY_SRC/samples" "$SPY_SRC/samples/calls.c" -o "$fz/fuzz-pgprog" ||
	{ echo "Bail out! no -pg program"; exit 1; }
export SPY_FUZZ_PGPROG=$fz/fuzz-pgprog

flags=(-g -O1 -fsanitize=fuzzer -fno-sanitize-recover=undefined)
declare -A built
while read -r what h rest; do
	built[$h]="$what $rest"
done < <(AFL_USE_ASAN=1 AFL_USE_UBSAN=1 AFL_QUIET=1 AFL_LLVM_DENYLIST="$SPY_SRC/tests/fuzz/not-covered.txt" \
	fuzz_build "$fz" afl-clang-fast flags "${harnesses[@]}")

echo "1..${#harnesses[@]}"
n=0 failed=0
for h in "${harnesses[@]}"; do
	n=$((n + 1))
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
	mutator=() prefix=0
	case $h in # the spy harnesses: the count of option bytes before their profiles
	fuzz-gmon-decode) mutator=(AFL_CUSTOM_MUTATOR_LIBRARY="$fz/afl-spy-mutator.so") ;;
	fuzz-spinprof-spy | fuzz-spinprof-diff) mutator=(AFL_CUSTOM_MUTATOR_LIBRARY="$fz/afl-spy-mutator.so") prefix=1 ;;
	fuzz-spinprof-outputs) mutator=(AFL_CUSTOM_MUTATOR_LIBRARY="$fz/afl-spy-mutator.so") prefix=2 ;;
	esac
	in=$SPY_SRC/tests/fuzz/corpus/$h
	[ -d "$fz/$h.out/default/queue" ] && in=- # go on from the last run
	env "${mutator[@]}" SPY_FUZZ_PREFIX=$prefix AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 \
		AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SKIP_CRASHES=1 AFL_AUTORESUME=1 \
		ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0 \
		UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1 \
		nice -n "$nice" afl-fuzz -i "$in" -o "$fz/$h.out" -m none -t 10000 -V "$secs" -- "$fz/$h" \
		>"$fz/$h.log" 2>&1
	rc=$?
	st=$fz/$h.out/default/fuzzer_stats
	get() { sed -n "s/^$1 *: *//p" "$st" 2>/dev/null; }
	crashes=$(get saved_crashes)
	[ -n "$crashes" ] || crashes=$(get unique_crashes)
	if [ $rc -eq 0 ] && [ -f "$st" ] && [ "${crashes:-0}" -eq 0 ]; then
		echo "ok $n - $h: $(get execs_done) execs in $secs s, $(get edges_found) edges of $(get total_edges), corpus $(get corpus_count), 0 crashes"
	else
		echo "not ok $n - $h: status $rc, ${crashes:-?} crashes in $fz/$h.out/default/crashes/"
		tail -n 5 "$fz/$h.log" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
done
[ $failed -eq 0 ]
