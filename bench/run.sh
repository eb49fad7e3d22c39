#!/bin/bash
# bench/run.sh: what instrumentation costs per call. Builds bench.c plain -O2, with -pg, with
# -finstrument-functions (empty hooks), and with the spy plugin; runs every variant RUNS times,
# interleaved, keeping each one's fastest run; prints slowdown and extra ns per call side by side with
# the cost of one TSC read measured in the same run, then the memory figures of bench/mem.c, then the
# goals and whether they are met: linked statically, the workload's own time: count <= 2x, arcs <= 4x,
# time <= 2 TSC reads + 5 ns per call; as users link it (libspyrt.so), the whole process's time: count
# <= 1.1x, arcs <= 2.5x, time <= 2 TSC reads + 2 ns per call; memory <= 1 MiB per thread + 64 bytes
# per arc.
#
# usage: bench/run.sh [RUNS]      (default 5)
# env:   SPY_BUILD (default build/), SPY_PLUGIN ($SPY_BUILD/spyinstr.so), SPY_RTLIB (the directory
#        holding libspyrt.a and libspyrt.so, default $SPY_BUILD), CC (gcc), BENCH_KEEP=1 keeps the
#        work directory. Exit status 1 when a goal is missed.
set -eu

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs=${1:-5}

bench_need "$plugin" "$rtlib/libspyrt.a" "$rtlib/libspyrt.so"
bench_workdir spy-bench
cd "$w"

O=-O2
# the runtime as a static library: the hooks are direct calls, as in a static link of a real program
spy_static="$rtlib/libspyrt.a -lpthread -ldl -lz"
spy_shared="-L$rtlib -lspyrt -Wl,-rpath,$rtlib"
set -x
$CC $O "$here/bench.c" -o plain
$CC $O -pg "$here/bench.c" -o pg
$CC $O -c "$here/cyg-hooks.c" -o cyg-hooks.o
$CC $O -finstrument-functions "$here/bench.c" cyg-hooks.o -o finstr
$CC $O -fplugin="$plugin" -fplugin-arg-spyinstr-mode=count "$here/bench.c" $spy_static -o spy-count
$CC $O -fplugin="$plugin" -fplugin-arg-spyinstr-mode=arcs "$here/bench.c" $spy_static -o spy-arcs
$CC $O -fplugin="$plugin" -fplugin-arg-spyinstr-mode=time "$here/bench.c" $spy_static -o spy-hooks
$CC $O -fplugin="$plugin" -fplugin-arg-spyinstr-mode=time "$here/bench.c" $spy_shared -o spy-hooks-so
$CC $O -fplugin="$plugin" -fplugin-arg-spyinstr-mode=count "$here/bench.c" $spy_shared -o spy-count-so
$CC $O -fplugin="$plugin" -fplugin-arg-spyinstr-mode=arcs "$here/bench.c" $spy_shared -o spy-arcs-so
# the floor of the hook calls: the same instrumented code with the hooks of mode time (ABI 5:
# __spy_entry, __spy_leave, __spy_tail) emptied
printf '%s\n' 'void __spy_entry(void *s, void *c, void *f) { (void)s; (void)c; (void)f; __asm__ volatile(""); }' \
	'void __spy_leave(void *s, void *f) { (void)s; (void)f; __asm__ volatile(""); }' \
	'void __spy_tail(void *s, void *c, void *f) { (void)s; (void)c; (void)f; __asm__ volatile(""); }' >empty-hooks.c
$CC $O -c empty-hooks.c -o empty-hooks.o
objcopy -W __spy_entry -W __spy_leave -W __spy_tail "$rtlib/libspyrt.a" libspyrt-weak.a
$CC $O -fplugin="$plugin" -fplugin-arg-spyinstr-mode=time "$here/bench.c" empty-hooks.o libspyrt-weak.a \
	-lpthread -ldl -lz -o spy-empty
