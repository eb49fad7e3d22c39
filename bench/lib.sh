# bench/lib.sh: what the benchmarks share; sourced by each, after "set -eu". Sets here (bench/), src,
# build (SPY_BUILD, default build/), plugin (SPY_PLUGIN), rtlib (SPY_RTLIB: the directory holding
# libspyrt.a and libspyrt.so, default $build) and CC (gcc).
# shellcheck shell=bash disable=SC2034
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
src=$(dirname "$here")
build=${SPY_BUILD:-$src/build}
plugin=${SPY_PLUGIN:-$build/spyinstr.so}
rtlib=${SPY_RTLIB:-$build}
CC=${CC:-gcc}

# bench_need FILE...: each must exist (the build's outputs), else one line and exit 2
bench_need() {
	local f
	for f; do
		[ -f "$f" ] || { echo "bench: $f is missing (run make first, or set SPY_BUILD)" >&2; exit 2; }
	done
}

# bench_workdir NAME: a fresh work directory in $w, removed at exit unless BENCH_KEEP=1
bench_workdir() {
	w=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	if [ "${BENCH_KEEP:-}" = 1 ]; then
		echo "work directory: $w"
	else
		trap 'rm -rf "$w"' EXIT
	fi
}

# bench_interleave RUNS OUT VARIANT...: runs every variant ("name|environment|command line"), RUNS
# rounds, interleaved so that a slow spell of the machine falls on all of them, with SPYRT_OUT=OUT.
# Keeps, by name, the fastest workload time the program printed (its "ns=N") in best[], that run's
# output in best_out[], and the fastest whole process (fork and exec included, in ns) in whole[].
# Each call starts the three arrays afresh.
bench_interleave() {
	local runs=$1 out=$2 r v name envs prog o t0 t1 ns
	shift 2
	unset best best_out whole
	declare -gA best best_out whole
	for ((r = 0; r < runs; r++)); do
		for v; do
			IFS='|' read -r name envs prog <<<"$v"
			t0=$(date +%s%N)
			# shellcheck disable=SC2086
			o=$(env $envs SPYRT_OUT="$out" $prog)
			t1=$(date +%s%N)
			if [ -z "${whole[$name]:-}" ] || [ $((t1 - t0)) -lt "${whole[$name]}" ]; then
				whole[$name]=$((t1 - t0))
			fi
			ns=$(sed -n 's/.*ns=\([0-9]*\).*/\1/p' <<<"$o")
			if [ -z "${best[$name]:-}" ] || [ "$ns" -lt "${best[$name]}" ]; then
				best[$name]=$ns
				best_out[$name]=$o
			fi
		done
	done
}

# bench_field NAME KEY: the number after "KEY=" in the output of NAME's fastest run
bench_field() {
	sed -n "s/.*$2=\\([0-9.]*\\).*/\\1/p" <<<"${best_out[$1]}"
}
