#!/bin/bash
# Make the fuzzers' seed corpora, tests/fuzz/corpus/NAME/seed-*: real profiles of samples built with the
# plugin and libspyrt (every SPYRT_MODE; cpu, wall and alloc sampling; threads, recursion, C++ exceptions;
# nodes, legs and histograms),
# synthetic ones (bench/spinprof-gen.c, plain and compressed), and glibc gmon.out files of the fuzz
# harness's -pg program; for the spinprof harnesses each is prefixed by their bytes of options (the
# outputs' harnesses: an output each, in turn, so that every output has seeds), some spy inputs hold two
# profiles to sum or compare, and some profiles have every string made hostile by tests/e2e/spyevil.c
# (markup, escape sequences, broken UTF-8: the outputs' escaping). Run by hand after `make` when the
# format or the samples change, and commit the result (each file is small; a run replaces only the
# seed-* files of the harnesses it makes, never a crash's input nor rev1-threads-time, a profile of
# format revision 1 kept as written then, which t250 and t290 read as their old file and the decoder's
# fuzzer as a seed).
#
# usage: tests/fuzz/make-seeds.sh [HARNESS...]   (default: every harness's seeds)
# env: SPY_BUILD (default build)
set -eu

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${SPY_BUILD:-$src/build}
out=$src/tests/fuzz/corpus
w=$(mktemp -d "${TMPDIR:-/tmp}/spy-seeds.XXXXXX")
trap 'rm -rf "$w"' EXIT
for f in spyinstr.so libspyrt.so; do
	[ -f "$build/$f" ] || { echo "make-seeds: no $build/$f (run make first)" >&2; exit 2; }
done
all=(fuzz-gmon-decode fuzz-spinprof-spy fuzz-spinprof-gnu fuzz-spinprof-outputs fuzz-spinprof-diff
	fuzz-spinprof-gnu-outputs)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${all[@]}")
making() { [[ " ${want[*]} " == *" $1 "* ]]; }
for h in "${want[@]}"; do
	[[ " ${all[*]} " == *" $h "* ]] || { echo "make-seeds: no harness $h" >&2; exit 2; }
	mkdir -p "$out/$h"
	rm -f "$out/$h"/seed-*