$CC $O -I"$src/runtime" -I"$src/common" "$here/mem.c" $spy_static -o mem
{ set +x; } 2>/dev/null

# name | environment | program
variants=(
	"plain -O2||./plain"
	"gprof -pg||./pg"
	"-finstrument-functions, empty hooks||./finstr"
	"spy count|SPYRT_MODE=count|./spy-count"
	"spy count, libspyrt.so|SPYRT_MODE=count|./spy-count-so"
	"spy hooks inserted, SPYRT_MODE=count|SPYRT_MODE=count|./spy-hooks"
	"spy hooks called, empty bodies (floor)||./spy-empty"
	"spy arcs (mode=arcs: inline, ABI 7)|SPYRT_MODE=arcs|./spy-arcs"
	"spy arcs, libspyrt.so|SPYRT_MODE=arcs|./spy-arcs-so"
	"spy arcs, mode=time build (both hooks)|SPYRT_MODE=arcs|./spy-hooks"
	"spy time|SPYRT_MODE=time|./spy-hooks"
	"spy time, libspyrt.so|SPYRT_MODE=time|./spy-hooks-so"
)
bench_interleave "$runs" "$w/gmon.spy" "${variants[@]}"
calls=$(bench_field "plain -O2" calls)
# the TSC's cost, the fastest of as many runs
best_tsc=
best_tsc_cyc=
for ((r = 0; r < runs; r++)); do
	out=$(./plain --tsc)
	t=$(sed -n 's/.*tsc_ns=\([0-9.]*\).*/\1/p' <<<"$out")
	c=$(sed -n 's/.*tsc_cycles=\([0-9.]*\).*/\1/p' <<<"$out")
	if [ -z "$best_tsc" ] || awk -v a="$t" -v b="$best_tsc" 'BEGIN { exit !(a < b) }'; then
		best_tsc=$t
		best_tsc_cyc=$c
	fi
done

base=${best["plain -O2"]}
echo
echo "bench.c: fib(32) + 20 M x step() -> $calls calls; fastest of $runs runs each; $(nproc) CPUs"
echo "one TSC read: $best_tsc ns ($best_tsc_cyc cycles)"
echo
wbase=${whole["plain -O2"]}
echo "the workload's own time (bench.c's clock), then the whole process's (start-up and the profile's"
echo "writing included, the shell's fork and exec too):"
printf '%-40s %10s %9s %14s %11s %9s %10s\n' variant "time ms" slowdown "extra ns/call" "process ms" slowdown \
	"max RSS KiB"
for v in "${variants[@]}"; do
	IFS='|' read -r name _ _ <<<"$v"
	awk -v n="$name" -v t="${best[$name]}" -v b="$base" -v c="$calls" -v kb="$(bench_field "$name" rss_kb)" \
		-v wt="${whole[$name]}" -v wb="$wbase" \
		'BEGIN { printf "%-40s %10.1f %8.2fx %14.2f %11.1f %8.2fx %10d\n", n, t / 1e6, t / b, (t - b) / c,
			wt / 1e6, wt / wb, kb }'
done

# uftrace, the other tracer that yields exact times per call: its trace of the full run would be
# gigabytes, so it runs at a tenth of the work, beside plain and spy time at the same size
if command -v uftrace >/dev/null 2>&1; then
	small=(
		"plain -O2||./plain --small"
		"uftrace record (-pg build)||uftrace record -d $w/uftrace.data ./pg --small"
		"spy time|SPYRT_MODE=time|./spy-hooks --small"
	)
	declare -A sbest
	for ((r = 0; r < runs; r++)); do
		for v in "${small[@]}"; do
			IFS='|' read -r name envs prog <<<"$v"
			# shellcheck disable=SC2086
			out=$(env $envs SPYRT_OUT="$w/gmon.spy" $prog)
			ns=$(sed -n 's/.*ns=\([0-9]*\).*/\1/p' <<<"$out")
			scalls=$(sed -n 's/.*calls=\([0-9]*\).*/\1/p' <<<"$out")
			if [ -z "${sbest[$name]:-}" ] || [ "$ns" -lt "${sbest[$name]}" ]; then
				sbest[$name]=$ns
			fi
			rm -rf "$w/uftrace.data"
		done
	done
	sbase=${sbest["plain -O2"]}
	echo
	echo "at a tenth of the work (bench --small: $scalls calls), with uftrace $(uftrace --version | sed -n '1s/^uftrace \(v[^ ]*\).*/\1/p'):"
	for v in "${small[@]}"; do
		IFS='|' read -r name _ _ <<<"$v"
		awk -v n="$name" -v t="${sbest[$name]}" -v b="$sbase" -v c="$scalls" \
			'BEGIN { printf "%-40s %10.1f %8.2fx %14.2f\n", n, t / 1e6, t / b, (t - b) / c }'
	done
