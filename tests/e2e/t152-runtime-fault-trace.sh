#!/bin/bash
# t152: the missing-page trace (Multics): with SPYRT_WATCH=faults each thread keeps its last
# SPYRT_FAULT_TRACE (default 256) page faults, from the fault event's samples (address, PC), in a
# TRACE record of kind faults. samples/pages.c's toucher writes the first byte of K fresh pages in
# address order: their K faults are the trace's, each once, at exactly those addresses, in that order,
# in toucher (a fault the kernel retried because a signal was pending is two events of one address,
# one after the other: it counted two). The events kept and dropped add up to the faults the samples weigh (the event's own
# count, read apart). SPYRT_FAULT_TRACE=16 keeps the last 16: the last of toucher's pages, and faults
# of the profiler's own (its handler's tables; no function), which are in the trace as such; 0 keeps
# none; a bad value is one line and the default. spinprof --trace prints the faults, in toucher.
. "$(dirname "$0")/lib-runtime.sh"
. "$(dirname "$0")/lib-spinprof.sh"
rt_setup
tap_plan 6

P=$T/pages
K=100
if ! check "samples/pages.c builds" rt_cc "$P" "$CC" "$SAMPLES/pages.c"; then
	for _ in $(seq 5); do not_ok "not built"; done
	tap_done
fi

# the fault events of the dump as "ADDR FUNC", and the region's K pages as "ADDR toucher"
faults() { rt_dump "$1" | awk '$1 == "tevent" { a = ""; f = ""; for (i = 2; i <= NF; i++) { if (index($i, "addr=") == 1) a = substr($i, 6); if (index($i, "func=") == 1) f = substr($i, 6) } print a, f }'; }
pages() {
	local base ps i k=${2:-$K}
	read -r _ base _ ps _ < <(grep '^region ' "$1")
	for ((i = ${3:-0}; i < k; i++)); do printf '0x%x toucher\n' $((base + i * ps)); done
}

# Under ThreadSanitizer its own runtime (libtsan, run by the sanitized hooks and fault handler while
# toucher is the top frame) faults on its shadow memory too, in toucher: only toucher's faults in the
# region are compared (each page still exactly once, in order), and the last 16 (which may all be
# libtsan's) skip.
TSAN_SHADOW="libtsan's own faults on its shadow memory, in toucher, may be the last 16"
tsan_region() {
	if [ -z "$SPY_TSAN" ]; then
		cat
		return
	fi
	local base ps a f
	read -r _ base _ ps _ <"$P.stdout"
	while read -r a f; do
		[ $((a)) -ge $((base)) ] && [ $((a)) -lt $((base + K * ps)) ] && echo "$a${f:+ $f}"
	done
}

all_pages() {
	RT_ENV="SPYRT_WATCH=faults" rt_run "$P" $K || return 1
	rt_dump "$P.out" | grep '^trace'
	[ "$(rt_dump "$P.out" | grep -c '^trace kind=faults ')" = 1 ] || return 1
	# toucher's events are the K pages, in order, each once (a fault the kernel retried, a signal
	# pending as it waited, is two faults of one address, one after the other: uniq)
	diff <(faults "$P.out" | grep ' toucher$' | tsan_region | uniq) <(pages "$P.stdout")
}
check "the K pages' faults, each once, in address order, in toucher" all_pages

sums() {
	local kept dropped weights
	kept=$(rt_get "$P.out" trace events)
	dropped=$(rt_get "$P.out" trace dropped)
	weights=$(rt_dump "$P.out" | awk '$1 == "stack" { for (i = 2; i <= NF; i++) if (index($i, "weight=") == 1) s += substr($i, 8) } END { print s + 0 }')
	echo "kept $kept + dropped $dropped = weights $weights"
	[ $((kept + dropped)) = "$weights" ] && [ "$kept" -le 256 ]
}
check "events kept and dropped add up to the faults the samples weigh" sums

last16() {
	[ -z "$SPY_TSAN" ] || return 0
	RT_ENV="SPYRT_WATCH=faults SPYRT_FAULT_TRACE=16" rt_run "$P" $K || return 1
	rt_dump "$P.out" | grep '^trace'
	# the last 16: toucher's last pages, and the profiler's own faults (no function) among them
	local n
	n=$(faults "$P.out" | grep ' toucher$' | uniq | wc -l)
	[ "$(rt_get "$P.out" trace events)" = 16 ] && [ "$n" -ge 1 ] &&
		[ "$(faults "$P.out" | grep -vc ' toucher$')" = "$(faults "$P.out" | grep -c ' <spontaneous>$')" ] &&
		diff <(faults "$P.out" | grep ' toucher$' | uniq) <(pages "$P.stdout" $K $((K - n)))
}
check "SPYRT_FAULT_TRACE=16: the last 16 faults, toucher's last pages and the profiler's own$(tsan_skip "$TSAN_SHADOW")" last16

zero_bad() {
	RT_ENV="SPYRT_WATCH=faults SPYRT_FAULT_TRACE=0" rt_run "$P" 10 || return 1
	rt_dump "$P.out" | grep -q '^trace' && { echo "a trace with SPYRT_FAULT_TRACE=0"; return 1; }
	RT_ENV="SPYRT_WATCH=faults SPYRT_FAULT_TRACE=lots" rt_run "$P" 10 || return 1
	cat "$P.stderr"
	[ "$(wc -l <"$P.stderr")" = 1 ] && grep -q "^spy: SPYRT_FAULT_TRACE='lots'" "$P.stderr" &&
		[ "$(rt_get "$P.out" trace events)" -gt 0 ]
}
check "SPYRT_FAULT_TRACE=0: no trace; a bad value: one line and the default" zero_bad

printed() {
	RT_ENV="SPYRT_WATCH=faults" rt_run "$P" $K || return 1
	"$SPINPROF" --trace "$P.out" >"$P.txt" || return 1
	grep -m3 ' fault ' "$P.txt"
	diff <(awk '$3 == "fault" && $NF == "toucher" { print $5 }' "$P.txt" | tsan_region | uniq) <(pages "$P.stdout" | cut -d' ' -f1) &&
		[ "$(awk '$3 == "fault" && $NF == "toucher" && $7 !~ /^toucher\+0x/ { print $5 }' "$P.txt" | tsan_region | wc -l)" = 0 ] &&
		grep -qE "^trace of faults, thread [0-9]+: [0-9]+ events, [0-9]+ dropped" "$P.txt"
}
check "spinprof --trace: toucher's faults, their addresses and PCs in toucher" printed
tap_done
