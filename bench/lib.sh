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