else
	echo
	echo "uftrace: not installed (make deps installs it), its column is left out"
fi

echo
echo "memory (bench/mem.c, runtime linked statically):"
memout=$(./mem)
sed 's/^/  /' <<<"$memout"

echo
status=0
goal() {
	local what=$1 ok=$2
	if [ "$ok" = 1 ]; then
		echo "goal met:    $what"
	else
		echo "goal missed: $what"
		status=1
	fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# linked statically, the workload's own time (the goals of the first round)
cnt=$(ratio "${best["spy count"]}" "$base")
arcs=$(ratio "${best["spy arcs (mode=arcs: inline, ABI 7)"]}" "$base")
tx=$(awk -v t="${best["spy time"]}" -v b="$base" -v c="$calls" 'BEGIN { printf "%.2f", (t - b) / c }')
tlim=$(awk -v s="$best_tsc" 'BEGIN { printf "%.2f", 2 * s + 5 }')
goal "spy count ${cnt}x <= 2x" "$(awk -v r="$cnt" 'BEGIN { print (r <= 2) }')"
goal "spy arcs (mode=arcs build) ${arcs}x <= 4x" "$(awk -v r="$arcs" 'BEGIN { print (r <= 4) }')"
goal "spy time +$tx ns/call <= 2 TSC reads + 5 ns = $tlim ns" "$(awk -v a="$tx" -v b="$tlim" 'BEGIN { print (a <= b) }')"
# as users link it (-lspyrt, the shared library: every hook through the GOT), whole process
wcnt=$(ratio "${whole["spy count, libspyrt.so"]}" "$wbase")
warcs=$(ratio "${whole["spy arcs, libspyrt.so"]}" "$wbase")
wtx=$(awk -v t="${whole["spy time, libspyrt.so"]}" -v b="$wbase" -v c="$calls" 'BEGIN { printf "%.2f", (t - b) / c }')
wtlim=$(awk -v s="$best_tsc" 'BEGIN { printf "%.2f", 2 * s + 2 }')
goal "as users link it (libspyrt.so, whole process): spy count ${wcnt}x <= 1.1x" \
	"$(awk -v r="$wcnt" 'BEGIN { print (r <= 1.1) }')"
goal "as users link it (libspyrt.so, whole process): spy arcs ${warcs}x <= 2.5x" \
	"$(awk -v r="$warcs" 'BEGIN { print (r <= 2.5) }')"
goal "as users link it (libspyrt.so, whole process): spy time +$wtx ns/call <= 2 TSC reads + 2 ns = $wtlim ns" \
	"$(awk -v a="$wtx" -v b="$wtlim" 'BEGIN { print (a <= b) }')"
goal "memory: 1 MiB per thread + 64 bytes per arc (one thread, 1 M arcs)" \
	"$(grep -q '^budget:.*: within$' <<<"$memout" && echo 1 || echo 0)"
goal "memory: a thread with few arcs costs <= 1 MiB" \
	"$(awk '/^threads:/ { print ($(NF - 3) <= 1024) }' <<<"$memout")"
exit $status
