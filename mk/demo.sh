#!/bin/bash
# make demo: what the toolchain shows at this stage. The plugin instruments two samples, the tracing
# library of the tests (tests/trace) stands in for the runtime, and gprof runs the same threaded program
# for comparison. Run by `make demo`, which builds first and sets SPY_SRC, SPY_BUILD and CC.
set -euo pipefail

: "${SPY_SRC:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${SPY_BUILD:=$SPY_SRC/build}"
: "${CC:=gcc}"
PLUGIN=$SPY_BUILD/spyinstr.so
TRACE=$SPY_BUILD/tests
work=$(mktemp -d "${TMPDIR:-/tmp}/spy-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

say() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

say "compile samples/calls.c with the plugin (main calls a 10 times, a calls b 3 times, b calls c twice)"
run "$CC" -O2 -I"$SPY_SRC/samples" -fplugin="$PLUGIN" -fplugin-arg-spyinstr-verbose \
	"$SPY_SRC/samples/calls.c" -o calls -L"$TRACE" -lspytrace -Wl,-rpath,"$TRACE" 2>&1 |
	grep 'spyinstr:' | sed 's/^.*note: //'

say "what the plugin put into c(): per-thread add-one counter, entry hook, exit hook"
objdump -d --no-show-raw-insn calls | awk '/^[0-9a-f]+ <c>:/ { on = 1 } on && /^$/ { exit } on'

say "its records, one per instrumented function, in section spy_funcs (48 bytes each)"
readelf -S -W calls | awk '$2 == "spy_funcs" || $3 == "spy_funcs" { print }'

say "run it; the tracing library checks every hook and writes what it saw"
SPYTRACE_OUT=calls.trace run ./calls
grep -E '^(func|arc|callsite|repaired|open|unmatched_exit) ' calls.trace

say "threads: 4 threads x 2500000 calls of work(); the add-one counters must say exactly 10000000"
run "$CC" -O2 -I"$SPY_SRC/samples" -fplugin="$PLUGIN" "$SPY_SRC/samples/threads.c" -o threads -pthread \
	-L"$TRACE" -lspytrace -Wl,-rpath,"$TRACE"
SPYTRACE_OUT=threads.trace run ./threads 4 2500000
grep -E '^func work ' threads.trace

say "the same program under gcc -pg and gprof, for comparison (glibc's mcount is not thread-safe)"
run "$CC" -O2 -pg -I"$SPY_SRC/samples" "$SPY_SRC/samples/threads.c" -o threads-pg -pthread
run ./threads-pg 4 2500000
gprof -b -p threads-pg gmon.out | awk 'NR <= 6 || / work$/'
calls=$(gprof -b -p threads-pg gmon.out | awk '$NF == "work" { print $(NF-3) }')
echo "gprof counted work() ${calls:-?} times of 10000000"
