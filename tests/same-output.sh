#!/bin/bash
# Compare two spinprof builds output for output: every report, option set and export format on a corpus
# of profiles, byte for byte, with the exit status and standard error. For a change that must not change
# what spinprof prints (a restructuring, issue 27): build the old tree and the new one, then
#
#   tests/same-output.sh OLD/spinprof NEW/spinprof [CORPUS]
#
# CORPUS (default $SPY_BUILD/same-output-corpus) is made on first use and then reused, so that both
# binaries read the very same files: samples/ built with SPY_BUILD's plugin and libspyrt and run in each
# mode (time, arcs, count; with and without CPU samples; one with SPYRT_TRACE), a summed pair, every other
# sample of samples/ in modes time and arcs (those that build with the plugin alone; build.log says which
# were left out), samples/calls.c built with gcc -pg (GNU mode, with its executable), and the inputs of
# every fuzz corpus of tests/fuzz/corpus/ less their option bytes. Each profile, and each fuzz input the
# old spinprof reads, goes through every report option set (default, -b, -p, -q, -T, --spy, ...), --dump
# and every --format; a fuzz input it refuses is compared by its refusal. Nothing is normalised but the
# binary's own path in stderr: times and paths in an output come from the file both read, and pprof's
# gzip header has no time (zlib's default, mtime 0). About 5 minutes on 2 busy cores once the corpus is
# made. make check's t294 checks that the script sees a difference it is given.
# Prints one line per difference (the profile, the options, what differs) and a last line
# "N outputs compared, M differ"; exit status 0 when none differs, 1 when some do, 2 when it cannot run.
# env: SPY_SRC, SPY_BUILD (default build: the plugin and runtime that make the corpus), CC (gcc),
#      SAME_KEEP=1 keeps the outputs (in CORPUS/out-old, out-new).
set -u

