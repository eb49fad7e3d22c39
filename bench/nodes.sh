#!/bin/bash
# bench/nodes.sh: what Mesa's nodes cost, per pass, side by side: bench/nodes.c built with SPY_NO_NODES
# (no node at all), without libspyrt (spy.h's weak functions: a test of a null pointer), and with
# libspyrt (shared, as users link it) counting the nodes only (SPYRT_LEG_TRACK=none) and timing the leg
# start>end (SPYRT_LEGS, tracking all). Each variant RUNS times, interleaved, the fastest kept.
# Code without nodes pays nothing for them: the function hooks (runtime/hooks.c) never look at nodes,
# and bench/run.sh measures them.
#
# usage: bench/nodes.sh [RUNS]      (default 5)
set -eu

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs=${1:-5}

bench_need "$rtlib/libspyrt.so"
bench_workdir spy-nodes
cd "$w"

$CC -O2 -DSPY_NO_NODES -I"$src/runtime" "$here/nodes.c" -o none
$CC -O2 -I"$src/runtime" "$here/nodes.c" -o weak
# no plugin here: --no-as-needed keeps libspyrt, which only weak references name
$CC -O2 -I"$src/runtime" "$here/nodes.c" -L"$rtlib" -Wl,--no-as-needed -lspyrt -Wl,--as-needed -Wl,-rpath,"$rtlib" -o spy

variants=(
	"no nodes (SPY_NO_NODES)||./none"
	"nodes, without libspyrt||./weak"
	"nodes counted (SPYRT_LEG_TRACK=none)|SPYRT_LEG_TRACK=none|./spy"
	"nodes and the leg start>end timed|SPYRT_LEGS=start>end|./spy"
)
bench_interleave "$runs" "$w/gmon.out" "${variants[@]}"
passes=$(bench_field "no nodes (SPY_NO_NODES)" passes)
base=${best["no nodes (SPY_NO_NODES)"]}
echo "bench/nodes.c: $passes node passes; fastest of $runs runs each"
printf '%-42s %10s %16s\n' variant "time ms" "extra ns/pass"
for v in "${variants[@]}"; do
	IFS='|' read -r name _ _ <<<"$v"
	awk -v n="$name" -v t="${best[$name]}" -v b="$base" -v p="$passes" \
		'BEGIN { printf "%-42s %10.1f %16.2f\n", n, t / 1e6, (t - b) / p }'
done
