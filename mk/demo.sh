#!/bin/bash
# make demo: the toolchain's main job on the samples. The plugin instruments a program, libspyrt
# records it into gmon.out, spinprof reports it; then the same threaded program under gcc -pg and
# GNU gprof, for comparison. Run by `make demo`, which builds first and sets SPY_SRC, SPY_BUILD, CC.
set -euo pipefail

: "${SPY_SRC:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${SPY_BUILD:=$SPY_SRC/build}"
: "${CC:=gcc}"
PLUGIN=$SPY_BUILD/spyinstr.so
SPINPROF=$SPY_BUILD/spinprof
RT=(-I"$SPY_SRC/runtime" -L"$SPY_BUILD" -lspyrt -Wl,-rpath,"$SPY_BUILD")
work=$(mktemp -d "${TMPDIR:-/tmp}/spy-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

say() { printf '\n== %s\n' "$*"; }
# the call graph entry of work(): its callers' lines and its own
work_entry() { awk '/^---/ || /^index/ { b = ""; next } { b = b $0 "\n" } /^\[[0-9]+\].* work \[/ { printf "%s", b; exit }'; }
run() { printf '$ %s\n' "$*"; "$@"; }

say "compile samples/recursion.c with the plugin: fib(20) and mutually recursive is_even/is_odd"
run "$CC" -O2 -I"$SPY_SRC/samples" -fplugin="$PLUGIN" "$SPY_SRC/samples/recursion.c" -o recursion "${RT[@]}"

say "what the plugin put at the entry of fib: per-thread add-one counter, guarded entry hook"
objdump -d --no-show-raw-insn recursion | awk '/^[0-9a-f]+ <fib>:/ { on = 1 } on && /^$/ { exit } on' | head -24

say "run it: libspyrt writes gmon.out (SPYRT_READY=1 prints the Multics ready message)"
SPYRT_READY=1 run ./recursion
ls -l gmon.out

say "spinprof: the run, the profiler's own cost, the self-check, flat profile and call graph"
run "$SPINPROF" -b gmon.out

say "threads: 4 threads x 2500000 calls of work(), with spy and with gcc -pg"
run "$CC" -O2 -I"$SPY_SRC/samples" -fplugin="$PLUGIN" "$SPY_SRC/samples/threads.c" -o threads -pthread "${RT[@]}"
run ./threads 4 2500000
spy=$("$SPINPROF" -b -p gmon.out | awk '$NF == "work" { print $4 }')
run "$CC" -O2 -pg -I"$SPY_SRC/samples" "$SPY_SRC/samples/threads.c" -o threads-pg -pthread
run ./threads-pg 4 2500000
gnu=$(gprof -b -p threads-pg gmon.out | awk '$NF == "work" { print $(NF-3) }')
echo "calls of work(), of 10000000: spy ${spy:-?}, gprof ${gnu:-?} (glibc's mcount is not thread-safe)"

say "spinprof reads gcc -pg profiles too, as gprof is called (flat profile of the same run)"
run "$SPINPROF" -b -p threads-pg gmon.out

say "twocallers: work() runs 100 times from heavy(), 100x longer each, and 10000 times from light()"
run "$CC" -O2 -g -I"$SPY_SRC/samples" -fplugin="$PLUGIN" "$SPY_SRC/samples/twocallers.c" -o twocallers "${RT[@]}"
run ./twocallers 20000
echo "spy measures each arc's time: work's time splits between its callers as it really does"
"$SPINPROF" -b -q gmon.out | work_entry
say "the Spy report of the same run (sampled by CPU time): each procedure under its immediate dominator"
"$SPINPROF" --spy --cutoff=2 gmon.out | sed -n '/^watching:/,/^cutoff:/p;/^Breakdown of procedures/,/^Breakdown of highly/p' |
	grep -v '^Breakdown of highly'
run "$CC" -O2 -pg -I"$SPY_SRC/samples" "$SPY_SRC/samples/twocallers.c" -o twocallers-pg
run ./twocallers-pg 20000
echo "gprof splits work's time by calls, 100:10000, as if every call took as long:"
gprof -b -q twocallers-pg gmon.out | work_entry

say "stopwatch: spin() called for 1.5 x 2^B cycles, 7 times B=11, 5 x 14, 3 x 17, 2 x 19, 3 x 18 (in rec)"
run "$CC" -O2 -I"$SPY_SRC/samples" -fplugin="$PLUGIN" "$SPY_SRC/samples/stopwatch.c" -o stopwatch "${RT[@]}"
# a run that an interrupt disturbed (status 3) is run again
for _ in 1 2 3; do ./stopwatch >/dev/null && break; done
echo "each function's outermost calls as SystemTap's @hist_log shows them (cycles):"
run "$SPINPROF" --stopwatch=spin,rec gmon.out

say "Mesa's nodes and legs: samples/nodes.c passes start, mid (a value) and end 100 times, with busy waits"
run "$CC" -O2 -I"$SPY_SRC/samples" -fplugin="$PLUGIN" "$SPY_SRC/samples/nodes.c" -o nodes -pthread "${RT[@]}"
SPYRT_LEGS='start>mid,mid>end,start>end,ping>pong' SPYRT_HIST='node:mid:linear:0:1:8,leg:start>end:log:10' run ./nodes
"$SPINPROF" -b gmon.out | sed -n '/^Nodes/,$p'
