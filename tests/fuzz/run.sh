#!/bin/bash
# Fuzz spy's readers with libFuzzer (clang -fsanitize=fuzzer,address,undefined), printing TAP: one test
# point per harness, which passes when the run ends without a crash, a leak, a sanitizer report or an
# abort of the harness's own checks; each line gives the runs, the coverage (edges, "cov") and the corpus.
# Each tests/fuzz/fuzz-NAME.c starts with a line naming what it links, as the unit tests do:
#   /* fuzz: common/gmon-io.c tests/fuzz/spy-mutate.c -lz */
# where a source may be a pattern (spinprof/*.c), a .proto (compiled by protoc-c into $SPY_BUILD/fuzz/gen)
# and !PATH leaves a file out (a harness whose sources are
# missing is skipped). The seeds are tests/fuzz/corpus/NAME/ (small files kept in the repository, with the
# inputs of every crash found and fixed: each run replays them first); what a run finds goes into
# $SPY_BUILD/fuzz/corpus-NAME/, which grows from run to run; a crashing input is kept in
# $SPY_BUILD/fuzz/crash-NAME-*. fuzz-spinprof-gnu needs a fixed `gcc -pg` program: samples/calls.c, built
# here -no-pie as $SPY_BUILD/fuzz/fuzz-pgprog.
#
# usage: tests/fuzz/run.sh [-t SECONDS] [-r RUNS] [-j JOBS] [HARNESS...]   (default -t 10: seconds per
#   harness; -j runs that many processes of each harness at once, libFuzzer's -fork)
#   make check runs it briefly (tests/e2e/t204-spinprof-fuzz.sh), `make fuzz` longer (FUZZ_SECONDS)
# env: SPY_SRC, SPY_BUILD (default build), FUZZ_CC (default clang-14, else clang), FUZZ_NICE (default 10)
# exit: 0, 1 when a harness failed; "1..0 # SKIP" and 0 when there is no fuzzer toolchain.
set -u

secs=10
runs=
jobs=
while getopts t:r:j: o; do
	case $o in
	t) secs=$OPTARG ;;
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

harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
	for f in "$SPY_SRC"/tests/fuzz/fuzz-*.c; do
		harnesses+=("$(basename "$f" .c)")
	done
fi

# fuzz_sources HARNESS: the sources (absolute) and libraries of its fuzz: line, one a line; a missing
# source as "missing PATH"
fuzz_sources() {
	local - words w f skip=() s keep
	set -f # the patterns are expanded below, in $SPY_SRC
	words=$(sed -n '1s|^[[:space:]]*/\*[[:space:]]*fuzz:\(.*\)\*/.*$|\1|p' "$SPY_SRC/tests/fuzz/$1.c")
	for w in $words; do
		case $w in '!'*) skip+=("$SPY_SRC/${w#!}") ;; esac
	done
	for w in $words; do
		case $w in
		'!'*) ;;
		-*) echo "$w" ;;
		*'*'*)
			set +f
			for f in "$SPY_SRC"/$w; do
				keep=1
				for s in "${skip[@]}"; do [ "$f" = "$s" ] && keep=0; done
				[ $keep = 1 ] && [ -f "$f" ] && echo "$f"
			done
			set -f
			;;
		*) if [ -f "$SPY_SRC/$w" ]; then echo "$SPY_SRC/$w"; else echo "missing $w"; fi ;;
		esac
	done
}

# the -pg program of fuzz-spinprof-gnu, built the same way each time: its seeds' addresses hold
if [ ! -x "$fz/fuzz-pgprog" ] || [ "$SPY_SRC/samples/calls.c" -nt "$fz/fuzz-pgprog" ]; then
	gcc -O2 -pg -no-pie -I"$SPY_SRC/samples" "$SPY_SRC/samples/calls.c" -o "$fz/fuzz-pgprog" >"$fz/fuzz-pgprog.log" 2>&1
fi
export SPY_FUZZ_PGPROG=$fz/fuzz-pgprog

echo "1..${#harnesses[@]}"
n=0 failed=0
for h in "${harnesses[@]}"; do
	n=$((n + 1))
	src=$SPY_SRC/tests/fuzz/$h.c
	srcs=() libs=() missing=
	if [ -f "$src" ]; then
		while read -r w; do
			case $w in
			missing\ *) missing="$missing ${w#missing }" ;;
			-*) libs+=("$w") ;;
			*.proto)
				# protoc-c's C for it, as the GNUmakefile makes it (spinprof/out-pprof.c)
				mkdir -p "$fz/gen"
				if protoc-c --proto_path="$(dirname "$w")" --c_out="$fz/gen" "$w" >"$fz/gen/protoc.log" 2>&1; then
					srcs+=("$fz/gen/$(basename "$w" .proto).pb-c.c")
				else
					missing="$missing protoc-c"
				fi
				;;
			*) srcs+=("$w") ;;
			esac
		done < <(fuzz_sources "$h")
	fi
	if [ ! -f "$src" ] || [ -n "$missing" ]; then
		echo "ok $n - $h # SKIP missing:${missing:- $src}"
		continue
	fi
	incs=()
	for s in "${srcs[@]}"; do incs+=("-I$(dirname "$s")"); done
	# coverage counts only the code under test: the harnesses and their mutators are left out
	if ! "$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-fsanitize-coverage-ignorelist="$SPY_SRC/tests/fuzz/not-covered.txt" -I"$SPY_SRC/common" \
		-I"$SPY_SRC/tests/fuzz" $(printf -- '%s\n' "${incs[@]}" | sort -u) "$src" "${srcs[@]}" -o "$fz/$h" \
		"${libs[@]}" >"$fz/$h.build.log" 2>&1; then
		echo "not ok $n - $h: does not build"
		head -n 20 "$fz/$h.build.log" | sed 's/^/# /'
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$fz/corpus-$h"
	seeds=$SPY_SRC/tests/fuzz/corpus/$h
	[ -d "$seeds" ] || seeds=
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 nice -n "$nice" "$fz/$h" -max_total_time="$secs" \
		${runs:+-runs=$runs} ${jobs:+-fork=$jobs -ignore_crashes=0} -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$fz/crash-$h-" "$fz/corpus-$h" $seeds \
		>"$fz/$h.log" 2>&1
	rc=$?
	runs_done=$(sed -n 's/^stat::number_of_executed_units: *//p' "$fz/$h.log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$fz/$h.log" | tail -n 1)
	ft=$(grep -o 'ft: [0-9]*' "$fz/$h.log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "ok $n - $h: ${runs_done:-?} runs in $secs s, ${cov:-cov: ?} edges, ${ft:-ft: ?} features, corpus $(ls "$fz/corpus-$h" | wc -l) inputs"
	else
		echo "not ok $n - $h: status $rc; the input is in $fz/crash-$h-*"
		grep -E -m 8 'ERROR|SUMMARY|runtime error|#[0-4] |refused|differently|does not read back|exited|Test unit written' \
			"$fz/$h.log" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
done
[ $failed -eq 0 ]