done

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
cc_spy trace "$src/samples/trace.c"
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
run trace-time SPYRT_TRACE=ping,pong,many "$w/trace" 5 3
gcc -O2 -I"$src/common" "$src/bench/spinprof-gen.c" "$src"/common/*.c -o "$w/gen" -lz
"$w/gen" spy "$w/gen-small-z0.out" 5 12 0 >/dev/null
"$w/gen" spy "$w/gen-mid-z6.out" 60 400 6 >/dev/null

# the same profiles with every string hostile (spyevil: the outputs' escaping)
gcc -O2 -I"$src/common" "$src/tests/e2e/spyevil.c" "$src"/common/*.c -o "$w/spyevil" -lz
for b in calls-time threads-cpu nodes-legs trace-time; do
	"$w/spyevil" "$w/$b.out" "$w/evil-$b.evil"
done

n=0
for f in "$w"/*.out; do
	[ -s "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] || continue
	b=$(basename "$f" .out)
	making fuzz-gmon-decode && cp "$f" "$out/fuzz-gmon-decode/seed-$b"
	# options: none, -s, --spy --cutoff=0, -z -b, --threads -q, --no-demangle
	opts=(00 01 22 18 44 80)
	making fuzz-spinprof-spy && printf "\\x${opts[n % ${#opts[@]}]}" | cat - "$f" >"$out/fuzz-spinprof-spy/seed-$b"
	n=$((n + 1))
done
# two profiles to sum: the same program in one mode, and two programs
if making fuzz-spinprof-spy; then
	cat "$w/calls-time.out" "$w/calls-time.out" | (printf '\x01' && cat) >"$out/fuzz-spinprof-spy/seed-sum-calls"
	cat "$w/calls-arcs.out" "$w/recursion-arcs.out" | (printf '\x22' && cat) >"$out/fuzz-spinprof-spy/seed-sum-two"
	cat "$w/threads-cpu.out" "$w/twocallers-cpu.out" | (printf '\x23' && cat) >"$out/fuzz-spinprof-spy/seed-sum-cpu"
fi

# the outputs' harness: byte 0 the output (of fuzz-spinprof-outputs.c's 20), byte 1 its options; every
# output twice, on profiles in turn (a time one and a sampled one, for the stack formats), the evil
# ones among them; and, with option bit 0x40, two profiles
if making fuzz-spinprof-outputs; then
	profs=(calls-time threads-cpu evil-calls-time.evil evil-threads-cpu.evil trace-time nodes-legs
		twocallers-wall recursion-time exceptions-alloc evil-nodes-legs.evil calls-callsb
		evil-trace-time.evil recursion-arcs calls-count gen-small-z0)
	opts=(00 01 02 04 08 10 20 80 03 9c)
	for o in $(seq 0 39); do
		f=${profs[o % ${#profs[@]}]}
		case $f in *.evil) ;; *) f=$f.out ;; esac
		[ -s "$w/$f" ] || continue
		printf "\\x$(printf %02x $((o % 20)))\\x${opts[o % ${#opts[@]}]}" | cat - "$w/$f" \
			>"$out/fuzz-spinprof-outputs/seed-$(printf %02d $((o % 20)))-${f%.*}-$o"
	done
	for o in 00 03 0c 0d; do # summed (and --dump'ed one after the other: 0c)
		printf "\\x$o\\x40" | cat - "$w/calls-time.out" "$w/evil-calls-time.evil" \
			>"$out/fuzz-spinprof-outputs/seed-two-$o"
	done
fi
# --diff: two runs of one program, two programs, a hostile one against a plain one
if making fuzz-spinprof-diff; then
	printf '\x00' | cat - "$w/calls-time.out" "$w/calls-arcs.out" >"$out/fuzz-spinprof-diff/seed-calls"
	printf '\x01' | cat - "$w/threads-cpu.out" "$w/twocallers-cpu.out" >"$out/fuzz-spinprof-diff/seed-cpu"
	printf '\x02' | cat - "$w/evil-calls-time.evil" "$w/recursion-time.out" >"$out/fuzz-spinprof-diff/seed-evil"
	printf '\x04' | cat - "$w/evil-threads-cpu.evil" "$w/threads-cpu.out" >"$out/fuzz-spinprof-diff/seed-evil-cpu"
	printf '\x08' | cat - "$w/nodes-legs.out" >"$out/fuzz-spinprof-diff/seed-same"
fi

# ---- glibc gmon.out of the GNU harness's program (as tests/fuzz/run.sh builds it) ----
gcc -O2 -pg -no-pie -I"$src/samples" "$src/samples/calls.c" -o "$w/pgprog"
(cd "$w" && ./pgprog >/dev/null)
if making fuzz-spinprof-gnu; then
	for o in 00 01 06 20 40; do
		printf "\\x$o" | cat - "$w/gmon.out" >"$out/fuzz-spinprof-gnu/seed-calls-$o"
	done
fi
# the GNU outputs' harness: each of its 16 outputs once, options in turn
if making fuzz-spinprof-gnu-outputs; then
	opts=(00 01 02 04 08 10 20 40 80 11)
	for o in $(seq 0 15); do
		printf "\\x$(printf %02x "$o")\\x${opts[o % ${#opts[@]}]}" | cat - "$w/gmon.out" \
			>"$out/fuzz-spinprof-gnu-outputs/seed-$(printf %02d "$o")"
	done
fi
for h in "${want[@]}"; do ls -l "$out/$h"/seed-*; done | awk '{ s += $5; n++ } END { printf "make-seeds: %d files, %d bytes\n", n, s }'
