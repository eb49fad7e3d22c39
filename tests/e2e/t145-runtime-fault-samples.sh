#!/bin/bash
# t145: page-fault samples count the program's faults, not the profiler's (issue 23, item 11).
# samples/pages.c's toucher writes the first byte of K fresh pages: with SPYRT_WATCH=faults (a signal
# every fault) the stacks at toucher's PCs weigh exactly K in every mode, as `perf record -e
# page-faults -c 1` counts for the plain build. Before, they weighed K+2 to K+4: the event stays
# enabled in the sampling handler, whose own faults (fresh pages of its tables) were the weight of the
# next signal, at toucher's PC. Those are the profiler's now (stacks flagged runtime, in_runtime). A
# fault the kernel retried because a signal was pending is counted twice by the kernel itself: the
# fault trace (SPYRT_FAULT_TRACE, every event kept) shows it as one address twice in a row, and the
# expected weight counts it.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 4

P=$T/pages
K=1000
if ! check "samples/pages.c builds" rt_cc "$P" "$CC" "$SAMPLES/pages.c"; then
	for _ in 1 2 3; do not_ok "not built"; done
	tap_done
fi

# toucher's [start, end) in the binary (nm -S)
read -r t_start t_size < <(nm -S "$P" | awk '$4 == "toucher" { print $1, $2 }')

weighed() {
	local mode=$1 dump base want retried got
	[ -z "$SPY_TSAN" ] || return 0
	RT_ENV="SPYRT_MODE=$mode SPYRT_WATCH=faults SPYRT_FAULT_TRACE=4096" rt_run "$P" $K || return 1
	dump=$(rt_dump "$P.out")
	base=$(awk '$1 == "module" && / flags=main/ { for (i = 2; i <= NF; i++) if (index($i, "base=") == 1) print substr($i, 6) }' <<<"$dump")
	# the kernel's retries of one fault: an address of the region twice in a row in toucher
	retried=$(awk '$1 == "tevent" && / func=toucher/ { for (i = 2; i <= NF; i++) if (index($i, "addr=") == 1) a = substr($i, 6)
			if (a == last) n++; last = a } END { print n + 0 }' <<<"$dump")
	local lo pc w
	lo=$((base + 0x$t_start))
	got=0
	while read -r pc w; do
		((pc >= lo && pc < lo + 0x$t_size)) && got=$((got + w))
	done < <(awk '$1 == "stack" { pc = ""; w = 0
			for (i = 2; i <= NF; i++) { if (index($i, "pc=") == 1) pc = substr($i, 4); if (index($i, "weight=") == 1) w = substr($i, 8) }
			print pc, w }' <<<"$dump")
	want=$((K + retried))
	echo "mode $mode: toucher's samples weigh $got, want $K + $retried retried; in the profiler: $(grep -o 'in_runtime=[0-9]*' <<<"$dump")"
	[ "$got" = "$want" ]
}
for m in count arcs time; do
	check "mode $m: toucher's fault samples weigh its $K faults exactly$(tsan_skip "libtsan's own faults on its shadow memory happen in toucher")" weighed $m
done
tap_done
