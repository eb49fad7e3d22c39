#!/bin/bash
# Fuzz spy's readers with libFuzzer (clang -fsanitize=fuzzer,address,undefined), printing TAP: one test
# point per harness, which passes when the run ends without a crash, a leak, a sanitizer report or an
# abort of the harness's own checks. Each tests/fuzz/fuzz-NAME.c starts with a line naming what it links,
# as the unit tests do:   /* fuzz: common/gmon-io.c -lz */   (a harness whose sources are missing is skipped).
# The seed corpus: real profiles of samples built with the plugin and libspyrt in every SPYRT_MODE, and
# synthetic ones from bench/spinprof-gen.c, plain and compressed. Corpora persist in $SPY_BUILD/fuzz/ and
# grow from run to run; a crashing input is kept in $SPY_BUILD/fuzz/crash-NAME-*.
#
# usage: tests/fuzz/run.sh [-t SECONDS] [-r RUNS] [HARNESS...]   (default -t 10: seconds per harness)
#   make check runs it briefly (tests/e2e/t204-spinprof-fuzz.sh); a long run:  tests/fuzz/run.sh -t 3600
# env: SPY_SRC, SPY_BUILD (default build), SPY_PLUGIN, FUZZ_CC (default clang-14, else clang)
# exit: 0, 1 when a harness failed; "1..0 # SKIP" and 0 when there is no fuzzer toolchain.
set -u

secs=10
runs=
while getopts t:r: o; do
	case $o in
	t) secs=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

SPY_SRC=${SPY_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
build=${SPY_BUILD:-$SPY_SRC/build}
plugin=${SPY_PLUGIN:-$build/spyinstr.so}
fz=$build/fuzz
mkdir -p "$fz" || exit 1

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

harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
	for f in "$SPY_SRC"/tests/fuzz/fuzz-*.c; do
		harnesses+=("$(basename "$f" .c)")
	done
fi

# ---- the seed corpus ----
seeds=$fz/seeds
if [ ! -d "$seeds" ] || [ -z "$(ls -A "$seeds" 2>/dev/null)" ]; then
	mkdir -p "$seeds"
	gcc -O2 -I"$SPY_SRC/common" "$SPY_SRC/bench/spinprof-gen.c" "$SPY_SRC/common/gmon-io.c" -o "$fz/spinprof-gen" -lz &&
		for z in 0 6; do
			"$fz/spinprof-gen" spy "$seeds/gen-small-z$z.out" 5 12 "$z"
			"$fz/spinprof-gen" spy "$seeds/gen-mid-z$z.out" 60 400 "$z"
		done
	if [ -f "$plugin" ] && [ -f "$build/libspyrt.so" ]; then
		for s in calls recursion threads; do
			gcc -fplugin="$plugin" -O2 -I"$SPY_SRC/samples" -I"$SPY_SRC/runtime" "$SPY_SRC/samples/$s.c" \
				-o "$fz/$s" -L"$build" -lspyrt -Wl,-rpath,"$build" -lpthread >/dev/null 2>&1 || continue
			for m in time arcs count; do
				args=
				[ $s = threads ] && args="2 100"
				# shellcheck disable=SC2086
				SPYRT_MODE=$m SPYRT_OUT="$seeds/$s-$m.out" "$fz/$s" $args >/dev/null 2>&1
			done
		done
	fi
fi

# ---- build and run ----
echo "1..${#harnesses[@]}"
n=0 failed=0
for h in "${harnesses[@]}"; do
	n=$((n + 1))
	src=$SPY_SRC/tests/fuzz/$h.c
	words=$(sed -n '1s|^[[:space:]]*/\*[[:space:]]*fuzz:\(.*\)\*/.*$|\1|p' "$src" 2>/dev/null)
	srcs=() libs=() missing=
	for w in $words; do
		case $w in
		-*) libs+=("$w") ;;
		*) [ -f "$SPY_SRC/$w" ] || missing="$missing $w"; srcs+=("$SPY_SRC/$w") ;;
		esac
	done
	if [ ! -f "$src" ] || [ -n "$missing" ]; then
		echo "ok $n - $h # SKIP missing:${missing:- $src}"
		continue
	fi
	incs=()
	for s in "${srcs[@]}"; do incs+=("-I$(dirname "$s")"); done
	if ! "$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$SPY_SRC/common" \
		"${incs[@]}" "$src" "${srcs[@]}" -o "$fz/$h" "${libs[@]}" >"$fz/$h.build.log" 2>&1; then
		echo "not ok $n - $h: does not build"
		head -n 20 "$fz/$h.build.log" | sed 's/^/# /'
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$fz/corpus-$h"
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$fz/$h" -max_total_time="$secs" ${runs:+-runs=$runs} \
		-timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$fz/crash-$h-" "$fz/corpus-$h" "$seeds" >"$fz/$h.log" 2>&1
	rc=$?
	stats=$(grep -m1 -o 'Done [0-9]* runs in [0-9]* second' "$fz/$h.log")
	if [ $rc -eq 0 ]; then
		echo "ok $n - $h: ${stats:-no crash} (corpus $(ls "$fz/corpus-$h" | wc -l) inputs)"
	else
		echo "not ok $n - $h: status $rc; the input is in $fz/crash-$h-*"
		grep -E -m 8 'ERROR|SUMMARY|runtime error|#[0-4] |refused|differently|Test unit written' "$fz/$h.log" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
done
[ $failed -eq 0 ]
