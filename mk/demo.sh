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
spy=$("$SPINPROF" -b -p gmon.out | awk '$NF == "work" { print $(NF-3) }')
run "$CC" -O2 -pg -I"$SPY_SRC/samples" "$SPY_SRC/samples/threads.c" -o threads-pg -pthread
run ./threads-pg 4 2500000
gnu=$(gprof -b -p threads-pg gmon.out | awk '$NF == "work" { print $(NF-3) }')
echo "calls of work(), of 10000000: spy ${spy:-?}, gprof ${gnu:-?} (glibc's mcount is not thread-safe)"

say "spinprof reads gcc -pg profiles too, as gprof is called (flat profile of the same run)"
run "$SPINPROF" -b -p threads-pg gmon.out
