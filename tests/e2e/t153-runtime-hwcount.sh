#!/bin/bash
# t153: SPYRT_WATCH=cycles|instructions|cache-misses samples by a hardware counter where the machine
# has one. Where it has none (virtual machines, often), the runtime says so in one line, samples by
# cpu as by default, and the header says it (flag bit 6, no_hwcount; spinprof's header a line); where
# it has one, the samples are of that watch and nothing is said. Both take the path of the page-fault
# watch, a software event: with it, the faults the event's count weighs are exactly those its samples
# (the fault trace) list, and samples/pages.c's toucher's are at its K pages. A name
# that is no watch is one line and cpu.
. "$(dirname "$0")/lib-runtime.sh"
. "$(dirname "$0")/lib-spinprof.sh"
rt_setup
tap_plan 6

P=$T/pages
K=300
if ! check "samples/pages.c builds" rt_cc "$P" "$CC" "$SAMPLES/pages.c"; then
	for _ in $(seq 5); do not_ok "not built"; done
	tap_done
fi

hw() {
	local w=$1
	RT_ENV="SPYRT_WATCH=$w" rt_run "$P" 10 || return 1
	cat "$P.stderr"
	rt_dump "$P.out" | grep -E '^hflags|^sampling' | cut -c1-80
	if grep -q "no hardware counter" "$P.stderr"; then
		[ "$(wc -l <"$P.stderr")" = 1 ] &&
			grep -qx "spy: SPYRT_WATCH=$w: no hardware counter for it on this machine (perf_event_open: .*); using cpu" "$P.stderr" &&
			rt_dump "$P.out" | grep -qE '^hflags set=[a-z_,]*no_hwcount,' &&
			[ "$(rt_get "$P.out" sampling watch)" = cpu ] && [ "$(rt_get "$P.out" sampling divisor)" = 1 ] &&
			"$SPINPROF" "$P.out" 2>/dev/null | grep -qx 'hardware counters: none on this machine for SPYRT_WATCH; sampled by cpu time instead'
	else
		[ ! -s "$P.stderr" ] && [ "$(rt_get "$P.out" sampling watch)" = "$w" ] &&
			! rt_dump "$P.out" | grep -q 'no_hwcount'
	fi
}
for w in cycles instructions cache-misses; do
	check "SPYRT_WATCH=$w: refused in one line and the header where there is no counter, else sampled" hw $w
done

# Under ThreadSanitizer its own runtime (libtsan, run by the sanitized hooks and fault handler while
# toucher is the top frame) faults on its shadow memory too, in toucher: only the addresses of the
# region count there (each page still exactly once); elsewhere every address does.
tsan_region() {
	if [ -z "$SPY_TSAN" ]; then
		cat
		return
	fi
	local base ps a
	read -r _ base _ ps _ <"$P.stdout"
	while read -r a; do
		[ $((a)) -ge $((base)) ] && [ $((a)) -lt $((base + K * ps)) ] && echo "$a"
	done
}
shared() {
	RT_ENV="SPYRT_WATCH=faults SPYRT_FAULT_TRACE=4096" rt_run "$P" $K || return 1
	# the faults as the event's count weighs them (every stack: a signal's weight is the count since
	# the last, the handler's own faults included) and as the same event's samples list them (the
	# fault trace, the handler's own with no function): one number; toucher's samples are at its K
	# pages, each once
	local n t u
	n=$(rt_dump "$P.out" | awk '$1 == "stack" { for (i = 2; i <= NF; i++) if (index($i, "weight=") == 1) s += substr($i, 8) } END { print s + 0 }')
	t=$(rt_dump "$P.out" | awk '$1 == "tevent"' | wc -l)
	u=$(rt_dump "$P.out" | awk '$1 == "tevent" && / func=toucher / { for (i = 2; i <= NF; i++) if (index($i, "addr=") == 1) print substr($i, 6) }' |
		tsan_region | sort -u | wc -l)
	echo "faults: counted $n, sampled $t; toucher's at $u distinct addresses of $K pages"
	[ "$n" = "$t" ] && [ "$u" = $K ] && [ "$(rt_get "$P.out" trace dropped)" = 0 ]
}
check "the shared path, with the page-fault software event: faults counted = sampled; toucher's at its $K pages" shared

badname() {
	RT_ENV="SPYRT_WATCH=cycle" rt_run "$P" 10 || return 1
	cat "$P.stderr"
	[ "$(wc -l <"$P.stderr")" = 1 ] && grep -q "^spy: SPYRT_WATCH='cycle' is not none, .*cycles, instructions or cache-misses; using cpu\$" "$P.stderr" &&
		[ "$(rt_get "$P.out" sampling watch)" = cpu ]
}
check "SPYRT_WATCH=cycle: one line, cpu" badname
tap_done
