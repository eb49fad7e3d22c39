#!/bin/bash
# Make the fuzzers' seed corpora, tests/fuzz/corpus/NAME/seed-*: real profiles of samples built with the
# plugin and libspyrt (every SPYRT_MODE; cpu, wall and alloc sampling; threads, recursion, C++ exceptions;
# nodes, legs and histograms),
# synthetic ones (bench/spinprof-gen.c, plain and compressed), and glibc gmon.out files of the fuzz
# harness's -pg program; for the spinprof harnesses each is prefixed by a byte of options, and some spy
# inputs hold two profiles to sum. Run by hand after `make` when the format or the samples change, and
# commit the result (each file is small; a run replaces only the seed-* files, never a crash's input
# nor rev1-threads-time, a profile of format revision 1 kept as written then, which t250 and t290 read
# as their old file and the decoder's fuzzer as a seed).
#
# usage: tests/fuzz/make-seeds.sh    env: SPY_BUILD (default build)
set -eu

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${SPY_BUILD:-$src/build}
out=$src/tests/fuzz/corpus
w=$(mktemp -d "${TMPDIR:-/tmp}/spy-seeds.XXXXXX")
trap 'rm -rf "$w"' EXIT
for f in spyinstr.so libspyrt.so; do
	[ -f "$build/$f" ] || { echo "make-seeds: no $build/$f (run make first)" >&2; exit 2; }
done
mkdir -p "$out/fuzz-gmon-decode" "$out/fuzz-spinprof-spy" "$out/fuzz-spinprof-gnu"
rm -f "$out"/*/seed-*

# ---- spy profiles ----
cc_spy() { # cc_spy NAME SRC...
	local name=$1
	shift
	"${CC:-gcc}" -fplugin="$build/spyinstr.so" -O2 -I"$src/samples" -I"$src/runtime" "$@" -o "$w/$name" \
		-L"$build" -lspyrt -Wl,-rpath,"$build" -lpthread >"$w/$name.log" 2>&1
}
cc_spy calls "$src/samples/calls.c"
cc_spy recursion "$src/samples/recursion.c"
cc_spy threads "$src/samples/threads.c"
cc_spy twocallers "$src/samples/twocallers.c"
cc_spy nodes "$src/samples/nodes.c"
CC=g++ cc_spy exceptions "$src/samples/exceptions.cc" "$src/samples/comdat2.cc"
run() { # run OUT ENV... -- PROG ARGS...
	local o=$1
	shift
	env SPYRT_OUT="$w/$o.out" "$@" >/dev/null 2>&1 || true
}
for m in time arcs count; do
	run calls-$m SPYRT_MODE=$m "$w/calls"
	run recursion-$m SPYRT_MODE=$m "$w/recursion"
done
run threads-time "$w/threads" 3 200
run threads-cpu SPYRT_WATCH=cpu SPYRT_HZ=20000 "$w/threads" 3 2000000
run twocallers-wall SPYRT_WATCH=wall SPYRT_HZ=20000 "$w/twocallers" 2000
run twocallers-cpu SPYRT_WATCH=cpu SPYRT_HZ=20000 "$w/twocallers" 2000
run exceptions-alloc SPYRT_WATCH=alloc "$w/exceptions"
run calls-callsb SPYRT_WATCH=calls:b SPYRT_MODE=arcs "$w/calls"
run nodes-legs SPYRT_LEGS='start>end,rin>rout,ping>pong' SPYRT_HIST='node:mid:linear:0:1:8,leg:start>end:log:10' \
	"$w/nodes"
run nodes-successor SPYRT_LEG_ADD=successor SPYRT_LEG_TRACK=successor "$w/nodes"
gcc -O2 -I"$src/common" "$src/bench/spinprof-gen.c" "$src/common/gmon-io.c" -o "$w/gen" -lz
"$w/gen" spy "$w/gen-small-z0.out" 5 12 0 >/dev/null
"$w/gen" spy "$w/gen-mid-z6.out" 60 400 6 >/dev/null

n=0
for f in "$w"/*.out; do
	[ -s "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] || continue
	b=$(basename "$f" .out)
	cp "$f" "$out/fuzz-gmon-decode/seed-$b"
	# options: none, -s, --spy --cutoff=0, -z -b, --threads -q, --no-demangle
	opts=(00 01 22 18 44 80)
	printf "\\x${opts[n % ${#opts[@]}]}" | cat - "$f" >"$out/fuzz-spinprof-spy/seed-$b"
	n=$((n + 1))
done
# two profiles to sum: the same program in one mode, and two programs
cat "$w/calls-time.out" "$w/calls-time.out" | (printf '\x01' && cat) >"$out/fuzz-spinprof-spy/seed-sum-calls"
cat "$w/calls-arcs.out" "$w/recursion-arcs.out" | (printf '\x22' && cat) >"$out/fuzz-spinprof-spy/seed-sum-two"
cat "$w/threads-cpu.out" "$w/twocallers-cpu.out" | (printf '\x23' && cat) >"$out/fuzz-spinprof-spy/seed-sum-cpu"

# ---- glibc gmon.out of the GNU harness's program (as tests/fuzz/run.sh builds it) ----
gcc -O2 -pg -no-pie -I"$src/samples" "$src/samples/calls.c" -o "$w/pgprog"
(cd "$w" && ./pgprog >/dev/null)
for o in 00 01 06 20 40; do
	printf "\\x$o" | cat - "$w/gmon.out" >"$out/fuzz-spinprof-gnu/seed-calls-$o"
done
ls -l "$out"/*/seed-* | awk '{ s += $5; n++ } END { printf "make-seeds: %d files, %d bytes\n", n, s }'
