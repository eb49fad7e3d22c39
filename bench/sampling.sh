#!/bin/bash
# bench/sampling.sh: what sampling costs. Builds bench/bench.c with the plugin (mode time, runtime
# linked statically, as bench/run.sh does) and runs it with SPYRT_WATCH=none and SPYRT_WATCH=cpu at
# SPYRT_HZ (default 1000), alternating, RUNS times each; prints the median CPU time (user + system) of
# each, the overhead in percent (goal: <= 1 %), and the handler's own cycles per sample (from the
# profile's SAMPLING record: handler_cycles / taken; the kernel's signal delivery is not in it, the
# overhead is). CPU time, not real time: on a shared machine the real time mostly measures the others;
# the medians of real time are printed too.
#
# usage: bench/sampling.sh [RUNS]     (default 11)
# env:   SPY_BUILD (default build/), SPY_PLUGIN, SPYRT_HZ, CC, BENCH_KEEP=1 keeps the work directory
set -eu

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=$(cd "$build" && pwd) # the runs below happen in the work directory
plugin=${SPY_PLUGIN:-$build/spyinstr.so}
runs=${1:-11}
hz=${SPYRT_HZ:-1000}

bench_need "$plugin" "$build/libspyrt.a"
bench_workdir spy-bench
cd "$w"

$CC -O2 -fplugin="$plugin" -fplugin-arg-spyinstr-mode=time "$here/bench.c" "$build/libspyrt.a" \
	-lpthread -ldl -o spy-hooks
$CC -O2 -I"$src/common" "$src/tests/gmon-dump.c" "$src"/common/*.c -lz -o gmon-dump

none=()
cpu=()
nonew=()
cpuw=()
TIMEFORMAT='%3U %3S'
# cputime CMD...: the command's user + system seconds on stdout (its own output on fd 3)
cputime() {
	local t
	t=$({ time "$@" >&3 2>/dev/null; } 2>&1)
	awk '{ printf "%.3f\n", $1 + $2 }' <<<"$t"
}
samples=0
cycles=0
for ((r = 0; r < runs; r++)); do
	for v in none cpu; do
		c=$(cputime env SPYRT_WATCH=$v SPYRT_HZ="$hz" SPYRT_OUT="$w/gmon.$v" ./spy-hooks 3>"$w/out.$v")
		ns=$(sed -n 's/.*ns=\([0-9]*\).*/\1/p' "$w/out.$v")
		if [ $v = none ]; then none+=("$c"); nonew+=("$ns"); else cpu+=("$c"); cpuw+=("$ns"); fi
	done
	line=$(./gmon-dump "$w/gmon.cpu" | grep '^sampling ')
	samples=$((samples + $(sed -n 's/.* taken=\([0-9]*\).*/\1/p' <<<"$line")))
	cycles=$((cycles + $(sed -n 's/.* handler_cycles=\([0-9]*\).*/\1/p' <<<"$line")))
done

median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mn=$(median "${none[@]}")
mc=$(median "${cpu[@]}")
mnw=$(median "${nonew[@]}")
mcw=$(median "${cpuw[@]}")
echo "bench.c (spy time mode, static runtime), $runs runs each, alternating; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); medians:"
awk -v a="$mn" -v b="$mc" -v aw="$mnw" -v bw="$mcw" -v hz="$hz" -v s="$samples" -v c="$cycles" -v r="$runs" 'BEGIN {
	printf "                            CPU time   real time\n"
	printf "  SPYRT_WATCH=none          %8.3f s %8.3f s\n", a, aw / 1e9
	printf "  SPYRT_WATCH=cpu %6d Hz %8.3f s %8.3f s\n", hz, b, bw / 1e9
	printf "  overhead                  %8.2f %% %8.2f %%   (goal: CPU time <= 1 %%)\n", (b - a) * 100 / a, (bw - aw) * 100 / aw
	printf "  samples per run           %10.0f\n", s / r
	printf "  handler cycles per sample %10.0f\n", s ? c / s : 0
}'