[ $# -ge 2 ] || { sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 2; }
old=$(readlink -f "$1") new=$(readlink -f "$2")
for b in "$old" "$new"; do
	[ -x "$b" ] || { echo "same-output: $b: not an executable" >&2; exit 2; }
done
SPY_SRC=${SPY_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
build=${SPY_BUILD:-$SPY_SRC/build}
case $build in /*) ;; *) build=$SPY_SRC/$build ;; esac
corpus=${3:-$build/same-output-corpus}
CC=${CC:-gcc}
samples=$SPY_SRC/samples

# ---- the corpus ----------------------------------------------------------------------------------

# run NAME ENV... -- PROG ARG...: run PROG in the corpus with SPYRT_OUT=NAME.out and ENV
run() {
	local name=$1
	shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	# a status is no failure here (stopwatch.c says 3 when disturbed): only no profile is
	(cd "$corpus" && env "${envs[@]}" SPYRT_OUT="$name.out" "$@" >/dev/null 2>&1)
	[ -s "$corpus/$name.out" ] || echo "same-output: $name: the run wrote no profile" >&2
}

make_corpus() {
	local specs=$build/spy.specs s m w
	[ -f "$specs" ] || { echo "same-output: no $specs (make first)" >&2; return 1; }
	mkdir -p "$corpus/bin" || return 1
	for s in calls recursion twocallers flame tailchain tailwork livecaller trace stopwatch threads; do
		local src=("$samples/$s.c")
		[ -f "$samples/$s.c" ] || continue
		[ "$s" = livecaller ] && src+=("$samples/livecaller-foreign.c")
		for m in time arcs; do
			"$CC" -O2 -g -I"$samples" -specs="$specs" -fplugin-arg-spyinstr-mode=$m \
				-fplugin-arg-spyinstr-exclude-file=livecaller-foreign "${src[@]}" \
				-o "$corpus/bin/$s-$m" -lpthread 2>>"$corpus/build.log" || return 1
		done
	done
	"$CC" -O2 -g -I"$samples" "$samples/exceptions.cc" "$samples/comdat2.cc" -specs="$specs" \
		-o "$corpus/bin/exceptions" -lstdc++ 2>>"$corpus/build.log" || return 1
	for s in calls recursion twocallers flame tailchain tailwork livecaller; do
		[ -x "$corpus/bin/$s-time" ] || continue
		for w in cpu none; do
			run "$s-time-$w" SPYRT_MODE=time SPYRT_WATCH=$w -- "$corpus/bin/$s-time"
			run "$s-arcs-$w" SPYRT_MODE=arcs SPYRT_WATCH=$w SPYRT_HZ=4000 -- "$corpus/bin/$s-arcs"
		done
		run "$s-count" SPYRT_MODE=count -- "$corpus/bin/$s-time"
	done
	run flame-wall SPYRT_MODE=arcs SPYRT_WATCH=wall -- "$corpus/bin/flame-arcs"
	run trace SPYRT_MODE=time SPYRT_TRACE=ping,pong,many -- "$corpus/bin/trace-time" 50 20
	run stopwatch SPYRT_MODE=time -- "$corpus/bin/stopwatch-time"
	run threads SPYRT_MODE=time -- "$corpus/bin/threads-time" 4 20000
	run exceptions SPYRT_MODE=time -- "$corpus/bin/exceptions"
	# two runs summed
	run calls2 SPYRT_MODE=time -- "$corpus/bin/calls-time"
	# GNU mode: gcc -pg and glibc's gmon.out, with the executable
	mkdir -p "$corpus/gnu" &&
		"$CC" -O2 -g -pg -no-pie -I"$samples" "$samples/calls.c" -o "$corpus/gnu/calls" 2>>"$corpus/build.log" &&
		(cd "$corpus/gnu" && ./calls >/dev/null) || return 1
	# every other sample of samples/ (shlib/ aside) in mode time (watch cpu) and arcs, its default
	# arguments, each run cut at 30 s (SPYRT_LEGS and SPYRT_HIST as t160 sets them, for nodes.c); one
	# that does not build or writes nothing is said in build.log, not an error
	local f
	for f in "$samples"/*.c "$samples"/*.cc; do
		s=$(basename "${f%.*}")
		case $s in
		calls | recursion | twocallers | flame | tailchain | tailwork | livecaller | trace | stopwatch | \
			threads | exceptions | comdat2 | livecaller-foreign | libwork | attrs) continue ;;
		esac
		local lib=()
		case $f in *.cc) lib=(-lstdc++) ;; esac
		[ "$s" = openmp ] && lib+=(-fopenmp)
		for m in time arcs; do
			"$CC" -O2 -g -I"$samples" -I"$SPY_SRC/runtime" -specs="$specs" -fplugin-arg-spyinstr-mode=$m "$f" \
				-o "$corpus/bin/$s-$m" -lpthread "${lib[@]}" 2>>"$corpus/build.log" ||
				{ echo "same-output: $s: does not build in mode $m (left out)" >>"$corpus/build.log"; continue; }
			# nodes.c with t160's legs and histograms
			(cd "$corpus" && OMP_NUM_THREADS=3 SPYRT_MODE=$m SPYRT_OUT="$s-$m.out" \
				SPYRT_LEGS='start>end,start>mid,mid>end,rin>rout,ping>pong' \
				SPYRT_HIST='node:mid:linear:0:1:8,leg:start>end:log:10' \
				timeout 30 "$corpus/bin/$s-$m" >/dev/null 2>&1)
			[ -s "$corpus/$s-$m.out" ] ||
				{ rm -f "$corpus/$s-$m.out"; echo "same-output: $s-$m: no profile (left out)" >>"$corpus/build.log"; }
		done
	done
	# the fuzz corpora's inputs without their option bytes (fuzz-NAME.c says how many): a Spy
	# profile (two back to back for the summing ones) or glibc's gmon.out of fuzz-pgprog, which is
	# gnu/calls here (the same source and flags, tests/fuzz/run.sh); kept as they are, good or bad
	mkdir -p "$corpus/fuzz" "$corpus/fuzz-gnu" || return 1
	local d skip
	for d in fuzz-gmon-decode:0 fuzz-spinprof-spy:1 fuzz-spinprof-outputs:2 fuzz-spinprof-diff:1 \
		fuzz-spinprof-gnu:1 fuzz-spinprof-gnu-outputs:2; do
		skip=${d#*:} d=${d%:*}
		for f in "$SPY_SRC/tests/fuzz/corpus/$d"/*; do
			[ -f "$f" ] || continue
			case $d in *gnu*) to=$corpus/fuzz-gnu ;; *) to=$corpus/fuzz ;; esac
			tail -c +$((skip + 1)) "$f" >"$to/$d-$(basename "$f")"
		done
	done
	touch "$corpus/.made"
}

if [ ! -f "$corpus/.made" ]; then
	rm -rf "$corpus"
	mkdir -p "$corpus" || exit 2
	make_corpus || { echo "same-output: cannot make the corpus (see $corpus/build.log)" >&2; exit 2; }
fi

# ---- the comparison ------------------------------------------------------------------------------

out_old=$corpus/out-old out_new=$corpus/out-new
rm -rf "$out_old" "$out_new"
mkdir -p "$out_old" "$out_new" || exit 2
n=0 bad=0

# compare LABEL ARG...: both binaries on the same arguments, in the corpus directory
compare() {
	local label=$1 f
	shift
	n=$((n + 1))
	f=$(printf '%04d' "$n")
	(cd "$corpus" && "$old" "$@" >"$out_old/$f.out" 2>"$out_old/$f.err"; echo $? >"$out_old/$f.rc")
	(cd "$corpus" && "$new" "$@" >"$out_new/$f.out" 2>"$out_new/$f.err"; echo $? >"$out_new/$f.rc")
	# the binary's own path in a message is no difference
	sed -i -e "s|$old|SPINPROF|g" "$out_old/$f.err"
	sed -i -e "s|$new|SPINPROF|g" "$out_new/$f.err"
	local what=
	cmp -s "$out_old/$f.rc" "$out_new/$f.rc" || what="status $(cat "$out_old/$f.rc") -> $(cat "$out_new/$f.rc")"
	cmp -s "$out_old/$f.out" "$out_new/$f.out" || what="${what:+$what, }output ($f.out)"
	cmp -s "$out_old/$f.err" "$out_new/$f.err" || what="${what:+$what, }stderr ($f.err)"
	if [ -n "$what" ]; then
		bad=$((bad + 1))
		echo "differs: $label: spinprof $*: $what"
	fi
}

formats="callgrind dot json folded svg icicle html pprof chrome"
options=("" "-b" "-p" "-q" "-b -z" "-b -T" "-b -r" "-i" "--spy --cutoff=0" "--threads" "-C" "-b -l" "-d")
# every_output PROFILE...: each report option set, --dump and every --format of PROFILE
every_output() {
	local o fmt
	for o in "${options[@]}"; do
		# shellcheck disable=SC2086
		compare "$*" $o "$@"
	done
	compare "$*" --dump "$@"
	for fmt in $formats; do
		compare "$*" --format="$fmt" "$@"
	done
}
for p in "$corpus"/*.out; do
	b=$(basename "$p")
	every_output "$b"
	case $b in
	stopwatch.out | tailwork-time-* | stopwatch-*) compare "$b" --stopwatch "$b" ;;
	trace.out | trace-*) compare "$b" --trace "$b" ;;
	esac
done
compare "summed" -b calls-time-cpu.out calls2.out
compare "summed-s" -b -s calls-time-cpu.out calls2.out
compare "diff" --diff calls-time-cpu.out calls2.out
for o in "" "-b" "-b -p" "-b -q" "-b -l" "-b -T" "-b -z" "-C" "-A" "--format=callgrind" "--format=json"; do
	# shellcheck disable=SC2086
	compare "gnu" $o gnu/calls gnu/gmon.out
done
# a fuzz input the old spinprof reads (status 0) gets every output; one it refuses, the refusal
for f in "$corpus"/fuzz/*; do
	[ -f "$f" ] || continue
	b=fuzz/$(basename "$f")
	if (cd "$corpus" && "$old" -b "$b" >/dev/null 2>&1); then
		every_output "$b"
	else
		compare "$b" -b "$b"
	fi
done
for f in "$corpus"/fuzz-gnu/*; do
	[ -f "$f" ] || continue
	b=fuzz-gnu/$(basename "$f")
	if (cd "$corpus" && "$old" -b gnu/calls "$b" >/dev/null 2>&1); then
		every_output gnu/calls "$b"
	else
		compare "$b" -b gnu/calls "$b"
	fi
done
[ -n "${SAME_KEEP:-}" ] || rm -rf "$out_old" "$out_new"
echo "$n outputs compared, $bad differ"
[ "$bad" -eq 0 ]
